// jnp.einsum: Einstein summation over any number of operands, parsed as
// opt_einsum parses it (implicit and explicit output, `...`, size-1 axes
// broadcasting) and run as pairwise lax.dot_general contractions from left
// to right. A label repeated in one operand keeps its diagonal (a mask, as
// jnp does); labels summed away are contracted against a broadcast 1.
#pragma once

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "jaxcc/core/array.hpp"
#include "jaxcc/fusion/expr.hpp"
#include "jaxcc/numpy/elementwise.hpp"
#include "jaxcc/primitives/dot_general.hpp"
#include "jaxcc/primitives/squeeze.hpp"
#include "jaxcc/primitives/transpose.hpp"

namespace jaxcc::detail {

/// An axis label: a letter's character code, or -k for the k-th axis of an
/// ellipsis counted from its right end (so ellipses align to the right).
using EinsumLabels = std::vector<int>;

struct EinsumSpec {
  std::vector<EinsumLabels> inputs;
  EinsumLabels output;
  std::map<int, std::int64_t> sizes;  // each label's size; 1 broadcasts against any other
};

inline bool has_label(EinsumLabels const& labels, int label) {
  return std::find(labels.begin(), labels.end(), label) != labels.end();
}

/// opt_einsum's error for `msg`, prefixed with "einsum: ".
[[noreturn]] inline void einsum_error(std::string const& msg) { throw Error("einsum: " + msg); }

/// A label as the subscripts spell it.
inline std::string einsum_label_string(int label) {
  return label < 0 ? std::string("...") : std::string(1, static_cast<char>(label));
}

/// Appends the labels of an ellipsis standing for `count` axes.
inline void append_ellipsis(EinsumLabels& labels, int count) {
  for (int k = count; k > 0; --k) labels.push_back(-k);
}

/// `subscripts` without spaces, checked for symbols and arrows.
inline std::string einsum_subscripts(std::string_view subscripts) {
  std::string s;
  for (char c : subscripts)
    if (c != ' ') s += c;
  for (char c : s)
    if (std::string_view(".,->").find(c) == std::string_view::npos && !std::isalpha(static_cast<unsigned char>(c)))
      einsum_error(std::string("Character ") + c + " is not a valid symbol.");
  if ((s.find_first_of("->") != std::string::npos) &&
      (std::count(s.begin(), s.end(), '-') > 1 || std::count(s.begin(), s.end(), '>') > 1 ||
       s.find("->") == std::string::npos))
    einsum_error("Subscripts can only contain one '->'.");
  return s;
}

/// The comma-separated terms of the inputs' subscripts, one per operand.
inline std::vector<std::string_view> einsum_terms(std::string_view inputs, std::size_t operands) {
  std::vector<std::string_view> terms;
  for (std::size_t start = 0;;) {
    auto const comma = inputs.find(',', start);
    terms.push_back(inputs.substr(start, comma - start));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  if (terms.size() != operands)
    einsum_error("Number of einsum subscripts, " + std::to_string(terms.size()) +
                 ", must be equal to the number of operands, " + std::to_string(operands) + ".");
  return terms;
}

/// The labels of one term for an operand of `rank` axes; `longest`, the
/// most axes any ellipsis stands for, grows to this term's.
inline EinsumLabels einsum_term_labels(std::string_view term, int rank, int& longest) {
  EinsumLabels labels;
  auto const dots = std::count(term.begin(), term.end(), '.');
  if (dots == 0) {
    for (char c : term) labels.push_back(c);
    return labels;
  }
  auto const at = term.find("...");
  if (dots != 3 || at == std::string_view::npos) einsum_error("Invalid Ellipses.");
  int const count = rank == 0 ? 0 : rank - static_cast<int>(term.size() - 3);
  if (count < 0) einsum_error("Ellipses lengths do not match.");
  longest = std::max(longest, count);
  for (char c : term.substr(0, at)) labels.push_back(c);
  append_ellipsis(labels, count);
  for (char c : term.substr(at + 3)) labels.push_back(c);
  return labels;
}

/// The output's labels as the subscripts after "->" spell them.
inline EinsumLabels explicit_einsum_output(std::string_view out, int longest) {
  EinsumLabels labels;
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (out.substr(i, 3) == "...") {
      append_ellipsis(labels, longest);
      i += 2;
    } else {
      labels.push_back(out[i]);
    }
  }
  return labels;
}

/// Without "->": the ellipsis axes, then the letters used exactly once, sorted.
inline EinsumLabels implicit_einsum_output(std::vector<EinsumLabels> const& inputs, int longest) {
  EinsumLabels labels;
  append_ellipsis(labels, longest);
  std::map<int, int> counts;
  for (auto const& in : inputs)
    for (int l : in)
      if (l > 0) ++counts[l];
  for (auto [label, count] : counts)
    if (count == 1) labels.push_back(label);
  return labels;
}

/// Each output label appears once in the output and somewhere in the inputs.
inline void check_einsum_output(EinsumSpec const& spec) {
  for (int l : spec.output) {
    if (std::count(spec.output.begin(), spec.output.end(), l) != 1)
      einsum_error("Output character '" + einsum_label_string(l) + "' appeared more than once in the output.");
    if (std::none_of(spec.inputs.begin(), spec.inputs.end(), [&](auto const& in) { return has_label(in, l); }))
      einsum_error("Output character '" + einsum_label_string(l) + "' did not appear in the input");
  }
}

/// Each label's size, a label per axis of each operand, sizes agreeing
/// across the operands but for 1.
inline std::map<int, std::int64_t> einsum_label_sizes(std::vector<std::string_view> const& terms,
                                                      std::vector<EinsumLabels> const& inputs,
                                                      std::vector<Shape> const& shapes) {
  std::map<int, std::int64_t> sizes;
  for (std::size_t t = 0; t < terms.size(); ++t) {
    auto const& labels = inputs[t];
    if (labels.size() != shapes[t].size())
      einsum_error("Einstein sum subscript '" + std::string(terms[t]) +
                   "' does not contain the correct number of indices for operand " + std::to_string(t) + ".");
    for (std::size_t d = 0; d < labels.size(); ++d) {
      auto const dim = shapes[t][d];
      auto [it, fresh] = sizes.try_emplace(labels[d], dim);
      if (fresh || it->second == dim || dim == 1) continue;
      if (it->second != 1)
        einsum_error("Size of label '" + einsum_label_string(labels[d]) + "' for operand " + std::to_string(t) +
                     " (" + std::to_string(it->second) + ") does not match previous terms (" + std::to_string(dim) +
                     ").");
      it->second = dim;
    }
  }
  return sizes;
}

/// Parse `subscripts` for operands of `shapes`, checking them as opt_einsum
/// does (its messages, prefixed with "einsum: ").
inline EinsumSpec parse_einsum(std::string_view subscripts, std::vector<Shape> const& shapes) {
  auto const s = einsum_subscripts(subscripts);
  std::string_view const all(s);
  auto const arrow = all.find("->");
  auto const terms = einsum_terms(all.substr(0, arrow), shapes.size());
  EinsumSpec spec;
  int longest = 0;  // the most axes any ellipsis stands for
  for (std::size_t t = 0; t < terms.size(); ++t)
    spec.inputs.push_back(einsum_term_labels(terms[t], static_cast<int>(shapes[t].rank()), longest));
  spec.output = arrow == std::string_view::npos ? implicit_einsum_output(spec.inputs, longest)
                                                : explicit_einsum_output(all.substr(arrow + 2), longest);
  check_einsum_output(spec);
  spec.sizes = einsum_label_sizes(terms, spec.inputs, shapes);
  return spec;
}

/// An operand with a label per axis, each label at most once.
template <Element T>
struct LabelledArray {
  Array<T> x;
  EinsumLabels labels;
};

/// Sum `t` over the axes `summed(d)` picks: a contraction with a 1
/// broadcast (stride 0) over those axes, so nothing is allocated for it.
template <Element T, class Pred>
LabelledArray<T> einsum_sum(LabelledArray<T> const& t, Pred summed) {
  primitives::dot_general_p::Params dims;
  Shape ones_shape;
  EinsumLabels kept;
  for (std::size_t d = 0; d < t.labels.size(); ++d) {
    if (summed(d)) {
      dims.lhs_contracting.push_back(static_cast<std::int64_t>(d));
      dims.rhs_contracting.push_back(static_cast<std::int64_t>(ones_shape.size()));
      ones_shape.push_back(t.x.shape()[d]);
    } else {
      kept.push_back(t.labels[d]);
    }
  }
  if (ones_shape.empty()) return t;
  auto [one, value] = allocate<T>(Shape{});
  *value = T{1};
  Strides zeros(ones_shape.size(), 0);
  auto ones = view(one, std::move(ones_shape), std::move(zeros), 0);
  return {jaxcc::detail::bind<primitives::dot_general_p>(dims, t.x, ones), std::move(kept)};
}

/// A bool mask, broadcastable to `shape`: true where the indices along
/// `axes` are all equal; size 1 along every other axis.
inline Array<bool> diagonal_mask(Shape const& shape, std::vector<std::size_t> const& axes) {
  Shape mask_shape(shape.size(), 1);
  for (auto d : axes) mask_shape[d] = shape[d];
  auto [mask, out] = allocate<bool>(mask_shape);
  for (std::int64_t flat = 0; flat < mask.size(); ++flat) {
    std::int64_t rest = flat, first = -1;
    bool equal = true;
    for (auto d = mask_shape.size(); d-- > 0;) {
      auto const i = rest % mask_shape[d];
      rest /= mask_shape[d];
      if (std::find(axes.begin(), axes.end(), d) == axes.end()) continue;
      equal = equal && (first < 0 || i == first);
      first = i;
    }
    out[flat] = equal;
  }
  return mask;
}

/// `x` labelled, each label once: a size-1 axis whose label is larger
/// elsewhere is squeezed out (the other operands' size broadcasts over it),
/// and of a repeated label only the diagonal is kept (the rest zeroed, as
/// jnp.einsum does, then the repeats summed away). Only primitives are
/// used, so this traces like any other jnp function.
template <Element T>
LabelledArray<T> einsum_operand(Array<T> const& x, EinsumLabels const& labels, std::map<int, std::int64_t> const& sizes) {
  Axes broadcast;
  LabelledArray<T> t;
  for (std::size_t d = 0; d < labels.size(); ++d) {
    if (x.shape()[d] == 1 && sizes.at(labels[d]) != 1) broadcast.push_back(static_cast<std::int64_t>(d));
    else t.labels.push_back(labels[d]);
  }
  t.x = lax::squeeze(x, broadcast);
  for (std::size_t first = 0; first < t.labels.size(); ++first) {
    std::vector<std::size_t> repeats{first};
    for (auto d = first + 1; d < t.labels.size(); ++d)
      if (t.labels[d] == t.labels[first]) repeats.push_back(d);
    if (repeats.size() == 1) continue;
    t.x = numpy::where(diagonal_mask(t.x.shape(), repeats), t.x, T{0});
    t = einsum_sum(t, [&](std::size_t d) { return d != first && t.labels[d] == t.labels[first]; });
  }
  return t;
}

/// Contract two labelled operands, keeping the labels `needed` says later
/// steps use: shared needed labels are batch axes, shared others contract,
/// and a label only one side has and nobody needs is summed away first.
template <Element T, class Pred>
LabelledArray<T> einsum_pair(LabelledArray<T> lhs, LabelledArray<T> rhs, Pred needed) {
  lhs = einsum_sum(lhs, [&](std::size_t d) { return !needed(lhs.labels[d]) && !has_label(rhs.labels, lhs.labels[d]); });
  rhs = einsum_sum(rhs, [&](std::size_t d) { return !needed(rhs.labels[d]) && !has_label(lhs.labels, rhs.labels[d]); });
  primitives::dot_general_p::Params dims;
  EinsumLabels out;
  for (std::size_t d = 0; d < lhs.labels.size(); ++d) {
    auto const l = lhs.labels[d];
    auto const r = std::find(rhs.labels.begin(), rhs.labels.end(), l) - rhs.labels.begin();
    if (static_cast<std::size_t>(r) == rhs.labels.size()) continue;
    (needed(l) ? dims.lhs_batch : dims.lhs_contracting).push_back(static_cast<std::int64_t>(d));
    (needed(l) ? dims.rhs_batch : dims.rhs_contracting).push_back(r);
    if (needed(l)) out.push_back(l);
  }
  for (auto l : lhs.labels)
    if (!has_label(rhs.labels, l)) out.push_back(l);
  for (auto l : rhs.labels)
    if (!has_label(lhs.labels, l)) out.push_back(l);
  return {jaxcc::detail::bind<primitives::dot_general_p>(dims, lhs.x, rhs.x), std::move(out)};
}

template <Element T>
Array<T> einsum(std::string_view subscripts, std::vector<Array<T>> const& operands) {
  std::vector<Shape> shapes;
  for (auto const& x : operands) shapes.push_back(x.shape());
  auto const spec = parse_einsum(subscripts, shapes);
  auto acc = einsum_operand(operands[0], spec.inputs[0], spec.sizes);
  for (std::size_t i = 1; i < operands.size(); ++i) {
    auto needed = [&](int l) {
      if (has_label(spec.output, l)) return true;
      for (auto j = i + 1; j < operands.size(); ++j)
        if (has_label(spec.inputs[j], l)) return true;
      return false;
    };
    acc = einsum_pair(std::move(acc), einsum_operand(operands[i], spec.inputs[i], spec.sizes), needed);
  }
  acc = einsum_sum(acc, [&](std::size_t d) { return !has_label(spec.output, acc.labels[d]); });
  if (acc.labels == spec.output) return acc.x;
  Axes perm;
  for (auto l : spec.output)
    perm.push_back(std::find(acc.labels.begin(), acc.labels.end(), l) - acc.labels.begin());
  return lax::transpose(acc.x, perm);
}

template <class T, class... Rest>
struct promote_all {
  using type = T;
};
template <class T, class U, class... Rest>
struct promote_all<T, U, Rest...> : promote_all<promote_t<T, U>, Rest...> {};

}  // namespace jaxcc::detail

namespace jaxcc::numpy {

/// jnp.einsum: `einsum("ij,jk->ik", a, b)`, `einsum("ii", a)` (implicit
/// output: the labels used once, sorted), `einsum("...ij,...jk", a, b)`.
/// Operands are promoted to their common dtype; bool sums are logical or.
template <ArrayLike First, ArrayLike... Rest>
auto einsum(std::string_view subscripts, First const& first, Rest const&... rest) {
  using T = typename detail::promote_all<value_type_t<First>, value_type_t<Rest>...>::type;
  return detail::einsum<T>(subscripts, {detail::array_as<T>(first), detail::array_as<T>(rest)...});
}

/// jnp.einsum over a list of operands of one dtype.
template <Element T>
Array<T> einsum(std::string_view subscripts, std::vector<Array<T>> const& operands) {
  if (operands.empty()) throw Error("einsum: No input operands");
  return detail::einsum<T>(subscripts, operands);
}

}  // namespace jaxcc::numpy
