#!/usr/bin/env python3
"""Golden values for tests/test_sorting.cpp, tests/test_cumulative.cpp and
tests/test_quantile.cpp, made by JAX itself.

Each case is one call, named as the tests dispatch on it ("sort:-1:asc"
is jnp.sort(x, axis=-1)), on one of the inputs below, with JAX's result.
The inputs hold ties, NaN, -0.0 and zeros on purpose. "grad:<op>:<axis>"
cases are the gradient of sum(op(x) * w), w[i] = 0.5 + 0.25 * (i % 4) over
the flat index, so that cumprod's zeros and cummax's ties are covered.

Needs JAX (not needed by the tests):
    python3 -m venv /tmp/jaxenv && /tmp/jaxenv/bin/pip install jax
    /tmp/jaxenv/bin/python tests/golden/sorting_cases.py
It rewrites tests/golden/sorting_cases.inc beside this script.
"""

import os

import jax
import jax.numpy as jnp
import numpy as np

assert not jax.config.jax_enable_x64

INPUTS = {
    "v": np.array([3.0, 1.0, 2.0, np.nan, 1.0, -0.0, 0.0, -2.5], np.float32),
    "m": np.array([[0.5, -1.0, 2.0, 2.0, 7.0],
                   [3.0, 0.0, -4.0, 1.5, 2.0],
                   [1.0, 1.0, 9.0, -3.0, 0.25]], np.float32),
    "t": np.array([[[1.5, -2.0, 0.0, 3.0], [2.0, 2.0, -1.0, 0.5], [4.0, -3.0, 1.0, 1.0]],
                   [[0.0, 5.0, -2.0, 2.5], [1.0, -1.0, 3.0, 0.0], [2.0, 0.5, 0.5, -6.0]]], np.float32),
    # Positive, with a zero, for cumprod's derivatives; ties for cummax's.
    "p": np.array([[1.5, 2.0, 0.0, 3.0, 0.5],
                   [2.0, 2.0, 1.0, 2.0, 4.0],
                   [0.5, 3.0, 3.0, 1.0, 2.0]], np.float32),
    "i": np.array([[3, -1, 4, 1, -5], [9, 2, -6, 5, 3]], np.int32),
}
cases = []  # (name, input, output)


def add(name, source, out):
    cases.append((name, source, np.asarray(out)))


def axis_of(a):
    return None if a == "none" else int(a)


for src in ["v", "m", "t"]:
    x = INPUTS[src]
    for axis in ["-1", "0", "none"]:
        for desc in [False, True]:
            d = "desc" if desc else "asc"
            add(f"sort:{axis}:{d}", src, jnp.sort(x, axis=axis_of(axis), descending=desc))
            add(f"argsort:{axis}:{d}", src, jnp.argsort(x, axis=axis_of(axis), descending=desc))
for src in ["v", "m", "t", "i"]:
    x = INPUTS[src]
    for k in [1, 2, 3]:
        values, indices = jax.lax.top_k(x, k)
        add(f"top_k_values:{k}", src, values)
        add(f"top_k_indices:{k}", src, indices)
add("top_k_values_axis0:2", "m", jax.lax.top_k(INPUTS["m"], 2, axis=0)[0])
add("top_k_indices_axis0:2", "m", jax.lax.top_k(INPUTS["m"], 2, axis=0)[1])

# searchsorted of each input's elements into a sorted array with ties.
sorted_a = np.array([-3.0, -0.0, 1.0, 1.0, 2.0, 2.0, 2.0, 5.0, np.nan], np.float32)
for src in ["v", "m"]:
    for side in ["left", "right"]:
        add(f"searchsorted:{side}", src, jnp.searchsorted(sorted_a, INPUTS[src], side=side))

for src in ["v", "m", "t", "p", "i"]:
    x = INPUTS[src]
    for name in ["cumsum", "cumprod", "cummax", "cummin"]:
        fn = getattr(jnp, name) if name in ("cumsum", "cumprod") else getattr(jax.lax, name)
        for axis in ["0", "-1", "none"]:
            if name in ("cummax", "cummin"):
                a = axis_of(axis)
                y = x.reshape(-1) if a is None else x
                a = 0 if a is None else a % x.ndim
                out = fn(y, axis=a)
            else:
                out = fn(x, axis=axis_of(axis))
            add(f"{name}:{axis}", src, out)
        if x.ndim > 1:
            lax_fn = getattr(jax.lax, name)
            add(f"{name}_reverse:1", src, lax_fn(x, axis=1, reverse=True))

for src in ["v", "m", "t", "i"]:
    x = INPUTS[src]
    for method in ["linear", "lower", "higher", "midpoint", "nearest"]:
        for axis in ["0", "-1", "none"]:
            add(f"quantile:{method}:{axis}:0.3", src, jnp.quantile(x, 0.3, axis=axis_of(axis), method=method))
    add("quantile:linear:0:q3", src, jnp.quantile(x, jnp.array([0.0, 0.6, 1.0]), axis=0))
    add("quantile:linear:-1:q3:keepdims", src,
        jnp.quantile(x, jnp.array([0.0, 0.6, 1.0]), axis=-1, keepdims=True))
    add("median:-1", src, jnp.median(x, axis=-1))
    add("median:none", src, jnp.median(x))
    add("median:0:keepdims", src, jnp.median(x, axis=0, keepdims=True))


def weights(shape):
    n = int(np.prod(shape))
    return (0.5 + 0.25 * (np.arange(n) % 4)).astype(np.float32).reshape(shape)


for src in ["m", "p", "t"]:
    x = INPUTS[src]
    w = weights(x.shape)
    for name in ["cumsum", "cumprod", "cummax", "cummin", "sort"]:
        for axis in [0, 1]:
            if name == "sort":
                op = lambda a: jnp.sort(a, axis=axis)
            else:
                op = lambda a, f=getattr(jax.lax, name): f(a, axis=axis)
            add(f"grad:{name}:{axis}", src, jax.grad(lambda a: jnp.sum(op(a) * w))(x))
        if name != "sort":
            op = lambda a, f=getattr(jax.lax, name): f(a, axis=1, reverse=True)
            add(f"grad:{name}_reverse:1", src, jax.grad(lambda a: jnp.sum(op(a) * w))(x))
    add("grad:top_k:2", src, jax.grad(lambda a: jnp.sum(jax.lax.top_k(a, 2)[0] * weights(x.shape[:-1] + (2,))))(x))
    add("grad:median:-1", src, jax.grad(lambda a: jnp.sum(jnp.median(a, axis=-1) * weights(x.shape[:-1])))(x))
    add("grad:quantile:linear:0:0.3", src,
        jax.grad(lambda a: jnp.sum(jnp.quantile(a, 0.3, axis=0) * weights(x.shape[1:])))(x))


def number(v):
    v = float(v)
    if np.isnan(v):
        return "nan"
    if v == 0 and np.signbit(v):
        return "-0.0"
    return repr(v)


out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "sorting_cases.inc")
with open(out, "w") as f:
    f.write("// Generated by tests/golden/sorting_cases.py with JAX %s; do not edit.\n" % jax.__version__)
    f.write("// The inputs: {name, shape, values}.\n#ifdef JAXCC_GOLDEN_SORTING_INPUTS\n")
    for name, x in INPUTS.items():
        f.write('{"%s", {%s}, {%s}},\n' % (name, ", ".join(map(str, x.shape)), ", ".join(number(v) for v in x.reshape(-1))))
    f.write("#endif\n// The cases: {call, input name, result shape, result values}.\n#ifdef JAXCC_GOLDEN_SORTING_CASES\n")
    for name, src, value in cases:
        f.write('{"%s", "%s", {%s}, {%s}},\n' % (
            name, src, ", ".join(map(str, value.shape)), ", ".join(number(v) for v in value.reshape(-1))))
    f.write("#endif\n")
print("wrote", out, len(cases), "cases")
