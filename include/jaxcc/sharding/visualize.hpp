// JAX's sharding diagram (jax.debug.visualize_sharding), byte for byte as
// rich draws it without color at width 80: one box per distinct part of
// the array, labelled with the devices that hold it, sized by the part's
// share of the array.
#pragma once

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <iostream>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "jaxcc/core/error.hpp"
#include "jaxcc/core/shape.hpp"
#include "jaxcc/sharding/named_sharding.hpp"

namespace jaxcc::detail {

/// Python's divmod (floor division) for the padding arithmetic.
inline std::pair<std::int64_t, std::int64_t> floor_divmod(std::int64_t a, std::int64_t b) {
  auto q = a / b, r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) --q, r += b;
  return {q, r};
}

/// One distinct part of a diagrammed array: its share of each dimension
/// and the devices that hold it.
struct DiagramPart {
  double width = 0;
  double height = -1;  // -1: a 1-D array's single row
  std::set<int> devices;
};

/// A diagram cell: its label and padding.
struct DiagramCell {
  std::string label;
  std::int64_t top, right, bottom, left;
};

inline std::string repeat(std::string const& s, std::int64_t n) {
  std::string out;
  for (std::int64_t i = 0; i < n; ++i) out += s;
  return out;
}

/// The distinct parts of an array, by their (row, column) of chunks.
using DiagramParts = std::map<std::pair<std::int64_t, std::int64_t>, DiagramPart>;

/// The parts of an array of `shape` (1-D or 2-D) that `sharding` lays out.
inline DiagramParts diagram_parts(Shape const& shape, NamedSharding const& sharding) {
  DiagramParts parts;
  for (auto const& held : sharding.devices_indices_map(shape)) {
    // Named, not structured bindings: clang before 16 cannot capture those in lambdas.
    auto const& ranges = held.second;
    auto const chunk = [&](std::size_t d) {
      auto const size = ranges[d].second - ranges[d].first;
      return ranges[d].first / size;
    };
    auto const fraction = [&](std::size_t d) {
      return static_cast<double>(ranges[d].second - ranges[d].first) / static_cast<double>(shape[d]);
    };
    auto& part = shape.size() == 2 ? parts[{chunk(0), chunk(1)}] : parts[{0, chunk(0)}];
    if (shape.size() == 2) {
      part.height = fraction(0);
      part.width = fraction(1);
    } else {
      part.width = fraction(0);
    }
    part.devices.insert(held.first.id);
  }
  return parts;
}

/// A part's cell: its devices' label, padded as JAX computes it for a
/// diagram whose whole array is `base_width` by `base_height`.
inline DiagramCell diagram_cell(DiagramPart const& part, std::int64_t base_width, std::int64_t base_height) {
  constexpr std::int64_t min_width = 9, max_width = 80;
  constexpr double height_to_width_ratio = 2.5;
  std::string label;
  for (char ch : Device::platform) label += static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  label += ' ';
  bool first = true;
  for (int id : part.devices) label += (first ? "" : ",") + std::to_string(id), first = false;
  auto width = static_cast<std::int64_t>(part.width * static_cast<double>(base_width) * height_to_width_ratio);
  auto const height = part.height < 0 ? 1 : static_cast<std::int64_t>(part.height * static_cast<double>(base_height));
  width = std::min(std::max(width, min_width), max_width);
  auto const [left, h_rem] = floor_divmod(width - static_cast<std::int64_t>(label.size()) - 2, 2);
  auto const [top, v_rem] = floor_divmod(height - 2, 2);
  return {label, std::max<std::int64_t>(top, 0), std::max<std::int64_t>(left + h_rem, 0),
          std::max<std::int64_t>(top + v_rem, 0), std::max<std::int64_t>(left, 0)};
}

/// The diagram's cells, row by row, with each column's width (its widest
/// cell's) and each row's height (its highest cell's: cells align to the top).
struct DiagramGrid {
  std::vector<std::vector<DiagramCell>> cells;
  std::vector<std::int64_t> col_width, row_height;
};

/// The parts' cells, each in its row and column of chunks.
inline DiagramGrid diagram_grid(DiagramParts const& parts, std::int64_t base_width, std::int64_t base_height) {
  std::int64_t rows = 0, cols = 0;
  for (auto const& [at, part] : parts) rows = std::max(rows, at.first + 1), cols = std::max(cols, at.second + 1);
  DiagramGrid grid{std::vector<std::vector<DiagramCell>>(static_cast<std::size_t>(rows)),
                   std::vector<std::int64_t>(static_cast<std::size_t>(cols), 0),
                   std::vector<std::int64_t>(static_cast<std::size_t>(rows), 0)};
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t j = 0; j < cols; ++j) {
      auto cell = diagram_cell(parts.at({i, j}), base_width, base_height);
      auto const ui = static_cast<std::size_t>(i), uj = static_cast<std::size_t>(j);
      auto const width = cell.left + static_cast<std::int64_t>(cell.label.size()) + cell.right;
      grid.col_width[uj] = std::max(grid.col_width[uj], width);
      grid.row_height[ui] = std::max(grid.row_height[ui], cell.top + 1 + cell.bottom);
      grid.cells[ui].push_back(std::move(cell));
    }
  return grid;
}

/// The box-drawn grid, as rich draws a table without color.
inline std::string draw_diagram(DiagramGrid const& grid) {
  auto const& cells = grid.cells;
  auto const& col_width = grid.col_width;
  auto const& row_height = grid.row_height;
  auto const border = [&](char const* l, char const* m, char const* r) {
    std::string line = l;
    for (std::size_t j = 0; j < col_width.size(); ++j) line += (j ? m : "") + repeat("─", col_width[j]);
    return line + r + "\n";
  };
  std::string out = border("┌", "┬", "┐");
  for (std::size_t i = 0; i < cells.size(); ++i) {
    if (i) out += border("├", "┼", "┤");
    for (std::int64_t line = 0; line < row_height[i]; ++line) {
      out += "│";
      for (std::size_t j = 0; j < cells[i].size(); ++j) {
        auto const& c = cells[i][j];
        if (line == c.top) {
          // The label centered between the paddings (rich's Align center).
          auto const inner = col_width[j] - c.left - c.right;
          auto const excess = inner - static_cast<std::int64_t>(c.label.size());
          out += std::string(static_cast<std::size_t>(c.left + excess / 2), ' ') + c.label +
                 std::string(static_cast<std::size_t>(c.right + excess - excess / 2), ' ');
        } else {
          out += std::string(static_cast<std::size_t>(col_width[j]), ' ');
        }
        out += "│";
      }
      out += "\n";
    }
  }
  return out + border("└", "┴", "┘");
}

}  // namespace jaxcc::detail

namespace jaxcc::debug {

/// The diagram for an array of `shape` (1-D or 2-D) laid out by `sharding`.
inline std::string sharding_diagram(Shape const& shape, NamedSharding const& sharding) {
  if (shape.size() < 1 || shape.size() > 2)
    throw Error("`visualize_sharding` only works for shapes with 1 and 2 dimensions.");
  std::int64_t const base_height = 10;
  double const aspect_ratio = static_cast<double>(shape.size() == 2 ? shape[1] : 1) / static_cast<double>(shape[0]);
  auto const base_width = static_cast<std::int64_t>(static_cast<double>(base_height) * aspect_ratio);
  return detail::draw_diagram(detail::diagram_grid(detail::diagram_parts(shape, sharding), base_width, base_height));
}

/// Print sharding_diagram(shape, sharding) (jax.debug.visualize_sharding).
inline void visualize_sharding(Shape const& shape, NamedSharding const& sharding) {
  std::cout << sharding_diagram(shape, sharding);
}

}  // namespace jaxcc::debug
