// The figures an example prints, compared with those its JAX original
// printed (a file of "<name>: <value>" lines): each within 1e-4, relative
// to the value where it is above 1 in magnitude.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <string>

namespace examples {

/// Prints each figure that differs from the file's, and how many match;
/// 0 when every line of the file matches a figure and every figure a line.
inline int compare_with_expected(std::map<std::string, double> const& figures, char const* path) {
  std::ifstream expected(path);
  std::string line;
  int differences = 0, lines = 0;
  while (std::getline(expected, line)) {
    auto const colon = line.rfind(": ");
    auto const name = line.substr(0, colon);
    double const want = std::stod(line.substr(colon + 2));
    ++lines;
    auto const got = figures.find(name);
    if (got == figures.end() || std::abs(got->second - want) > 1e-4 * std::max(1.0, std::abs(want))) {
      std::printf("differs from JAX: %s (JAX %.6f)\n", name.c_str(), want);
      ++differences;
    }
  }
  std::printf("%d of %d figures match JAX's\n", lines - differences, lines);
  return differences == 0 && lines == static_cast<int>(figures.size()) ? 0 : 1;
}

}  // namespace examples
