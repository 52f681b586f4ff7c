#!/usr/bin/env python3
"""Golden values for tests/test_calculus.cpp, made by JAX itself: jnp's
finite differences, integrals, interpolation, 1-D convolutions, vector
products and polynomials (numpy/calculus.hpp, signal.hpp,
tensor_contractions.hpp, polynomial.hpp), each case named by its Python
spelling (the test holds the same spelling beside its C++ form), with the
gradient of the sum of the result with respect to the first argument.

Needs JAX (not needed by the tests):
    python3 -m venv /tmp/jaxenv && /tmp/jaxenv/bin/pip install jax
    /tmp/jaxenv/bin/python tests/golden/calculus_cases.py
It rewrites tests/golden/calculus_cases.inc beside this script.
"""

import os

import jax
import jax.numpy as jnp
import numpy as np

assert not jax.config.jax_enable_x64

v = jnp.array([1.0, 3.0, 6.5, 10.0, 12.0], jnp.float32)
u = jnp.array([0.5, -1.0, 2.0], jnp.float32)
m = jnp.array([[1.5, -2.0, 0.5, 3.0], [4.0, 2.5, -1.0, 0.25], [-3.0, 1.0, 2.0, 5.5]], jnp.float32)
xs = jnp.array([0.0, 0.5, 1.5, 3.0, 3.5], jnp.float32)  # increasing sample points
q = jnp.array([-1.0, 0.25, 2.5, 3.0, 4.75, 6.0], jnp.float32)  # points to interpolate at
w = jnp.array([0.1, 3.5, -2.9, 0.4, 6.0, 0.2], jnp.float32)  # phases with jumps
b3 = jnp.array([[1.0, 2.0, -0.5], [0.5, -1.5, 2.0]], jnp.float32)
c3 = jnp.array([[-1.0, 0.5, 3.0], [2.0, 1.0, -0.75]], jnp.float32)
p = jnp.array([2.0, -3.0, 0.5, 1.0], jnp.float32)
CASES = {
    "diff(v)": lambda: (v, lambda a: jnp.diff(a)),
    "diff(v, 2)": lambda: (v, lambda a: jnp.diff(a, 2)),
    "diff(m, 1, 0)": lambda: (m, lambda a: jnp.diff(a, 1, 0)),
    "diff(m, 2, -1, prepend=1.0, append=m[:, :1])": lambda: (m, lambda a: jnp.diff(a, 2, -1, prepend=1.0, append=m[:, :1])),
    "ediff1d(m, to_end=u, to_begin=2.0)": lambda: (m, lambda a: jnp.ediff1d(a, to_end=u, to_begin=2.0)),
    "gradient(v)": lambda: (v, lambda a: jnp.gradient(a)),
    "gradient(v, 0.5)": lambda: (v, lambda a: jnp.gradient(a, 0.5)),
    "gradient(v, xs)": lambda: (v, lambda a: jnp.gradient(a, xs)),
    "stack(gradient(m))": lambda: (m, lambda a: jnp.stack(jnp.gradient(a))),
    "gradient(m, 2.0, axis=0)": lambda: (m, lambda a: jnp.gradient(a, 2.0, axis=0)),
    "stack(gradient(m, 2.0, xs[:4], axis=(0, 1)))": lambda: (m, lambda a: jnp.stack(jnp.gradient(a, 2.0, xs[:4], axis=(0, 1)))),
    "trapezoid(v)": lambda: (v, lambda a: jnp.trapezoid(a)),
    "trapezoid(v, xs)": lambda: (v, lambda a: jnp.trapezoid(a, xs)),
    "trapezoid(m, dx=0.5, axis=0)": lambda: (m, lambda a: jnp.trapezoid(a, dx=0.5, axis=0)),
    "trapezoid(m, m * m, axis=1)": lambda: (m, lambda a: jnp.trapezoid(a, m * m, axis=1)),
    "trapezoid(m, dx=xs[:3])": lambda: (m, lambda a: jnp.trapezoid(a, dx=xs[:3])),
    "interp(q, xs, v)": lambda: (q, lambda a: jnp.interp(a, xs, v)),
    "interp(q, xs, v, -5.0, 7.0) (wrt fp)": lambda: (v, lambda a: jnp.interp(q, xs, a, -5.0, 7.0)),
    "interp(q, xs, v, 'extrapolate', 'extrapolate')": lambda: (q, lambda a: jnp.interp(a, xs, v, 'extrapolate', 'extrapolate')),
    "interp(q, xs, v, period=2.5)": lambda: (q, lambda a: jnp.interp(a, xs, v, period=2.5)),
    "unwrap(w)": lambda: (w, lambda a: jnp.unwrap(a)),
    "unwrap(w, 2.0, period=4.0)": lambda: (w, lambda a: jnp.unwrap(a, 2.0, period=4.0)),
    "unwrap(m * 2, axis=0)": lambda: (m, lambda a: jnp.unwrap(a * 2, axis=0)),
    "convolve(v, u)": lambda: (v, lambda a: jnp.convolve(a, u)),
    "convolve(u, v, 'same')": lambda: (u, lambda a: jnp.convolve(a, v, 'same')),
    "convolve(v, u[:2], 'same')": lambda: (v, lambda a: jnp.convolve(a, u[:2], 'same')),
    "convolve(v, u, 'valid')": lambda: (v, lambda a: jnp.convolve(a, u, 'valid')),
    "correlate(v, u)": lambda: (v, lambda a: jnp.correlate(a, u)),
    "correlate(u, v, 'full')": lambda: (u, lambda a: jnp.correlate(a, v, 'full')),
    "correlate(v, u[:2], 'same')": lambda: (v, lambda a: jnp.correlate(a, u[:2], 'same')),
    "cross(b3, c3)": lambda: (b3, lambda a: jnp.cross(a, c3)),
    "cross(b3[:, :2], c3)": lambda: (b3, lambda a: jnp.cross(a[:, :2], c3)),
    "cross(b3[:, :2], c3[:, 1:])": lambda: (b3, lambda a: jnp.cross(a[:, :2], c3[:, 1:])),
    "cross(b3.T, c3, axisa=0, axisc=0)": lambda: (b3, lambda a: jnp.cross(a.T, c3, axisa=0, axisc=0)),
    "kron(m, u)": lambda: (m, lambda a: jnp.kron(a, u)),
    "kron(b3, m)": lambda: (b3, lambda a: jnp.kron(a, m)),
    "vecdot(b3, c3)": lambda: (b3, lambda a: jnp.vecdot(a, c3)),
    "vecdot(b3[:, :1], c3, axis=0)": lambda: (b3, lambda a: jnp.vecdot(a[:, :1], c3, axis=0)),
    "matvec(m, v[:4])": lambda: (m, lambda a: jnp.matvec(a, v[:4])),
    "matvec(m, ones((2, 1, 4)) * v[:4])": lambda: (m, lambda a: jnp.matvec(a, jnp.ones((2, 1, 4), jnp.float32) * v[:4])),
    "vecmat(u, m)": lambda: (u, lambda a: jnp.vecmat(a, m)),
    "vander(u)": lambda: (u, lambda a: jnp.vander(a)),
    "vander(v, 3, True)": lambda: (v, lambda a: jnp.vander(a, 3, True)),
    "polyval(p, v)": lambda: (p, lambda a: jnp.polyval(a, v)),
    "polyval(p, m) (wrt x)": lambda: (m, lambda a: jnp.polyval(p, a)),
    "polyadd(p, u)": lambda: (p, lambda a: jnp.polyadd(a, u)),
    "polysub(u, p)": lambda: (u, lambda a: jnp.polysub(a, p)),
    "polymul(p, u)": lambda: (p, lambda a: jnp.polymul(a, u)),
    "polyder(p)": lambda: (p, lambda a: jnp.polyder(a)),
    "polyder(v, 3)": lambda: (v, lambda a: jnp.polyder(a, 3)),
    "polyint(p)": lambda: (p, lambda a: jnp.polyint(a)),
    "polyint(p, 2, 1.5)": lambda: (p, lambda a: jnp.polyint(a, 2, 1.5)),
    "polyint(p, 2, u[:2])": lambda: (p, lambda a: jnp.polyint(a, 2, u[:2])),
    "concatenate(polydiv(v, u))": lambda: (v, lambda a: jnp.concatenate(jnp.polydiv(a, u))),
    "concatenate(polydiv(v, p)) (wrt v)": lambda: (p, lambda a: jnp.concatenate(jnp.polydiv(v, a))),
    "poly(u)": lambda: (u, lambda a: jnp.poly(a)),
    "polyfit(xs, v, 2)": lambda: (v, lambda a: jnp.polyfit(xs, a, 2)),
    "polyfit(xs, v, 2, w=xs + 1)": lambda: (v, lambda a: jnp.polyfit(xs, a, 2, w=xs + 1)),
    "polyfit(xs, stack([v, v * v], 1), 1)": lambda: (v, lambda a: jnp.polyfit(xs, jnp.stack([a, a * a], 1), 1)),
}


def number(x):
    return repr(float(x))


out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "calculus_cases.inc")
with open(out, "w") as f:
    f.write("// Generated by tests/golden/calculus_cases.py with JAX %s; do not edit.\n" % jax.__version__)
    f.write("// {case, result shape, result, gradient of its sum}\n")
    for name, make in CASES.items():
        x, fn = make()
        y = np.asarray(fn(x))
        g = np.asarray(jax.grad(lambda a: jnp.sum(fn(a)))(x))
        f.write('{"%s", {%s}, {%s}, {%s}},\n' % (name, ", ".join(map(str, y.shape)),
                                               ", ".join(number(e) for e in y.reshape(-1)),
                                               ", ".join(number(e) for e in g.reshape(-1))))
print("wrote", out, len(CASES), "cases")
