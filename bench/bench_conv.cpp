// 2-D convolution, batch 32, 3 -> 64 channels, 56x56, 3x3 kernels, SAME:
// lax::conv forward, and forward plus backward (the value and both
// gradients of sum(conv(x, w) * c)) eager and under jit, beside a
// hand-written im2col + Eigen GEMM doing the same work on the same data,
// over the same OpenMP threads; and the same convolution in the layout Flax
// uses (NHWC input and output, HWIO kernels) beside it in NCHW. JAX's
// figures: bench/conv_jax.py.
#include <benchmark/benchmark.h>

#include <Eigen/Core>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/testing/allclose.hpp>

namespace jnp = jaxcc::numpy;
namespace lax = jaxcc::lax;
using jaxcc::Array;

namespace {

constexpr std::int64_t batch = 32, in_channels = 3, out_channels = 64, size = 56, kernel = 3;
constexpr std::int64_t pixels = size * size, patch = in_channels * kernel * kernel;

Array<float> filled(jaxcc::Shape const& shape, float scale) {
  return jnp::reshape(jnp::sin(jnp::arange<float>(shape.numel()) * scale), shape);
}

struct Problem {
  Array<float> x = filled({batch, in_channels, size, size}, 0.37f);
  Array<float> w = filled({out_channels, in_channels, kernel, kernel}, 0.53f);
  Array<float> c = filled({batch, out_channels, size, size}, 0.11f);
};

using Matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using ConstMap = Eigen::Map<Matrix const>;
using Map = Eigen::Map<Matrix>;

/// im2col of one image (channels, size, size): (patch, pixels), SAME padding.
void im2col(float const* image, float* cols) {
  for (std::int64_t ch = 0; ch < in_channels; ++ch)
    for (std::int64_t ky = 0; ky < kernel; ++ky)
      for (std::int64_t kx = 0; kx < kernel; ++kx) {
        float* row = cols + ((ch * kernel + ky) * kernel + kx) * pixels;
        for (std::int64_t y = 0; y < size; ++y) {
          auto const sy = y + ky - 1;
          for (std::int64_t x = 0; x < size; ++x) {
            auto const sx = x + kx - 1;
            row[y * size + x] =
                sy >= 0 && sy < size && sx >= 0 && sx < size ? image[(ch * size + sy) * size + sx] : 0.0f;
          }
        }
      }
}

/// The transpose of im2col: each column entry added back to its pixel.
void col2im(float const* cols, float* image) {
  std::fill(image, image + in_channels * pixels, 0.0f);
  for (std::int64_t ch = 0; ch < in_channels; ++ch)
    for (std::int64_t ky = 0; ky < kernel; ++ky)
      for (std::int64_t kx = 0; kx < kernel; ++kx) {
        float const* row = cols + ((ch * kernel + ky) * kernel + kx) * pixels;
        for (std::int64_t y = 0; y < size; ++y) {
          auto const sy = y + ky - 1;
          if (sy < 0 || sy >= size) continue;
          for (std::int64_t x = 0; x < size; ++x) {
            auto const sx = x + kx - 1;
            if (sx >= 0 && sx < size) image[(ch * size + sy) * size + sx] += row[y * size + x];
          }
        }
      }
}

/// Hand-written forward: y_n = W (64 x 27) * im2col(x_n) (27 x 3136), images over threads.
void handwritten_forward(float const* x, float const* w, float* y) {
#pragma omp parallel
  {
    std::vector<float> cols(static_cast<std::size_t>(patch * pixels));
#pragma omp for schedule(static)
    for (std::int64_t n = 0; n < batch; ++n) {
      im2col(x + n * in_channels * pixels, cols.data());
      Map(y + n * out_channels * pixels, out_channels, pixels).noalias() =
          ConstMap(w, out_channels, patch) * ConstMap(cols.data(), patch, pixels);
    }
  }
}

/// Hand-written forward and backward of sum(y * c): the loss, dW = sum_n
/// c_n im2col(x_n)^T (per-thread sums, then added) and dx_n = col2im(W^T c_n).
float handwritten_forward_backward(float const* x, float const* w, float const* c, float* y, float* dw, float* dx) {
  float loss = 0.0f;
  std::vector<Matrix> partial(static_cast<std::size_t>(omp_get_max_threads()), Matrix::Zero(out_channels, patch));
#pragma omp parallel reduction(+ : loss)
  {
    std::vector<float> cols(static_cast<std::size_t>(patch * pixels)), dcols(cols.size());
    auto& dw_part = partial[static_cast<std::size_t>(omp_get_thread_num())];
#pragma omp for schedule(static)
    for (std::int64_t n = 0; n < batch; ++n) {
      im2col(x + n * in_channels * pixels, cols.data());
      ConstMap const columns(cols.data(), patch, pixels), cn(c + n * out_channels * pixels, out_channels, pixels);
      Map yn(y + n * out_channels * pixels, out_channels, pixels);
      yn.noalias() = ConstMap(w, out_channels, patch) * columns;
      loss += yn.cwiseProduct(cn).sum();
      dw_part.noalias() += cn * columns.transpose();
      Map(dcols.data(), patch, pixels).noalias() = ConstMap(w, out_channels, patch).transpose() * cn;
      col2im(dcols.data(), dx + n * in_channels * pixels);
    }
  }
  Map dw_total(dw, out_channels, patch);
  dw_total.setZero();
  for (auto const& part : partial) dw_total += part;
  return loss;
}

auto const loss = [](Array<float> const& x, Array<float> const& w, Array<float> const& c) {
  return jnp::sum(lax::conv(x, w, {1, 1}, "SAME") * c);
};

void BM_jaxcc_conv_forward(benchmark::State& state) {
  Problem p;
  for (auto _ : state) {
    auto y = lax::conv(p.x, p.w, {1, 1}, "SAME");
    benchmark::DoNotOptimize(y.data());
  }
}

void BM_handwritten_conv_forward(benchmark::State& state) {
  Problem p;
  std::vector<float> y(static_cast<std::size_t>(batch * out_channels * pixels));
  for (auto _ : state) {
    handwritten_forward(p.x.data(), p.w.data(), y.data());
    benchmark::DoNotOptimize(y.data());
  }
}

/// How far two float32 sums of the loss's 6.4M terms, taken in different
/// orders, may differ: the loss (about -21) is a sum that cancels, its terms'
/// magnitudes adding up to about 3e7, and a reordered float32 sum's error
/// scales with that sum, not with the loss. 1e-7·sum|term| (about 3) is far
/// below the worst-case bound (n·eps·sum|term|) and well above the
/// differences seen (3e-4 between NHWC and NCHW eagerly).
double loss_tolerance(Array<float> const& x, Array<float> const& w, Array<float> const& c) {
  return 1e-7 * jnp::sum(jnp::abs(lax::conv(x, w, {1, 1}, "SAME") * c)).astype<double>().item();
}

void BM_jaxcc_conv_forward_backward(benchmark::State& state) {
  Problem p;
  auto const step = jaxcc::value_and_grad(loss, jaxcc::argnums<0, 1>);
  for (auto _ : state) {
    auto out = step(p.x, p.w, p.c);
    benchmark::DoNotOptimize(std::get<0>(out.second).data());
  }
}

void BM_jaxcc_jit_conv_forward_backward(benchmark::State& state) {
  Problem p;
  auto const step = jaxcc::jit(jaxcc::value_and_grad(loss, jaxcc::argnums<0, 1>));
  // jit runs the step in slices of the batch (docs/jit.md): the same
  // gradients as the eager step's, up to the order of the batch sums.
  {
    auto const [value, grads] = step(p.x, p.w, p.c);
    auto const [eager_value, eager_grads] = jaxcc::value_and_grad(loss, jaxcc::argnums<0, 1>)(p.x, p.w, p.c);
    bool const same = jaxcc::testing::allclose(value, eager_value, 0.0, loss_tolerance(p.x, p.w, p.c)) &&
                      jaxcc::testing::allclose(std::get<0>(grads), std::get<0>(eager_grads), 1e-4, 1e-3) &&
                      jaxcc::testing::allclose(std::get<1>(grads), std::get<1>(eager_grads), 1e-4, 1e-3);
    if (!same) state.SkipWithError("jit's gradients differ from the eager ones");
  }
  for (auto _ : state) {
    auto out = step(p.x, p.w, p.c);
    benchmark::DoNotOptimize(std::get<0>(out.second).data());
  }
}

/// The problem in Flax's layout: x and c NHWC, w HWIO (the same values).
struct FlaxProblem {
  Problem p;
  Array<float> x = jaxcc::detail::contiguous(jnp::transpose(p.x, {0, 2, 3, 1}));
  Array<float> w = jaxcc::detail::contiguous(jnp::transpose(p.w, {2, 3, 1, 0}));
  Array<float> c = jaxcc::detail::contiguous(jnp::transpose(p.c, {0, 2, 3, 1}));
};
lax::ConvSpecs const flax_layout("NHWC", "HWIO", "NHWC");

auto const flax_loss = [](Array<float> const& x, Array<float> const& w, Array<float> const& c) {
  return jnp::sum(lax::conv_general_dilated(x, w, {1, 1}, "SAME", {}, {}, flax_layout) * c);
};

void BM_jaxcc_conv_forward_nhwc(benchmark::State& state) {
  FlaxProblem f;
  for (auto _ : state) {
    auto y = lax::conv_general_dilated(f.x, f.w, {1, 1}, "SAME", {}, {}, flax_layout);
    benchmark::DoNotOptimize(y.data());
  }
}

void BM_jaxcc_jit_conv_forward_backward_nhwc(benchmark::State& state) {
  FlaxProblem f;
  auto const step = jaxcc::jit(jaxcc::value_and_grad(flax_loss, jaxcc::argnums<0, 1>));
  {
    // The same loss and gradients (transposed) as the NCHW step's.
    auto const [value, grads] = step(f.x, f.w, f.c);
    auto const [nchw_value, nchw_grads] = jaxcc::value_and_grad(loss, jaxcc::argnums<0, 1>)(f.p.x, f.p.w, f.p.c);
    bool const same = jaxcc::testing::allclose(value, nchw_value, 0.0, loss_tolerance(f.p.x, f.p.w, f.p.c)) &&
                      jaxcc::testing::allclose(jnp::transpose(std::get<0>(grads), {0, 3, 1, 2}),
                                               std::get<0>(nchw_grads), 1e-4, 1e-3) &&
                      jaxcc::testing::allclose(jnp::transpose(std::get<1>(grads), {3, 2, 0, 1}),
                                               std::get<1>(nchw_grads), 1e-4, 1e-3);
    if (!same) state.SkipWithError("the NHWC gradients differ from the NCHW ones");
  }
  for (auto _ : state) {
    auto out = step(f.x, f.w, f.c);
    benchmark::DoNotOptimize(std::get<0>(out.second).data());
  }
}

void BM_handwritten_conv_forward_backward(benchmark::State& state) {
  Problem p;
  std::vector<float> y(static_cast<std::size_t>(batch * out_channels * pixels));
  std::vector<float> dw(static_cast<std::size_t>(out_channels * patch)), dx(static_cast<std::size_t>(p.x.size()));
  // Both compute the same gradients: compare once, before timing.
  handwritten_forward_backward(p.x.data(), p.w.data(), p.c.data(), y.data(), dw.data(), dx.data());
  auto const [gx, gw] = jaxcc::grad(loss, jaxcc::argnums<0, 1>)(p.x, p.w, p.c);
  float worst = 0.0f;
  for (std::int64_t i = 0; i < gx.size(); ++i) worst = std::max(worst, std::abs(gx.data()[i] - dx[static_cast<std::size_t>(i)]));
  for (std::int64_t i = 0; i < gw.size(); ++i)
    worst = std::max(worst, std::abs(gw.data()[i] - dw[static_cast<std::size_t>(i)]) / 100.0f);
  if (worst > 1e-3f) state.SkipWithError("the hand-written gradients differ from jaxcc's");
  for (auto _ : state) {
    auto l = handwritten_forward_backward(p.x.data(), p.w.data(), p.c.data(), y.data(), dw.data(), dx.data());
    benchmark::DoNotOptimize(l);
    benchmark::DoNotOptimize(dx.data());
  }
}

}  // namespace

BENCHMARK(BM_jaxcc_conv_forward)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_handwritten_conv_forward)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_jaxcc_conv_forward_backward)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_jaxcc_jit_conv_forward_backward)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_handwritten_conv_forward_backward)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_jaxcc_conv_forward_nhwc)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_jaxcc_jit_conv_forward_backward_nhwc)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_MAIN();
