// jaxcc::io::load_npy and save_npy (io/npy.hpp): the files numpy writes
// (tests/golden/io_files.py) at every dtype, order, byte order and format
// version, copied and memory-mapped; files written byte for byte as np.save
// writes them; bad files, and fuzzed ones, each a jaxcc::Error.
#include "catch.hpp"

#include <fcntl.h>
#include <omp.h>
#include <unistd.h>

#include <cstdint>
#include <string>
#include <vector>

#include <jaxcc/io/npy.hpp>
#include <jaxcc/jaxcc.hpp>
#include <jaxcc/testing/catch.hpp>

#include "io_support.hpp"
#include "support.hpp"

namespace test_io_npy {

using jaxcc::AnyArray;
using jaxcc::Array;
using jaxcc::Shape;
using jaxcc_test::message_of;
using jaxcc_test::io::expected;
using jaxcc_test::io::golden;
using jaxcc_test::io::holds_expected;
using jaxcc_test::io::lacks;
using jaxcc_test::io::read_bytes;
using jaxcc_test::io::Scratch;
using jaxcc_test::io::write_bytes;
namespace io = jaxcc::io;

template <class T>
void check_dtype(std::string const& name) {
  CAPTURE(name);
  bool const multibyte = sizeof(T) > 1 && !std::same_as<T, jaxcc::bfloat16>;
  for (std::string order : {"C", "F"})
    for (std::string endian : {"le", "be"}) {
      if (endian == "be" && !multibyte) continue;
      auto const file = golden("npy/" + name + "_" + order + "_" + endian + ".npy");
      CAPTURE(file);
      CHECK(holds_expected<T>(io::load_npy(file), Shape{2, 3}));
      CHECK(holds_expected<T>(io::load_npy(file, true), Shape{2, 3}));
      CHECK(io::load_npy<T>(file).to_vector() == io::load_npy(file).as<T>().to_vector());
      // A Fortran-ordered file is a column-major view, not a copy.
      CHECK(io::load_npy(file).visit([](auto const& a) { return a.is_contiguous(); }) == (order == "C"));
    }
}

TEST_CASE("load_npy reads numpy's files at every dtype, order and byte order") {
  check_dtype<bool>("bool");
  check_dtype<std::int8_t>("int8");
  check_dtype<std::uint8_t>("uint8");
  check_dtype<std::int16_t>("int16");
  check_dtype<std::int32_t>("int32");
  check_dtype<std::int64_t>("int64");
  check_dtype<std::uint32_t>("uint32");
  check_dtype<jaxcc::float16>("float16");
  check_dtype<jaxcc::bfloat16>("bfloat16");
  check_dtype<float>("float32");
  check_dtype<double>("float64");
  check_dtype<std::complex<float>>("complex64");
  check_dtype<std::complex<double>>("complex128");
}

TEST_CASE("load_npy reads format versions 2.0 and 3.0, 0-d, empty and 3-d Fortran arrays") {
  CHECK(holds_expected<float>(io::load_npy(golden("npy/float32_v2.npy")), Shape{2, 3}));
  CHECK(holds_expected<float>(io::load_npy(golden("npy/float32_v3.npy")), Shape{2, 3}));
  CHECK(holds_expected<double>(io::load_npy(golden("npy/float64_0d.npy")), Shape{}));
  CHECK(holds_expected<std::int32_t>(io::load_npy(golden("npy/int32_empty.npy")), Shape{0, 4}));
  CHECK(holds_expected<std::int32_t>(io::load_npy(golden("npy/int32_empty.npy"), true), Shape{0, 4}));
  CHECK(holds_expected<float>(io::load_npy(golden("npy/float32_3d_F.npy")), Shape{2, 3, 4}));
  CHECK(holds_expected<float>(io::load_npy(golden("npy/float32_3d_F.npy"), true), Shape{2, 3, 4}));
}

TEST_CASE("load_npy<T> wants the stored dtype exactly") {
  auto const file = golden("npy/float32_C_le.npy");
  auto const message = message_of([&] { io::load_npy<double>(file); });
  CHECK(lacks(message, "float32_C_le.npy", "dtype float32, not float64") == "");
}

TEST_CASE("save_npy writes what np.save writes, byte for byte") {
  Scratch scratch("save_npy");
  for (std::string name : {"bool", "int8", "uint8", "int16", "int32", "int64", "uint32", "float16", "bfloat16",
                           "float32", "float64", "complex64", "complex128"})
    for (std::string order : {"C", "F"}) {
      auto const file = golden("npy/" + name + "_" + order + "_le.npy");
      CAPTURE(file);
      auto const out = scratch / (name + order + ".npy");
      io::save_npy(out, io::load_npy(file));
      CHECK(read_bytes(out) == read_bytes(file));
    }
  for (std::string name : {"float64_0d", "int32_empty", "float32_3d_F"}) {
    auto const out = scratch / (name + ".npy");
    io::save_npy(out, io::load_npy(golden("npy/" + name + ".npy"), true));
    CHECK(read_bytes(out) == read_bytes(golden("npy/" + name + ".npy")));
  }
  // A view that is neither row- nor column-major is written row-major.
  namespace jnp = jaxcc::numpy;
  auto const x = jnp::arange<float>(24).reshape({2, 3, 4});
  auto const view = jnp::transpose(x, {1, 0, 2});
  io::save_npy(scratch / "view.npy", view);
  std::vector<float> want;
  for (int j = 0; j < 3; ++j)
    for (int i = 0; i < 2; ++i)
      for (int k = 0; k < 4; ++k) want.push_back(static_cast<float>(i * 12 + j * 4 + k));
  CHECK(io::load_npy<float>(scratch / "view.npy").to_vector() == want);
  CHECK(io::load_npy<float>(scratch / "view.npy").shape() == Shape{3, 2, 4});
}

TEST_CASE("load_npy reads a large array in slices over the threads, each at its place") {
  // 12,582,917 uint32 (48 MiB, over the 32 MiB where the read is split),
  // element i = i * 2654435761 mod 2^32, so a slice read to the wrong place
  // or left out shows; the file written by hand (format 1.0, a header of
  // 128 bytes, so the data does not start on a page of the file).
  Scratch scratch("large");
  auto const path = scratch / "large.npy";
  std::int64_t const n = (std::int64_t{12} << 20) + 5;
  auto const value = [](std::int64_t i) { return static_cast<std::uint32_t>(static_cast<std::uint64_t>(i) * 2654435761u); };
  {
    std::string header = "{'descr': '<u4', 'fortran_order': False, 'shape': (" + std::to_string(n) + ",), }";
    header.resize(128 - 10 - 1, ' ');
    header += '\n';
    std::string bytes = "\x93NUMPY";
    bytes += '\x01', bytes += '\x00', bytes += static_cast<char>(header.size()), bytes += '\x00';
    bytes += header;
    std::vector<std::uint32_t> data(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) data[static_cast<std::size_t>(i)] = value(i);
    bytes.append(reinterpret_cast<char const*>(data.data()), data.size() * sizeof(std::uint32_t));
    write_bytes(path, bytes);
  }
  auto const check = [&] {
    auto const loaded = io::load_npy<std::uint32_t>(path);
    REQUIRE(loaded.shape() == Shape{n});
    auto const values = loaded.to_vector();
    std::int64_t wrong = 0;
    for (std::int64_t i = 0; i < n; ++i) wrong += values[static_cast<std::size_t>(i)] != value(i);
    CHECK(wrong == 0);
  };
  check();
  // Three threads: slices of uneven length, rounded to 2 MiB of the buffer.
  int const threads = omp_get_max_threads();
  omp_set_num_threads(3);
  check();
  omp_set_num_threads(1);
  check();
  omp_set_num_threads(threads);
}

TEST_CASE("load_npy with mmap maps the file, and the array keeps the mapping") {
  Scratch scratch("mmap");
  auto const path = scratch / "x.npy";
  std::filesystem::copy_file(golden("npy/float32_C_le.npy"), path);
  auto const mapped = io::load_npy<float>(path, true);
  auto const copied = io::load_npy<float>(path);
  // Changing the file shows through the mapping (Linux's page cache), not the copy.
  int const fd = ::open(path.c_str(), O_WRONLY);
  REQUIRE(fd >= 0);
  float const seven = 7.0f;
  REQUIRE(::pwrite(fd, &seven, sizeof seven, 128) == sizeof seven);
  ::close(fd);
  CHECK(mapped.to_vector()[0] == 7.0f);
  CHECK(copied.to_vector()[0] == expected<float>(0));
  // The file gone, the mapping lives on with the array; arithmetic works on it.
  std::filesystem::remove(path);
  CHECK(Array<float>(mapped + 1.0f).to_vector()[1] == expected<float>(1) + 1.0f);
}

TEST_CASE("load_npy's errors name the file and the problem") {
  Scratch scratch("npy_errors");
  auto const valid = read_bytes(golden("npy/float32_C_le.npy"));
  auto error_of = [&](std::string const& bytes, bool mmap = false) {
    write_bytes(scratch / "bad.npy", bytes);
    return message_of([&] { io::load_npy(scratch / "bad.npy", mmap); });
  };
  CHECK(lacks(message_of([&] { io::load_npy(scratch / "missing.npy"); }), "jaxcc::io::load_npy", "missing.npy", "cannot open") == "");
  CHECK(lacks(error_of("\x93NUMPZ" + valid.substr(6)), "bad.npy", "bad magic") == "");
  CHECK(lacks(error_of(valid.substr(0, 100)), "truncated") == "");
  CHECK(lacks(error_of(valid.substr(0, 140), true), "truncated", "needs 24 bytes of data") == "");
  auto lying = valid;
  lying[8] = '\xff';  // a header of 255 bytes, in a file of 152
  CHECK(lacks(error_of(lying), "truncated: the header says it is 255 bytes") == "");
  auto version = valid;
  version[6] = 4;
  CHECK(lacks(error_of(version), "unsupported .npy format version 4.0") == "");
  auto uint16 = valid;
  uint16.replace(uint16.find("<f4"), 3, "<u2");
  CHECK(lacks(error_of(uint16), "dtype '<u2' is not one jaxcc has") == "");
  auto complex = valid;  // a complex64 header over float32 data: too little of it
  complex.replace(complex.find("<f4"), 3, "<c8");
  CHECK(lacks(error_of(complex), "truncated: shape (2, 3) of complex64 needs 48 bytes of data, 24 are left") == "");
  auto text = valid;
  text.replace(text.find("<f4"), 3, "<U1");
  CHECK(lacks(error_of(text), "dtype '<U1' is not one jaxcc has") == "");
  auto structured = valid;
  structured.replace(structured.find("'<f4'"), 5, "[('a'");
  CHECK(lacks(error_of(structured), "structured dtype") == "");
  auto shape = valid;
  shape.replace(shape.find("(2, 3)"), 6, "(2, -3)");
  CHECK(lacks(error_of(shape), "bad .npy header", "expected a non-negative integer") == "");
  auto huge = valid;
  huge.replace(huge.find("(2, 3)"), 6, "(99999999999, 9999)");
  CHECK(lacks(error_of(huge), "truncated: shape (99999999999, 9999) of float32 needs") == "");
  auto overflow = valid;
  overflow.replace(overflow.find("(2, 3)"), 6, "(99999999999, 999999999999)");
  CHECK(lacks(error_of(overflow), "the element count overflows 64 bits") == "");
  CHECK(lacks(error_of(""), "truncated") == "");
  CHECK(lacks(error_of("", true), "truncated") == "");
}

TEST_CASE("load_npy survives thousands of mutated files with jaxcc::Error alone") {
  Scratch scratch("npy_fuzz");
  int count = 0, errors = 0;
  for (std::string name : {"float32_C_le", "int64_F_be", "bool_C_le", "float32_v2"}) {
    auto const valid = read_bytes(golden("npy/" + name + ".npy"));
    bool const v1 = name != "float32_v2";
    std::vector<jaxcc_test::io::LengthField> fields{{8, v1 ? 2u : 4u}};
    auto load = [](std::filesystem::path const& p) {
      io::load_npy(p);
      io::load_npy(p, true);
    };
    count += jaxcc_test::io::fuzz(valid, scratch / "mutant.npy", load, 600, fields, errors);
  }
  CHECK(count > 2500);
  CHECK(errors > count / 2);
}

}  // namespace test_io_npy
