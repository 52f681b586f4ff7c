// Printing a traced program as JAX prints a jaxpr:
//   { lambda ; a:f32[3]. let b:f32[3] = sin a in (b,) }
// or, when that does not fit in 80 columns, one equation per line. Names
// run a, b, ..., z, ba, bb, ... in order of first appearance, shared with
// nested programs (as JAX's JaxprPpContext does).
#pragma once

#include <algorithm>
#include <charconv>
#include <cmath>
#include <complex>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "jaxcc/core/runtime_compiled.hpp"
#include "jaxcc/graph/trace.hpp"

namespace jaxcc::graph {

/// A float as Python's repr writes it: shortest round-trip digits, fixed
/// notation for 1e-4 <= |x| < 1e16 (with a trailing `.0` when whole).
template <class = void>
std::string python_float_repr(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  if (v == 0) return std::signbit(v) ? "-0.0" : "0.0";
  char buf[64];
  auto const end = std::to_chars(buf, buf + sizeof buf, std::abs(v), std::chars_format::scientific).ptr;
  std::string_view const sci(buf, static_cast<std::size_t>(end - buf));
  auto const e = sci.find('e');
  int exponent = 0;
  std::from_chars(sci.data() + e + (sci[e + 1] == '+' ? 2 : 1), sci.data() + sci.size(), exponent);
  std::string digits;
  for (char c : sci.substr(0, e))
    if (c != '.') digits.push_back(c);
  // Appends only: GCC 12 reports false -Wrestrict overlaps for chains of string operator+.
  std::string out;
  if (v < 0) out.push_back('-');
  if (exponent < -4 || exponent >= 16) {
    out.push_back(digits[0]);
    if (digits.size() > 1) out.append(".").append(digits, 1, std::string::npos);
    out.push_back('e');
    out.push_back(exponent < 0 ? '-' : '+');
    if (std::abs(exponent) < 10) out.push_back('0');
    out.append(std::to_string(std::abs(exponent)));
  } else if (exponent < 0) {
    out.append("0.").append(static_cast<std::size_t>(-exponent - 1), '0').append(digits);
  } else if (auto const int_len = static_cast<std::size_t>(exponent + 1); digits.size() <= int_len) {
    out.append(digits).append(int_len - digits.size(), '0').append(".0");
  } else {
    out.append(digits, 0, int_len).append(".").append(digits, int_len, std::string::npos);
  }
  return out;
}

/// make_jaxpr's writer: the names of the values it has printed, and the
/// equations of each program being printed.
template <class = void>
class JaxprWriterT final : public JaxprSink {
 public:
  std::string const& name(Var const& v) override {
    auto key = std::make_pair(v.trace_id, v.id);
    auto it = names_.find(key);
    if (it == names_.end()) it = names_.emplace(key, encode(count_++)).first;
    return it->second;
  }
  std::string binder(Var const& v) override { return name(v) + ":" + type_string(v.dtype, v.shape); }
  std::string fresh_name() override { return encode(count_++); }
  std::string literal(void const* element, DType dtype) const override;
  void emit(std::string equation) override { equations_.back().push_back(std::move(equation)); }
  std::string emit_node(std::string name, DType dtype, Shape const& shape, std::string_view op, std::string_view params,
                        std::span<std::string const> args, std::span<int const> order = {}) override;

  std::string program(Trace const& trace, std::vector<AnyArray> const& outputs, std::span<Capture const> constants,
                      std::span<Fusion const> fusions = {}) override;

 private:
  void print_equation(Equation const& eq);

  /// `outs = fusion[jaxpr={ lambda ; ins. let ... in outs }] ins`: the
  /// inner program names its values as the outer one does.
  void print_fusion(std::vector<Equation> const& eqs, Fusion const& fusion);

  /// `{ lambda consts; invars. let eqns in (outs) }`, on one line if it fits
  /// in 80 columns, else one equation per line.
  static std::string lambda(std::string const& consts, std::string const& invars, std::vector<std::string> const& eqns,
                            std::vector<std::string> const& out_names);

  static std::string indent(std::string const& s, std::size_t n) {
    std::string out;
    for (char c : s) {
      out += c;
      if (c == '\n') out += std::string(n, ' ');
    }
    return out;
  }
  static std::string encode(std::size_t n) {
    std::string s;
    do {
      s.insert(s.begin(), static_cast<char>('a' + n % 26));
      n /= 26;
    } while (n);
    return s;
  }
  struct PairHash {
    std::size_t operator()(std::pair<std::uint64_t, std::uint64_t> const& p) const noexcept {
      return std::hash<std::uint64_t>{}(p.first * 1000003u ^ p.second);
    }
  };
  std::unordered_map<std::pair<std::uint64_t, std::uint64_t>, std::string, PairHash> names_;
  std::size_t count_ = 0;
  std::vector<std::vector<std::string>> equations_;
};

template <class V>
JAXCC_RUNTIME_INLINE std::string JaxprWriterT<V>::literal(void const* element, DType dtype) const {
  // A complex number as Python's repr: `3j` where its real part is +0, else
  // `(re+imj)`, each part without the ".0" a float's repr adds.
  auto const complex_repr = [&]<class C>(std::type_identity<C>) {
    C z;
    std::memcpy(static_cast<void*>(&z), element, sizeof z);  // void*: std::complex is trivially copyable
    auto const part = [](double x) {
      auto text = python_float_repr(x);
      if (text.ends_with(".0")) text.resize(text.size() - 2);
      return text;
    };
    auto const im = part(static_cast<double>(z.imag()));
    if (z.real() == 0 && !std::signbit(z.real())) return im + "j";
    return "(" + part(static_cast<double>(z.real())) + (im.starts_with('-') ? "" : "+") + im + "j)";
  };
  auto const value = jaxcc::detail::value_as_double(dtype, element);
  std::string text;
  switch (dtype) {
    case DType::complex64: text = complex_repr(std::type_identity<std::complex<float>>{}); break;
    case DType::complex128: text = complex_repr(std::type_identity<std::complex<double>>{}); break;
    case DType::bool_: text = value != 0 ? "True" : "False"; break;
    case DType::int8:
    case DType::int16:
    case DType::int32:
    case DType::int64:
    case DType::uint8:
    case DType::uint32: text = std::to_string(static_cast<long long>(value)); break;
    default: text = python_float_repr(value);
  }
  return text + ":" + type_string(dtype, {});
}

template <class V>
JAXCC_RUNTIME_INLINE std::string JaxprWriterT<V>::emit_node(std::string name, DType dtype, Shape const& shape,
                                                            std::string_view op, std::string_view params,
                                                            std::span<std::string const> args,
                                                            std::span<int const> order) {
  std::string eqn = name + ":" + type_string(dtype, shape) + " = " + std::string(op);
  if (!params.empty()) eqn += "[" + std::string(params) + "]";
  if (order.empty())
    for (auto const& a : args) eqn += " " + a;
  else
    for (auto i : order) eqn += " " + args[static_cast<std::size_t>(i)];
  emit(std::move(eqn));
  return name;
}

template <class V>
JAXCC_RUNTIME_INLINE std::string JaxprWriterT<V>::program(Trace const& trace, std::vector<AnyArray> const& outputs,
                                                          std::span<Capture const> constants,
                                                          std::span<Fusion const> fusions) {
  equations_.emplace_back();
  std::string consts, invars;
  // A concrete one-element constant prints inline as a literal, as JAX's do.
  auto append = [](std::string& list, std::string const& item) {
    if (!list.empty()) list += ' ';
    list += item;
  };
  for (auto const& c : constants) {
    if (c.value.ndim() == 0 && !var_of(c.value))
      names_[{c.var->trace_id, c.var->id}] =
          literal(jaxcc::detail::data_of(c.value), c.value.dtype());
    else
      append(consts, binder(*c.var));
  }
  for (auto const& v : trace.inputs) append(invars, binder(*v));
  auto const& eqs = trace.equations;
  auto fusion = fusions.begin();
  for (std::size_t s = 0; s < eqs.size(); ++s) {
    if (fusion != fusions.end() && fusion->first == s) {
      print_fusion(eqs, *fusion);
      s = fusion++->end - 1;
    } else {
      print_equation(eqs[s]);
    }
  }
  std::vector<std::string> outs;
  for (auto const& o : outputs) {
    auto const& var = var_of(o);
    outs.push_back(var && var->trace_id == trace.id() ? name(*var) : "<constant>");
  }
  auto eqns = std::move(equations_.back());
  equations_.pop_back();
  return lambda(consts, invars, eqns, outs);
}

template <class V>
JAXCC_RUNTIME_INLINE void JaxprWriterT<V>::print_equation(Equation const& eq) {
  std::vector<std::string> in;
  for (auto const& v : eq.inputs) in.push_back(name(*v));
  eq.primitive->print(*this, in, eq.outputs);
}

template <class V>
JAXCC_RUNTIME_INLINE void JaxprWriterT<V>::print_fusion(std::vector<Equation> const& eqs, Fusion const& fusion) {
  equations_.emplace_back();
  for (auto s = fusion.first; s < fusion.end; ++s) print_equation(eqs[s]);
  auto eqns = std::move(equations_.back());
  equations_.pop_back();
  std::string invars, lhs, args;
  std::vector<std::string> outs;
  for (auto const& v : fusion.inputs) {
    invars.append(invars.empty() ? "" : " ").append(binder(*v));
    args.append(" ").append(name(*v));
  }
  for (auto const& v : fusion.outputs) {
    lhs.append(lhs.empty() ? "" : " ").append(binder(*v));
    outs.push_back(name(*v));
  }
  emit(lhs.append(" = fusion[jaxpr=").append(lambda("", invars, eqns, outs)).append("]").append(args));
}

template <class V>
JAXCC_RUNTIME_INLINE std::string JaxprWriterT<V>::lambda(std::string const& consts, std::string const& invars,
                                                         std::vector<std::string> const& eqns,
                                                         std::vector<std::string> const& out_names) {
  std::string outs = "(";
  for (std::size_t i = 0; i < out_names.size(); ++i) outs.append(i ? ", " : "").append(out_names[i]);
  outs += out_names.size() == 1 ? ",)" : ")";
  std::string one_line = "{ lambda " + consts + "; " + invars + ". let ";
  for (std::size_t i = 0; i < eqns.size(); ++i) one_line += (i ? "; " : "") + eqns[i];
  one_line += (eqns.empty() ? "" : " ") + std::string("in ") + outs + " }";
  bool const multiline_eqn = std::any_of(eqns.begin(), eqns.end(), [](auto const& e) { return e.find('\n') != std::string::npos; });
  if (one_line.size() <= 80 && !multiline_eqn) return one_line;
  std::string text = "{ lambda " + consts + "; " + invars + ". let";
  for (auto const& e : eqns) text += "\n    " + indent(e, 4);
  return text + "\n  in " + outs + " }";
}
using JaxprWriter = JaxprWriterT<>;

}  // namespace jaxcc::graph
