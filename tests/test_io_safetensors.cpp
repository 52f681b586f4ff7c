// jaxcc::io::load_safetensors and save_safetensors (io/safetensors.hpp): a
// file Hugging Face's safetensors package wrote (tests/golden/io_files.py),
// round trips, the layout written, bad files and fuzzed ones, each a
// jaxcc::Error.
#include "catch.hpp"

#include <cstdint>
#include <string>

#include <jaxcc/io/safetensors.hpp>
#include <jaxcc/jaxcc.hpp>
#include <jaxcc/testing/catch.hpp>

#include "io_support.hpp"
#include "support.hpp"

namespace test_io_safetensors {

using jaxcc::Shape;
using jaxcc_test::message_of;
using jaxcc_test::io::golden;
using jaxcc_test::io::holds_expected;
using jaxcc_test::io::lacks;
using jaxcc_test::io::read_bytes;
using jaxcc_test::io::Scratch;
using jaxcc_test::io::write_bytes;
namespace io = jaxcc::io;
namespace jnp = jaxcc::numpy;

bool holds_golden_tensors(io::ArrayMap const& tensors) {
  return tensors.size() == 3 && holds_expected<float>(tensors.at("w"), Shape{2, 3}) &&
         holds_expected<std::int64_t>(tensors.at("b"), Shape{3}) &&
         holds_expected<jaxcc::bfloat16>(tensors.at("h"), Shape{2, 3});
}

TEST_CASE("load_safetensors reads what Hugging Face's safetensors writes") {
  CHECK(holds_golden_tensors(io::load_safetensors(golden("model.safetensors"))));
}

TEST_CASE("save_safetensors round trips, with the layout safetensors writes") {
  Scratch scratch("safetensors");
  auto tensors = io::load_safetensors(golden("model.safetensors"));
  io::save_safetensors(scratch / "x.safetensors", tensors, {{"format", "np"}});
  CHECK(holds_golden_tensors(io::load_safetensors(scratch / "x.safetensors")));
  auto const bytes = read_bytes(scratch / "x.safetensors");
  auto const header_size = jaxcc::detail::load_le<std::uint64_t>(bytes.data());
  CHECK(header_size % 8 == 0);
  auto const header = bytes.substr(8, header_size);
  CHECK(header.find(R"("__metadata__":{"format":"np"})") != std::string::npos);
  // Largest items first: b (8 bytes) at 0, w (4) at 24, h (2) at 48.
  CHECK(header.find(R"("b":{"dtype":"I64","shape":[3],"data_offsets":[0,24]})") != std::string::npos);
  CHECK(header.find(R"("h":{"dtype":"BF16","shape":[2,3],"data_offsets":[48,60]})") != std::string::npos);
  CHECK(bytes.size() == 8 + header_size + 60);
  // Every dtype, a 0-d tensor, a transposed view (written row-major).
  io::ArrayMap all{{"bool", jnp::array({true, false})},     {"i8", jnp::full<std::int8_t>({2}, -3)},
                   {"u8", jnp::full<std::uint8_t>({2}, 200)}, {"i16", jnp::full<std::int16_t>({}, -300)},
                   {"i32", jnp::arange<std::int32_t>(6).reshape({2, 3}).T()},
                   {"u32", jnp::full<std::uint32_t>({1}, 4000000000u)}, {"f16", jnp::full<jaxcc::float16>({2}, 0.5)},
                   {"f64", jnp::full<double>({2}, 0.1)}};
  io::save_safetensors(scratch / "all.safetensors", all);
  auto const back = io::load_safetensors(scratch / "all.safetensors");
  REQUIRE(back.size() == all.size());
  for (auto const& [key, array] : all) {
    CAPTURE(key);
    CHECK(back.at(key).dtype() == array.dtype());
    CHECK(back.at(key).shape() == array.shape());
  }
  CHECK(back.at("i32").as<std::int32_t>().to_vector() == std::vector<std::int32_t>{0, 3, 1, 4, 2, 5});
  CHECK(back.at("u32").as<std::uint32_t>().item() == 4000000000u);
  CHECK(back.at("f64").as<double>().to_vector()[1] == 0.1);
}

TEST_CASE("load_safetensors's errors name the file and the problem") {
  Scratch scratch("safetensors_errors");
  auto error_of = [&](std::string const& header, std::string const& data = std::string(60, '\0')) {
    std::string bytes;
    jaxcc::detail::store_le(bytes, static_cast<std::uint64_t>(header.size()));
    write_bytes(scratch / "bad.safetensors", bytes + header + data);
    return message_of([&] { io::load_safetensors(scratch / "bad.safetensors"); });
  };
  CHECK(lacks(message_of([&] { io::load_safetensors(scratch / "missing.safetensors"); }), "missing.safetensors",
              "cannot open") == "");
  CHECK(lacks(error_of("{\"a\":"), "bad.safetensors", "the header is not a JSON object") == "");
  CHECK(lacks(error_of("[1]"), "the header is not a JSON object") == "");
  CHECK(lacks(error_of(R"({"a":{"dtype":"F8_E4M3","shape":[2],"data_offsets":[0,2]}})"),
              "tensor 'a': dtype 'F8_E4M3' is not one jaxcc has") == "");
  CHECK(lacks(error_of(R"({"a":{"dtype":"U16","shape":[2],"data_offsets":[0,4]}})"), "dtype 'U16'") == "");
  CHECK(lacks(error_of(R"({"a":{"dtype":"F32","shape":[2,3],"data_offsets":[0,20]}})"),
              "data_offsets [0, 20) hold 20 bytes, shape (2, 3) of float32 needs 24") == "");
  CHECK(lacks(error_of(R"({"a":{"dtype":"F32","shape":[20],"data_offsets":[0,80]}})"),
              "truncated: tensor 'a' ends at data byte 80, the data has 60") == "");
  CHECK(lacks(error_of(R"({"a":{"dtype":"F32","shape":[-2],"data_offsets":[0,8]}})"), "a size is not a count") == "");
  CHECK(lacks(error_of(R"({"a":{"dtype":"F32","data_offsets":[0,8]}})"), "no shape") == "");
  CHECK(lacks(error_of(R"({"__metadata__":{"a":1}})"), "__metadata__ is not an object of strings") == "");
  std::string huge;
  jaxcc::detail::store_le(huge, std::uint64_t{1} << 40);
  write_bytes(scratch / "huge.safetensors", huge + "{}");
  CHECK(lacks(message_of([&] { io::load_safetensors(scratch / "huge.safetensors"); }),
              "larger than safetensors allows") == "");
  std::string lying;
  jaxcc::detail::store_le(lying, std::uint64_t{1000});
  write_bytes(scratch / "lying.safetensors", lying + "{}");
  CHECK(lacks(message_of([&] { io::load_safetensors(scratch / "lying.safetensors"); }), "truncated", "the header") ==
        "");
}

TEST_CASE("load_safetensors survives thousands of mutated files with jaxcc::Error alone") {
  Scratch scratch("safetensors_fuzz");
  auto const valid = read_bytes(golden("model.safetensors"));
  int errors = 0;
  auto load = [](std::filesystem::path const& p) { io::load_safetensors(p); };
  int const count = jaxcc_test::io::fuzz(valid, scratch / "mutant.safetensors", load, 2500, {{0, 8}}, errors);
  CHECK(count > 2500);
  CHECK(errors > count / 2);
}

}  // namespace test_io_safetensors
