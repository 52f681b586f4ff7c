// Mesh: devices arranged in named axes (jax.sharding.Mesh), and make_mesh.
#pragma once

#include <cstddef>
#include <cstdint>
#include <ostream>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "jaxcc/core/error.hpp"
#include "jaxcc/core/shape.hpp"
#include "jaxcc/devices/device.hpp"

namespace jaxcc {

class Mesh {
 public:
  /// `devices` in row-major order over `shape`, one axis name per dimension.
  Mesh(std::vector<Device> devices, Shape shape, std::vector<std::string> axis_names)
      : devices_(std::move(devices)), shape_(std::move(shape)), axis_names_(std::move(axis_names)) {
    if (shape_.size() != axis_names_.size()) {
      throw Error("Mesh requires the ndim of its first argument (`devices`) to equal the length of its second "
                  "argument (`axis_names`), but got devices.ndim == " +
                  std::to_string(shape_.size()) + " and len(axis_names) == " + std::to_string(axis_names_.size()) +
                  ".");
    }
    if (static_cast<std::int64_t>(devices_.size()) != shape_.numel())
      throw Error("Mesh: " + std::to_string(devices_.size()) + " devices cannot be arranged in shape " +
                  to_string(shape_));
    for (std::size_t i = 0; i < axis_names_.size(); ++i)
      for (std::size_t k = 0; k < i; ++k)
        if (axis_names_[i] == axis_names_[k]) throw Error("Mesh axis names must be unique, got '" + axis_names_[i] + "' twice");
  }

  std::vector<std::string> const& axis_names() const noexcept { return axis_names_; }
  /// The size of each axis, in order (the devices array's shape).
  Shape const& device_shape() const noexcept { return shape_; }
  std::vector<Device> const& devices() const noexcept { return devices_; }
  std::int64_t size() const noexcept { return shape_.numel(); }
  bool has_axis(std::string_view name) const {
    for (auto const& n : axis_names_)
      if (n == name) return true;
    return false;
  }
  /// The position of a named axis; jaxcc::Error if the mesh has none.
  std::size_t axis_position(std::string_view name) const {
    for (std::size_t i = 0; i < axis_names_.size(); ++i)
      if (axis_names_[i] == name) return i;
    throw Error("Mesh has no axis named '" + std::string(name) + "'");
  }
  std::int64_t axis_size(std::string_view name) const { return shape_[axis_position(name)]; }
  /// The mesh coordinates of the device at row-major position `flat`.
  std::vector<std::int64_t> coordinates(std::int64_t flat) const {
    std::vector<std::int64_t> c(shape_.size());
    for (std::size_t d = shape_.size(); d-- > 0;) {
      c[d] = flat % shape_[d];
      flat /= shape_[d];
    }
    return c;
  }

  friend bool operator==(Mesh const&, Mesh const&) = default;
  /// As JAX prints it: Mesh('data': 4, 'model': 2).
  friend std::ostream& operator<<(std::ostream& os, Mesh const& m) {
    os << "Mesh(";
    for (std::size_t i = 0; i < m.axis_names_.size(); ++i)
      os << (i ? ", '" : "'") << m.axis_names_[i] << "': " << m.shape_[i];
    return os << ')';
  }

 private:
  std::vector<Device> devices_;
  Shape shape_;
  std::vector<std::string> axis_names_;
};

inline std::string to_string(Mesh const& m) {
  std::ostringstream os;
  os << m;
  return os.str();
}

/// A mesh of the first devices (jax.make_mesh).
inline Mesh make_mesh(Shape const& axis_shapes, std::vector<std::string> axis_names) {
  auto const& all = devices();
  if (axis_shapes.numel() > static_cast<std::int64_t>(all.size())) {
    std::string sizes = "(";
    for (std::size_t i = 0; i < axis_shapes.size(); ++i) sizes += (i ? ", " : "") + std::to_string(axis_shapes[i]);
    sizes += axis_shapes.size() == 1 ? ",)" : ")";
    throw Error("Number of devices " + std::to_string(all.size()) + " must be >= the product of mesh_shape " + sizes);
  }
  return Mesh(std::vector<Device>(all.begin(), all.begin() + axis_shapes.numel()), axis_shapes, std::move(axis_names));
}

}  // namespace jaxcc
