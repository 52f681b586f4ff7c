// Eigen interop: from_eigen copies any dense Eigen object into an Array of
// the documented shape; to_eigen views an Array (any strides) without a copy.
// Expected values are written out by hand or read coefficient by coefficient.
#include "catch.hpp"

#include <cstdint>
#include <string>
#include <vector>

#include <Eigen/Core>

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/testing/catch.hpp>

#include "support.hpp"

namespace test_eigen {

namespace jnp = jaxcc::numpy;
using jaxcc::Array;
using jaxcc::Shape;
using jaxcc_test::message_of;

namespace {

/// Every coefficient of an Eigen object equals the Array's element at (i, j).
template <class T, class M>
void require_same(Array<T> const& x, M const& m) {
  REQUIRE(x.ndim() == 2);
  REQUIRE(x.shape() == Shape{m.rows(), m.cols()});
  auto const v = x.to_vector();
  for (Eigen::Index i = 0; i < m.rows(); ++i)
    for (Eigen::Index j = 0; j < m.cols(); ++j) CHECK(v[static_cast<std::size_t>(i * m.cols() + j)] == m(i, j));
}

}  // namespace

TEST_CASE("from_eigen: matrices of either storage order become (rows, cols)", "[eigen]") {
  Eigen::MatrixXf col_major(2, 3);
  col_major << 1, 2, 3, 4, 5, 6;
  auto x = jaxcc::from_eigen(col_major);
  STATIC_REQUIRE(std::is_same_v<decltype(x), Array<float>>);
  REQUIRE(x.shape() == Shape{2, 3});
  REQUIRE(x.to_vector() == std::vector<float>{1, 2, 3, 4, 5, 6});

  Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> row_major(3, 2);
  row_major << 1, 2, 3, 4, 5, 6;
  REQUIRE(jaxcc::from_eigen(row_major).to_vector() == std::vector<double>{1, 2, 3, 4, 5, 6});

  Eigen::Matrix<std::int32_t, 2, 2> fixed;
  fixed << 7, 8, 9, 10;
  REQUIRE(jaxcc::from_eigen(fixed).to_vector() == std::vector<std::int32_t>{7, 8, 9, 10});

  Eigen::Matrix<std::int64_t, Eigen::Dynamic, Eigen::Dynamic> big(1, 2);
  big << (std::int64_t{1} << 40), -3;
  REQUIRE(jaxcc::from_eigen(big).to_vector() == std::vector<std::int64_t>{std::int64_t{1} << 40, -3});

  Eigen::Matrix<bool, 2, 2> flags;
  flags << true, false, false, true;
  REQUIRE(jaxcc::from_eigen(flags).to_vector() == std::vector<bool>{true, false, false, true});

  // A run-time single column stays a matrix: (3, 1).
  Eigen::MatrixXf column = Eigen::MatrixXf::Ones(3, 1);
  REQUIRE(jaxcc::from_eigen(column).shape() == Shape{3, 1});
  REQUIRE(jaxcc::from_eigen(Eigen::MatrixXf(0, 4)).shape() == Shape{0, 4});
}

TEST_CASE("from_eigen: compile-time vectors become rank 1", "[eigen]") {
  Eigen::VectorXf v(3);
  v << 1, 2, 3;
  auto x = jaxcc::from_eigen(v);
  REQUIRE(x.shape() == Shape{3});
  REQUIRE(x.to_vector() == std::vector<float>{1, 2, 3});
  Eigen::RowVectorXd r(2);
  r << 4, 5;
  REQUIRE(jaxcc::from_eigen(r).shape() == Shape{2});
  REQUIRE(jaxcc::from_eigen(Eigen::Vector3i(1, 2, 3)).to_vector() == std::vector<std::int32_t>{1, 2, 3});
  REQUIRE(jaxcc::from_eigen(Eigen::ArrayXd::Constant(4, 0.5)).to_vector() == std::vector<double>(4, 0.5));
}

TEST_CASE("from_eigen: arrays, expressions, blocks and strided Maps", "[eigen]") {
  Eigen::MatrixXd m(3, 3);
  m << 1, 2, 3, 4, 5, 6, 7, 8, 9;
  require_same(jaxcc::from_eigen(m.transpose()), Eigen::MatrixXd(m.transpose()));
  require_same(jaxcc::from_eigen(m * 2.0 + Eigen::MatrixXd::Identity(3, 3)),
               Eigen::MatrixXd(m * 2.0 + Eigen::MatrixXd::Identity(3, 3)));
  require_same(jaxcc::from_eigen(m.block(1, 0, 2, 2)), Eigen::MatrixXd(m.block(1, 0, 2, 2)));
  require_same(jaxcc::from_eigen(m.array().square()), Eigen::MatrixXd(m.array().square().matrix()));
  require_same(jaxcc::from_eigen(m * m), Eigen::MatrixXd(m * m));
  // Every other element of a buffer, as a 2x3 column-major Map with strides.
  std::vector<float> buffer{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
  Eigen::Map<Eigen::MatrixXf, 0, Eigen::Stride<Eigen::Dynamic, Eigen::Dynamic>> strided(
      buffer.data(), 2, 3, Eigen::Stride<Eigen::Dynamic, Eigen::Dynamic>(4, 2));
  // (i, j) reads buffer[4 j + 2 i]: rows (0, 4, 8) and (2, 6, 10), by hand.
  REQUIRE(jaxcc::from_eigen(strided).to_vector() == std::vector<float>{0, 4, 8, 2, 6, 10});
}

TEST_CASE("to_eigen: a zero-copy, read-only view with the Array's strides", "[eigen]") {
  auto x = jnp::arange<float>(0, 6).reshape({2, 3});
  SECTION("rank 2, contiguous") {
    auto view = jaxcc::to_eigen(x);
    REQUIRE(view.rows() == 2);
    REQUIRE(view.cols() == 3);
    REQUIRE(view.data() == x.data());
    require_same(x, view);
    STATIC_REQUIRE(std::is_const_v<std::remove_pointer_t<decltype(view.data())>>);
  }
  SECTION("transposed and broadcast views are read in place") {
    auto t = x.T();
    auto view = jaxcc::to_eigen(t);
    REQUIRE(view.data() == x.data());
    REQUIRE(view.rows() == 3);
    require_same(t, view);
    auto row = jnp::array({1.f, 2.f, 3.f});
    auto rows = jaxcc::detail::view(row, Shape{4, 3}, jaxcc::Strides{0, 1}, 0);
    require_same(rows, jaxcc::to_eigen(rows));
  }
  SECTION("rank 1 is a column, rank 0 is 1x1") {
    auto v = jnp::array({1, 2, 3});
    auto column = jaxcc::to_eigen(v);
    REQUIRE(column.rows() == 3);
    REQUIRE(column.cols() == 1);
    CHECK(column(2, 0) == 3);
    auto scalar = jaxcc::to_eigen(jnp::array(2.5));
    REQUIRE(scalar.size() == 1);
    CHECK(scalar(0, 0) == 2.5);
  }
  SECTION("the view keeps a temporary array alive; expressions are evaluated first") {
    auto view = jaxcc::to_eigen(jnp::arange<double>(0, 4).reshape({2, 2}) * 3.0);
    Eigen::MatrixXd expected(2, 2);
    expected << 0, 3, 6, 9;  // 3 * (0, 1, 2, 3), by hand
    CHECK(Eigen::MatrixXd(view) == expected);
  }
  SECTION("views take part in Eigen expressions") {
    auto a = jnp::array({{1.f, 2.f}, {3.f, 4.f}});
    auto b = jnp::array({{5.f, 6.f}, {7.f, 8.f}});
    Eigen::MatrixXf product = jaxcc::to_eigen(a) * jaxcc::to_eigen(b.T());
    // (1 2; 3 4)(5 7; 6 8) = (17 23; 39 53), by hand.
    require_same(jnp::array({{17.f, 23.f}, {39.f, 53.f}}), product);
    require_same(jnp::matmul(a, b.T()), product);
    REQUIRE(jaxcc::to_eigen(a).sum() == 10.f);
  }
  SECTION("round trip") {
    auto t = x.T();
    REQUIRE(jaxcc::from_eigen(jaxcc::to_eigen(t)).to_vector() == t.to_vector());
    REQUIRE(jaxcc::from_eigen(jaxcc::to_eigen(x)).shape() == Shape{2, 3});
  }
  SECTION("rank above 2 is an error") {
    CHECK(message_of([] { jaxcc::to_eigen(jnp::zeros<float>({2, 3, 4})); }) ==
          "to_eigen: expected an array of rank at most 2 (an Eigen matrix), got shape (2, 3, 4)");
  }
}

}  // namespace test_eigen
