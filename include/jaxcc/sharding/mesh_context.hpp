// The mesh in effect (jax.set_mesh): what device_put(x, P(...)) and
// shard_map without a mesh argument use. set_mesh sets it for the program;
// a MeshScope sets it until the scope ends, as `with jax.set_mesh(mesh):`.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>

#include "jaxcc/core/error.hpp"
#include "jaxcc/devices/mesh.hpp"

namespace jaxcc::detail {
struct MeshSlot {
  std::mutex mutex;
  std::shared_ptr<Mesh const> mesh;
};
inline MeshSlot& mesh_slot() {
  static MeshSlot slot;
  return slot;
}
inline std::shared_ptr<Mesh const> exchange_mesh(std::shared_ptr<Mesh const> mesh) {
  auto& slot = mesh_slot();
  std::lock_guard lock(slot.mutex);
  return std::exchange(slot.mesh, std::move(mesh));
}
}  // namespace jaxcc::detail

namespace jaxcc {

/// Make `mesh` the mesh in effect from now on.
inline void set_mesh(Mesh mesh) { detail::exchange_mesh(std::make_shared<Mesh const>(std::move(mesh))); }

/// The mesh in effect while it lives; the previous one after.
class MeshScope {
 public:
  explicit MeshScope(Mesh mesh) : previous_(detail::exchange_mesh(std::make_shared<Mesh const>(std::move(mesh)))) {}
  MeshScope(MeshScope const&) = delete;
  MeshScope& operator=(MeshScope const&) = delete;
  ~MeshScope() { detail::exchange_mesh(std::move(previous_)); }

 private:
  std::shared_ptr<Mesh const> previous_;
};

/// The mesh in effect; `what` names the caller in the error when none is.
inline Mesh current_mesh(std::string_view what) {
  auto& slot = detail::mesh_slot();
  std::lock_guard lock(slot.mutex);
  if (!slot.mesh)
    throw Error(std::string(what) + " was given a PartitionSpec but no mesh is set: pass a NamedSharding (or a "
                                    "mesh), or call jaxcc::set_mesh(mesh) first");
  return *slot.mesh;
}

}  // namespace jaxcc
