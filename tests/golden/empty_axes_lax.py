"""The jax.lax and jax.nn calls of the empty-axis sweep, and the cases of
the report that asked for it (see empty_axes_cases.py)."""

import jax
import jax.numpy as jnp
from jax import lax, nn
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

SCALAR = [()]
EMPTY = [(0,), (0, 3), (3, 0), (0, 3, 4), (2, 0, 4), (2, 3, 0)]
ALL = SCALAR + EMPTY
i32 = jnp.int32
MATRICES = SCALAR + [(0, 3), (3, 0), (0, 0)]
RANK3 = SCALAR + [(0, 3, 4), (2, 0, 4), (2, 3, 0)]
SQUEEZABLE = SCALAR + [(0,), (1, 0), (0, 1), (2, 1, 0)]
SQUARE = SCALAR + [(0, 0), (2, 0, 0), (0, 3, 3)]
RECTANGULAR = [(0, 3), (3, 0), (2, 0, 4), (2, 3, 0)]
NCHW = SCALAR + [(0, 3, 5, 5), (2, 3, 0, 5), (2, 3, 5, 0), (2, 0, 5, 5)]  # the kernels have 3 input features
NHWC = SCALAR + [(0, 5, 5, 3), (2, 0, 5, 3), (2, 5, 0, 3), (2, 5, 5, 0)]
MAPPED = SCALAR + [(0,), (0, 3), (3, 0), (2, 0, 4)]  # vmap maps axis 0, named 'i'
EXCHANGED = SCALAR + [(0, 0), (2, 2, 0), (3, 0), (2, 0, 4)]  # all_to_all, psum_scatter: axis 1 the axis size or not
MESH = Mesh(jax.devices()[:1], ("x",))  # one device


def named(f):
    """f under vmap over axis 0, the axis named 'i'."""
    return jax.vmap(f, axis_name="i")

CALLS = {
    # The report's cases, one by one.
    "jnp.cumsum(x, 0)": (lambda x: jnp.cumsum(x, 0), [(0, 4, 3), ()]),
    "lax.cumprod(x, 0, reverse=True)": (lambda x: lax.cumprod(x, 0, reverse=True), [(0, 4, 3), ()]),
    "lax.cummax(x, 1)": (lambda x: lax.cummax(x, 1), [(4, 0)]),
    "jnp.pad(x, ((0, 0), (0, 0)), 'edge')": (lambda x: jnp.pad(x, ((0, 0), (0, 0)), "edge"), [(0, 3)]),
    "jnp.pad(x, ((4, 4), (0, 0)), 'reflect')": (lambda x: jnp.pad(x, ((4, 4), (0, 0)), "reflect"), [(4, 0)]),
    "jnp.cumsum(x, 1)": (lambda x: jnp.cumsum(x, 1), [()]),
    "jnp.repeat(x, 3, -1)": (lambda x: jnp.repeat(x, 3, -1), [()]),
    "x[2, jnp.zeros(0, int32)]": (lambda x: x[2, jnp.zeros(0, i32)], [(3, 0, 4)]),
    "x.at[jnp.zeros(3, int32)].add(1.0)": (lambda x: x.at[jnp.zeros(3, i32)].add(1.0), [(0, 4)]),
    "x.at[0, jnp.zeros(3, int32)].add(1.0)": (lambda x: x.at[0, jnp.zeros(3, i32)].add(1.0), [(4, 0)]),
    "x.at[4:-3:2].add(jnp.ones((1, 5)))": (lambda x: x.at[4:-3:2].add(jnp.ones((1, 5))), [(1, 4)]),
    "jnp.pad(x, 2, 'mean')": (lambda x: jnp.pad(x, 2, "mean"), [(0, 4, 4)]),
    "jnp.pad(x, 2, 'linear_ramp')": (lambda x: jnp.pad(x, 2, "linear_ramp"), [(0, 4, 4)]),

    # Cumulative reductions and associative_scan.
    "lax.cumsum(x, 0)": (lambda x: lax.cumsum(x, 0), ALL),
    "lax.cumsum(x, 1, reverse=True)": (lambda x: lax.cumsum(x, 1, reverse=True), ALL),
    "lax.cumsum(x, -1)": (lambda x: lax.cumsum(x, -1), ALL),
    "lax.cumprod(x, 1)": (lambda x: lax.cumprod(x, 1), ALL),
    "lax.cummax(x, 0)": (lambda x: lax.cummax(x, 0), ALL),
    "lax.cummin(x, 1, reverse=True)": (lambda x: lax.cummin(x, 1, reverse=True), ALL),
    "lax.associative_scan(lax.add, x)": (lambda x: lax.associative_scan(lax.add, x), ALL),
    "lax.associative_scan(lax.add, x, axis=-1)": (lambda x: lax.associative_scan(lax.add, x, axis=-1), ALL),
    "lax.associative_scan(lambda a, b: a * b, x, reverse=True, axis=1)":
        (lambda x: lax.associative_scan(lambda a, b: a * b, x, reverse=True, axis=1), ALL),
    # Elementwise.
    "lax.erf(x)": (lambda x: lax.erf(x), ALL),
    "lax.erfc(x)": (lambda x: lax.erfc(x), ALL),
    "lax.erf_inv(x)": (lambda x: lax.erf_inv(x), ALL),
    "lax.lgamma(x)": (lambda x: lax.lgamma(x), ALL),
    "lax.digamma(x)": (lambda x: lax.digamma(x), ALL),
    "lax.polygamma(1, x)": (lambda x: lax.polygamma(1.0, x), ALL),
    "lax.is_finite(x)": (lambda x: lax.is_finite(x), ALL),
    "lax.rem(x, x)": (lambda x: lax.rem(x, x), ALL),
    "lax.atan2(x, x)": (lambda x: lax.atan2(x, x), ALL),
    "lax.shift_left((x * 10).astype(int32), 2)": (lambda x: lax.shift_left((x * 10).astype(i32), 2), ALL),
    "lax.shift_right_arithmetic((x * -10).astype(int32), 1)":
        (lambda x: lax.shift_right_arithmetic((x * -10).astype(i32), 1), ALL),
    "lax.shift_right_logical((x * -10).astype(int32), 1)":
        (lambda x: lax.shift_right_logical((x * -10).astype(i32), 1), ALL),
    "lax.convert_element_type(x, int32)": (lambda x: lax.convert_element_type(x, i32), ALL),
    "lax.convert_element_type(x, bool)": (lambda x: lax.convert_element_type(x, bool), ALL),
    "lax.select(x > 0.5, x, -x)": (lambda x: lax.select(x > 0.5, x, -x), ALL),
    # Shapes and layout.
    "lax.reshape(x, (0, 5))": (lambda x: lax.reshape(x, (0, 5)), ALL),
    "lax.reshape(x, (x.size,))": (lambda x: lax.reshape(x, (x.size,)), ALL),
    "lax.squeeze(x, [])": (lambda x: lax.squeeze(x, []), ALL),
    "lax.squeeze(x, [0])": (lambda x: lax.squeeze(x, [0]), SQUEEZABLE),
    "lax.squeeze(x, [-1])": (lambda x: lax.squeeze(x, [-1]), SQUEEZABLE),
    "lax.expand_dims(x, [0])": (lambda x: lax.expand_dims(x, [0]), ALL),
    "lax.expand_dims(x, [-1])": (lambda x: lax.expand_dims(x, [-1]), ALL),
    "lax.expand_dims(x, [0, 2])": (lambda x: lax.expand_dims(x, [0, 2]), ALL),
    "lax.transpose(x, (1, 0))": (lambda x: lax.transpose(x, (1, 0)), MATRICES),
    "lax.transpose(x, tuple(reversed(range(x.ndim))))":
        (lambda x: lax.transpose(x, tuple(reversed(range(x.ndim)))), ALL),
    "lax.broadcast_in_dim(x, (4,) + x.shape, range(1, x.ndim + 1))":
        (lambda x: lax.broadcast_in_dim(x, (4,) + x.shape, range(1, x.ndim + 1)), ALL),
    "lax.broadcast_in_dim(x, (0, 3), (1,))": (lambda x: lax.broadcast_in_dim(x, (0, 3), (1,)), SCALAR + [(0,), (3,)]),
    # 0-d only: for an operand of rank 3 with no broadcast_dimensions JAX skips its check and returns
    # the operand unchanged (a shortcut, not a rule); jaxcc raises JAX's own error for the mismatch.
    "lax.broadcast_in_dim(x, (2, 0, 3), ())": (lambda x: lax.broadcast_in_dim(x, (2, 0, 3), ()), SCALAR),
    "lax.concatenate([x, x], 0)": (lambda x: lax.concatenate([x, x], 0), ALL),
    "lax.concatenate([x, x, x], 1)": (lambda x: lax.concatenate([x, x, x], 1), ALL),
    "lax.concatenate([x], 0)": (lambda x: lax.concatenate([x], 0), ALL),
    # Slicing and padding.
    "lax.slice(x, [0] * x.ndim, x.shape)": (lambda x: lax.slice(x, [0] * x.ndim, x.shape), ALL),
    "lax.slice(x, [0] * x.ndim, x.shape, [2] * x.ndim)":
        (lambda x: lax.slice(x, [0] * x.ndim, x.shape, [2] * x.ndim), ALL),
    "lax.slice(x, (0, 1), (0, 3))": (lambda x: lax.slice(x, (0, 1), (0, 3)), MATRICES),
    "lax.dynamic_slice(x, [0] * x.ndim, x.shape)": (lambda x: lax.dynamic_slice(x, [0] * x.ndim, x.shape), ALL),
    "lax.dynamic_slice(x, [1] * x.ndim, [0] * x.ndim)":
        (lambda x: lax.dynamic_slice(x, [1] * x.ndim, [0] * x.ndim), ALL),
    "lax.dynamic_slice(x, (0, 0), (1, 3))": (lambda x: lax.dynamic_slice(x, (0, 0), (1, 3)), MATRICES),
    "lax.dynamic_update_slice(x, x, [0] * x.ndim)": (lambda x: lax.dynamic_update_slice(x, x, [0] * x.ndim), ALL),
    "lax.dynamic_update_slice(x, jnp.ones([0] * x.ndim), [1] * x.ndim)":
        (lambda x: lax.dynamic_update_slice(x, jnp.ones([0] * x.ndim), [1] * x.ndim), ALL),
    "lax.dynamic_update_slice(x, jnp.ones((1, 1)), (0, 0))":
        (lambda x: lax.dynamic_update_slice(x, jnp.ones((1, 1)), (0, 0)), MATRICES),
    "lax.pad(x, 0.0, [(1, 2, 1)] * x.ndim)": (lambda x: lax.pad(x, 0.0, [(1, 2, 1)] * x.ndim), ALL),
    "lax.pad(x, 5.0, [(-1, 1, 2)] * x.ndim)": (lambda x: lax.pad(x, 5.0, [(-1, 1, 2)] * x.ndim), ALL),
    "lax.pad(x, 0.0, [(-1, 0, 0)] * x.ndim)": (lambda x: lax.pad(x, 0.0, [(-1, 0, 0)] * x.ndim), ALL),
    # Contractions, convolutions and windowed reductions.
    "lax.dot_general(x, x, (((0,), (0,)), ((), ())))": (lambda x: lax.dot_general(x, x, (((0,), (0,)), ((), ()))), ALL),
    "lax.dot_general(x, x, (((1,), (1,)), ((), ())))": (lambda x: lax.dot_general(x, x, (((1,), (1,)), ((), ()))), ALL),
    "lax.dot_general(x, x, (((2,), (2,)), ((0,), (0,))))":
        (lambda x: lax.dot_general(x, x, (((2,), (2,)), ((0,), (0,)))), RANK3),
    "lax.conv(x, jnp.ones((2, 3, 3, 3)), (1, 1), 'VALID')":
        (lambda x: lax.conv(x, jnp.ones((2, 3, 3, 3)), (1, 1), "VALID"), NCHW),
    "lax.conv(x, jnp.ones((2, 3, 3, 3)), (2, 2), 'SAME')":
        (lambda x: lax.conv(x, jnp.ones((2, 3, 3, 3)), (2, 2), "SAME"), NCHW),
    "lax.conv(x, jnp.ones((2, 0, 3, 3)), (1, 1), 'SAME')":
        (lambda x: lax.conv(x, jnp.ones((2, 0, 3, 3)), (1, 1), "SAME"), [(2, 0, 5, 5), (0, 0, 5, 5)]),
    "lax.conv(x, jnp.ones((0, 3, 3, 3)), (1, 1), 'VALID')":
        (lambda x: lax.conv(x, jnp.ones((0, 3, 3, 3)), (1, 1), "VALID"), [(2, 3, 5, 5)] + NCHW),
    "lax.conv_general_dilated(x, jnp.ones((3, 3, 3, 2)), (1, 1), 'SAME', dimension_numbers=('NHWC', 'HWIO', 'NHWC'))":
        (lambda x: lax.conv_general_dilated(x, jnp.ones((3, 3, 3, 2)), (1, 1), "SAME",
                                            dimension_numbers=("NHWC", "HWIO", "NHWC")), NHWC),
    "lax.conv_general_dilated(x, jnp.ones((2, 3, 2, 2)), (2, 1), ((1, 1), (0, 2)), (2, 1), (1, 2))":
        (lambda x: lax.conv_general_dilated(x, jnp.ones((2, 3, 2, 2)), (2, 1), ((1, 1), (0, 2)), (2, 1), (1, 2)),
         NCHW),
    "lax.conv_general_dilated(x, jnp.ones((6, 1, 3, 3)), (1, 1), 'SAME', feature_group_count=3)":
        (lambda x: lax.conv_general_dilated(x, jnp.ones((6, 1, 3, 3)), (1, 1), "SAME", feature_group_count=3),
         NCHW),
    "lax.reduce_window(x, 0.0, lax.add, (2, 2), (1, 1), 'VALID')":
        (lambda x: lax.reduce_window(x, 0.0, lax.add, (2, 2), (1, 1), "VALID"), MATRICES),
    "lax.reduce_window(x, 0.0, lax.add, (2, 2), (1, 1), ((1, 1), (1, 1)))":
        (lambda x: lax.reduce_window(x, 0.0, lax.add, (2, 2), (1, 1), ((1, 1), (1, 1))), MATRICES),
    "lax.reduce_window(x, 1.0, lax.add, (2, 2), (1, 1), ((1, 1), (1, 1)))":
        (lambda x: lax.reduce_window(x, 1.0, lax.add, (2, 2), (1, 1), ((1, 1), (1, 1))), MATRICES),
    "lax.reduce_window(x, 0.0, lax.add, (1, 2), (1, 1), 'VALID', (2, 2))":
        (lambda x: lax.reduce_window(x, 0.0, lax.add, (1, 2), (1, 1), "VALID", (2, 2)), MATRICES),
    "lax.reduce_window(x, -inf, lax.max, (2, 2), (2, 2), 'SAME')":
        (lambda x: lax.reduce_window(x, -jnp.inf, lax.max, (2, 2), (2, 2), "SAME"), MATRICES),
    "lax.reduce_window(x, inf, lax.min, (1, 1, 2, 2), (1, 1, 2, 2), 'VALID')":
        (lambda x: lax.reduce_window(x, jnp.inf, lax.min, (1, 1, 2, 2), (1, 1, 2, 2), "VALID"), NCHW),
    "lax.reduce_window(x, -inf, lax.max, (1, 2, 2, 1), (1, 1, 1, 1), ((0, 0), (1, 1), (1, 1), (0, 0)), None, "
    "(1, 2, 2, 1))":
        (lambda x: lax.reduce_window(x, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 1, 1, 1),
                                     ((0, 0), (1, 1), (1, 1), (0, 0)), None, (1, 2, 2, 1)), NHWC),
    # Sorting.
    "lax.top_k(x, 0)": (lambda x: lax.top_k(x, 0), ALL),
    "lax.top_k(x, 2)": (lambda x: lax.top_k(x, 2), ALL),
    "lax.top_k(x, 0, axis=0)": (lambda x: lax.top_k(x, 0, axis=0), ALL),
    # Control flow.
    "lax.cond(True, lambda v: v + 1, lambda v: v - 1, x)":
        (lambda x: lax.cond(True, lambda v: v + 1, lambda v: v - 1, x), ALL),
    "lax.cond(x.size > 0, lambda v: v * 2, lambda v: -v, x)":
        (lambda x: lax.cond(x.size > 0, lambda v: v * 2, lambda v: -v, x), ALL),
    "lax.fori_loop(0, 3, lambda i, v: v * 2, x)": (lambda x: lax.fori_loop(0, 3, lambda i, v: v * 2, x), ALL),
    "lax.fori_loop(2, 0, lambda i, v: v * 2, x)": (lambda x: lax.fori_loop(2, 0, lambda i, v: v * 2, x), ALL),
    "lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1] * 2), (0, x))":
        (lambda x: lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1] * 2), (0, x)), ALL),
    "lax.scan(lambda c, v: (c + v.sum(), v * 2), jnp.float32(1), x)":
        (lambda x: lax.scan(lambda c, v: (c + v.sum(), v * 2), jnp.float32(1), x), ALL),
    "lax.scan(lambda c, v: (c + v.sum(), v * 2), jnp.float32(1), x, reverse=True)":
        (lambda x: lax.scan(lambda c, v: (c + v.sum(), v * 2), jnp.float32(1), x, reverse=True), ALL),
    "lax.scan(lambda c, _: (c * 2, c), x, None, length=3)":
        (lambda x: lax.scan(lambda c, _: (c * 2, c), x, None, length=3), ALL),
    # Collectives over the named axis of a vmap.
    "jax.vmap(lambda v: lax.psum(v, 'i'), axis_name='i')(x)": (named(lambda v: lax.psum(v, "i")), MAPPED),
    "jax.vmap(lambda v: lax.pmean(v, 'i'), axis_name='i')(x)": (named(lambda v: lax.pmean(v, "i")), MAPPED),
    "jax.vmap(lambda v: lax.pmax(v, 'i'), axis_name='i')(x)": (named(lambda v: lax.pmax(v, "i")), MAPPED),
    "jax.vmap(lambda v: lax.pmin(v, 'i'), axis_name='i')(x)": (named(lambda v: lax.pmin(v, "i")), MAPPED),
    "jax.vmap(lambda v: lax.all_gather(v, 'i'), axis_name='i')(x)": (named(lambda v: lax.all_gather(v, "i")), MAPPED),
    "jax.vmap(lambda v: lax.all_gather(v, 'i', axis=-1, tiled=True), axis_name='i')(x)":
        (named(lambda v: lax.all_gather(v, "i", axis=-1, tiled=True)), MAPPED),
    "jax.vmap(lambda v: lax.all_to_all(v, 'i', 0, 0), axis_name='i')(x)":
        (named(lambda v: lax.all_to_all(v, "i", 0, 0)), EXCHANGED),
    "jax.vmap(lambda v: lax.all_to_all(v, 'i', 0, 1, tiled=True), axis_name='i')(x)":
        (named(lambda v: lax.all_to_all(v, "i", 0, 1, tiled=True)), EXCHANGED),
    # Not over 3 elements: JAX's vmap asserts a permutation of the whole axis; jaxcc's ppermute, as
    # shard_map's, gives zeros where no pair sends.
    "jax.vmap(lambda v: lax.ppermute(v, 'i', [(0, 1), (1, 0)]), axis_name='i')(x)":
        (named(lambda v: lax.ppermute(v, "i", [(0, 1), (1, 0)])), [s for s in MAPPED if s != (3, 0)]),
    # Untiled, only where the scatter dimension is the axis size: under vmap JAX does not check it
    # (and returns the psum); jaxcc raises JAX's error from outside vmap.
    "jax.vmap(lambda v: lax.psum_scatter(v, 'i'), axis_name='i')(x)":
        (named(lambda v: lax.psum_scatter(v, "i")), SCALAR + [(0, 0), (2, 2, 0)]),
    "jax.vmap(lambda v: lax.psum_scatter(v, 'i', tiled=True), axis_name='i')(x)":
        (named(lambda v: lax.psum_scatter(v, "i", tiled=True)), EXCHANGED),
    "jax.vmap(lambda v: lax.axis_index('i'), axis_name='i')(x)": (named(lambda v: lax.axis_index("i")), MAPPED),
    # Sharding, on a mesh of one device.
    "lax.with_sharding_constraint(x, NamedSharding(MESH, P()))":
        (lambda x: lax.with_sharding_constraint(x, NamedSharding(MESH, P())), ALL),
    "lax.with_sharding_constraint(x, NamedSharding(MESH, P('x')))":
        (lambda x: lax.with_sharding_constraint(x, NamedSharding(MESH, P("x"))), ALL),
    # lax.linalg.
    "lax.linalg.cholesky(x)": (lambda x: lax.linalg.cholesky(x), SQUARE),
    "lax.linalg.eigh(x)": (lambda x: lax.linalg.eigh(x), SQUARE),
    "lax.linalg.lu(x)": (lambda x: lax.linalg.lu(x), SQUARE + RECTANGULAR),
    "lax.linalg.qr(x)": (lambda x: lax.linalg.qr(x), SQUARE + RECTANGULAR),
    "lax.linalg.qr(x, full_matrices=False)": (lambda x: lax.linalg.qr(x, full_matrices=False), SQUARE + RECTANGULAR),
    "lax.linalg.svd(x)": (lambda x: lax.linalg.svd(x), SQUARE + RECTANGULAR),
    "lax.linalg.svd(x, full_matrices=False)": (lambda x: lax.linalg.svd(x, full_matrices=False), SQUARE + RECTANGULAR),
    "lax.linalg.svd(x, compute_uv=False)": (lambda x: lax.linalg.svd(x, compute_uv=False), SQUARE + RECTANGULAR),
    "lax.linalg.triangular_solve(x, x, left_side=True, lower=True)":
        (lambda x: lax.linalg.triangular_solve(x, x, left_side=True, lower=True), SQUARE),
    "lax.linalg.triangular_solve(x, x, transpose_a=True, unit_diagonal=True)":
        (lambda x: lax.linalg.triangular_solve(x, x, transpose_a=True, unit_diagonal=True), SQUARE),
    "lax.linalg.triangular_solve(jnp.eye(3), x, left_side=True)":
        (lambda x: lax.linalg.triangular_solve(jnp.eye(3), x, left_side=True), SCALAR + RECTANGULAR),
    # jax.nn.
    "nn.relu(x)": (lambda x: nn.relu(x), ALL),
    "nn.sigmoid(x)": (lambda x: nn.sigmoid(x), ALL),
    "nn.silu(x)": (lambda x: nn.silu(x), ALL),
    "nn.swish(x)": (lambda x: nn.swish(x), ALL),
    "nn.softplus(x)": (lambda x: nn.softplus(x), ALL),
    "nn.log_sigmoid(x)": (lambda x: nn.log_sigmoid(x), ALL),
    "nn.gelu(x)": (lambda x: nn.gelu(x), ALL),
    "nn.gelu(x, approximate=False)": (lambda x: nn.gelu(x, approximate=False), ALL),
    "nn.softmax(x, 0)": (lambda x: nn.softmax(x, 0), ALL),
    "nn.softmax(x, -1)": (lambda x: nn.softmax(x, -1), ALL),
    "nn.softmax(x, None)": (lambda x: nn.softmax(x, None), ALL),
    "nn.log_softmax(x, 0)": (lambda x: nn.log_softmax(x, 0), ALL),
    "nn.log_softmax(x, -1)": (lambda x: nn.log_softmax(x, -1), ALL),
    "nn.logsumexp(x)": (lambda x: nn.logsumexp(x), ALL),
    "nn.logsumexp(x, 0)": (lambda x: nn.logsumexp(x, 0), ALL),
    "nn.logsumexp(x, -1, keepdims=True)": (lambda x: nn.logsumexp(x, -1, keepdims=True), ALL),
    "nn.one_hot(x.astype(int32), 3)": (lambda x: nn.one_hot(x.astype(i32), 3), ALL),
    "nn.one_hot(x.astype(int32), 3, axis=0)": (lambda x: nn.one_hot(x.astype(i32), 3, axis=0), ALL),
}
