// Devices, meshes and sharding: jaxcc::devices, Mesh and make_mesh,
// PartitionSpec (P), NamedSharding, device_put, with_sharding_constraint,
// debug::visualize_array_sharding (devices/ and every header of sharding/
// but its bits/).
#pragma once

#include "jaxcc/devices/device.hpp"
#include "jaxcc/devices/mesh.hpp"
#include "jaxcc/fusion/print.hpp"
#include "jaxcc/sharding/device_put.hpp"
#include "jaxcc/sharding/eager.hpp"
#include "jaxcc/sharding/mesh_context.hpp"
#include "jaxcc/sharding/named_sharding.hpp"
#include "jaxcc/sharding/partition.hpp"
#include "jaxcc/sharding/partition_spec.hpp"
#include "jaxcc/sharding/shard_map_call.hpp"
#include "jaxcc/sharding/sharded_array.hpp"
#include "jaxcc/sharding/sharding_constraint.hpp"
#include "jaxcc/sharding/visualize.hpp"
// Last: with the precompiled runtime, the rules it holds are declared extern.
#include "jaxcc/runtime/precompiled_runtime.hpp"
