// jaxcc::io::load_npz, save_npz and save_npz_compressed (io/npz.hpp): the
// archives np.savez and np.savez_compressed write (tests/golden/io_files.py),
// round trips (zip64 included), bad archives and fuzzed ones, each a
// jaxcc::Error. (numpy reading what jaxcc writes: tests/io_roundtrip_check.py.)
#include "catch.hpp"

#include <cstdint>
#include <string>

#include <jaxcc/io/npz.hpp>
#include <jaxcc/jaxcc.hpp>
#include <jaxcc/testing/catch.hpp>

#include "io_support.hpp"
#include "support.hpp"

namespace test_io_npz {

using jaxcc::AnyArray;
using jaxcc::Array;
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

bool holds_golden_arrays(io::ArrayMap const& arrays) {
  return arrays.size() == 4 && holds_expected<float>(arrays.at("a"), Shape{2, 3}) &&
         holds_expected<std::int64_t>(arrays.at("b"), Shape{3}) && holds_expected<bool>(arrays.at("c"), Shape{}) &&
         holds_expected<jaxcc::float16>(arrays.at("layers/0/kernel"), Shape{3, 2});
}

TEST_CASE("load_npz reads what np.savez and np.savez_compressed write") {
  CHECK(holds_golden_arrays(io::load_npz(golden("savez.npz"))));
  CHECK(holds_golden_arrays(io::load_npz(golden("savez_compressed.npz"))));
}

TEST_CASE("save_npz and save_npz_compressed round trip") {
  Scratch scratch("npz_round_trip");
  auto const arrays = io::load_npz(golden("savez.npz"));
  io::save_npz(scratch / "x.npz", arrays);
  CHECK(holds_golden_arrays(io::load_npz(scratch / "x.npz")));
  io::save_npz_compressed(scratch / "y.npz", arrays);
  CHECK(holds_golden_arrays(io::load_npz(scratch / "y.npz")));
  // Compression pays on repetitive data; a transposed view is saved as what it shows.
  auto const big = jnp::zeros<float>({300, 200});
  io::save_npz_compressed(scratch / "z.npz", {{"z", big}, {"t", jnp::arange<std::int32_t>(6).reshape({2, 3}).T()}});
  CHECK(std::filesystem::file_size(scratch / "z.npz") < 2000);
  auto const back = io::load_npz(scratch / "z.npz");
  CHECK(back.at("z").as<float>().to_vector() == big.to_vector());
  CHECK(back.at("t").as<std::int32_t>().to_vector() == std::vector<std::int32_t>{0, 3, 1, 4, 2, 5});
  io::save_npz(scratch / "empty.npz", {});
  CHECK(io::load_npz(scratch / "empty.npz").empty());
}

/// `archive` (without a comment) with zip64 end records, as a writer of more
/// than 65535 entries or 4 GiB writes them: the end record's counts, size
/// and offset all 0xff, the true ones in the zip64 record before it.
std::string with_zip64_end(std::string const& archive) {
  using jaxcc::detail::load_le;
  using jaxcc::detail::store_le;
  std::size_t const end = archive.size() - 22;
  auto const* e = archive.data() + end;
  std::uint64_t const count = load_le<std::uint16_t>(e + 10), size = load_le<std::uint32_t>(e + 12),
                      offset = load_le<std::uint32_t>(e + 16);
  std::string out = archive.substr(0, end);
  store_le(out, std::uint32_t{0x06064b50}), store_le(out, std::uint64_t{44}), store_le(out, std::uint32_t{0x002d002d});
  store_le(out, std::uint64_t{0}), store_le(out, count), store_le(out, count), store_le(out, size);
  store_le(out, offset);
  store_le(out, std::uint32_t{0x07064b50}), store_le(out, std::uint32_t{0}), store_le(out, std::uint64_t{end});
  store_le(out, std::uint32_t{1});
  out += archive.substr(end, 8);
  store_le(out, std::uint16_t{0xffff}), store_le(out, std::uint16_t{0xffff});
  store_le(out, std::uint32_t{0xffffffff}), store_le(out, std::uint32_t{0xffffffff}), store_le(out, std::uint16_t{0});
  return out;
}

TEST_CASE("load_npz reads zip64 end records") {
  Scratch scratch("npz_zip64");
  for (std::string name : {"savez.npz", "savez_compressed.npz"}) {
    write_bytes(scratch / name, with_zip64_end(read_bytes(golden(name))));
    CHECK(holds_golden_arrays(io::load_npz(scratch / name)));
  }
}

TEST_CASE("load_npz's errors name the file and the problem") {
  Scratch scratch("npz_errors");
  auto const valid = read_bytes(golden("savez.npz"));
  auto error_of = [&](std::string const& bytes) {
    write_bytes(scratch / "bad.npz", bytes);
    return message_of([&] { io::load_npz(scratch / "bad.npz"); });
  };
  CHECK(lacks(message_of([&] { io::load_npz(scratch / "missing.npz"); }), "jaxcc::io::load_npz", "missing.npz",
              "cannot open") == "");
  CHECK(lacks(error_of(read_bytes(golden("npy/float32_C_le.npy"))), "bad.npz", "not a zip archive") == "");
  CHECK(lacks(error_of(valid.substr(0, 10)), "not a zip archive") == "");
  CHECK(lacks(error_of(valid.substr(0, valid.size() / 2)), "not a zip archive") == "");
  // A byte of a's data changed: its CRC-32 no longer matches.
  auto corrupt = valid;
  auto const data = corrupt.find("\n", corrupt.find("'shape': (2, 3)")) + 1;
  corrupt[data + 5] ^= 0x10;
  CHECK(lacks(error_of(corrupt), "bad.npz/a.npy", "CRC-32 mismatch") == "");
  // The central directory said to lie beyond the file.
  auto far = valid;
  far[far.size() - 22 + 19] = '\x7f';
  CHECK(lacks(error_of(far), "the central directory", "lies past the end of the file") == "");
  // A deflated entry whose data is garbage.
  auto deflated = read_bytes(golden("savez_compressed.npz"));
  for (std::size_t i = 60; i < 90; ++i) deflated[i] = '\xff';
  CHECK(lacks(error_of(deflated), "bad.npz", "a.npy") == "");
}

TEST_CASE("load_npz refuses an archive entry that is not an .npy") {
  Scratch scratch("npz_not_npy");
  jaxcc::detail::IoContext const ctx{"test", scratch / "text.npz"};
  {
    jaxcc::detail::OutFile out(ctx);
    jaxcc::detail::ZipWriter zip(out, ctx);
    zip.add("readme.txt", {"hello"}, false);
    zip.finish();
    out.commit();
  }
  CHECK(lacks(message_of([&] { io::load_npz(scratch / "text.npz"); }), "text.npz", "entry 'readme.txt' is not an .npy") ==
        "");
}

/// The length fields of a small archive without a comment: the end record's
/// and the first entry's (central and local) sizes, name lengths and offsets.
std::vector<jaxcc_test::io::LengthField> zip_fields(std::string const& bytes) {
  std::size_t const end = bytes.size() - 22;
  std::size_t const cd = jaxcc::detail::load_le<std::uint32_t>(bytes.data() + end + 16);
  std::size_t const name = jaxcc::detail::load_le<std::uint16_t>(bytes.data() + 26);
  return {{end + 8, 2}, {end + 10, 2}, {end + 12, 4}, {end + 16, 4}, {cd + 20, 4}, {cd + 24, 4},
          {cd + 28, 2}, {cd + 30, 2},  {cd + 42, 4},  {26, 2},       {28, 2},      {30 + name + 4, 8},
          {30 + name + 12, 8}};
}

TEST_CASE("load_npz survives thousands of mutated archives with jaxcc::Error alone") {
  Scratch scratch("npz_fuzz");
  int count = 0, errors = 0;
  for (std::string name : {"savez.npz", "savez_compressed.npz"}) {
    auto const valid = read_bytes(golden(name));
    auto load = [](std::filesystem::path const& p) { io::load_npz(p); };
    count += jaxcc_test::io::fuzz(valid, scratch / "mutant.npz", load, 900, zip_fields(valid), errors);
  }
  auto const zip64 = with_zip64_end(read_bytes(golden("savez.npz")));
  std::size_t const end64 = zip64.size() - 22 - 20 - 56;
  std::vector<jaxcc_test::io::LengthField> const fields{
      {end64 + 24, 8}, {end64 + 32, 8}, {end64 + 40, 8}, {end64 + 48, 8}, {end64 + 56 + 8, 8}};
  count += jaxcc_test::io::fuzz(zip64, scratch / "mutant.npz", [](auto const& p) { io::load_npz(p); }, 300, fields, errors);
  CHECK(count > 2500);
  CHECK(errors > count / 2);
}

}  // namespace test_io_npz
