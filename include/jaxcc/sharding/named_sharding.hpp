// NamedSharding: a mesh and a PartitionSpec, which together say which part
// of an array each device holds (jax.sharding.NamedSharding).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <ostream>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "jaxcc/core/error.hpp"
#include "jaxcc/core/shape.hpp"
#include "jaxcc/devices/mesh.hpp"
#include "jaxcc/sharding/partition_spec.hpp"

namespace jaxcc {

class NamedSharding {
 public:
  /// JAX's errors for a spec naming an axis the mesh lacks, or one axis twice.
  NamedSharding(Mesh mesh, P spec) : mesh_(std::move(mesh)), spec_(std::move(spec)) {
    std::map<std::string, int> uses;
    for (auto const& e : spec_.entries())
      for (auto const& name : e.names) {
        if (!mesh_.has_axis(name)) {
          std::string names = "(";
          for (std::size_t i = 0; i < mesh_.axis_names().size(); ++i)
            names += (i ? ", '" : "'") + mesh_.axis_names()[i] + "'";
          names += mesh_.axis_names().size() == 1 ? ",)" : ")";
          throw Error("Resource axis: " + name + " of " + to_string(spec_) + " is not found in mesh: " + names + ".");
        }
        ++uses[name];
      }
    std::string duplicates;
    for (auto const& [name, count] : uses)  // sorted, as JAX's show_axes
      if (count > 1) duplicates += (duplicates.empty() ? "`" : ", `") + name + "`";
    if (!duplicates.empty())
      throw Error("A single NamedSharding spec specification can map every mesh axis to at most one positional "
                  "dimension, but " +
                  to_string(spec_) + " has duplicate entries for " + duplicates);
  }

  Mesh const& mesh() const noexcept { return mesh_; }
  P const& spec() const noexcept { return spec_; }
  friend bool operator==(NamedSharding const&, NamedSharding const&) = default;

  /// Whether the spec splits some dimension over the named mesh axis.
  bool spec_uses(std::string_view axis_name) const {
    for (auto const& e : spec_.entries())
      for (auto const& name : e.names)
        if (name == axis_name) return true;
    return false;
  }

  /// How many parts dimension `dim` is split into.
  std::int64_t num_ways(std::size_t dim) const {
    if (dim >= spec_.size()) return 1;
    std::int64_t n = 1;
    for (auto const& name : spec_.entries()[dim].names) n *= mesh_.axis_size(name);
    return n;
  }

  /// The shape of each device's part of an array of `global_shape`; JAX's
  /// errors for a spec longer than the rank or a split that does not divide.
  Shape shard_shape(Shape const& global_shape) const {
    if (spec_.size() > global_shape.size())
      throw Error("Sharding " + to_string(*this) + " is only valid for values of rank at least " +
                  std::to_string(spec_.size()) + ", but was applied to a value of rank " +
                  std::to_string(global_shape.size()) + ".");
    Shape out;
    for (std::size_t d = 0; d < global_shape.size(); ++d) {
      auto const ways = num_ways(d);
      if (global_shape[d] % ways != 0) {
        std::string factors = "(";
        for (std::size_t k = 0; k < global_shape.size(); ++k)
          factors += (k ? ", " : "") + std::to_string(num_ways(k));
        factors += global_shape.size() == 1 ? ",)" : ")";
        throw Error(to_string(*this) + " implies that array axis " + std::to_string(d) + " is partitioned " +
                    std::to_string(ways) + " times, but the dimension size is " + std::to_string(global_shape[d]) +
                    " (full shape: " + to_string(global_shape) + ", per-dimension tiling factors: " + factors +
                    " should evenly divide the shape)");
      }
      out.push_back(global_shape[d] / ways);
    }
    return out;
  }

  /// For each device of the mesh, in mesh order: the [start, stop) it holds
  /// of each dimension of an array of `global_shape` (devices_indices_map).
  std::vector<std::pair<Device, std::vector<std::pair<std::int64_t, std::int64_t>>>> devices_indices_map(
      Shape const& global_shape) const {
    auto const shard = shard_shape(global_shape);
    std::vector<std::pair<Device, std::vector<std::pair<std::int64_t, std::int64_t>>>> out;
    for (std::int64_t flat = 0; flat < mesh_.size(); ++flat) {
      auto const coords = mesh_.coordinates(flat);
      std::vector<std::pair<std::int64_t, std::int64_t>> ranges;
      for (std::size_t d = 0; d < global_shape.size(); ++d) {
        std::int64_t chunk = 0;  // major to minor over the dimension's mesh axes
        if (d < spec_.size())
          for (auto const& name : spec_.entries()[d].names) {
            auto const axis = mesh_.axis_position(name);
            chunk = chunk * mesh_.device_shape()[axis] + coords[axis];
          }
        ranges.emplace_back(chunk * shard[d], (chunk + 1) * shard[d]);
      }
      out.emplace_back(mesh_.devices()[static_cast<std::size_t>(flat)], std::move(ranges));
    }
    return out;
  }

  /// As JAX prints it: NamedSharding(mesh=Mesh('data': 4, 'model': 2), spec=P('data', 'model')).
  friend std::ostream& operator<<(std::ostream& os, NamedSharding const& s) {
    return os << "NamedSharding(mesh=" << s.mesh_ << ", spec=" << s.spec_ << ")";
  }
  friend std::string to_string(NamedSharding const& s) {
    std::ostringstream os;
    os << s;
    return os.str();
  }

 private:
  Mesh mesh_;
  P spec_;
};

}  // namespace jaxcc
