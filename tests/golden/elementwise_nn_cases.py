#!/usr/bin/env python3
"""Golden values for the elementwise functions of tests/test_elementwise.cpp
(logaddexp, hypot, arctan2, erfc, isnan, isinf, isfinite, nan_to_num,
lax.lgamma, lax.digamma, lax.polygamma of orders 1 and 3) and
the jax.nn functions of tests/test_nn_grad.cpp (gelu, silu, softplus,
log_sigmoid, one_hot), made by JAX itself: values at special points (0,
+-inf, nan, large magnitudes) and ordinary ones, in float32 and float64,
and first derivatives (jax.grad, per element) at finite points and, for
logaddexp, whose custom_jvp handles them, at infinities.

Needs JAX (not needed by the tests):
    python3 -m venv /tmp/jaxenv && /tmp/jaxenv/bin/pip install jax
    /tmp/jaxenv/bin/python tests/golden/elementwise_nn_cases.py
It rewrites tests/golden/elementwise_nn_cases.inc beside this script.
"""

import os

import jax
import jax.numpy as jnp
import numpy as np

jax.config.update("jax_enable_x64", True)  # the float64 cases; float32 ones are asked for explicitly

inf, nan = float("inf"), float("nan")
UNARY_VALUES = [0.0, -0.0, 0.5, -0.5, 1.0, -1.0, 2.5, -3.25, 7.0, -9.5, 20.0, -30.0, 1e4, -1e4, 1e30, -1e30,
                inf, -inf, nan]
UNARY_GRAD_POINTS = [0.0, 0.5, -0.5, 1.0, -1.0, 2.5, -3.25, 7.0, -9.5, 20.0, -30.0]
BINARY_VALUES = [(0.0, 0.0), (-0.0, 0.0), (0.0, -0.0), (-0.0, -0.0), (1.0, 2.0), (-1.0, 2.0), (1.0, -2.0),
                 (-1.0, -2.0), (3.0, 4.0), (1e30, 1e30), (-1e30, 1e-30), (1e-30, 1e-30), (100.0, -100.0),
                 (inf, 1.0), (1.0, inf), (-inf, 1.0), (1.0, -inf), (inf, inf), (-inf, -inf), (inf, -inf),
                 (-inf, inf), (nan, 1.0), (1.0, nan), (nan, inf), (inf, nan), (nan, -inf)]
BINARY_GRAD_POINTS = [(1.0, 2.0), (-1.0, 2.0), (1.0, -2.0), (-1.0, -2.0), (3.0, 4.0), (0.5, -7.0), (-20.0, 15.0)]
LOGADDEXP_GRAD_POINTS = BINARY_GRAD_POINTS + [(0.0, 0.0), (100.0, -100.0), (-inf, 1.0), (1.0, -inf), (inf, 1.0),
                                              (1.0, inf), (-inf, -inf)]
DTYPES = [(32, jnp.float32), (64, jnp.float64)]

unary = {
    "erfc": jax.lax.erfc,
    "isnan": jnp.isnan,
    "isinf": jnp.isinf,
    "isfinite": jnp.isfinite,
    "nan_to_num": jnp.nan_to_num,
    "nan_to_num_given": lambda x: jnp.nan_to_num(x, nan=1.5, posinf=7.0, neginf=-8.0),
    "gelu": jax.nn.gelu,
    "gelu_exact": lambda x: jax.nn.gelu(x, approximate=False),
    "silu": jax.nn.silu,
    "softplus": jax.nn.softplus,
    "log_sigmoid": jax.nn.log_sigmoid,
}
differentiable_unary = ["erfc", "gelu", "gelu_exact", "silu", "softplus", "log_sigmoid"]
# lgamma and its derivatives, at their own points: poles, both sides of them, large arguments.
# jaxcc computes them in float64 and rounds; XLA's float32 versions are off by up to 5e-4 relative
# (polygamma(4, -2.5)), so the float32 cases hold JAX's float64 values at the float32 points, rounded.
SPECIAL_VALUES = [-2.5, -1.0, -0.5, 0.0, 1e-3, 0.5, 1.5, 2.5, 3.5, 10.0, 50.0, 1e5, nan]
SPECIAL_GRAD_POINTS = [-2.5, -0.5, 0.5, 1.5, 3.5, 10.0, 50.0]
special = {
    "lgamma": jax.lax.lgamma,
    "digamma": jax.lax.digamma,
    "polygamma1": lambda x: jax.lax.polygamma(jnp.ones_like(x), x),
    "polygamma3": lambda x: jax.lax.polygamma(jnp.full_like(x, 3), x),
}
binary = {"logaddexp": jnp.logaddexp, "hypot": jnp.hypot, "arctan2": jnp.arctan2}

cases = []  # (function, bits, xs, ys, values, dx, dy)

for bits, dtype in DTYPES:
    for name, f in unary.items():
        x = jnp.array(UNARY_VALUES, dtype)
        cases.append((name, bits, x, [], f(x), [], []))
    for name in differentiable_unary:
        x = jnp.array(UNARY_GRAD_POINTS, dtype)
        cases.append((name, bits, x, [], unary[name](x), jax.vmap(jax.grad(unary[name]))(x), []))
    for name, f in special.items():
        x = jnp.array(SPECIAL_VALUES, dtype)
        wide = x.astype(jnp.float64)
        cases.append((name, bits, x, [], f(wide).astype(dtype), [], []))
        x = jnp.array(SPECIAL_GRAD_POINTS, dtype)
        wide = x.astype(jnp.float64)
        cases.append((name, bits, x, [], f(wide).astype(dtype), jax.vmap(jax.grad(f))(wide).astype(dtype), []))
    for name, f in binary.items():
        x = jnp.array([p[0] for p in BINARY_VALUES], dtype)
        y = jnp.array([p[1] for p in BINARY_VALUES], dtype)
        cases.append((name, bits, x, y, f(x, y), [], []))
        points = LOGADDEXP_GRAD_POINTS if name == "logaddexp" else BINARY_GRAD_POINTS
        x = jnp.array([p[0] for p in points], dtype)
        y = jnp.array([p[1] for p in points], dtype)
        dx, dy = jax.vmap(jax.grad(f, argnums=(0, 1)))(x, y)
        cases.append((name, bits, x, y, f(x, y), dx, dy))

# one_hot of int32 indices (out-of-range ones included), 4 classes, along each axis.
indices = jnp.array([[0, 3, -1], [2, 4, 1]], jnp.int32)
one_hot_cases = [(axis, jax.nn.one_hot(indices, 4, axis=axis)) for axis in (-1, 0, 1, 2, -3)]


def number(v):
    v = float(v)
    if np.isnan(v):
        return "nan"
    if np.isinf(v):
        return "inf" if v > 0 else "-inf"
    return repr(v)


def numbers(values):
    return ", ".join(number(v) for v in np.asarray(values, dtype=np.float64).reshape(-1))


out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "elementwise_nn_cases.inc")
with open(out, "w") as f:
    f.write("// Generated by tests/golden/elementwise_nn_cases.py with JAX %s; do not edit.\n" % jax.__version__)
    f.write("// Needs `inf` and `nan` (double) in scope where it is included.\n")
    f.write("#ifdef JAXCC_GOLDEN_ELEMENTWISE\n")
    f.write("// {function, float bits, x, y (binary), values, d/dx, d/dy (where differentiated)}\n")
    for name, bits, x, y, values, dx, dy in cases:
        f.write('{"%s", %d, {%s}, {%s}, {%s}, {%s}, {%s}},\n' % (
            name, bits, numbers(x), numbers(y), numbers(values), numbers(dx), numbers(dy)))
    f.write("#endif\n#ifdef JAXCC_GOLDEN_ONE_HOT\n")
    f.write("// {axis, shape, values} of one_hot(%s, 4, axis=axis)\n" % np.asarray(indices).tolist())
    for axis, values in one_hot_cases:
        f.write("{%d, {%s}, {%s}},\n" % (axis, ", ".join(map(str, values.shape)), numbers(values)))
    f.write("#endif\n")
print("wrote", out, len(cases) + len(one_hot_cases), "cases")
