// What the io tests share: where numpy's files are (tests/golden/io, made
// by tests/golden/io_files.py), the values they hold, a scratch folder, and
// the fuzzing of a loader with deterministic mutations of a valid file.
#pragma once

#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include <jaxcc/jaxcc.hpp>

#ifndef JAXCC_TEST_GOLDEN_DIR
#define JAXCC_TEST_GOLDEN_DIR "tests/golden"
#endif

namespace jaxcc_test::io {

inline std::filesystem::path golden(std::string const& name) {
  return std::filesystem::path(JAXCC_TEST_GOLDEN_DIR) / "io" / name;
}

/// Element i of every array io_files.py writes (its value()).
template <class T>
T expected(std::int64_t i) {
  if constexpr (std::same_as<T, bool>) return i % 3 != 1;
  else if constexpr (std::same_as<T, std::int8_t>) return static_cast<T>((i * 37) % 100 - 50);
  else if constexpr (std::same_as<T, std::int16_t>) return static_cast<T>(((i * 37) % 100 - 50) * 300);
  else if constexpr (std::same_as<T, std::int32_t>) return static_cast<T>(((i * 37) % 100 - 50) * 100000);
  else if constexpr (std::same_as<T, std::int64_t>) return ((i * 37) % 100 - 50) * 1000000000000;
  else if constexpr (std::same_as<T, std::uint8_t>) return static_cast<T>((i * 37) % 100 + 100);
  else if constexpr (std::same_as<T, std::uint32_t>) return static_cast<T>(((i * 37) % 100) * 40000000);
  else if constexpr (jaxcc::ComplexElement<T>)
    return T((static_cast<double>(i) - 2.5) * 0.75, static_cast<double>(i) * 0.5 - 1);
  else return static_cast<T>((static_cast<double>(i) - 2.5) * 0.75);
}

/// Whether `a` holds T with `shape` and expected<T>(i) at row-major i.
template <class T>
bool holds_expected(jaxcc::AnyArray const& a, jaxcc::Shape const& shape) {
  if (!a.holds<T>() || a.shape() != shape) return false;
  auto const values = a.as<T>().to_vector();
  for (std::size_t i = 0; i < values.size(); ++i)
    if (!(values[i] == expected<T>(static_cast<std::int64_t>(i)))) return false;
  return true;
}

/// A fresh folder for one test case's files, removed after.
struct Scratch {
  std::filesystem::path dir;
  explicit Scratch(std::string const& name)
      : dir(std::filesystem::temp_directory_path() / ("jaxcc_io_" + name + "_" + std::to_string(::getpid()))) {
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
  }
  ~Scratch() {
    std::error_code ignored;
    std::filesystem::remove_all(dir, ignored);
  }
  std::filesystem::path operator/(std::string const& name) const { return dir / name; }
};

inline std::string read_bytes(std::filesystem::path const& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}
/// (A fresh file each time: ext4 flushes a file truncated and rewritten to
/// disk when it is closed, which made the fuzzing wait on the disk.)
inline void write_bytes(std::filesystem::path const& path, std::string const& bytes) {
  std::error_code ignored;
  std::filesystem::remove(path, ignored);
  std::ofstream(path, std::ios::binary | std::ios::trunc).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

/// A length field to edit: `width` little-endian bytes at `offset`.
struct LengthField {
  std::size_t offset, width;
};

/// Load `mutant` (written to `path`) with `load`, which may throw
/// jaxcc::Error and nothing else; counts the errors.
template <class Load>
void try_load(std::filesystem::path const& path, std::string const& mutant, Load& load, int& errors) {
  write_bytes(path, mutant);
  try {
    load(path);
  } catch (jaxcc::Error const& e) {
    if (std::string(e.what()).find(path.filename().string()) == std::string::npos)
      throw std::runtime_error(std::string("an io error that does not name the file: ") + e.what());
    ++errors;
  }
}

/// Deterministic mutations of `valid`, each loaded: every truncation, then
/// `flips` mutants with 1 to 4 bytes changed (a flipped bit or a random
/// byte), then each length field set to telling values. Returns the number
/// of mutants loaded; a crash, a read out of bounds (under ASan) or an
/// exception other than jaxcc::Error fails the test. `errors` counts those
/// jaxcc::Error rejected.
template <class Load>
int fuzz(std::string const& valid, std::filesystem::path const& path, Load load, int flips,
         std::vector<LengthField> const& fields, int& errors) {
  int count = 0;
  std::size_t const step = valid.size() > 600 ? valid.size() / 300 : 1;
  for (std::size_t n = 0; n < valid.size(); n += step, ++count) try_load(path, valid.substr(0, n), load, errors);
  std::uint64_t state = 0x9e3779b97f4a7c15u;
  auto next = [&] {
    state = state * 6364136223846793005u + 1442695040888963407u;
    return static_cast<std::size_t>(state >> 33);
  };
  for (int k = 0; k < flips; ++k, ++count) {
    auto mutant = valid;
    for (std::size_t j = 0, changes = 1 + next() % 4; j < changes; ++j) {
      auto& byte = mutant[next() % mutant.size()];
      byte = next() % 2 ? static_cast<char>(byte ^ (1 << (next() % 8))) : static_cast<char>(next());
    }
    try_load(path, mutant, load, errors);
  }
  for (auto const& field : fields)
    for (std::uint64_t value : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{7}, std::uint64_t{valid.size()},
                                std::uint64_t{valid.size() + 1}, std::uint64_t{0xffff}, std::uint64_t{0xffffffff},
                                ~std::uint64_t{0}, std::uint64_t{next()}}) {
      auto mutant = valid;
      for (std::size_t b = 0; b < field.width && field.offset + b < mutant.size(); ++b)
        mutant[field.offset + b] = static_cast<char>((value >> (8 * b)) & 0xff);
      try_load(path, mutant, load, errors);
      ++count;
    }
  return count;
}

}  // namespace jaxcc_test::io

namespace jaxcc_test::io {

/// "" when `message` holds every part, else the message (for CHECK to show).
inline std::string lacks(std::string const& message, auto const&... parts) {
  bool const all = ((message.find(parts) != std::string::npos) && ...);
  return all ? std::string() : message;
}

}  // namespace jaxcc_test::io
