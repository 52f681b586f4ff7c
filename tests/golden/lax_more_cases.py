#!/usr/bin/env python3
"""Golden values for tests/test_lax_*.cpp (lax's shape functions,
reductions, sorts, gather and scatters), made by JAX itself. Each case is
named by its Python spelling (the tests hold the same spelling beside its
C++ form) and gives the result's shape and values, read as float64 (ints
and bools too). A case named "grad ..." is the gradient of
sum(sin(result)) with respect to the first input.

Needs JAX (not needed by the tests):
    python3 -m venv /tmp/jaxenv && /tmp/jaxenv/bin/pip install jax
    /tmp/jaxenv/bin/python tests/golden/lax_more_cases.py
It rewrites tests/golden/lax_more_cases.inc beside this script.
"""

import os

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

assert not jax.config.jax_enable_x64

f32, i32 = jnp.float32, jnp.int32
# The inputs (the tests build the same ones).
m = (jnp.arange(12, dtype=f32).reshape(3, 4) * jnp.array([1.0, -0.5, 0.75, -1.25], f32) + 0.25)
t = jnp.arange(24, dtype=f32).reshape(2, 3, 4) * 0.5 - 3.0
v = jnp.array([0.5, -1.5, 2.0, 3.25], f32)
b = jnp.array([[True, False, True], [True, True, True]])
iv = jnp.array([[3, 5, 6], [12, 10, 7]], i32)
keys = jnp.array([2, 1, 2, 1, 0, 2], i32)
keys2 = jnp.array([0.5, 3.0, -1.0, 3.0, 2.0, -1.0], f32)
vals = jnp.arange(6, dtype=f32) * 1.5

G = lax.GatherDimensionNumbers
S = lax.ScatterDimensionNumbers
rows = jnp.array([[2], [0], [5]], i32)
corners = jnp.array([[0, 1], [1, 2], [2, 3], [-1, 0]], i32)
bidx = jnp.array([[1], [3]], i32)
sidx = jnp.array([[1], [1], [0], [7]], i32)
ups = jnp.array([10.0, 20.0, -30.0, 40.0], f32)
z3 = jnp.array([1.0, 25.0, -2.0], f32)
row_ups = jnp.array([[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]], f32)
ridx = jnp.array([[2], [0]], i32)

gather_rows = lambda a, mode=None: lax.gather(a, rows, G((1,), (0,), (0,)), (1, 4), mode=mode)
gather_corners = lambda a, mode=None: lax.gather(a, corners, G((1, 2), (), (0, 1)), (2, 2), mode=mode)
gather_batched = lambda a: lax.gather(a, bidx, G((1,), (2,), (2,), (0,), (0,)), (1, 3, 1))

CASES = {
    # shape_ops
    "broadcast(m, (2,))": lambda: lax.broadcast(m, (2,)),
    "broadcast_like(v, m)": lambda: lax.broadcast_like(v, m),
    "broadcast_to_rank(v, 3)": lambda: lax.broadcast_to_rank(v, 3),
    "broadcasted_iota(int32, (2, 3), 1)": lambda: lax.broadcasted_iota(i32, (2, 3), 1),
    "iota(float32, 5)": lambda: lax.iota(f32, 5),
    "collapse(t, 1)": lambda: lax.collapse(t, 1),
    "collapse(t, 0, 2)": lambda: lax.collapse(t, 0, 2),
    "collapse(t, -2)": lambda: lax.collapse(t, -2),
    "rev(m, (0, 1))": lambda: lax.rev(m, (0, 1)),
    "rev(t, (1,))": lambda: lax.rev(t, (1,)),
    "tile(m, (2, 3))": lambda: lax.tile(m, (2, 3)),
    "full((2, 3), 1.5)": lambda: lax.full((2, 3), 1.5),
    "full_like(m, 2)": lambda: lax.full_like(m, 2),
    "full_like(m, 7, int32, (3,))": lambda: lax.full_like(m, 7, i32, (3,)),
    "stack([v, v * 2], 1)": lambda: lax.stack([v, v * 2], 1),
    "unstack(m, 1)[2]": lambda: lax.unstack(m, 1)[2],
    "split(m, (1, 3), 1)[1]": lambda: lax.split(m, (1, 3), 1)[1],
    "slice_in_dim(m, 1, None, 2, 1)": lambda: lax.slice_in_dim(m, 1, None, 2, 1),
    "slice_in_dim(m, -2, None)": lambda: lax.slice_in_dim(m, -2, None),
    "index_in_dim(m, -1, 1, False)": lambda: lax.index_in_dim(m, -1, 1, False),
    "index_in_dim(m, 1)": lambda: lax.index_in_dim(m, 1),
    "dynamic_slice_in_dim(m, 2, 2, 1)": lambda: lax.dynamic_slice_in_dim(m, 2, 2, 1),
    "dynamic_slice_in_dim(m, 5, 2, 0)": lambda: lax.dynamic_slice_in_dim(m, 5, 2, 0),
    "dynamic_index_in_dim(m, -1, 0, False)": lambda: lax.dynamic_index_in_dim(m, -1, 0, False),
    "dynamic_update_slice_in_dim(m, row_ups.T[:3], 3, 1)":
        lambda: lax.dynamic_update_slice_in_dim(m, row_ups.T[:3], 3, 1),
    "dynamic_update_index_in_dim(m, v, 1, 0)": lambda: lax.dynamic_update_index_in_dim(m, v, 1, 0),
    # reductions
    "reduce_sum(t, (0, 2))": lambda: lax.reduce_sum(t, (0, 2)),
    "reduce_prod(m, (1,))": lambda: lax.reduce_prod(m, (1,)),
    "reduce_max(t, (1,))": lambda: lax.reduce_max(t, (1,)),
    "reduce_min(m, (0, 1))": lambda: lax.reduce_min(m, (0, 1)),
    "reduce_and(b, (1,))": lambda: lax.reduce_and(b, (1,)),
    "reduce_or(b, (0,))": lambda: lax.reduce_or(b, (0,)),
    "reduce_xor(b, (1,))": lambda: lax.reduce_xor(b, (1,)),
    "reduce_xor(iv, (0, 1))": lambda: lax.reduce_xor(iv, (0, 1)),
    "reduce_and(iv, (1,))": lambda: lax.reduce_and(iv, (1,)),
    "reduce(m, 0.0, add, (1,))": lambda: lax.reduce(m, 0.0, lax.add, (1,)),
    "reduce(m, 1.0, add, (0,))": lambda: lax.reduce(m, 1.0, lax.add, (0,)),
    "reduce(m, -inf, max, (1,))": lambda: lax.reduce(m, -np.inf, lax.max, (1,)),
    "reduce(t, 0.0, a + b * b, (0, 2))": lambda: lax.reduce(t, 0.0, lambda a, b: a + b * b, (0, 2)),
    "argmax(m, 1, int32)": lambda: lax.argmax(m, 1, i32),
    "argmin(t, 0, int32)": lambda: lax.argmin(t, 0, i32),
    "cumlogsumexp(m, 1)": lambda: lax.cumlogsumexp(m, 1),
    "cumlogsumexp(m, 0, True)": lambda: lax.cumlogsumexp(m, 0, True),
    # sorting
    "sort(m, 0)": lambda: lax.sort(m, 0),
    "sort((keys, vals), 0, num_keys=1)[1]": lambda: lax.sort((keys, vals), 0, num_keys=1)[1],
    "sort((keys, keys2, vals), 0, num_keys=2)[1]": lambda: lax.sort((keys, keys2, vals), 0, num_keys=2)[1],
    "sort((keys, keys2, vals), 0, num_keys=2)[2]": lambda: lax.sort((keys, keys2, vals), 0, num_keys=2)[2],
    "sort_key_val(m, t[0], 0)[1]": lambda: lax.sort_key_val(m, t[0], 0)[1],
    "approx_max_k(m, 2)[0]": lambda: lax.approx_max_k(m, 2)[0],
    "approx_max_k(m, 2)[1]": lambda: lax.approx_max_k(m, 2)[1],
    "approx_min_k(m, 2, 0)[0]": lambda: lax.approx_min_k(m, 2, 0)[0],
    "approx_min_k(m, 2, 0)[1]": lambda: lax.approx_min_k(m, 2, 0)[1],
    # gather / scatter
    "gather(m, rows, ((1,), (0,), (0,)), (1, 4))": lambda: gather_rows(m),
    "gather(m, rows, ((1,), (0,), (0,)), (1, 4), mode='fill')": lambda: gather_rows(m, "fill"),
    "gather(m, corners, ((1, 2), (), (0, 1)), (2, 2))": lambda: gather_corners(m),
    "gather(m, corners, ((1, 2), (), (0, 1)), (2, 2), mode='fill')": lambda: gather_corners(m, "fill"),
    "gather(t, bidx, ((1,), (2,), (2,), (0,), (0,)), (1, 3, 1))": lambda: gather_batched(t),
    "index_take(t, (rows[:, 0], rows[:, 0]), (1, 2))":
        lambda: lax.index_take(t, (rows[:, 0], rows[:, 0]), (1, 2)),
    "scatter_add(z3, sidx, ups, ((), (0,), (0,)))": lambda: lax.scatter_add(z3, sidx, ups, S((), (0,), (0,))),
    "scatter_sub(z3, sidx, ups, ((), (0,), (0,)), mode='clip')":
        lambda: lax.scatter_sub(z3, sidx, ups, S((), (0,), (0,)), mode="clip"),
    "scatter(z3, sidx, ups, ((), (0,), (0,)))": lambda: lax.scatter(z3, sidx, ups, S((), (0,), (0,))),
    "scatter_mul(z3, sidx, ups, ((), (0,), (0,)))": lambda: lax.scatter_mul(z3, sidx, ups, S((), (0,), (0,))),
    "scatter_min(z3, sidx, ups, ((), (0,), (0,)))": lambda: lax.scatter_min(z3, sidx, ups, S((), (0,), (0,))),
    "scatter_max(z3, sidx, ups, ((), (0,), (0,)))": lambda: lax.scatter_max(z3, sidx, ups, S((), (0,), (0,))),
    "scatter(m, ridx, row_ups, ((1,), (0,), (0,)))": lambda: lax.scatter(m, ridx, row_ups, S((1,), (0,), (0,))),
    "scatter_add(m, corners, ones((4, 2, 2)), ((1, 2), (), (0, 1)))":
        lambda: lax.scatter_add(m, corners, jnp.ones((4, 2, 2), f32), S((1, 2), (), (0, 1))),
    "scatter_add(t, bidx, ones((2, 3)), ((1,), (2,), (2,), (0,), (0,)))":
        lambda: lax.scatter_add(t, bidx, jnp.ones((2, 3), f32), S((1,), (2,), (2,), (0,), (0,))),
    "scatter_apply(z3, sidx, x * 2 + 1, ((), (0,), (0,)), update_shape=(4,))":
        lambda: lax.scatter_apply(z3, sidx, lambda x: x * 2 + 1, S((), (0,), (0,)), update_shape=(4,)),
}

# Gradients of sum(sin(f(a))) with respect to a.
GRADS = {
    "grad reduce(m, 1.0, a * b, (1,))": (m, lambda a: lax.reduce(a, 1.0, lambda x, y: x * y, (1,))),
    "grad cumlogsumexp(m, 1)": (m, lambda a: lax.cumlogsumexp(a, 1)),
    "grad gather(m, corners, ((1, 2), (), (0, 1)), (2, 2), mode='fill')": (m, lambda a: gather_corners(a, "fill")),
    "grad scatter(m, ridx, row_ups, ((1,), (0,), (0,)))":
        (m, lambda a: lax.scatter(a, ridx, row_ups, S((1,), (0,), (0,)))),
    "grad updates scatter(z3, sidx, ups, ((), (0,), (0,)))":
        (ups, lambda u: lax.scatter(z3, sidx, u, S((), (0,), (0,)))),
    "grad updates scatter_max(z3, sidx, ups, ((), (0,), (0,)))":
        (ups, lambda u: lax.scatter_max(z3, sidx, u, S((), (0,), (0,)))),
    "grad scatter_max(z3, sidx, ups, ((), (0,), (0,)))":
        (z3, lambda a: lax.scatter_max(a, sidx, ups, S((), (0,), (0,)))),
    "grad sort((keys, keys2, vals), 0, num_keys=2)[2]":
        (vals, lambda x: lax.sort((keys, keys2, x), 0, num_keys=2)[2]),
}


def number(x):
    x = float(x)
    return "nan" if np.isnan(x) else "inf" if x == np.inf else "-inf" if x == -np.inf else repr(x)


def line(name, y):
    y = np.asarray(y)
    return '{"%s", {%s}, {%s}},\n' % (name, ", ".join(map(str, y.shape)),
                                      ", ".join(number(e) for e in y.reshape(-1)))


out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "lax_more_cases.inc")
with open(out, "w") as f:
    f.write("// Generated by tests/golden/lax_more_cases.py with JAX %s; do not edit.\n" % jax.__version__)
    f.write("// {case, result shape, result}\n")
    for name, make in CASES.items():
        f.write(line(name, make()))
    for name, (x, fn) in GRADS.items():
        f.write(line(name, jax.grad(lambda a: jnp.sum(jnp.sin(fn(a))))(x)))
print("wrote", out, len(CASES) + len(GRADS), "cases")
