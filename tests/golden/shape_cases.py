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
