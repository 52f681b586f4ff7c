// The tests' reference for softmax_cross_entropy: the textbook definitions
// in plain C++, one row at a time in long double, sharing nothing with the
// kernel's algorithm (no max shift, no logsumexp; the tests give it small
// logits, and labels that sum to 1 per row):
//     p = exp(x) / Σ exp(x),   loss = -Σ y log p,   d loss / d x = p - y.
#pragma once

#include <cmath>
#include <cstddef>
#include <vector>

namespace softmax_xent::reference {

/// softmax of each row of `logits` (row-major, `classes` per row).
inline std::vector<long double> softmax(std::vector<double> const& logits, std::size_t classes) {
  std::vector<long double> p(logits.size());
  for (std::size_t row = 0; row < logits.size(); row += classes) {
    long double total = 0;
    for (std::size_t j = row; j < row + classes; ++j) total += std::exp(static_cast<long double>(logits[j]));
    for (std::size_t j = row; j < row + classes; ++j) p[j] = std::exp(static_cast<long double>(logits[j])) / total;
  }
  return p;
}

/// -Σ y log p per row.
inline std::vector<double> loss(std::vector<double> const& logits, std::vector<double> const& labels,
                                std::size_t classes) {
  auto const p = softmax(logits, classes);
  std::vector<double> out;
  for (std::size_t row = 0; row < logits.size(); row += classes) {
    long double sum = 0;
    for (std::size_t j = row; j < row + classes; ++j) sum -= labels[j] * std::log(p[j]);
    out.push_back(static_cast<double>(sum));
  }
  return out;
}

/// d loss / d logits, p - y, scaled per row by that row's cotangent.
inline std::vector<double> loss_grad(std::vector<double> const& logits, std::vector<double> const& labels,
                                     std::vector<double> const& row_cotangents, std::size_t classes) {
  auto const p = softmax(logits, classes);
  std::vector<double> out(logits.size());
  for (std::size_t j = 0; j < logits.size(); ++j)
    out[j] = static_cast<double>(row_cotangents[j / classes] * (p[j] - labels[j]));
  return out;
}

}  // namespace softmax_xent::reference
