// numpy's .npy format (numpy/lib/format.py): the magic, versions 1.0, 2.0
// and 3.0, the header (a Python dict literal: descr, fortran_order, shape)
// read with a parser of that one literal's grammar, and written exactly as
// numpy writes it (the same bytes as np.save).
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "jaxcc/core/dtype.hpp"
#include "jaxcc/core/shape.hpp"
#include "jaxcc/io/file.hpp"

namespace jaxcc::detail {

/// What a .npy header says.
struct NpyHeader {
  DType dtype = DType::float32;
  bool swap = false;     // stored in the other byte order than this machine's
  bool fortran = false;  // column-major
  Shape shape;
  std::uint64_t data_offset = 0;  // bytes from the file's start to the data
  std::uint64_t data_bytes = 0;
};

struct NpyType {
  std::string_view code;  // numpy's type code without the byte order: "f4"
  DType dtype;
};
/// jaxcc's dtypes as numpy's descr names them; bfloat16 is ml_dtypes'
/// bfloat16, which np.save writes as a 2-byte void ('<V2') and jnp.load
/// reads back as bfloat16.
inline constexpr std::array<NpyType, 13> npy_types{{{"b1", DType::bool_},
                                                     {"i1", DType::int8},
                                                     {"u1", DType::uint8},
                                                     {"i2", DType::int16},
                                                     {"i4", DType::int32},
                                                     {"i8", DType::int64},
                                                     {"u4", DType::uint32},
                                                     {"f2", DType::float16},
                                                     {"V2", DType::bfloat16},
                                                     {"f4", DType::float32},
                                                     {"f8", DType::float64},
                                                     {"c8", DType::complex64},
                                                     {"c16", DType::complex128}}};

/// The descr np.save writes for `dtype` (in this machine's byte order).
inline std::string npy_descr(DType dtype) {
  for (auto const& t : npy_types)
    if (t.dtype == dtype) {
      char const order = item_size(dtype) == 1 ? '|' : std::endian::native == std::endian::big ? '>' : '<';
      return order + std::string(t.code);
    }
  return "?";
}

/// The dtype of a descr, and whether its bytes need swapping here.
inline std::pair<DType, bool> npy_parse_descr(IoContext const& ctx, std::string_view descr) {
  if (descr.size() >= 2 && std::string_view("<>|=").find(descr[0]) != std::string_view::npos)
    for (auto const& t : npy_types)
      if (descr.substr(1) == t.code) {
        bool const big = descr[0] == '>' || (descr[0] != '<' && std::endian::native == std::endian::big);
        bool const swap = item_size(t.dtype) > 1 && t.dtype != DType::bfloat16 && big != (std::endian::native == std::endian::big);
        return {t.dtype, swap};
      }
  io_fail(ctx, "dtype '", descr,
          "' is not one jaxcc has (bool, int8, int16, int32, int64, uint8, uint32, float16, bfloat16, float32, "
          "float64, complex64, complex128)");
}

/// A cursor over the header's text: the one dict literal numpy writes.
class NpyHeaderParser {
 public:
  NpyHeaderParser(IoContext const& ctx, std::string_view text) : ctx_(ctx), text_(text) {}

  void parse(NpyHeader& out) {
    bool has_descr = false, has_order = false, has_shape = false;
    expect('{');
    while (!take('}')) {
      auto const key = string_literal();
      expect(':');
      if (key == "descr" && !has_descr) {
        if (peek() == '[') fail("a structured dtype (a list descr), which jaxcc has no arrays of");
        auto const descr = string_literal();
        std::tie(out.dtype, out.swap) = npy_parse_descr(ctx_, descr);
        has_descr = true;
      } else if (key == "fortran_order" && !has_order) {
        out.fortran = boolean();
        has_order = true;
      } else if (key == "shape" && !has_shape) {
        out.shape = shape();
        has_shape = true;
      } else {
        fail("unexpected or repeated key '", key, "'");
      }
      if (!take(',')) {
        expect('}');
        break;
      }
    }
    skip_space();
    if (at_ != text_.size()) fail("text after the dict");
    if (!has_descr || !has_order || !has_shape) fail("the keys are not 'descr', 'fortran_order' and 'shape'");
  }

 private:
  [[noreturn]] void fail(auto const&... parts) {
    io_fail(ctx_, "bad .npy header at character ", at_, ": ", parts..., " (header: ", text_.substr(0, 200), ")");
  }
  void skip_space() {
    while (at_ < text_.size() && (text_[at_] == ' ' || text_[at_] == '\n' || text_[at_] == '\t' || text_[at_] == '\r'))
      ++at_;
  }
  char peek() {
    skip_space();
    return at_ < text_.size() ? text_[at_] : '\0';
  }
  bool take(char c) {
    if (peek() != c) return false;
    ++at_;
    return true;
  }
  void expect(char c) {
    if (!take(c)) fail("expected '", c, "'");
  }
  std::string_view string_literal() {
    char const quote = peek();
    if (quote != '\'' && quote != '"') fail("expected a string");
    auto const end = text_.find(quote, ++at_);
    if (end == std::string_view::npos) fail("unterminated string");
    auto const out = text_.substr(at_, end - at_);
    if (out.find('\\') != std::string_view::npos) fail("escapes in a string");
    at_ = end + 1;
    return out;
  }
  bool boolean() {
    skip_space();
    for (auto [word, value] : {std::pair{std::string_view("True"), true}, std::pair{std::string_view("False"), false}})
      if (text_.substr(at_, word.size()) == word) {
        at_ += word.size();
        return value;
      }
    fail("expected True or False");
  }
  std::int64_t integer() {
    skip_space();
    std::int64_t value = 0;
    auto const start = at_;
    for (; at_ < text_.size() && text_[at_] >= '0' && text_[at_] <= '9'; ++at_)
      if (__builtin_mul_overflow(value, 10, &value) || __builtin_add_overflow(value, text_[at_] - '0', &value))
        fail("a dimension too large");
    if (at_ == start) fail("expected a non-negative integer");
    if (at_ < text_.size() && text_[at_] == 'L') ++at_;  // Python 2's long
    return value;
  }
  Shape shape() {
    Shape out;
    expect('(');
    while (!take(')')) {
      if (out.size() == 64) fail("more than 64 dimensions");
      out.push_back(integer());
      if (!take(',')) {
        expect(')');
        if (out.size() == 1) fail("a one-element tuple needs a trailing comma");
        break;
      }
    }
    return out;
  }

  IoContext ctx_;
  std::string_view text_;
  std::size_t at_ = 0;
};

/// Read the magic, version and header at the source's start; the data
/// follows (data_bytes of it, checked against what the source holds).
inline NpyHeader read_npy_header(ByteSource& source, IoContext const& ctx) {
  unsigned char magic[8];
  source.read(magic, 8, "the .npy magic");
  if (std::memcmp(magic, "\x93NUMPY", 6) != 0) io_fail(ctx, "not a .npy file (bad magic)");
  int const major = magic[6], minor = magic[7];
  if (major < 1 || major > 3 || minor != 0)
    io_fail(ctx, "unsupported .npy format version ", major, ".", minor, " (numpy writes 1.0, 2.0 and 3.0)");
  unsigned char length[4] = {};
  source.read(length, major == 1 ? 2 : 4, "the .npy header length");
  std::uint64_t const header_bytes = major == 1 ? load_le<std::uint16_t>(length) : load_le<std::uint32_t>(length);
  if (header_bytes > source.remaining())
    io_fail(ctx, "truncated: the header says it is ", header_bytes, " bytes, ", source.remaining(), " are left");
  std::string text(static_cast<std::size_t>(header_bytes), '\0');
  source.read(text.data(), header_bytes, "the .npy header");
  NpyHeader out;
  NpyHeaderParser(ctx, text).parse(out);
  out.data_offset = (major == 1 ? 10 : 12) + header_bytes;
  std::uint64_t count = 1;
  for (auto d : out.shape) count = io_checked_mul(ctx, count, static_cast<std::uint64_t>(d), "the element count");
  out.data_bytes = io_checked_mul(ctx, count, item_size(out.dtype), "the data size");
  if (out.data_bytes > source.remaining())
    io_fail(ctx, "truncated: shape ", to_string(out.shape), " of ", name(out.dtype), " needs ", out.data_bytes,
            " bytes of data, ", source.remaining(), " are left");
  return out;
}

/// The magic, version, length and header np.save writes for an array of
/// `dtype` and `shape` (version 1.0, or 2.0 when the header needs it).
inline std::string npy_header_bytes(DType dtype, Shape const& shape, bool fortran) {
  std::string dict = "{'descr': '" + npy_descr(dtype) + "', 'fortran_order': " + (fortran ? "True" : "False") +
                     ", 'shape': (";
  for (std::size_t i = 0; i < shape.size(); ++i) dict += (i ? ", " : "") + std::to_string(shape[i]);
  dict += shape.size() == 1 ? ",), }" : "), }";
  // numpy's room for the growth axis (format.py, GROWTH_AXIS_MAX_DIGITS).
  if (!shape.empty()) dict.append(21 - std::to_string(fortran ? shape[shape.size() - 1] : shape[0]).size(), ' ');
  for (int major : {1, 2}) {
    std::size_t const prefix = major == 1 ? 10 : 12, length = dict.size() + 1;
    std::size_t const pad = 64 - (prefix + length) % 64;
    if (major == 1 && length + pad > 0xffff) continue;
    std::string out("\x93NUMPY", 6);
    out += static_cast<char>(major);
    out += '\0';
    if (major == 1) store_le(out, static_cast<std::uint16_t>(length + pad));
    else store_le(out, static_cast<std::uint32_t>(length + pad));
    out += dict;
    out.append(pad, ' ');
    out += '\n';
    return out;
  }
  return {};
}

}  // namespace jaxcc::detail
