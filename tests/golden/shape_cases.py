#!/usr/bin/env python3
"""Golden values for jnp's stacking, splitting, editing, layout,
rearranging, index-helper, window and selection functions, made by JAX
itself: each case is a named call on small inputs that tests/shape_golden.hpp
builds the same way (INPUTS), and every array it returns (a list: one row
per part). tests/test_stacking.cpp, test_splitting.cpp, test_editing.cpp,
test_layout.cpp, test_rearrange.cpp, test_index_helpers.cpp,
test_windows.cpp and test_selection.cpp look up their cases by name.

Needs JAX (not needed by the tests):
    python3 -m venv /tmp/jaxenv && /tmp/jaxenv/bin/pip install jax
    /tmp/jaxenv/bin/python tests/golden/shape_cases.py
It rewrites tests/golden/shape_cases.inc beside this script.
"""

import os

import jax
import jax.numpy as jnp
import numpy as np

assert not jax.config.jax_enable_x64


def arange(n, shape, dtype=jnp.float32, start=1):
    return (jnp.arange(n, dtype=jnp.float32) + start).astype(dtype).reshape(shape)


# The inputs, as tests/shape_golden.hpp makes them: 1, 2, 3, ... in row-major order.
s = jnp.float32(5)
v2 = arange(2, (2,))
v3 = arange(3, (3,))
m23 = arange(6, (2, 3))
m22 = arange(4, (2, 2), start=7)
t234 = arange(24, (2, 3, 4))
i6 = arange(6, (6,), jnp.int32, start=0)
z = jnp.array([0, 0, 1, 2, 0, 3, 0, 0], jnp.float32)
z2 = jnp.array([[0, 0, 0, 0], [0, 1, 0, 2], [0, 0, 0, 0]], jnp.float32)

CASES = {
    # stacking.hpp
    "stacking/atleast_1d_0d": lambda: jnp.atleast_1d(s),
    "stacking/atleast_2d_1d": lambda: jnp.atleast_2d(v3),
    "stacking/atleast_3d_0d": lambda: jnp.atleast_3d(s),
    "stacking/atleast_3d_1d": lambda: jnp.atleast_3d(v3),
    "stacking/atleast_3d_2d": lambda: jnp.atleast_3d(m23),
    "stacking/atleast_2d_many": lambda: jnp.atleast_2d(s, v3, m23),
    "stacking/hstack_1d": lambda: jnp.hstack([v2, v3, s]),
    "stacking/hstack_2d": lambda: jnp.hstack([m23, m23[:, :1]]),
    "stacking/vstack_1d": lambda: jnp.vstack([v3, v3 * 2, m23]),
    "stacking/vstack_0d": lambda: jnp.vstack([s, s]),
    "stacking/dstack": lambda: jnp.dstack([m23, m23 * 2]),
    "stacking/dstack_1d": lambda: jnp.dstack([v3, v3]),
    "stacking/column_stack": lambda: jnp.column_stack([v2, m23, v2 * 3]),
    "stacking/column_stack_0d": lambda: jnp.column_stack([s, s]),
    "stacking/concat_1": lambda: jnp.concat([m23, m23 * 2], axis=1),
    "stacking/concat_none": lambda: jnp.concat([m23, v2], axis=None),
    "stacking/vstack_array_2d": lambda: jnp.vstack(m23),
    "stacking/vstack_array_1d": lambda: jnp.vstack(v3),
    "stacking/hstack_array_1d": lambda: jnp.hstack(v3),
    "stacking/hstack_array_2d": lambda: jnp.hstack(m23),
    "stacking/hstack_array_3d": lambda: jnp.hstack(t234),
    "stacking/dstack_array_1d": lambda: jnp.dstack(v3),
    "stacking/dstack_array_2d": lambda: jnp.dstack(m23),
    "stacking/dstack_array_3d": lambda: jnp.dstack(t234),
    "stacking/column_stack_array_1d": lambda: jnp.column_stack(v3),
    "stacking/column_stack_array_2d": lambda: jnp.column_stack(m23),
    "stacking/column_stack_array_3d": lambda: jnp.column_stack(t234),
    "stacking/block_1": lambda: jnp.block([v2, v3, s]),
    "stacking/block_2": lambda: jnp.block([[m22, m22 * 2], [m23[:, :2], m23[:, 1:]]]),
    "stacking/block_2_ranks": lambda: jnp.block([[s, v2], [v3]]),
    "stacking/block_3d": lambda: jnp.block([[t234, t234[:, :, :1]]]),
    "stacking/append_none": lambda: jnp.append(m23, v2),
    "stacking/append_0": lambda: jnp.append(m23, m23[:1], axis=0),
    # splitting.hpp
    "splitting/array_split_3": lambda: jnp.array_split(i6[:5], 3),
    "splitting/array_split_4_axis1": lambda: jnp.array_split(t234, 3, axis=-1),
    "splitting/array_split_indices": lambda: jnp.array_split(i6, [1, 4]),
    "splitting/array_split_more": lambda: jnp.array_split(v3, 5),
    "splitting/hsplit_1d": lambda: jnp.hsplit(i6, 3),
    "splitting/hsplit_2d": lambda: jnp.hsplit(m23, [1]),
    "splitting/vsplit": lambda: jnp.vsplit(t234, 2),
    "splitting/dsplit": lambda: jnp.dsplit(t234, [1, 3]),
    "splitting/unstack_0": lambda: jnp.unstack(m23),
    "splitting/unstack_neg": lambda: jnp.unstack(t234, axis=-2),
    # editing.hpp
    "editing/delete_int": lambda: jnp.delete(m23, -1, 1),
    "editing/delete_flat": lambda: jnp.delete(m23, 2),
    "editing/delete_list": lambda: jnp.delete(t234, jnp.array([0, 2, 0, -1]), 2),
    "editing/delete_array_unique": lambda: jnp.delete(t234, jnp.array([3, 0]), 2, assume_unique_indices=True),
    "editing/delete_mask": lambda: jnp.delete(m23, jnp.array([True, False, True]), 1),
    "editing/insert_scalar": lambda: jnp.insert(m23, 1, 9.0, 1),
    "editing/insert_flat": lambda: jnp.insert(m23, 2, 9.0),
    "editing/insert_int_row": lambda: jnp.insert(m23, 1, v3 * 10, 0),
    "editing/insert_int_col": lambda: jnp.insert(m23, -1, v2 * 10, 1),
    "editing/insert_list": lambda: jnp.insert(m23, jnp.array([0, 3, 1]), v3 * 10, 1),
    "editing/insert_list_same": lambda: jnp.insert(i6, jnp.array([2, 2, 9]), jnp.array([7, 8, 9], jnp.int32)),
    "editing/insert_one_listed": lambda: jnp.insert(m23, jnp.array([1]), jnp.array([[10.0], [20.0]]), 1),
    "editing/trim_zeros": lambda: jnp.trim_zeros(z),
    "editing/trim_zeros_f": lambda: jnp.trim_zeros(z, "f"),
    "editing/trim_zeros_b": lambda: jnp.trim_zeros(z, "B"),
    "editing/trim_zeros_2d": lambda: jnp.trim_zeros(z2),
    "editing/trim_zeros_2d_axis": lambda: jnp.trim_zeros(z2, "fb", 1),
    "editing/trim_zeros_all": lambda: jnp.trim_zeros(jnp.zeros(3)),
    # layout.hpp
    "layout/permute_dims": lambda: jnp.permute_dims(t234, (2, 0, 1)),
    "layout/matrix_transpose": lambda: jnp.matrix_transpose(t234),
    "layout/rollaxis_2_0": lambda: jnp.rollaxis(t234, 2),
    "layout/rollaxis_0_3": lambda: jnp.rollaxis(t234, 0, 3),
    "layout/rollaxis_neg": lambda: jnp.rollaxis(t234, -1, -2),
    "layout/broadcast_arrays": lambda: jnp.broadcast_arrays(v3, m23[:1].T, s),
    # rearrange.hpp
    "rearrange/rot90": lambda: jnp.rot90(m23),
    "rearrange/rot90_2": lambda: jnp.rot90(m23, 2),
    "rearrange/rot90_3": lambda: jnp.rot90(t234, 3, (2, 0)),
    "rearrange/rot90_neg": lambda: jnp.rot90(t234, -1, (1, 2)),
    "rearrange/resize_grow": lambda: jnp.resize(m23, (3, 5)),
    "rearrange/resize_shrink": lambda: jnp.resize(t234, 5),
    "rearrange/resize_empty": lambda: jnp.resize(v3[:0], (2, 2)),
    # index_helpers.hpp
    "index_helpers/tri": lambda: jnp.tri(3),
    "index_helpers/tri_int": lambda: jnp.tri(3, 4, -1, dtype=jnp.int32),
    "index_helpers/tril_indices": lambda: jnp.tril_indices(3),
    "index_helpers/tril_indices_km": lambda: jnp.tril_indices(3, 1, 5),
    "index_helpers/triu_indices": lambda: jnp.triu_indices(4, -1),
    "index_helpers/triu_indices_km": lambda: jnp.triu_indices(4, 2, 3),
    "index_helpers/tril_indices_from": lambda: jnp.tril_indices_from(m23, -1),
    "index_helpers/triu_indices_from": lambda: jnp.triu_indices_from(m23, 1),
    "index_helpers/diag_indices": lambda: jnp.diag_indices(3, 3),
    "index_helpers/diag_indices_from": lambda: jnp.diag_indices_from(m22),
    "index_helpers/mask_indices": lambda: jnp.mask_indices(3, jnp.triu, 1),
    "index_helpers/mask_indices_size": lambda: jnp.mask_indices(3, jnp.tril, size=8),
    "index_helpers/indices": lambda: jnp.indices((2, 3)),
    "index_helpers/indices_0": lambda: jnp.indices(()),
    "index_helpers/ix_": lambda: jnp.ix_(i6[:2], i6[3:]),
    "index_helpers/unravel_index": lambda: jnp.unravel_index(jnp.array([0, 5, 7, -1, -7, 23, 30], jnp.int32), (2, 3, 4)),
    "index_helpers/ravel_multi_index": lambda: jnp.ravel_multi_index((jnp.array([1, 0, 1], jnp.int32), jnp.array([2, 0, 1], jnp.int32)), (2, 3)),
    "index_helpers/ravel_multi_index_f": lambda: jnp.ravel_multi_index((jnp.array([1, 0], jnp.int32), jnp.array([2, 1], jnp.int32)), (2, 3), order="F"),
    "index_helpers/ravel_multi_index_clip": lambda: jnp.ravel_multi_index((jnp.array([5, -1], jnp.int32), jnp.array([2, 9], jnp.int32)), (2, 3), mode="clip"),
    "index_helpers/ravel_multi_index_wrap": lambda: jnp.ravel_multi_index((jnp.array([5, -1], jnp.int32), jnp.array([-2, 9], jnp.int32)), (2, 3), mode="wrap"),
    # windows.hpp
    "windows/bartlett": lambda: jnp.bartlett(7),
    "windows/blackman": lambda: jnp.blackman(8),
    "windows/hamming": lambda: jnp.hamming(6),
    "windows/hanning": lambda: jnp.hanning(9),
    "windows/hanning_1": lambda: jnp.hanning(1),
    "windows/hamming_0": lambda: jnp.hamming(0),
    # creation.hpp
    "creation/logspace": lambda: jnp.logspace(0.0, 2.0, 5),
    "creation/logspace_base": lambda: jnp.logspace(-1.0, 1.5, 4, False, 2.0),
    "creation/geomspace": lambda: jnp.geomspace(1.0, 1000.0, 4),
    "creation/geomspace_neg": lambda: jnp.geomspace(-2.0, -32.0, 5, endpoint=False),
    "creation/identity": lambda: jnp.identity(3),
    "creation/identity_int": lambda: jnp.identity(2, jnp.int32),
    "creation/empty": lambda: jnp.empty((2, 3)),
    # diagonals.hpp
    "diagonals/diagflat": lambda: jnp.diagflat(m22),
    "diagonals/diagflat_k": lambda: jnp.diagflat(v3, -2),
    "diagonals/fill_diagonal": lambda: jnp.fill_diagonal(m23, 9.0, inplace=False),
    "diagonals/fill_diagonal_3d": lambda: jnp.fill_diagonal(jnp.zeros((3, 3, 3)), v2, inplace=False),
    "diagonals/fill_diagonal_tall": lambda: jnp.fill_diagonal(m23.T, v3 * 10, inplace=False),
    # selection.hpp
    "selection/select": lambda: jnp.select([m23 > 4, m23 < 3, m23 > 1], [m23 * 10, -m23, v3], 0.5),
    "selection/select_default_array": lambda: jnp.select([v3 > 1], [v3], m23 * 100),
    "selection/choose": lambda: jnp.choose(jnp.array([[0, 1, 2], [2, 1, 0]], jnp.int32), [m23, m23 * 10, v3 * 100]),
    "selection/choose_wrap": lambda: jnp.choose(jnp.array([3, -1, 4], jnp.int32), [v3, v3 * 10, v3 * 100], mode="wrap"),
    "selection/choose_clip": lambda: jnp.choose(jnp.array([3, -1, 1], jnp.int32), [v3, v3 * 10, v3 * 100], mode="clip"),
    "selection/piecewise": lambda: jnp.piecewise(m23, [m23 < 3, m23 > 4], [lambda x: x * 2, lambda x: -x, lambda x: x + 100]),
    "selection/piecewise_overlap": lambda: jnp.piecewise(v3, [v3 > 0, v3 > 1], [lambda x: x * 2, lambda x: -x]),
    "selection/compress": lambda: jnp.compress(jnp.array([True, False, True]), m23, axis=1),
    "selection/compress_flat": lambda: jnp.compress(jnp.array([False, True, True, False, True]), m23),
    "selection/compress_size": lambda: jnp.compress(jnp.array([False, True, False]), m23, axis=1, size=2, fill_value=-1),
    "selection/compress_size_0": lambda: jnp.compress(jnp.array([True, True]), t234, axis=0, size=1),
    "selection/extract": lambda: jnp.extract(m23 > 2, m23),
    "selection/extract_size": lambda: jnp.extract(m23 > 4, m23, size=4, fill_value=7),
    "selection/place": lambda: jnp.place(m23, m23 > 2, jnp.array([10.0, 20.0], jnp.float32), inplace=False),
    "selection/put": lambda: jnp.put(m23, jnp.array([0, 4, -1, 20], jnp.int32), jnp.array([10.0, 20.0], jnp.float32), inplace=False),
    "selection/put_clip": lambda: jnp.put(m23, jnp.array([-3, 20], jnp.int32), 9.0, mode="clip", inplace=False),
    "selection/put_wrap": lambda: jnp.put(m23, jnp.array([-3, 20], jnp.int32), 9.0, mode="wrap", inplace=False),
    "selection/put_along_axis": lambda: jnp.put_along_axis(m23, jnp.array([[0], [2]], jnp.int32), 7.0, 1, inplace=False),
    "selection/put_along_axis_0": lambda: jnp.put_along_axis(t234, jnp.array([[[1, 0, 1, 1]]], jnp.int32), -t234[:1, :1], 0, inplace=False),
    "selection/put_along_axis_none": lambda: jnp.put_along_axis(m23, jnp.array([5, 0], jnp.int32), v2 * 10, None, inplace=False),
    # transforms/numpy_apply.hpp
    "numpy_apply/along_sum": lambda: jnp.apply_along_axis(jnp.sum, 1, t234),
    "numpy_apply/along_cumsum": lambda: jnp.apply_along_axis(jnp.cumsum, 0, t234),
    "numpy_apply/along_outer": lambda: jnp.apply_along_axis(lambda v: jnp.outer(v[:2], v[1:3]), -1, m23),
    "numpy_apply/over_sum": lambda: jnp.apply_over_axes(jnp.sum, t234, [0, 2]),
    "numpy_apply/over_neg": lambda: jnp.apply_over_axes(lambda a, ax: jnp.flip(a, ax), t234, [-1]),
    "numpy_apply/fromfunction_1": lambda: jnp.fromfunction(lambda i: i * i - 2.0, (4,)),
    "numpy_apply/fromfunction_2": lambda: jnp.fromfunction(lambda i, j: jnp.sin(i) + 10 * j, (2, 3)),
    "numpy_apply/fromfunction_3": lambda: jnp.fromfunction(lambda i, j, k: jnp.stack([i + j, j * k]), (2, 3, 2)),
}


def number(v):
    v = float(v)
    if v == 0 and np.signbit(v):
        return "-0.0"
    if np.isnan(v):
        return "nan"
    if np.isinf(v):
        return "inf" if v > 0 else "-inf"
    return repr(v)


def main():
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "shape_cases.inc")
    rows = []
    for name, f in CASES.items():
        result = f()
        parts = list(result) if isinstance(result, (list, tuple)) else [result]
        if not parts:
            rows.append((name, -1, "", (), np.zeros(0)))
        for k, p in enumerate(parts):
            p = np.asarray(p)
            rows.append((name, k if isinstance(result, (list, tuple)) else -2, str(p.dtype), p.shape, p.reshape(-1)))
    with open(out, "w") as f:
        f.write("// Generated by tests/golden/shape_cases.py with JAX %s; do not edit.\n" % jax.__version__)
        f.write("// {case, part (-2: a single array, -1: an empty list), dtype, shape, values}\n")
        for name, part, dtype, shape, values in rows:
            f.write('{"%s", %d, "%s", {%s}, {%s}},\n' % (
                name, part, dtype, ", ".join(map(str, shape)), ", ".join(number(v) for v in values)))
    print("wrote", out, len(rows), "rows")


if __name__ == "__main__":
    main()
