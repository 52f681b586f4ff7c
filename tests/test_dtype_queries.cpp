// numpy/dtype_queries.hpp against JAX (tests/golden/dtype_queries_cases.py):
// finfo and iinfo of every element type, promote_types and result_type
// (against JAX's table and against promote_t/promote_weak_t at compile time),
// can_cast under each casting rule, isdtype, issubdtype, and the errors.
#include "catch.hpp"

#include <cstdint>
#include <limits>
#include <complex>
#include <string>
#include <tuple>
#include <vector>

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/testing/catch.hpp>

#include "support.hpp"

namespace test_dtype_queries {

namespace jnp = jaxcc::numpy;
using jaxcc::Array;
using jaxcc::DType;
using jaxcc_test::message_of;

namespace {

struct FinfoCase {
  std::string dtype;
  int bits;
  std::vector<double> values;  // eps, epsneg, max, min, tiny, smallest_normal, smallest_subnormal, resolution
  std::vector<int> ints;       // precision, nexp, nmant, machep, negep, maxexp, minexp, iexp
};
struct IinfoCase {
  std::string dtype;
  int bits;
  std::string min, max;
  char kind;
};
struct ResultTypeCase {
  std::vector<std::string> args;
  std::string result;
};
struct Row {
  std::string a, b, row;
};
struct Flags {
  std::string a, row;
};
struct Promotion {
  std::string a, b, result;
};
#include "golden/dtype_queries_cases.inc"

// JAX's promote_types table and weak-scalar table (tests/golden/dtype_cases.py).
#include "golden/dtype_cases.inc"

std::vector<DType> const all_dtypes = {DType::bool_,   DType::int8,     DType::int16,   DType::int32,
                                       DType::int64,   DType::uint8,    DType::uint32,  DType::bfloat16,
                                       DType::float16, DType::float32,  DType::float64, DType::complex64,
                                       DType::complex128};

DType dtype_named(std::string const& name) {
  for (auto d : all_dtypes)
    if (jaxcc::name(d) == name) return d;
  FAIL("no dtype " << name);
  return DType::bool_;
}

template <class T>
void check_finfo(FinfoCase const& c) {
  using F = jnp::finfo<T>;
  INFO(c.dtype);
  CHECK(jaxcc::name(F::dtype) == c.dtype);
  CHECK(F::bits == c.bits);
  std::vector<T> const values = {F::eps, F::epsneg, F::max, F::min, F::tiny, F::smallest_normal,
                                 F::smallest_subnormal, F::resolution};
  for (std::size_t i = 0; i < values.size(); ++i) {
    INFO("value " << i);
    CHECK(static_cast<double>(values[i]) == c.values[i]);
  }
  CHECK(std::vector<int>{F::precision, F::nexp, F::nmant, F::machep, F::negep, F::maxexp, F::minexp, F::iexp} ==
        c.ints);
}

template <class T>
void check_iinfo(IinfoCase const& c) {
  using I = jnp::iinfo<T>;
  INFO(c.dtype);
  CHECK(jaxcc::name(I::dtype) == c.dtype);
  CHECK(I::bits == c.bits);
  CHECK(std::to_string(I::min) == c.min);
  CHECK(std::to_string(I::max) == c.max);
  CHECK(I::kind == c.kind);
}

}  // namespace

TEST_CASE("finfo and iinfo are jnp.finfo and jnp.iinfo for every element type", "[dtype_queries][golden]") {
  std::vector<FinfoCase> const finfos = {JAXCC_GOLDEN_FINFO};
  REQUIRE(finfos.size() == 4);
  check_finfo<jaxcc::bfloat16>(finfos[0]);
  check_finfo<jaxcc::float16>(finfos[1]);
  check_finfo<float>(finfos[2]);
  check_finfo<double>(finfos[3]);
  std::vector<IinfoCase> const iinfos = {JAXCC_GOLDEN_IINFO};
  REQUIRE(iinfos.size() == 6);
  check_iinfo<std::int8_t>(iinfos[0]);
  check_iinfo<std::int16_t>(iinfos[1]);
  check_iinfo<std::int32_t>(iinfos[2]);
  check_iinfo<std::int64_t>(iinfos[3]);
  check_iinfo<std::uint8_t>(iinfos[4]);
  check_iinfo<std::uint32_t>(iinfos[5]);
  // Usable in constant expressions, with the dtype's own type.
  static_assert(jnp::finfo<float>::eps == std::numeric_limits<float>::epsilon());
  static_assert(std::same_as<decltype(jnp::finfo<jaxcc::bfloat16>::eps), jaxcc::bfloat16 const>);
  static_assert(jnp::iinfo<std::uint8_t>::max == 255);
}

TEST_CASE("promote_types is jnp.promote_types for every pair, and promote_t at compile time",
          "[dtype_queries][golden]") {
  std::vector<Promotion> const table = {JAXCC_GOLDEN_PROMOTION};
  REQUIRE(table.size() == all_dtypes.size() * all_dtypes.size());
  for (auto const& p : table) {
    INFO(p.a << " " << p.b);
    CHECK(jaxcc::name(jnp::promote_types(dtype_named(p.a), dtype_named(p.b))) == p.result);
  }
  static_assert(jnp::promote_types(DType::uint8, DType::int8) ==
                jaxcc::dtype_of<jaxcc::promote_t<std::uint8_t, std::int8_t>>);
  static_assert(jnp::promote_types(DType::bfloat16, DType::float16) ==
                jaxcc::dtype_of<jaxcc::promote_t<jaxcc::bfloat16, jaxcc::float16>>);
  static_assert(jnp::promote_types(DType::uint32, DType::int32) == DType::int64);
}

TEST_CASE("result_type of dtypes, arrays and scalars is jnp.result_type with 32-bit defaults",
          "[dtype_queries][golden]") {
  std::vector<ResultTypeCase> const cases = {JAXCC_GOLDEN_RESULT_TYPE};
  auto const i8 = jnp::zeros<std::int8_t>({2});
  auto const u8 = jnp::zeros<std::uint8_t>({2});
  auto const bf16 = jnp::zeros<jaxcc::bfloat16>({2});
  // The golden's cases in its order: each its arguments (as the golden spells
  // them) and jaxcc's answer; a dtype argument is given as a DType or an array.
  std::vector<std::pair<std::string, DType>> const computed = {
      {"int8 int", jnp::result_type(DType::int8, 2)},
      {"int", jnp::result_type(2)},
      {"float", jnp::result_type(2.0)},
      {"bool:scalar", jnp::result_type(true)},
      {"int8 float", jnp::result_type(i8, 2.0f)},
      {"uint8 int8 int", jnp::result_type(u8, DType::int8, 2)},
      {"bfloat16 float", jnp::result_type(bf16, 2.0)},
      {"bfloat16 int", jnp::result_type(DType::bfloat16, 2)},
      {"bool bool:scalar", jnp::result_type(DType::bool_, true)},
      {"int float", jnp::result_type(2, 2.0)},
      {"bool:scalar int", jnp::result_type(true, 2)},
      {"int32 uint32 float16", jnp::result_type(DType::int32, DType::uint32, DType::float16)},
      {"uint32 int8", jnp::result_type(jnp::zeros<std::uint32_t>({2}), i8)},
      {"float16 bfloat16", jnp::result_type(DType::float16, bf16)},
      {"int64 float", jnp::result_type(DType::int64, 2.0)},
      {"uint8 int16 uint32", jnp::result_type(u8, DType::int16, DType::uint32)},
      {"bool int", jnp::result_type(DType::bool_, std::int64_t{2})},
      {"float64 bfloat16 int", jnp::result_type(DType::float64, jaxcc::bfloat16(1), 2)},
      {"int8", jnp::result_type(i8)},
  };
  REQUIRE(computed.size() == cases.size());
  for (std::size_t i = 0; i < cases.size(); ++i) {
    std::string args;
    for (auto const& a : cases[i].args) args += (args.empty() ? "" : " ") + a;
    INFO(args);
    CHECK(computed[i].first == args);
    CHECK(jaxcc::name(computed[i].second) == cases[i].result);
  }
  // An AnyArray gives its run-time dtype.
  CHECK(jnp::result_type(jaxcc::AnyArray(u8), 2.0, DType::int8) == DType::float32);
  CHECK(jnp::result_type(jaxcc::AnyArray(u8), DType::int8) == DType::int16);
  // A 16-bit float scalar keeps its dtype, as jnp.bfloat16(1) does.
  CHECK(jnp::result_type(jaxcc::bfloat16(1), 2) == DType::bfloat16);
  // Equal to promote_weak_t at compile time.
  static_assert(jnp::result_type(DType::int16, 2.5) == jaxcc::dtype_of<jaxcc::promote_weak_t<std::int16_t, double>>);
  static_assert(jnp::result_type(DType::uint8, 7) == jaxcc::dtype_of<jaxcc::promote_weak_t<std::uint8_t, int>>);
  static_assert(jnp::result_type(DType::float16, DType::bfloat16) == DType::float32);
}

TEST_CASE("promote_weak_t and result_type agree with JAX's weak-scalar table", "[dtype_queries][golden]") {
  struct Weak {
    std::string t, scalar, result;
  };
  std::vector<Weak> const table = {JAXCC_GOLDEN_WEAK_PROMOTION};
  for (auto const& w : table) {
    INFO(w.t << " " << w.scalar);
    auto const d = dtype_named(w.t);
    auto const r = w.scalar == "bool"    ? jnp::result_type(d, true)
                   : w.scalar == "int"     ? jnp::result_type(d, 2)
                   : w.scalar == "complex" ? jnp::result_type(d, std::complex<double>(0, 2))
                                           : jnp::result_type(d, 2.0);
    CHECK(jaxcc::name(r) == w.result);
  }
}

TEST_CASE("can_cast is jnp.can_cast under every casting rule", "[dtype_queries][golden]") {
  std::vector<Row> const rows = {JAXCC_GOLDEN_CAN_CAST};
  REQUIRE(rows.size() == all_dtypes.size() * 5);
  for (auto const& r : rows) {
    auto const from = dtype_named(r.a);
    for (std::size_t j = 0; j < all_dtypes.size(); ++j) {
      INFO(r.a << " -> " << jaxcc::name(all_dtypes[j]) << " (" << r.b << ")");
      CHECK(jnp::can_cast(from, all_dtypes[j], r.b) == (r.row[j] == '1'));
    }
  }
  static_assert(jnp::can_cast(DType::int8, DType::bfloat16));
  static_assert(!jnp::can_cast(DType::float16, DType::bfloat16));
  CHECK(message_of([] { (void)jnp::can_cast(DType::int8, DType::int16, "bad"); }) ==
        "can_cast: casting must be one of 'no', 'equiv', 'safe', 'same_kind', 'unsafe' (got 'bad')");
}

TEST_CASE("isdtype and issubdtype are JAX's", "[dtype_queries][golden]") {
  std::vector<std::string> const kinds = {"bool",          "signed integer",   "unsigned integer", "integral",
                                          "real floating", "complex floating", "numeric"};
  std::vector<Flags> const isdtype_rows = {JAXCC_GOLDEN_ISDTYPE};
  REQUIRE(isdtype_rows.size() == all_dtypes.size());
  for (auto const& r : isdtype_rows)
    for (std::size_t k = 0; k < kinds.size(); ++k) {
      INFO(r.a << " " << kinds[k]);
      CHECK(jnp::isdtype(dtype_named(r.a), kinds[k]) == (r.row[k] == '1'));
    }
  CHECK(jnp::isdtype(DType::int8, DType::int8));
  CHECK(!jnp::isdtype(DType::int8, DType::int16));
  CHECK(jnp::isdtype(DType::uint8, {"bool", "unsigned integer"}));
  CHECK(!jnp::isdtype(DType::float32, {"bool", "integral"}));
  static_assert(jnp::isdtype(DType::bfloat16, "real floating"));
  CHECK(message_of([] { (void)jnp::isdtype(DType::int8, "foo"); }) ==
        "isdtype: unrecognized kind 'foo'; expected one of 'bool', 'signed integer', 'unsigned integer', 'integral', "
        "'real floating', 'complex floating', 'numeric', or a dtype");

  std::vector<jnp::DTypeCategory> const categories = {jnp::generic,       jnp::number,   jnp::integer,
                                                      jnp::signedinteger, jnp::unsignedinteger, jnp::inexact,
                                                      jnp::floating,      jnp::complexfloating, jnp::bool_};
  std::vector<Flags> const subdtype_rows = {JAXCC_GOLDEN_ISSUBDTYPE};
  REQUIRE(subdtype_rows.size() == all_dtypes.size() + categories.size());
  for (std::size_t i = 0; i < subdtype_rows.size(); ++i) {
    auto const& r = subdtype_rows[i];
    for (std::size_t k = 0; k < categories.size(); ++k) {
      INFO(r.a << " " << k);
      bool const got = i < all_dtypes.size() ? jnp::issubdtype(dtype_named(r.a), categories[k])
                                             : jnp::issubdtype(categories[i - all_dtypes.size()], categories[k]);
      CHECK(got == (r.row[k] == '1'));
    }
  }
  CHECK(jnp::issubdtype(DType::int8, DType::int8));
  CHECK(!jnp::issubdtype(DType::int8, DType::int16));
  CHECK(!jnp::issubdtype(jnp::floating, DType::float32));
  static_assert(jnp::issubdtype(DType::bfloat16, jnp::floating) && !jnp::issubdtype(DType::bool_, jnp::integer));
}

}  // namespace test_dtype_queries
