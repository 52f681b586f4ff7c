// Training a small convolutional network: two 3x3 convolutions (lax::conv)
// with ReLU and 2x2 max pooling (lax::reduce_window with lax::max), then a
// dense layer to four classes, trained by gradient descent on the softmax
// cross-entropy with a jitted value_and_grad step.
//
// The data: 512 noisy 8x8 images of one of four strokes, drawn at a random
// place — a horizontal bar, a vertical bar, a diagonal, an anti-diagonal —
// labelled by the stroke. The first 384 train; the last 128 are held out.
#include <cmath>
#include <cstdlib>
#include <cstdint>
#include <iomanip>
#include <iostream>
#include <limits>
#include <utility>
#include <vector>

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/random.hpp>

namespace jnp = jaxcc::numpy;
namespace jr = jaxcc::random;
namespace lax = jaxcc::lax;
using jaxcc::Array;

constexpr std::int64_t size = 8, classes = 4;

struct Params {
  Array<float> conv1, bias1, conv2, bias2, dense, bias3;
};
JAXCC_PYTREE(Params, conv1, bias1, conv2, bias2, dense, bias3)

/// 2x2 max pooling of an NCHW batch.
Array<float> max_pool(Array<float> const& x) {
  return lax::reduce_window(x, -std::numeric_limits<float>::infinity(), lax::max, {1, 1, 2, 2}, {1, 1, 2, 2}, "VALID");
}

/// Logits of a batch of images (N, 1, 8, 8): (N, 4).
Array<float> logits(Params const& p, Array<float> const& images) {
  auto const layer = [](Array<float> const& x, Array<float> const& w, Array<float> const& b) {
    // The bias broadcast over the batch and the pixels: (C,) as (1, C, 1, 1).
    return max_pool(jaxcc::nn::relu(lax::conv(x, w, {1, 1}, "SAME") + jnp::reshape(b, {1, -1, 1, 1})));
  };
  auto const h = layer(layer(images, p.conv1, p.bias1), p.conv2, p.bias2);  // (N, 16, 2, 2)
  return jnp::matmul(jnp::reshape(h, {h.shape()[0], -1}), p.dense) + p.bias3;
}

Array<float> loss(Params const& p, Array<float> const& images, Array<float> const& targets) {
  return -jnp::mean(jnp::sum(jaxcc::nn::log_softmax(logits(p, images)) * targets, -1));
}

/// n images of random strokes at random places, with noise, and their labels.
std::pair<Array<float>, Array<std::int32_t>> strokes(jr::Key auto const& key, std::int64_t n) {
  auto const keys = jr::split(key, 3);
  auto const labels = jr::randint(keys[0], {n}, 0, classes).to_vector();
  auto const offsets = jr::randint(keys[1], {n, 2}, 0, 4).to_vector();
  std::vector<float> pixels(static_cast<std::size_t>(n * size * size), 0.0f);
  for (std::int64_t i = 0; i < n; ++i) {
    auto const r0 = offsets[static_cast<std::size_t>(2 * i)], c0 = offsets[static_cast<std::size_t>(2 * i + 1)];
    for (std::int64_t t = 0; t < 5; ++t) {
      std::int64_t r = r0 + 2, c = c0 + 2;  // a 5-pixel stroke through (r0 + 2, c0 + 2)
      switch (labels[static_cast<std::size_t>(i)]) {
        case 0: c = c0 + t; break;
        case 1: r = r0 + t; break;
        case 2: r = r0 + t, c = c0 + t; break;
        default: r = r0 + t, c = c0 + 4 - t; break;
      }
      pixels[static_cast<std::size_t>((i * size + r) * size + c)] = 1.0f;
    }
  }
  Array<float> const images =
      jnp::array(pixels, {n, 1, size, size}) + 0.3f * jr::normal(keys[2], {n, 1, size, size});
  return {images, jnp::array(labels, {n})};
}

int main(int argc, char** argv) {
  // The number of training steps: 300, or the first argument (the test
  // build runs a few under the sanitizers).
  int const steps = argc > 1 ? std::atoi(argv[1]) : 300;
  auto const keys = jr::split(jr::key(0), 5);
  auto const [images, labels] = strokes(keys[0], 512);
  auto const train = jaxcc::slice(0, 384), held_out = jaxcc::slice(384, 512);
  Array<float> const train_x = images(train), test_x = images(held_out);
  Array<std::int32_t> const train_y = labels(train), test_y = labels(held_out);
  Array<float> const targets = jaxcc::nn::one_hot(train_y, classes);

  // He-style initial weights: normal of scale sqrt(2 / fan_in), zero biases.
  auto const he = [](auto const& k, jaxcc::Shape const& shape, float fan_in) {
    return Array<float>(jr::normal(k, shape) * std::sqrt(2.0f / fan_in));
  };
  Params params{he(keys[1], {8, 1, 3, 3}, 9.0f),     jnp::zeros<float>({8}),
                he(keys[2], {16, 8, 3, 3}, 72.0f),   jnp::zeros<float>({16}),
                he(keys[3], {64, classes}, 64.0f),   jnp::zeros<float>({classes})};

  float const learning_rate = 0.1f;
  auto step = jaxcc::jit([learning_rate](Params const& p, Array<float> const& x, Array<float> const& y) {
    auto [value, g] = jaxcc::value_and_grad(loss)(p, x, y);
    Params next = jaxcc::tree::map(
        [&](Array<float> const& w, Array<float> const& dw) { return Array<float>(w - learning_rate * dw); }, p, g);
    return std::pair{next, value};
  });

  std::cout << std::fixed << std::setprecision(4);
  for (int i = 0; i <= steps; ++i) {
    auto [next, value] = step(params, train_x, targets);
    if (i % 50 == 0 || i == steps) std::cout << "step " << std::setw(3) << i << "  loss " << value.item() << '\n';
    params = next;
  }
  auto const predicted = jnp::argmax(logits(params, test_x), -1);
  auto const accuracy = jnp::mean(Array<bool>(predicted == test_y).astype<float>()).item();
  std::cout << "held-out accuracy: " << std::setprecision(3) << accuracy << " (" << test_y.size() << " images)\n";
}
