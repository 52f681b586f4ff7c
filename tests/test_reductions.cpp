#include "catch.hpp"

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/testing/catch.hpp>
#include <jaxcc/transforms/make_jaxpr.hpp>

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "support.hpp"

namespace test_reductions {

namespace jnp = jaxcc::numpy;
using jaxcc::Array;
using jaxcc::Axes;
using jaxcc::Shape;
using jaxcc::testing::AllClose;
using jaxcc_test::message_of;
using jaxcc_test::uniform;

namespace {

constexpr double nan_v = std::numeric_limits<double>::quiet_NaN();
constexpr double inf_v = std::numeric_limits<double>::infinity();

template <class T>
Array<T> make(std::vector<double> const& values, Shape const& shape) {
  std::vector<T> cast;
  for (auto v : values) cast.push_back(static_cast<T>(v));
  return jnp::array(cast, shape);
}

Shape reduced_shape(Shape const& shape, std::vector<bool> const& reduced, bool keepdims) {
  Shape out;
  for (std::size_t d = 0; d < shape.size(); ++d)
    if (!reduced[d]) out.push_back(shape[d]);
    else if (keepdims) out.push_back(1);
  return out;
}

// The reference: walk the input's multi-index in row-major order and fold
// each element into the output slot of its kept coordinates.
template <class Acc, class T>
std::vector<Acc> reference(std::vector<T> const& values, Shape const& shape, std::vector<bool> const& reduced,
                           Acc init, std::function<Acc(Acc, T)> const& combine) {
  std::int64_t n_out = 1;
  for (std::size_t d = 0; d < shape.size(); ++d)
    if (!reduced[d]) n_out *= shape[d];
  std::vector<Acc> out(static_cast<std::size_t>(n_out), init);
  std::vector<std::int64_t> index(shape.size(), 0);
  for (auto const& v : values) {
    std::int64_t o = 0;
    for (std::size_t d = 0; d < shape.size(); ++d)
      if (!reduced[d]) o = o * shape[d] + index[d];
    out[static_cast<std::size_t>(o)] = combine(out[static_cast<std::size_t>(o)], v);
    for (auto d = shape.size(); d-- > 0;) {
      if (++index[d] < shape[d]) break;
      index[d] = 0;
    }
  }
  return out;
}

template <class T>
std::vector<T> values_of(Array<T> const& x) {
  return x.to_vector();
}

// A max / min that propagates NaN, written independently of the library.
double ref_max(double a, double b) { return std::isnan(a) || std::isnan(b) ? nan_v : std::max(a, b); }
double ref_min(double a, double b) { return std::isnan(a) || std::isnan(b) ? nan_v : std::min(a, b); }

// "" when sum, prod, max, min, mean, any, all of float and int32 views of x
// over the axes `reduced` marks, given positively or negatively, with and
// without keepdims, match the reference loop; else the first that does not.
std::string reduction_mismatch(Array<float> const& x, Array<std::int32_t> const& xi, std::vector<bool> const& reduced) {
  auto const& shape = x.shape();
  auto const rank = static_cast<std::int64_t>(shape.size());
  Axes axes, negative;
  for (std::int64_t d = 0; d < rank; ++d)
    if (reduced[static_cast<std::size_t>(d)]) {
      axes.push_back(d);
      negative.push_back(d % 2 ? d - rank : d);
    }
  std::vector<double> xv;
  for (auto v : values_of(x)) xv.push_back(v);
  auto const iv = values_of(xi);
  std::int64_t count = 1;
  for (auto a : axes) count *= shape[static_cast<std::size_t>(a)];

  auto sum = reference<double, double>(xv, shape, reduced, 0.0, std::plus<double>());
  auto prod = reference<double, double>(xv, shape, reduced, 1.0, std::multiplies<double>());
  auto mx = reference<double, double>(xv, shape, reduced, -inf_v, ref_max);
  auto mn = reference<double, double>(xv, shape, reduced, inf_v, ref_min);
  auto isum = reference<std::int32_t, std::int32_t>(iv, shape, reduced, 0, std::plus<std::int32_t>());
  auto imax = reference<std::int32_t, std::int32_t>(iv, shape, reduced, std::numeric_limits<std::int32_t>::min(),
                                                    [](std::int32_t a, std::int32_t b) { return std::max(a, b); });
  auto iany = reference<bool, std::int32_t>(iv, shape, reduced, false, [](bool a, std::int32_t b) { return a || b != 0; });
  auto iall = reference<bool, std::int32_t>(iv, shape, reduced, true, [](bool a, std::int32_t b) { return a && b != 0; });
  auto bcount = reference<std::int32_t, std::int32_t>(iv, shape, reduced, 0, [](std::int32_t a, std::int32_t b) { return a + (b > 0); });
  Array<bool> const xb = xi > 0;
  std::vector<double> mean;
  for (auto s : sum) mean.push_back(s / static_cast<double>(count));

  for (bool keepdims : {false, true}) {
    auto const out_shape = reduced_shape(shape, reduced, keepdims);
    for (auto const& ax : {axes, negative}) {
      // Why the float reduction `got` is not close to `want`; "" when it is.
      auto far = [&](Array<float> const& got, std::vector<double> const& want, double rtol, double atol) {
        return jaxcc::testing::compare(got, make<float>(want, out_shape), rtol, atol).why;
      };
      auto const failure = [&]() -> std::string {
        if (auto why = far(jnp::sum(x, ax, keepdims), sum, 1e-5, 1e-5); !why.empty()) return "sum: " + why;
        if (auto why = far(jnp::prod(x, ax, keepdims), prod, 1e-4, 1e-30); !why.empty()) return "prod: " + why;
        if (auto why = far(jnp::max(x, ax, keepdims), mx, 0, 0); !why.empty()) return "max: " + why;
        if (auto why = far(jnp::min(x, ax, keepdims), mn, 0, 0); !why.empty()) return "min: " + why;
        if (auto why = far(jnp::mean(x, ax, keepdims), mean, 1e-5, 1e-6); !why.empty()) return "mean: " + why;
        auto const s = jnp::sum(xi, ax, keepdims);
        if (!(s.shape() == out_shape)) return "int32 sum: shape " + jaxcc::to_string(s.shape());
        if (s.to_vector() != isum) return "int32 sum: values differ";
        if (jnp::max(xi, ax, keepdims).to_vector() != imax) return "int32 max: values differ";
        if (jnp::any(xi, ax, keepdims).to_vector() != iany) return "int32 any: values differ";
        if (jnp::all(xi, ax, keepdims).to_vector() != iall) return "int32 all: values differ";
        auto const any_shape = jnp::any(xi, ax, keepdims).shape();
        if (!(any_shape == out_shape)) return "int32 any: shape " + jaxcc::to_string(any_shape);
        // bool sums count, as int32
        if (jnp::sum(xb, ax, keepdims).to_vector() != bcount) return "bool sum: values differ";
        std::vector<bool> bmax;
        for (auto c : bcount) bmax.push_back(c > 0);
        if (jnp::max(xb, ax, keepdims).to_vector() != bmax) return "bool max: values differ";
        return "";
      }();
      if (!failure.empty())
        return "shape " + jaxcc::to_string(shape) + ", axes " + jaxcc::to_string(Shape(ax.begin(), ax.end())) +
               (keepdims ? ", keepdims" : "") + ": " + failure;
    }
  }
  return "";
}

}  // namespace

TEST_CASE("reductions over every set of axes of rank 0..4 arrays match a reference loop") {
  // Shapes past the SIMD widths (64 floats per four AVX-512 batches) and
  // with size-1 dimensions, so every kernel path and tail runs.
  for (Shape shape : {Shape{}, Shape{5}, Shape{3, 4}, Shape{2, 70}, Shape{70, 3}, Shape{2, 3, 4}, Shape{3, 5, 67},
                      Shape{2, 3, 1, 5}, Shape{3, 1, 4, 2}}) {
    auto const n = shape.numel();
    auto x = make<float>(uniform<double>(n, 0.5, 1.5), shape);  // near 1, so products stay in range
    auto xi = make<std::int32_t>(uniform<double>(n, -3, 3, 7), shape);
    auto const rank = shape.size();
    for (std::size_t mask = 0; mask < (std::size_t{1} << rank); ++mask) {
      std::vector<bool> reduced(rank);
      for (std::size_t d = 0; d < rank; ++d) reduced[d] = (mask >> d) & 1;
      REQUIRE(reduction_mismatch(x, xi, reduced) == "");
    }
  }
}

TEST_CASE("reductions of non-contiguous views: transposed, strided, broadcast") {
  auto base = make<float>(uniform<double>(4 * 5 * 6, -1, 1, 3), Shape{4, 5, 6});
  auto base_i = make<std::int32_t>(uniform<double>(4 * 5 * 6, -4, 4, 5), Shape{4, 5, 6});
  auto row = make<float>(uniform<double>(5, -1, 1, 9), Shape{5});
  auto row_i = make<std::int32_t>(uniform<double>(5, -4, 4, 11), Shape{5});
  auto strided = [](auto const& x) {  // every other element of the last axis
    return jaxcc::detail::view(x, Shape{4, 5, 3}, jaxcc::Strides{30, 6, 2}, jaxcc::detail::offset_of(x) + 1);
  };
  auto broadcast = [](auto const& r) {  // (5,) seen as (4, 5, 6) with stride 0 on axes 0 and 2
    return jaxcc::detail::view(r, Shape{4, 5, 6}, jaxcc::Strides{0, 1, 0}, jaxcc::detail::offset_of(r));
  };
  auto permuted = [](auto const& x) { return jaxcc::lax::transpose(x, Axes{1, 2, 0}); };

  std::vector<std::pair<Array<float>, Array<std::int32_t>>> views = {
      {base.T(), base_i.T()},
      {strided(base), strided(base_i)},
      {broadcast(row), broadcast(row_i)},
      {permuted(base), permuted(base_i)},
      {strided(base).T(), strided(base_i).T()},
  };
  for (auto const& [x, xi] : views) {
    REQUIRE(!x.is_contiguous());
    for (std::size_t mask = 0; mask < 8; ++mask)
      REQUIRE(reduction_mismatch(x, xi, {(mask & 1) != 0, (mask & 2) != 0, (mask & 4) != 0}) == "");
  }
}

TEST_CASE("reductions accept fused expressions and count booleans") {
  auto x = jnp::array({{1.f, -2.f, 3.f}, {4.f, 5.f, -6.f}});
  REQUIRE_THAT(jnp::sum(x * 2.f, 0), AllClose(jnp::array({10.f, 6.f, -6.f})));
  auto positive = jnp::sum(x > 0.f);  // 4 of the 6 are positive
  static_assert(std::is_same_v<decltype(positive), Array<std::int32_t>>);
  REQUIRE(positive.shape() == Shape{});
  REQUIRE(positive.item() == 4);
  REQUIRE(jnp::sum(x > 0.f, 1).to_vector() == std::vector<std::int32_t>{2, 2});
}

TEST_CASE("reduction result dtypes follow JAX (default int32)") {
  Array<bool> b = jnp::array({true, false, true});
  Array<std::int32_t> i = jnp::array({1, 2, 3});
  Array<std::int64_t> l = jnp::array({std::int64_t{1}, std::int64_t{2}});
  Array<double> d = jnp::array({1.0, 2.0});
  Array<float> f = jnp::array({1.f, 2.f});

  static_assert(std::is_same_v<decltype(jnp::sum(b)), Array<std::int32_t>>);
  static_assert(std::is_same_v<decltype(jnp::sum(i)), Array<std::int32_t>>);
  static_assert(std::is_same_v<decltype(jnp::sum(l)), Array<std::int64_t>>);
  static_assert(std::is_same_v<decltype(jnp::sum(f)), Array<float>>);
  static_assert(std::is_same_v<decltype(jnp::sum(d)), Array<double>>);
  static_assert(std::is_same_v<decltype(jnp::prod(b)), Array<std::int32_t>>);
  static_assert(std::is_same_v<decltype(jnp::prod(l)), Array<std::int64_t>>);
  static_assert(std::is_same_v<decltype(jnp::max(b)), Array<bool>>);
  static_assert(std::is_same_v<decltype(jnp::min(l)), Array<std::int64_t>>);
  static_assert(std::is_same_v<decltype(jnp::mean(b)), Array<float>>);
  static_assert(std::is_same_v<decltype(jnp::mean(i)), Array<float>>);
  static_assert(std::is_same_v<decltype(jnp::mean(l)), Array<double>>);
  static_assert(std::is_same_v<decltype(jnp::mean(d)), Array<double>>);
  static_assert(std::is_same_v<decltype(jnp::var(i)), Array<float>>);
  static_assert(std::is_same_v<decltype(jnp::std(l)), Array<double>>);
  static_assert(std::is_same_v<decltype(jnp::any(f)), Array<bool>>);
  static_assert(std::is_same_v<decltype(jnp::all(i)), Array<bool>>);
  static_assert(std::is_same_v<decltype(jnp::argmax(d)), Array<std::int32_t>>);
  static_assert(std::is_same_v<decltype(jnp::argmin(l, 0)), Array<std::int32_t>>);

  REQUIRE(jnp::sum(b).dtype() == jaxcc::DType::int32);
  REQUIRE(jnp::sum(b).item() == 2);
  REQUIRE(jnp::prod(b).item() == 0);
  REQUIRE(jnp::max(b).item() == true);
  REQUIRE(jnp::min(b).item() == false);
  REQUIRE(jnp::sum(l).item() == 3);
  REQUIRE(jnp::mean(i).item() == 2.f);
  REQUIRE(jnp::mean(l).item() == 1.5);
  REQUIRE(jnp::mean(b).item() == Catch::Approx(2.0 / 3.0).epsilon(1e-6));
  // any/all cast to bool first: nonzero is true, and so is nan.
  REQUIRE(jnp::any(jnp::array({0.f, 0.f})).item() == false);
  REQUIRE(jnp::any(jnp::array({0.f, static_cast<float>(nan_v)})).item() == true);
  REQUIRE(jnp::all(jnp::array({1, 2, 0})).item() == false);
  REQUIRE(jnp::all(jnp::array({1, 2, -3})).item() == true);
}

TEST_CASE("rank-0 arrays reduce to themselves") {
  auto s = jnp::array(2.5f);
  REQUIRE(jnp::sum(s).shape() == Shape{});
  REQUIRE(jnp::sum(s).item() == 2.5f);
  REQUIRE(jnp::max(s, jaxcc::none, true).shape() == Shape{});
  REQUIRE(jnp::mean(s).item() == 2.5f);
  REQUIRE(jnp::argmax(s).item() == 0);
  REQUIRE(jnp::argmax(s, jaxcc::none, true).shape() == Shape{});
  // Reducing no axes at all (an empty Axes) is the identity, as axis=() in JAX.
  auto x = jnp::array({{1, 2}, {3, 4}});
  REQUIRE(jnp::sum(x, Axes{}).to_vector() == x.to_vector());
  REQUIRE(jnp::sum(x, Axes{}).shape() == Shape{2, 2});
}

TEST_CASE("empty reductions: identities, nan means, and JAX's errors for max/min/argmax") {
  auto e = jnp::zeros<float>(Shape{0});
  auto e2 = jnp::zeros<float>(Shape{0, 3});
  REQUIRE(jnp::sum(e).item() == 0.f);
  REQUIRE(jnp::prod(e).item() == 1.f);
  REQUIRE(jnp::sum(jnp::zeros<std::int32_t>(Shape{2, 0}), 1).to_vector() == std::vector<std::int32_t>{0, 0});
  REQUIRE(jnp::any(jnp::zeros<bool>(Shape{0})).item() == false);
  REQUIRE(jnp::all(jnp::zeros<bool>(Shape{0})).item() == true);
  REQUIRE(std::isnan(jnp::mean(e).item()));
  REQUIRE(std::isnan(jnp::var(e).item()));
  REQUIRE(jnp::sum(e2, 0).to_vector() == std::vector<float>{0, 0, 0});
  REQUIRE(jnp::sum(e2, 0, true).shape() == Shape{1, 3});
  REQUIRE(jnp::sum(e2, 1).shape() == Shape{0});
  // Reducing the non-empty axis of an empty array is fine: nothing to reduce.
  REQUIRE(jnp::max(e2, 1).shape() == Shape{0});
  REQUIRE(jnp::argmax(e2, 1).shape() == Shape{0});

  REQUIRE(message_of([&] { jnp::max(e); }) ==
          "zero-size array to reduction operation max which has no identity (shape (0,), axes (0,))");
  REQUIRE(message_of([&] { jnp::min(e2, 0); }) ==
          "zero-size array to reduction operation min which has no identity (shape (0, 3), axes (0,))");
  REQUIRE(message_of([&] { jnp::argmax(e); }) == "attempt to get argmax of an empty sequence");
  REQUIRE(message_of([&] { jnp::argmin(e2, 0); }) == "attempt to get argmin of an empty sequence");
  REQUIRE(message_of([&] { jnp::argmax(e2); }) == "attempt to get argmax of an empty sequence");
  // The primitives themselves: the empty max is its identity, -inf, as lax.reduce_max.
  auto m = jaxcc::detail::bind<jaxcc::primitives::reduce_max_p>({Axes{0}}, e);
  REQUIRE(m.item() == -std::numeric_limits<float>::infinity());
}

TEST_CASE("max and min with an initial value: it takes part in every reduction, and an empty one gives it") {
  // numpy's and JAX's `initial`: np.max([[1, 5], [3, 2]], axis=1, initial=4) is [5, 4].
  auto const x = jnp::array<float>({{1, 5}, {3, 2}});
  CHECK(jnp::max(x, 1, false, 4.0).to_vector() == std::vector<float>{5, 4});
  CHECK(jnp::min(x, 0, true, 2.5).to_vector() == std::vector<float>{1, 2});
  CHECK(jnp::min(x, 0, true, 2.5).shape() == Shape{1, 2});
  // Over an empty axis: the initial value in the reduced shape (np.max(np.zeros((0, 3)), 0, initial=0) is [0, 0, 0]).
  auto const e2 = jnp::zeros<float>(Shape{0, 3});
  CHECK(jnp::max(e2, 0, false, 0.0).to_vector() == std::vector<float>{0, 0, 0});
  CHECK(jnp::min(e2, {}, true, -1.0).shape() == Shape{1, 1});
  CHECK(jnp::min(e2, {}, true, -1.0).to_vector() == std::vector<float>{-1});
  CHECK(jnp::max(e2, 1, false, 7.0).shape() == Shape{0});
  // jit traces the same reductions.
  auto const jitted = jaxcc::jit([](Array<float> const& v) { return jnp::max(v, 0, false, 0.0); });
  CHECK(jitted(e2).to_vector() == std::vector<float>{0, 0, 0});
  CHECK(jitted(x).to_vector() == std::vector<float>{3, 5});
}

TEST_CASE("max and min propagate NaN wherever it sits; argmax/argmin pick the first NaN") {
  for (std::int64_t n : {1, 7, 16, 63, 64, 65, 200}) {
    for (std::int64_t at : {std::int64_t{0}, n / 2, n - 1}) {
      auto v = uniform<double>(n, -1, 1, static_cast<std::uint64_t>(n));
      v[static_cast<std::size_t>(at)] = nan_v;
      v[static_cast<std::size_t>(std::max(at, n - 1 - at / 2))] = nan_v;  // a second NaN, later or the same
      auto x = make<float>(v, Shape{n});
      CAPTURE(n, at);
      REQUIRE(std::isnan(jnp::max(x).item()));
      REQUIRE(std::isnan(jnp::min(x).item()));
      REQUIRE(jnp::argmax(x).item() == at);
      REQUIRE(jnp::argmin(x).item() == at);
      auto xd = make<double>(v, Shape{n});
      REQUIRE(std::isnan(jnp::max(xd).item()));
      REQUIRE(jnp::argmin(xd).item() == at);
    }
  }
  // Along an axis: only the rows holding a NaN become NaN.
  auto x = jnp::array({{1.f, static_cast<float>(nan_v), 3.f}, {4.f, 5.f, 6.f}});
  auto m = jnp::max(x, 1).to_vector();
  REQUIRE(std::isnan(m[0]));
  REQUIRE(m[1] == 6.f);
  auto c = jnp::min(x, 0).to_vector();
  REQUIRE(c[0] == 1.f);
  REQUIRE(std::isnan(c[1]));
  REQUIRE(c[2] == 3.f);
  REQUIRE(jnp::argmax(x, 0).to_vector() == std::vector<std::int32_t>{1, 0, 1});
  // inf is an ordinary value: max of {-inf, inf} is inf.
  REQUIRE(jnp::max(jnp::array({-std::numeric_limits<float>::infinity(), std::numeric_limits<float>::infinity()}))
              .item() == std::numeric_limits<float>::infinity());
}

TEST_CASE("argmax and argmin along every axis match a reference loop, first occurrence winning") {
  // Reference: walk the elements in row-major order, replacing the best of
  // each output slot only on a strictly better value (so the first wins).
  auto reference_arg = [](std::vector<double> const& values, Shape const& shape, std::size_t axis, bool is_max) {
    std::vector<bool> reduced(shape.size(), false);
    reduced[axis] = true;
    std::vector<std::pair<double, std::int32_t>> tagged;  // each value with its index along the axis
    std::vector<std::int64_t> index(shape.size(), 0);
    for (auto const value : values) {
      tagged.emplace_back(value, static_cast<std::int32_t>(index[axis]));
      for (auto d = shape.size(); d-- > 0;) {
        if (++index[d] < shape[d]) break;
        index[d] = 0;
      }
    }
    using P = std::pair<double, std::int32_t>;
    auto best = reference<P, P>(tagged, shape, reduced, P{is_max ? -inf_v : inf_v, -1}, [is_max](P acc, P e) {
      return (is_max ? e.first > acc.first : e.first < acc.first) ? e : acc;
    });
    std::vector<std::int32_t> out;
    for (auto const& p : best) out.push_back(p.second);
    return out;
  };
  auto const shape = Shape{4, 3, 70};
  auto const v = uniform<double>(shape.numel(), -3, 3, 21);
  auto xf = make<float>(v, shape);
  auto xi = make<std::int32_t>(v, shape);  // small integers: ties are common
  std::vector<double> fv, iv;
  for (auto e : xf.to_vector()) fv.push_back(e);
  for (auto e : xi.to_vector()) iv.push_back(e);
  // The same values with non-row-major strides.
  auto xf_strided = jaxcc::detail::contiguous(xf.T()).T();
  auto xi_strided = jaxcc::detail::contiguous(xi.T()).T();
  REQUIRE(!xf_strided.is_contiguous());
  for (std::int64_t axis = -3; axis < 3; ++axis) {
    auto const a = static_cast<std::size_t>(axis < 0 ? axis + 3 : axis);
    CAPTURE(axis);
    REQUIRE(jnp::argmax(xf, axis).to_vector() == reference_arg(fv, shape, a, true));
    REQUIRE(jnp::argmin(xf, axis).to_vector() == reference_arg(fv, shape, a, false));
    REQUIRE(jnp::argmax(xf_strided, axis).to_vector() == reference_arg(fv, shape, a, true));
    REQUIRE(jnp::argmax(xi, axis).to_vector() == reference_arg(iv, shape, a, true));
    REQUIRE(jnp::argmin(xi, axis).to_vector() == reference_arg(iv, shape, a, false));
    REQUIRE(jnp::argmin(xi_strided, axis).to_vector() == reference_arg(iv, shape, a, false));
    Shape kept = shape;
    kept[a] = 1;
    REQUIRE(jnp::argmax(xf, axis, true).shape() == kept);
    REQUIRE(jnp::argmax(xf, axis, true).to_vector() == reference_arg(fv, shape, a, true));
  }
  // Transposed input: argmax along axis 0 of x.T is argmax along the last axis of x.
  auto m = jnp::array({{3, 9, 9}, {7, 1, 7}});
  REQUIRE(jnp::argmax(m.T(), 0).to_vector() == std::vector<std::int32_t>{1, 0});
  REQUIRE(jnp::argmin(m.T(), 0).to_vector() == std::vector<std::int32_t>{0, 1});
  // No axis: the flattened array.
  REQUIRE(jnp::argmax(m).item() == 1);
  REQUIRE(jnp::argmin(m).item() == 4);
  REQUIRE(jnp::argmax(m.T()).item() == 2);  // m.T flattened is 3 7 9 1 9 7
  REQUIRE(jnp::argmax(m, jaxcc::none, true).shape() == Shape{1, 1});
  REQUIRE(jnp::argmax(jnp::array({false, true, true})).item() == 1);
  REQUIRE(jnp::argmin(jnp::array({true, false, false})).item() == 1);
}

TEST_CASE("var and std match a two-pass reference, with ddof") {
  auto const shape = Shape{3, 41};
  auto const v = uniform<double>(shape.numel(), -2, 5, 13);
  auto x = make<float>(v, shape);
  for (double ddof : {0.0, 1.0}) {
    std::vector<double> var_rows, std_rows;
    for (std::size_t r = 0; r < 3; ++r) {
      long double m = 0, s = 0;
      for (std::size_t c = 0; c < 41; ++c) m += static_cast<float>(v[r * 41 + c]);
      m /= 41;
      for (std::size_t c = 0; c < 41; ++c) s += (static_cast<float>(v[r * 41 + c]) - m) * (static_cast<float>(v[r * 41 + c]) - m);
      var_rows.push_back(static_cast<double>(s / (41 - ddof)));
      std_rows.push_back(std::sqrt(var_rows.back()));
    }
    REQUIRE_THAT(jnp::var(x, 1, ddof), AllClose(make<float>(var_rows, Shape{3}), 1e-5));
    REQUIRE_THAT(jnp::std(x, -1, ddof, true), AllClose(make<float>(std_rows, Shape{3, 1}), 1e-5));
  }
  // Integers give float32; var of 1, 2, 3, 4 is 1.25 (mean 2.5, squares 2.25 .25 .25 2.25).
  REQUIRE(jnp::var(jnp::array({1, 2, 3, 4})).item() == 1.25f);
  // ddof >= N leaves no degrees of freedom: nan, as JAX.
  REQUIRE(std::isnan(jnp::var(jnp::array({1.f, 2.f}), jaxcc::none, 2).item()));
}

TEST_CASE("large reductions run in parallel and stay accurate") {
  SECTION("sum of 2^20 floats against a long double sum") {
    std::int64_t const n = std::int64_t{1} << 20;
    auto const v = uniform<double>(n, 0, 1, 17);
    auto x = make<float>(v, Shape{n});
    long double want = 0;
    for (auto e : v) want += static_cast<float>(e);
    // float accumulation: a blocked sum's error is far below 1e-6 relative here.
    REQUIRE(jnp::sum(x).item() == Catch::Approx(static_cast<double>(want)).epsilon(2e-6));
    REQUIRE(jnp::mean(x).item() == Catch::Approx(static_cast<double>(want / n)).epsilon(2e-6));
  }
  SECTION("one row of columns (few outputs): split over threads, then combined") {
    Shape const shape{1 << 14, 37};
    auto const v = uniform<double>(shape.numel(), -1, 1, 19);
    auto x = make<float>(v, shape);
    auto want = reference<double, double>(v, shape, {true, false}, 0.0, std::plus<double>());
    REQUIRE_THAT(jnp::sum(x, 0), AllClose(make<float>(want, Shape{37}), 1e-4, 1e-4));
    REQUIRE_THAT(jnp::sum(x.T(), 1), AllClose(make<float>(want, Shape{37}), 1e-4, 1e-4));
    auto xi = make<std::int32_t>(uniform<double>(shape.numel(), -100, 100, 23), shape);
    auto want_i = reference<std::int32_t, std::int32_t>(xi.to_vector(), shape, {true, false}, 0, std::plus<std::int32_t>());
    REQUIRE(jnp::sum(xi, 0).to_vector() == want_i);
    auto want_max = reference<std::int32_t, std::int32_t>(xi.to_vector(), shape, {false, true}, -1000,
                                                          [](std::int32_t a, std::int32_t b) { return std::max(a, b); });
    REQUIRE(jnp::max(xi, 1).to_vector() == want_max);
  }
  SECTION("rows wider than one column block (4096 floats, 2048 doubles)") {
    Shape const shape{40, 5000};
    auto const v = uniform<double>(shape.numel(), -1, 1, 37);
    auto want = reference<double, double>(v, shape, {true, false}, 0.0, std::plus<double>());
    auto want_max = reference<double, double>(v, shape, {true, false}, -inf_v, ref_max);
    REQUIRE_THAT(jnp::sum(make<float>(v, shape), 0), AllClose(make<float>(want, Shape{5000}), 1e-5, 1e-5));
    REQUIRE_THAT(jnp::sum(make<double>(v, shape), 0), AllClose(make<double>(want, Shape{5000}), 1e-12, 1e-12));
    REQUIRE_THAT(jnp::max(make<double>(v, shape), 0), AllClose(make<double>(want_max, Shape{5000}), 0, 0));
    auto wide = make<std::int64_t>(uniform<double>(shape.numel(), -50, 50, 41), shape);
    auto want_i = reference<std::int64_t, std::int64_t>(wide.to_vector(), shape, {true, false}, 0,
                                                        std::plus<std::int64_t>());
    REQUIRE(jnp::sum(wide, 0).to_vector() == want_i);
    auto big = Array<bool>(wide > std::int64_t{45});  // bool lanes take the scalar path
    auto want_any = reference<bool, bool>(big.to_vector(), shape, {true, false}, false,
                                          [](bool a, bool b) { return a || b; });
    REQUIRE(jnp::any(big, 0).to_vector() == want_any);
  }
  SECTION("several reduced axes over a big 3-d array, and a broadcast view") {
    Shape const shape{64, 33, 64};
    auto const v = uniform<double>(shape.numel(), -1, 1, 29);
    auto x = make<float>(v, shape);
    auto want = reference<double, double>(v, shape, {true, false, true}, 0.0, std::plus<double>());
    REQUIRE_THAT(jnp::sum(x, {0, 2}), AllClose(make<float>(want, Shape{33}), 1e-4, 1e-4));
    auto want_mid = reference<double, double>(v, shape, {false, true, false}, 0.0, std::plus<double>());
    REQUIRE_THAT(jnp::sum(x, 1), AllClose(make<float>(want_mid, Shape{64, 64}), 1e-4, 1e-4));
    auto row = jnp::arange<float>(128);
    auto wide = jaxcc::detail::view(row, Shape{1 << 10, 128}, jaxcc::Strides{0, 1}, 0);
    std::vector<double> col_sums;  // each column j holds 2^10 copies of j
    for (int j = 0; j < 128; ++j) col_sums.push_back(1024.0 * j);
    REQUIRE_THAT(jnp::sum(wide, 0), AllClose(make<float>(col_sums, Shape{128}), 1e-6));
    REQUIRE(jnp::sum(wide).item() == 1024.f * 127 * 128 / 2);
  }
  SECTION("max with a NaN deep inside, and argmax of a long row") {
    std::int64_t const n = (std::int64_t{1} << 18) + 6;  // a multiple of 5
    auto v = uniform<double>(n, -1, 1, 31);
    v[200001] = 3;
    v[250000] = 3;  // a tie: the first wins
    auto x = make<float>(v, Shape{n});
    REQUIRE(jnp::max(x).item() == 3.f);
    REQUIRE(jnp::argmax(x).item() == 200001);
    v[123457] = nan_v;
    auto y = make<float>(v, Shape{n});
    REQUIRE(std::isnan(jnp::max(y).item()));
    REQUIRE(std::isnan(jnp::min(y.reshape({n / 5, 5}).T(), 1).to_vector()[123457 % 5]));
    REQUIRE(jnp::argmin(y).item() == 123457);
  }
}

TEST_CASE("bad axes raise JAX-worded errors") {
  auto x = jnp::zeros<float>(Shape{2, 3});
  REQUIRE(message_of([&] { jnp::sum(x, 2); }) == "sum: axis 2 is out of bounds for array of dimension 2");
  REQUIRE(message_of([&] { jnp::max(x, -3); }) == "max: axis -3 is out of bounds for array of dimension 2");
  REQUIRE(message_of([&] { jnp::mean(x, {0, -2}); }) == "mean: repeated axis -2 in axes (0, -2)");
  REQUIRE(message_of([&] { jnp::argmax(x, 5); }) == "argmax: axis 5 is out of bounds for array of dimension 2");
  REQUIRE(message_of([&] { jaxcc::nn::logsumexp(x, {1, 1}); }) == "logsumexp: repeated axis 1 in axes (1, 1)");
  // The primitives take normalized axes and check them as lax does.
  using jaxcc::detail::bind;
  REQUIRE(message_of([&] { bind<jaxcc::primitives::reduce_sum_p>({Axes{0, 0}}, x); }) ==
          "reduce_sum: duplicate value in 'axes' of reduction: (0, 0)");
  REQUIRE(message_of([&] { bind<jaxcc::primitives::reduce_min_p>({Axes{0, 2}}, x); }) ==
          "reduce_min: reduction axes (0, 2) contains out-of-bounds indices for operand shape (2, 3).");
  REQUIRE(message_of([&] { bind<jaxcc::primitives::argmax_p>({-1}, x); }) ==
          "argmax: Invalid axis -1 for operand shape (2, 3)");
  REQUIRE(message_of([&] { bind<jaxcc::primitives::argmin_p>({0}, jnp::zeros<float>(Shape{0, 3})); }) ==
          "argmin: argmin and argmax require non-empty reduced dimension. operand.shape=(0, 3) axis=0");
}

TEST_CASE("reductions trace into jaxprs as JAX prints them") {
  auto x = jnp::zeros<float>(Shape{2, 3});
  auto jaxpr_of = [&](auto f) {
    std::ostringstream os;
    os << jaxcc::make_jaxpr(f)(x);
    return os.str();
  };
  REQUIRE(jaxpr_of([](Array<float> const& a) { return jnp::sum(a, 0); }) ==
          "{ lambda ; a:f32[2,3]. let b:f32[3] = reduce_sum[axes=(0,)] a in (b,) }");
  // Past 80 columns JAX breaks the jaxpr after `let`.
  REQUIRE(jaxpr_of([](Array<float> const& a) { return jnp::argmax(a, -1); }) ==
          "{ lambda ; a:f32[2,3]. let\n    b:i32[2] = argmax[axes=(1,) index_dtype=int32] a\n  in (b,) }");
}

}  // namespace test_reductions
