// Printing arrays exactly as JAX's `repr` prints them: `Array(` + numpy's
// array2string(x, prefix='Array(', suffix=',', separator=', ') + `, dtype=...)`
// (jax/_src/array.py). The formatting rules are numpy 2's arrayprint.py (JAX needs numpy 2) with
// its default options: shortest round-trip digits capped at 8 fractional ones
// (floatmode 'maxprec'), scientific notation chosen from the magnitudes,
// aligned columns, rows wrapped at 75 columns and `...` summaries past 1000
// elements.
#pragma once

#include <algorithm>
#include <charconv>
#include <cmath>
#include <concepts>
#include <cstdint>
#include <limits>
#include <optional>
#include <ostream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "jaxcc/core/array.hpp"

namespace jaxcc::detail {

// numpy's default print options, which JAX's repr uses.
inline constexpr std::size_t print_line_width = 75;
inline constexpr std::int64_t print_threshold = 1000;
inline constexpr std::int64_t print_edge_items = 3;
inline constexpr int print_precision = 8;
inline constexpr std::string_view print_prefix = "Array(";
inline constexpr std::string_view print_separator = ", ";

/// A finite float as numpy's Dragon4 writes it, split where padding goes:
/// sign and integer digits, fraction digits, and (scientific only) exponent.
struct FloatText {
  std::string integer;
  std::string fraction;
  int exponent = 0;
};

/// The shortest digits, in scientific form, that read back as `v`; for a
/// 16-bit float, the fewest correctly rounded digits of its exact value that
/// read back as it (the float holding it exactly).
template <FloatElement T>
std::to_chars_result shortest_scientific(char* first, char* last, T v) {
  if constexpr (std::floating_point<T>) {
    return std::to_chars(first, last, v, std::chars_format::scientific);
  } else {
    auto const wide = static_cast<float>(v);
    for (int digits = 0;; ++digits) {
      auto const result = std::to_chars(first, last, wide, std::chars_format::scientific, digits);
      float back = 0;
      std::from_chars(first, result.ptr, back);
      if (static_cast<T>(back) == v || digits >= 8) return result;
    }
  }
}

/// `v` in scientific form: its shortest round-trip digits, or the exact value
/// correctly rounded to `fraction_digits` digits after the first.
template <FloatElement T>
FloatText scientific_text(T v, std::optional<int> fraction_digits) {
  char buf[64];
  auto const result = fraction_digits ? std::to_chars(buf, buf + sizeof buf, static_cast<detail::compute_t<T>>(v),
                                                      std::chars_format::scientific, *fraction_digits)
                                      : shortest_scientific(buf, buf + sizeof buf, v);
  std::string_view const text(buf, static_cast<std::size_t>(result.ptr - buf));
  auto const e = text.find('e');
  auto const point = text.find('.');
  FloatText out;
  out.integer = std::string(text.substr(0, std::min(point, e)));
  if (point != std::string_view::npos) out.fraction = std::string(text.substr(point + 1, e - point - 1));
  auto const exponent = text.substr(e + (text[e + 1] == '+' ? 2 : 1));
  std::from_chars(exponent.data(), exponent.data() + exponent.size(), out.exponent);
  return out;
}

inline void trim_trailing_zeros(std::string& fraction) {
  fraction.erase(fraction.find_last_not_of('0') + 1);
}

/// Dragon4 in unique mode with a cutoff of `print_precision` fraction digits:
/// the shortest round-trip digits when they fit, else the exact value rounded
/// at the cutoff (Dragon4 never finds uniqueness before it, so it rounds the
/// remainder exactly, ties to even), trailing zeros trimmed.
template <FloatElement T>
FloatText scientific_unique(T v) {
  auto text = scientific_text(v, std::nullopt);
  if (text.fraction.size() > print_precision) {
    text = scientific_text(v, print_precision);
    trim_trailing_zeros(text.fraction);
  }
  return text;
}

/// The positional counterpart of scientific_unique, the cutoff counted after
/// the decimal point. Dragon4 also prints every integer digit exactly (numpy
/// asks for min_digits=0), so float32 99999992 is "99999992." although its
/// shortest digits are 9999999.
template <FloatElement T>
FloatText positional_unique(T v) {
  auto const shortest = scientific_text(v, std::nullopt);
  bool const negative = shortest.integer.front() == '-';
  std::string const digits = shortest.integer.substr(negative ? 1 : 0) + shortest.fraction;
  auto const e = shortest.exponent;
  auto const fraction_digits = static_cast<int>(digits.size()) - 1 - e;
  FloatText out;
  if (fraction_digits < 0 || fraction_digits > print_precision) {
    char buf[400];  // room for the largest double in fixed notation
    auto const result = std::to_chars(buf, buf + sizeof buf, static_cast<detail::compute_t<T>>(v),
                                      std::chars_format::fixed, std::clamp(fraction_digits, 0, print_precision));
    std::string_view const text(buf, static_cast<std::size_t>(result.ptr - buf));
    auto const point = text.find('.');
    out.integer = std::string(text.substr(0, point));
    if (point != std::string_view::npos) out.fraction = std::string(text.substr(point + 1));
    trim_trailing_zeros(out.fraction);
    return out;
  }
  if (e >= 0) {
    auto const whole = static_cast<std::size_t>(e) + 1;
    out.integer = digits.substr(0, whole);
    out.fraction = digits.substr(whole);
  } else {
    out.integer = "0";
    out.fraction = std::string(static_cast<std::size_t>(-e - 1), '0') + digits;
  }
  if (negative) out.integer.insert(0, 1, '-');
  return out;
}

inline int exponent_digits(int exponent) {
  int n = 0;
  for (int e = exponent < 0 ? -exponent : exponent; e != 0; e /= 10) ++n;
  return std::max(n, 2);  // Dragon4 writes at least two exponent digits
}

/// numpy's FloatingFormat (floatmode 'maxprec', precision 8, sign '-', or
/// '+' for a complex number's imaginary parts; suppress_small off): one
/// layout shared by every element shown. float16 takes it too, with its own
/// shortest digits (numpy's Dragon4 at half precision).
template <FloatElement T>
class FloatFormat {
 public:
  FloatFormat(std::vector<T> const& shown, bool /*scalar*/, bool plus_sign = false) : plus_sign_(plus_sign) {
    std::vector<T> finite;
    bool non_finite = false, negative_inf = false;
    for (auto v : shown) {
      if (std::isfinite(v)) {
        finite.push_back(v);
      } else {
        non_finite = true;
        negative_inf = negative_inf || (std::isinf(v) && v < 0);
      }
    }
    choose_notation(finite);
    if (exponential_) {
      int fraction = 0;
      for (auto v : finite) {
        auto const text = signed_text(scientific_unique(v));
        pad_left_ = std::max(pad_left_, static_cast<int>(text.integer.size()));
        fraction = std::max(fraction, static_cast<int>(text.fraction.size()));
        exponent_size_ = std::max(exponent_size_, exponent_digits(text.exponent));
      }
      // Every element then prints with the longest fraction; shorter ones
      // get further digits of their exact value (Dragon4's min_digits).
      fraction_digits_ = fraction;
      pad_right_ = exponent_size_ + 2 + fraction;
    } else {
      for (auto v : finite) {
        auto const text = signed_text(positional_unique(v));
        pad_left_ = std::max(pad_left_, static_cast<int>(text.integer.size()));
        pad_right_ = std::max(pad_right_, static_cast<int>(text.fraction.size()));
      }
    }
    if (non_finite) {
      int const offset = pad_right_ + 1;  // + 1 for the decimal point
      pad_left_ = std::max({pad_left_, 3 - offset, 3 + (negative_inf || plus_sign_ ? 1 : 0) - offset});
    }
  }

  std::string operator()(T v) const {
    if (!std::isfinite(v)) {
      std::string const word =
          std::string(std::isinf(v) && v < 0 ? "-" : plus_sign_ ? "+" : "") + (std::isnan(v) ? "nan" : "inf");
      return padded_left(word, pad_left_ + pad_right_ + 1);
    }
    if (exponential_) {
      auto const text = signed_text(scientific_text(v, fraction_digits_));
      auto exponent = std::to_string(text.exponent < 0 ? -text.exponent : text.exponent);
      exponent.insert(0, static_cast<std::size_t>(std::max(0, exponent_size_ - static_cast<int>(exponent.size()))), '0');
      return padded_left(text.integer, pad_left_) + '.' + text.fraction + 'e' + (text.exponent < 0 ? '-' : '+') +
             exponent;
    }
    auto const text = signed_text(positional_unique(v));
    auto out = padded_left(text.integer, pad_left_) + '.' + text.fraction;
    out.append(static_cast<std::size_t>(std::max(0, pad_right_ - static_cast<int>(text.fraction.size()))), ' ');
    return out;
  }

 private:
  /// With sign '+', a value that is not negative is written with one.
  FloatText signed_text(FloatText text) const {
    if (plus_sign_ && text.integer.front() != '-') text.integer.insert(0, 1, '+');
    return text;
  }
  static std::string padded_left(std::string const& s, int width) {
    return std::string(static_cast<std::size_t>(std::max(0, width - static_cast<int>(s.size()))), ' ') + s;
  }

  // Scientific when the nonzero magnitudes reach 10^min(8, precision) (numpy
  // 2's cutoff: 1e6 for float32, 1e3 for float16, 1e8 for float64), go below
  // 1e-4 or span more than a factor 1000. As in numpy 2, max/min and the
  // comparisons are computed in T.
  void choose_notation(std::vector<T> const& finite) {
    T max_abs(0), min_abs = std::numeric_limits<T>::infinity();
    bool any_nonzero = false;
    for (auto v : finite) {
      if (v == T(0)) continue;
      any_nonzero = true;
      T const magnitude = v < T(0) ? T(-v) : v;
      max_abs = std::max(max_abs, magnitude);
      min_abs = std::min(min_abs, magnitude);
    }
    if (!any_nonzero) return;
    auto const ratio = static_cast<T>(max_abs / min_abs);  // a 16-bit float's quotient rounds, as numpy's
    constexpr double cutoff = sizeof(T) == 2 ? 1e3 : sizeof(T) == 4 ? 1e6 : 1e8;  // numpy's finfo precision: 3, 6, 15
    // The limits are Python floats, which numpy 2 (NEP 50) rounds to T first.
    auto const in_t = [](double limit) { return static_cast<double>(static_cast<T>(limit)); };
    exponential_ = static_cast<double>(max_abs) >= in_t(cutoff) || static_cast<double>(min_abs) < in_t(1e-4) ||
                   static_cast<double>(ratio) > in_t(1000.0);
  }

  bool plus_sign_ = false;
  bool exponential_ = false;
  int pad_left_ = 0;
  int pad_right_ = 0;
  int fraction_digits_ = 0;
  int exponent_size_ = 0;
};

/// numpy's IntegerFormat: right-aligned to the widest of the extremes.
template <std::integral T>
class IntegerFormat {
 public:
  IntegerFormat(std::vector<T> const& shown, bool /*scalar*/) {
    if (shown.empty()) return;
    auto const [lo, hi] = std::minmax_element(shown.begin(), shown.end());
    width_ = std::max(std::to_string(*lo).size(), std::to_string(*hi).size());
  }
  std::string operator()(T v) const {
    auto s = std::to_string(v);
    return std::string(width_ - std::min(width_, s.size()), ' ') + s;
  }

 private:
  std::size_t width_ = 0;
};

/// numpy's BoolFormat: ` True` lines up with `False`, except in a 0-d array.
class BoolFormat {
 public:
  BoolFormat(std::vector<bool> const&, bool scalar) : true_text_(scalar ? "True" : " True") {}
  std::string operator()(bool v) const { return v ? true_text_ : "False"; }

 private:
  std::string true_text_;
};

/// bfloat16 as ml_dtypes prints it (numpy has no format for it and prints
/// each element's str): the value as float32 through an ostream's defaults,
/// six significant digits, no padding.
class BFloat16Format {
 public:
  BFloat16Format(std::vector<bfloat16> const&, bool) {}
  std::string operator()(bfloat16 v) const {
    auto const wide = static_cast<float>(v);
    if (std::isnan(wide)) return "nan";
    std::ostringstream os;
    os << wide;
    return os.str();
  }
};

/// numpy's ComplexFloatingFormat: the real parts in one float layout, the
/// imaginary parts in another with sign '+', and `j` before the imaginary
/// text's trailing padding.
template <class C>
class ComplexFormat {
  using R = typename C::value_type;

 public:
  ComplexFormat(std::vector<C> const& shown, bool scalar)
      : real_(parts(shown, [](C v) { return v.real(); }), scalar),
        imag_(parts(shown, [](C v) { return v.imag(); }), scalar, true) {}
  std::string operator()(C v) const {
    auto i = imag_(v.imag());
    i.insert(i.find_last_not_of(' ') + 1, 1, 'j');
    return real_(v.real()) + i;
  }

 private:
  template <class Part>
  static std::vector<R> parts(std::vector<C> const& shown, Part part) {
    std::vector<R> out;
    out.reserve(shown.size());
    for (auto v : shown) out.push_back(part(v));
    return out;
  }
  FloatFormat<R> real_;
  FloatFormat<R> imag_;
};

template <Element T>
struct element_format {
  using type = IntegerFormat<T>;
};
template <>
struct element_format<bool> {
  using type = BoolFormat;
};
template <>
struct element_format<float> {
  using type = FloatFormat<float>;
};
template <>
struct element_format<double> {
  using type = FloatFormat<double>;
};
template <>
struct element_format<float16> {
  using type = FloatFormat<float16>;
};
template <>
struct element_format<bfloat16> {
  using type = BFloat16Format;
};
template <ComplexElement T>
struct element_format<T> {
  using type = ComplexFormat<T>;
};

/// numpy's _extendLine: append `word`, first breaking the line if it would
/// pass `width` (unless the line holds nothing but its indent).
inline void extend_line(std::string& s, std::string& line, std::string_view word, std::size_t width,
                        std::string const& indent) {
  if (line.size() + word.size() > width && line.size() > indent.size()) {
    s.append(line, 0, line.find_last_not_of(' ') + 1);
    s += '\n';
    line = indent;
  }
  line += word;
}

/// numpy's array2string(x, prefix='Array(', suffix=',', separator=', ') for a
/// non-empty array; elements are read in place through x's strides.
template <Element T>
class ArrayPrinter {
 public:
  /// repr's layout by default; numpy's str is `ArrayPrinter(x, "", " ", 0)`.
  explicit ArrayPrinter(Array<T> const& x, std::string_view prefix = print_prefix,
                        std::string_view separator = print_separator, std::size_t suffix_size = 1)
      : x_(x),
        summarize_(x.size() > print_threshold),
        format_(shown_elements(), x.ndim() == 0),
        prefix_size_(prefix.size()),
        separator_(separator),
        suffix_size_(suffix_size) {}

  std::string print() const {
    // Continuation lines start under the first element: past the prefix and "[".
    std::string const indent(prefix_size_ + 1, ' ');
    return format_rows(0, 0, indent, print_line_width - suffix_size_);
  }

 private:
  // Positions along `axis` that are printed; with a summary, the first and
  // last print_edge_items.
  std::vector<std::int64_t> positions(std::size_t axis) const {
    auto const n = x_.shape()[axis];
    std::vector<std::int64_t> out;
    for (std::int64_t i = 0; i < n; ++i)
      if (!summarized(axis) || i < print_edge_items || i >= n - print_edge_items) out.push_back(i);
    return out;
  }
  bool summarized(std::size_t axis) const { return summarize_ && x_.shape()[axis] > 2 * print_edge_items; }

  T element(std::int64_t offset) const { return x_.data()[offset]; }

  void collect(std::size_t axis, std::int64_t offset, std::vector<T>& out) const {
    if (axis == x_.shape().size()) {
      out.push_back(element(offset));
      return;
    }
    for (auto i : positions(axis)) collect(axis + 1, offset + i * x_.strides()[axis], out);
  }
  // The column widths come from the printed elements only (numpy formats
  // the summary's corners, not the whole array).
  std::vector<T> shown_elements() const {
    std::vector<T> out;
    collect(0, 0, out);
    return out;
  }

  // numpy's _formatArray recursion: `indent` is the hanging indent of this
  // nesting level and `width` the columns left for it.
  std::string format_rows(std::size_t axis, std::int64_t offset, std::string const& indent, std::size_t width) const {
    auto const rank = x_.shape().size();
    if (axis == rank) return format_(element(offset));
    auto const next_indent = indent + ' ';
    auto const stride = x_.strides()[axis];
    auto const shown = positions(axis);
    auto const summary_after = summarized(axis) ? static_cast<std::size_t>(print_edge_items) : shown.size();
    std::string s;
    if (axis + 1 == rank) {
      auto const elem_width = width - 1;  // room for the "," or "]" that follows
      std::string line = indent;
      for (std::size_t k = 0; k < shown.size(); ++k) {
        if (k == summary_after) {
          extend_line(s, line, "...", elem_width, indent);
          line += separator_;
        }
        extend_line(s, line, format_rows(axis + 1, offset + shown[k] * stride, next_indent, width - 1), elem_width,
                    indent);
        if (k + 1 < shown.size()) line += separator_;
      }
      s += line;
    } else {
      auto const row_end = separator_.substr(0, separator_.find_last_not_of(' ') + 1);  // numpy's separator.rstrip()
      std::string const line_separator = std::string(row_end) + std::string(rank - axis - 1, '\n');
      for (std::size_t k = 0; k < shown.size(); ++k) {
        if (k == summary_after) s += indent + "..." + line_separator;
        s += indent + format_rows(axis + 1, offset + shown[k] * stride, next_indent, width - 1);
        if (k + 1 < shown.size()) s += line_separator;
      }
    }
    return '[' + s.substr(indent.size()) + ']';
  }

  Array<T> const& x_;
  bool summarize_;
  typename element_format<T>::type format_;
  std::size_t prefix_size_;
  std::string_view separator_;
  std::size_t suffix_size_;
};

}  // namespace jaxcc::detail

namespace jaxcc {

/// What JAX's `repr` prints for `x`, e.g. `Array([1, 2, 3], dtype=int32)`.
template <Element T>
std::string to_string(Array<T> const& x) {
  if (detail::ArrayAccess::impl(x).partly_elsewhere) detail::throw_not_addressable();
  std::string body;
  if (x.size() == 0) {
    body = "[], shape=" + to_string(x.shape());
  } else {
    body = detail::ArrayPrinter<T>(x).print();
  }
  std::string const dtype = "dtype=" + std::string(name(x.dtype())) + ")";
  // JAX's arithmetic, kept as is: len(s) - s.rfind('\n') + 1, where rfind
  // gives -1 when there is no newline; past the line width the dtype is set
  // off by len('Array(') spaces.
  auto const newline = body.rfind('\n');
  auto const last_line = static_cast<std::int64_t>(body.size()) -
                         (newline == std::string::npos ? -1 : static_cast<std::int64_t>(newline)) + 1;
  std::string const separator = last_line + static_cast<std::int64_t>(dtype.size()) + 1 >
                                        static_cast<std::int64_t>(detail::print_line_width)
                                    ? std::string(detail::print_prefix.size(), ' ')
                                    : " ";
  return std::string(detail::print_prefix) + body + "," + separator + dtype;
}

template <Element T>
std::ostream& operator<<(std::ostream& os, Array<T> const& x) {
  return os << to_string(x);
}

}  // namespace jaxcc
