#!/usr/bin/env python3
"""Golden values for jnp's further elementwise functions (numpy/ufuncs.hpp)
and lax's elementwise functions (lax/elementwise.hpp) of
tests/test_ufuncs.cpp and tests/test_lax_elementwise.cpp, made by JAX
itself: values at special points (0, -0, +-inf, nan, domain edges, large
magnitudes) and ordinary ones in float32 and float64, first derivatives
(jax.grad, per element) where the functions are differentiable, and
integer functions on int32.

Needs JAX (not needed by the tests):
    python3 -m venv /tmp/jaxenv && /tmp/jaxenv/bin/pip install jax==0.10.2
    /tmp/jaxenv/bin/python tests/golden/elementwise_more_cases.py
It rewrites tests/golden/elementwise_more_cases.inc beside this script.
"""

import os

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

jax.config.update("jax_enable_x64", True)  # the float64 cases; float32 ones are asked for explicitly

inf, nan = float("inf"), float("nan")
VALUES = [0.0, -0.0, 0.25, -0.25, 0.5, -0.5, 1.0, -1.0, 1.5, -1.5, 2.5, -3.25, 7.0, -9.5, 20.0, -30.0, 100.0, 1e4,
          -1e4, 1e30, -1e30, inf, -inf, nan]
GRAD_POINTS = [0.3, -0.3, 0.7, -0.7, 2.5, -3.25, 7.0]
WIDE_GRAD_POINTS = [1.25, 1.5, 2.5, 7.0, 20.0]  # above 1, for arccosh
PAIRS = [(0.0, 0.0), (-0.0, 0.0), (0.0, -0.0), (1.0, 2.0), (-1.0, 2.0), (1.0, -2.0), (-1.0, -2.0), (7.5, 2.0),
         (-7.5, 2.0), (7.5, -2.0), (-7.5, -2.0), (6.0, 3.0), (-6.0, 3.0), (5.0, 0.0), (-5.0, 0.0), (0.0, 5.0),
         (1e30, 3.0), (inf, 2.0), (2.0, inf), (-inf, 2.0), (2.0, -inf), (inf, inf), (-inf, -inf), (nan, 1.0),
         (1.0, nan), (nan, nan)]
PAIR_GRAD_POINTS = [(1.0, 2.0), (-1.0, 2.0), (1.0, -2.0), (-1.0, -2.5), (3.0, 4.0), (0.5, -7.0), (7.5, 2.0)]
DTYPES = [(32, jnp.float32), (64, jnp.float64)]

unary = {
    "sinh": jnp.sinh, "cosh": jnp.cosh, "arcsin": jnp.arcsin, "arccos": jnp.arccos, "arcsinh": jnp.arcsinh,
    "arccosh": jnp.arccosh, "arctanh": jnp.arctanh, "exp2": jnp.exp2, "log10": jnp.log10, "log2": jnp.log2,
    "reciprocal": jnp.reciprocal, "rint": jnp.rint, "trunc": jnp.trunc, "deg2rad": jnp.deg2rad,
    "rad2deg": jnp.rad2deg, "sinc": jnp.sinc, "signbit": jnp.signbit, "spacing": jnp.spacing, "fabs": jnp.fabs,
    "isposinf": jnp.isposinf, "isneginf": jnp.isneginf,
    "frexp_mantissa": lambda x: jnp.frexp(x)[0], "frexp_exponent": lambda x: jnp.frexp(x)[1],
    "modf_fraction": lambda x: jnp.modf(x)[0], "modf_whole": lambda x: jnp.modf(x)[1],
    "lax_round": lax.round, "lax_round_even": lambda x: lax.round(x, lax.RoundingMethod.TO_NEAREST_EVEN),
    "lax_rsqrt": lax.rsqrt, "lax_integer_pow3": lambda x: lax.integer_pow(x, 3),
    "lax_integer_pow_neg2": lambda x: lax.integer_pow(x, -2), "lax_ceil": lax.ceil,
    "lax_clamp": lambda x: lax.clamp(jnp.asarray(-1.0, x.dtype), x, jnp.asarray(2.0, x.dtype)),
}
differentiable = ["sinh", "cosh", "arcsin", "arccos", "arcsinh", "arctanh", "exp2", "log10", "log2", "reciprocal",
                  "deg2rad", "sinc", "lax_rsqrt", "lax_integer_pow3", "lax_integer_pow_neg2", "lax_clamp"]
binary = {
    "logaddexp2": jnp.logaddexp2, "remainder": jnp.remainder, "floor_divide": jnp.floor_divide, "fmax": jnp.fmax,
    "fmin": jnp.fmin, "heaviside": jnp.heaviside, "copysign": jnp.copysign, "nextafter": jnp.nextafter,
    "float_power": jnp.float_power, "lax_div": lax.div,
}
differentiable_binary = ["logaddexp2", "remainder", "fmax", "fmin", "copysign", "float_power"]

cases = []  # (function, bits, xs, ys, values, dx, dy)


def per_element_grad(f, *args):
    return jax.vmap(jax.grad(f, argnums=tuple(range(len(args)))))(*args)


for bits, dtype in DTYPES:
    for name, f in unary.items():
        x = jnp.array(VALUES, dtype)
        cases.append((name, bits, x, [], f(x), [], []))
    for name in differentiable:
        x = jnp.array(GRAD_POINTS, dtype)
        (dx,) = per_element_grad(unary[name], x)
        cases.append((name, bits, x, [], unary[name](x), dx, []))
    x = jnp.array(WIDE_GRAD_POINTS, dtype)
    cases.append(("arccosh", bits, x, [], jnp.arccosh(x), per_element_grad(jnp.arccosh, x)[0], []))
    for name, f in binary.items():
        x = jnp.array([p[0] for p in PAIRS], dtype)
        y = jnp.array([p[1] for p in PAIRS], dtype)
        cases.append((name, bits, x, y, f(x, y), [], []))
    for name in differentiable_binary:
        x = jnp.array([p[0] for p in PAIR_GRAD_POINTS], dtype)
        y = jnp.array([p[1] for p in PAIR_GRAD_POINTS], dtype)
        dx, dy = per_element_grad(binary[name], x, y)
        cases.append((name, bits, x, y, binary[name](x, y), dx, dy))
    # spacing on subnormals (of float32, and of float64 below 2.2e-308). Not frexp: XLA on CPU
    # flushes the subnormal in its x * 2^nmant to 0, so JAX's frexp(1e-40) is (0.5, -149), where
    # 1e-40 is 0.544 * 2^-132 (test_ufuncs.cpp checks frexp there against the C library's).
    x = jnp.array([1e-40, -1e-40, 1.4e-45, 1e-310, -4.9e-324, 2.2250738585072014e-308, 1.17549435e-38], dtype)
    cases.append(("spacing", bits, x, [], jnp.spacing(x), [], []))
    # ldexp: float mantissas, int32 exponents (through the float and back, exactly).
    x = jnp.array([1.0, 0.75, -3.0, 1e-30, 3e38, 0.0, -0.0, inf, -inf, nan, 5.0, 1.5], dtype)
    e = jnp.array([3, -200, 10, 60, 1, 5, 7, 2, -3, 1, -1080, 1100], jnp.int32)
    cases.append(("ldexp", bits, x, e, jnp.ldexp(x, e), [], []))

# Integer functions on int32: {function, x, y, values}.
ix = jnp.array([7, -7, 7, -7, 5, -5, 0, 0, 12, -18, 2147483647, -2147483648, -2147483648, 1, 100], jnp.int32)
iy = jnp.array([2, 2, -2, -2, 0, 0, 0, 3, 18, 12, -1, -1, 2, 1, 7], jnp.int32)
int_binary = {
    "floor_divide": jnp.floor_divide, "remainder": jnp.remainder, "gcd": jnp.gcd, "lcm": jnp.lcm,
    "lax_div": lax.div, "lax_mulhi": lax.mulhi, "fmax": jnp.fmax, "logical_xor": jnp.logical_xor,
}
int_unary = {
    "bitwise_count": jnp.bitwise_count, "lax_population_count": lax.population_count, "lax_clz": lax.clz,
    "signbit": jnp.signbit, "trunc": jnp.trunc, "lax_integer_pow3": lambda x: lax.integer_pow(x, 3),
}
int_cases = [(name, ix, iy, f(ix, iy)) for name, f in int_binary.items()]
int_cases += [(name, ix, [], f(ix)) for name, f in int_unary.items()]


def number(v):
    v = float(v)
    if np.isnan(v):
        return "nan"
    if np.isinf(v):
        return "inf" if v > 0 else "-inf"
    return repr(v)


def numbers(values):
    return ", ".join(number(v) for v in np.asarray(values, dtype=np.float64).reshape(-1))


def integers(values):
    return ", ".join(str(int(v)) for v in np.asarray(values, dtype=np.int64).reshape(-1))


out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "elementwise_more_cases.inc")
with open(out, "w") as f:
    f.write("// Generated by tests/golden/elementwise_more_cases.py with JAX %s; do not edit.\n" % jax.__version__)
    f.write("// Needs `inf` and `nan` (double) in scope where it is included.\n")
    f.write("#ifdef JAXCC_GOLDEN_ELEMENTWISE\n")
    f.write("// {function, float bits, x, y (binary), values, d/dx, d/dy (where differentiated)}\n")
    for name, bits, x, y, values, dx, dy in cases:
        f.write('{"%s", %d, {%s}, {%s}, {%s}, {%s}, {%s}},\n' % (
            name, bits, numbers(x), numbers(y), numbers(values), numbers(dx), numbers(dy)))
    f.write("#endif\n#ifdef JAXCC_GOLDEN_INTEGER\n")
    f.write("// {function, x, y (binary), values} on int32\n")
    for name, x, y, values in int_cases:
        f.write('{"%s", {%s}, {%s}, {%s}},\n' % (name, integers(x), integers(y), integers(values)))
    f.write("#endif\n")
print("wrote", out, len(cases) + len(int_cases), "cases")
