// Arrays made from data outside jaxcc: jnp.frombuffer (bytes), jnp.fromstring
// (text), and numpy's fromfile and fromiter, which JAX leaves unimplemented
// (a Python file or iterator may be consumed under a transform; in C++ they
// run once, where they are called, and under jit give a constant). Each
// returns a new 1-D array of T (float32 by default: JAX's `float` with 32-bit
// defaults), in the machine's byte order.
#pragma once

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "jaxcc/core/array.hpp"
#include "jaxcc/core/error.hpp"

namespace jaxcc::detail {

/// `n` elements of T from raw bytes; a bool is any nonzero byte.
template <Element T>
Array<T> array_from_bytes(unsigned char const* bytes, std::int64_t n) {
  auto [out, data] = allocate<T>(Shape{n});
  if constexpr (std::same_as<T, bool>) {
    for (std::int64_t i = 0; i < n; ++i) data[i] = bytes[i] != 0;
  } else if (n > 0) {
    std::memcpy(data, bytes, static_cast<std::size_t>(n) * sizeof(T));
  }
  return out;
}

/// A contiguous range of 1-byte values (std::string, std::vector<std::byte>,
/// std::span), not a C array (a string literal passes as a pointer).
template <class B>
concept ByteRange = !std::is_array_v<B> && requires(B const& b) {
  std::size(b);
  requires sizeof(*std::data(b)) == 1;
};

/// A range (anything a range-for walks) of values that convert to T.
template <class R, class T>
concept RangeOf = requires(R& r) {
  std::begin(r) != std::end(r);
  static_cast<T>(*std::begin(r));
};

inline bool is_text_space(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

/// numpy's text reader for one element at `s` (its fromstr: leading
/// whitespace skipped; integers in base 10, wrapping to T, unsigned ones
/// refusing a '-'; floats as C's strtod without hexadecimal, parsed as double
/// and rounded to T; bool as an integer, nonzero true). Returns the characters
/// used, 0 where no element could be read.
template <Element T>
std::size_t parse_text_element(std::string_view s, T& out) {
  std::size_t i = 0;
  while (i < s.size() && is_text_space(s[i])) ++i;
  bool const negative = i < s.size() && s[i] == '-';
  if (i < s.size() && s[i] == '+' && ++i < s.size() && s[i] == '-') return 0;
  char const* first = s.data() + i;
  char const* last = s.data() + s.size();
  if constexpr (FloatElement<T>) {
    double v = 0;
    auto const [ptr, ec] = std::from_chars(first, last, v);
    if (ptr == first) return 0;
    if (ec == std::errc::result_out_of_range) v = std::strtod(std::string(first, ptr).c_str(), nullptr);
    out = static_cast<T>(v);
    return static_cast<std::size_t>(ptr - s.data());
  } else {
    constexpr bool is_unsigned = std::is_unsigned_v<T> && !std::same_as<T, bool>;
    if (is_unsigned && negative) return 0;
    std::int64_t v = 0;
    std::uint64_t u = 0;
    auto const [ptr, ec] = is_unsigned ? std::from_chars(first, last, u) : std::from_chars(first, last, v);
    if (ptr == first) return 0;
    if (ec == std::errc::result_out_of_range) {  // strtoll and strtoull saturate
      v = negative ? std::numeric_limits<std::int64_t>::min() : std::numeric_limits<std::int64_t>::max();
      u = std::numeric_limits<std::uint64_t>::max();
    }
    if constexpr (std::same_as<T, bool>)
      out = v != 0;
    else if constexpr (is_unsigned)
      out = static_cast<T>(u);
    else
      out = static_cast<T>(v);
    return static_cast<std::size_t>(ptr - s.data());
  }
}

/// numpy's separator: runs of whitespace become one wildcard space (matching
/// any whitespace, or none), with one added at either end.
inline std::string clean_separator(std::string_view sep) {
  std::string out;
  if (!sep.empty() && !is_text_space(sep.front())) out += ' ';
  for (auto c : sep) {
    if (!is_text_space(c))
      out += c;
    else if (out.empty() || out.back() != ' ')
      out += ' ';
  }
  if (!out.empty() && out.back() != ' ') out += ' ';
  return out;
}

/// numpy's separator skip from `pos`: 0 when matched, -1 at the end of the
/// text, -2 where the text does not match.
inline int skip_separator(std::string_view text, std::size_t& pos, std::string_view sep) {
  std::size_t const from = pos;
  std::size_t k = 0;
  while (true) {
    if (pos >= text.size()) return -1;
    if (k == sep.size()) return pos != from ? 0 : -2;
    if (sep[k] == ' ') {
      if (!is_text_space(text[pos])) {
        ++k;
        continue;
      }
    } else if (sep[k] != text[pos]) {
      return -2;
    } else {
      ++k;
    }
    ++pos;
  }
}

/// numpy's array_from_text: elements and separators in turn, up to `count`
/// elements (all where negative), until the text ends. Text that stops
/// matching raises numpy's error.
template <Element T>
std::vector<T> read_text_elements(std::string_view text, std::int64_t count, std::string_view sep,
                                  std::string_view op) {
  auto const clean = clean_separator(sep);
  std::vector<T> values;
  std::size_t pos = 0;
  int stop = 0;
  while (count < 0 || static_cast<std::int64_t>(values.size()) < count) {
    T v{};
    auto const used = parse_text_element(text.substr(pos), v);
    if (used == 0) {
      std::size_t rest = pos;
      while (rest < text.size() && is_text_space(text[rest])) ++rest;
      stop = rest >= text.size() ? -1 : -2;
      break;
    }
    pos += used;
    values.push_back(v);
    if ((stop = skip_separator(text, pos, clean)) < 0) break;
  }
  if (stop == -2)
    throw Error(std::string(op) + ": string or file could not be read to its end due to unmatched data (at offset " +
                std::to_string(pos) + " with separator '" + std::string(sep) + "')");
  return values;
}

template <Element T>
Array<T> array_from_values(std::vector<T> const& values) {
  auto [out, data] = allocate<T>(Shape{static_cast<std::int64_t>(values.size())});
  std::copy(values.begin(), values.end(), data);
  return out;
}

/// The whole of a file's bytes.
inline std::vector<unsigned char> read_file_bytes(std::string const& file, std::string_view op) {
  std::FILE* f = std::fopen(file.c_str(), "rb");
  if (f == nullptr) throw Error(std::string(op) + ": cannot open '" + file + "': " + std::strerror(errno));
  std::vector<unsigned char> bytes;
  unsigned char chunk[1 << 16];
  for (std::size_t n; (n = std::fread(chunk, 1, sizeof chunk, f)) > 0;) bytes.insert(bytes.end(), chunk, chunk + n);
  bool const failed = std::ferror(f) != 0;
  std::fclose(f);
  if (failed) throw Error(std::string(op) + ": cannot read '" + file + "'");
  return bytes;
}

}  // namespace jaxcc::detail

namespace jaxcc::numpy {

/// jnp.frombuffer(buffer, dtype, count, offset): the bytes of `buffer` (any
/// contiguous range of 1-byte values: std::string, std::vector<std::byte>,
/// a std::span) from byte `offset` on, read as `count` elements of T (all
/// where count is negative: the bytes left must then be whole elements).
template <Element T = float, detail::ByteRange Bytes>
Array<T> frombuffer(Bytes const& buffer, std::int64_t count = -1, std::int64_t offset = 0) {
  auto const size = static_cast<std::int64_t>(std::size(buffer));
  if (offset < 0 || offset > size)
    throw Error("frombuffer: offset must be non-negative and no greater than buffer length (" + std::to_string(size) +
                "), got " + std::to_string(offset));
  auto const left = size - offset;
  auto const item = static_cast<std::int64_t>(sizeof(T));
  if (count < 0 && left % item != 0)
    throw Error("frombuffer: buffer size must be a multiple of element size: " + std::to_string(left) +
                " bytes after the offset, " + std::to_string(item) + " per " + std::string(name(dtype_of<T>)));
  if (count >= 0 && count * item > left)
    throw Error("frombuffer: buffer is smaller than requested size: " + std::to_string(count) + " " +
                std::string(name(dtype_of<T>)) + " elements need " + std::to_string(count * item) + " bytes, " +
                std::to_string(left) + " are left after the offset");
  auto const* bytes = reinterpret_cast<unsigned char const*>(std::data(buffer)) + offset;
  return detail::array_from_bytes<T>(bytes, count < 0 ? left / item : count);
}

/// jnp.frombuffer of a string literal or character pointer (its characters,
/// without the terminating null).
template <Element T = float>
Array<T> frombuffer(char const* buffer, std::int64_t count = -1, std::int64_t offset = 0) {
  return frombuffer<T>(std::string_view(buffer), count, offset);
}

/// jnp.fromstring(string, dtype, count, sep=sep): the elements of a text,
/// read as numpy reads them (numpy's fromstring, which JAX calls). A space
/// in `sep` matches any run of whitespace, or none; whitespace around an
/// element is skipped, and a separator may end the text. An empty `sep`
/// (numpy's removed binary mode) raises, as does text that stops matching
/// and a count past the elements there are.
template <Element T = float>
Array<T> fromstring(std::string_view string, std::int64_t count, std::string_view sep) {
  if (sep.empty()) throw Error("fromstring: the binary mode of fromstring is removed (sep is empty); use frombuffer");
  if constexpr (std::same_as<T, bfloat16>)
    throw Error(
        "fromstring: don't know how to read character strings with that array type (bfloat16; numpy reads "
        "no text into ml_dtypes' types)");
  auto const values = detail::read_text_elements<T>(string, count, sep, "fromstring");
  if (count >= 0 && static_cast<std::int64_t>(values.size()) < count)
    throw Error("fromstring: string is smaller than requested size: " + std::to_string(count) +
                " elements requested, " + std::to_string(values.size()) + " read");
  return detail::array_from_values(values);
}

/// jnp.fromstring(string, dtype, sep=sep): every element of the text.
template <Element T = float>
Array<T> fromstring(std::string_view string, std::string_view sep) {
  return fromstring<T>(string, -1, sep);
}

/// np.fromfile(file, dtype, count, sep, offset) (JAX leaves jnp.fromfile
/// unimplemented). With an empty `sep` the file's bytes, from byte `offset`
/// on, as `count` elements of T (all whole elements there where negative or
/// past them; a partial last element is left out). With a separator, the
/// file's text read as fromstring reads it, up to `count` elements (fewer
/// where the text ends first); `offset` is for binary files only.
template <Element T = float>
Array<T> fromfile(std::string const& file, std::int64_t count = -1, std::string_view sep = "",
                  std::int64_t offset = 0) {
  if (!sep.empty() && offset != 0) throw Error("fromfile: 'offset' argument only permitted for binary files");
  if (offset < 0) throw Error("fromfile: offset must be non-negative, got " + std::to_string(offset));
  if constexpr (std::same_as<T, bfloat16>)
    if (!sep.empty()) throw Error("fromfile: don't know how to read character strings with that array type (bfloat16)");
  auto const bytes = detail::read_file_bytes(file, "fromfile");
  auto const size = static_cast<std::int64_t>(bytes.size());
  if (sep.empty()) {
    if (offset > size)
      throw Error("fromfile: offset " + std::to_string(offset) + " is past the end of '" + file + "' (" +
                  std::to_string(size) + " bytes)");
    auto const whole = (size - offset) / static_cast<std::int64_t>(sizeof(T));
    return detail::array_from_bytes<T>(bytes.data() + offset, count < 0 ? whole : std::min(count, whole));
  }
  std::string_view const text(reinterpret_cast<char const*>(bytes.data()), bytes.size());
  return detail::array_from_values(detail::read_text_elements<T>(text, count, sep, "fromfile"));
}

/// np.fromiter(iter, dtype, count) (JAX leaves jnp.fromiter unimplemented):
/// the values of a C++ range, each converted to T, the first `count` of them
/// (all where negative). A range shorter than `count` raises numpy's error.
template <Element T, detail::RangeOf<T> R>
Array<T> fromiter(R&& iterable, std::int64_t count = -1) {
  std::vector<T> values;
  if (count > 0) values.reserve(static_cast<std::size_t>(count));
  for (auto&& v : iterable) {
    if (count >= 0 && static_cast<std::int64_t>(values.size()) == count) break;
    values.push_back(static_cast<T>(v));
  }
  if (count >= 0 && static_cast<std::int64_t>(values.size()) < count)
    throw Error("fromiter: iterator too short: Expected " + std::to_string(count) + " but iterator had only " +
                std::to_string(values.size()) + " items.");
  return detail::array_from_values(values);
}

}  // namespace jaxcc::numpy
