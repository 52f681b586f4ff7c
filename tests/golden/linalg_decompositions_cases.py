#!/usr/bin/env python3
"""Golden values for tests/test_linalg_decompositions.cpp, made by JAX
itself: lax.linalg.triangular_solve, cholesky and lu, and jnp.linalg's
cholesky, solve, inv, det, slogdet, matrix_power, eigh, qr, svd, svdvals,
pinv, matrix_rank, lstsq and the singular-value norms on small float32
matrices (integer results, ranks and pivots, as float32), each case
named by its Python spelling (the test holds the same spelling beside its
C++ form), with the gradient of sum(result * weights) (weights 1, 4, 9, ...
over the result, row-major: not a sum of a row and a column term, which
would make a function of an orthogonal matrix's squares constant) with
respect to x, or none where JAX has no
derivative. Eigenvectors and singular vectors have no unique sign, so their
cases square them elementwise.

Needs JAX (not needed by the tests):
    python3 -m venv /tmp/jaxenv && /tmp/jaxenv/bin/pip install jax
    /tmp/jaxenv/bin/python tests/golden/linalg_decompositions_cases.py
It rewrites tests/golden/linalg_decompositions_cases.inc beside this script.
"""

import os

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

assert not jax.config.jax_enable_x64

f32 = jnp.float32
# Nonsymmetric, with pivoting at the first step (|2| < |4|) and the second.
a = jnp.array([[2.0, -1.0, 0.5], [4.0, 1.5, -2.0], [-1.0, 3.0, 1.0]], f32)
a4 = jnp.array([[1.0, 2.0, -1.0, 0.5], [3.0, -1.0, 2.0, 1.0], [0.5, 1.0, 4.0, -2.0], [-2.0, 0.5, 1.0, 3.0]], f32)
ab = jnp.stack([a, a.T + jnp.eye(3, dtype=f32)])  # a (2, 3, 3) stack
spd = jnp.array([[4.0, 1.0, -0.5], [1.0, 3.0, 0.25], [-0.5, 0.25, 2.0]], f32)
spdb = jnp.stack([spd, spd + 0.5 * jnp.eye(3, dtype=f32)])
low = jnp.array([[2.0, 0.0, 0.0], [1.0, -1.5, 0.0], [0.5, 2.0, 3.0]], f32)
b = jnp.array([[1.0, -2.0], [0.5, 3.0], [-1.0, 1.0]], f32)
v = jnp.array([1.0, 2.0, -3.0], f32)
wide = jnp.array([[1.0, 2.0, 3.0, 4.0], [2.0, -1.0, 0.5, 1.0], [4.0, 0.0, 1.0, -2.0]], f32)
tall = wide.T
v4 = jnp.array([1.0, -2.0, 0.5, 3.0], f32)
b4 = jnp.array([[1.0, 0.5], [-2.0, 1.0], [0.5, -1.5], [3.0, 2.0]], f32)
# Rank 2: the third column is the sum of tall's first two.
defic = jnp.concatenate([tall[:, :2], tall[:, :1] + tall[:, 1:2]], axis=1)
L = lax.linalg
la = jnp.linalg
CASES = {
    "triangular_solve(low, b, left_side=True, lower=True)":
        lambda: (low, lambda x: L.triangular_solve(x, b, left_side=True, lower=True)),
    "triangular_solve(low, b.T, lower=True, transpose_a=True)":
        lambda: (low, lambda x: L.triangular_solve(x, b.T, lower=True, transpose_a=True)),
    "triangular_solve(low.T, b, left_side=True, transpose_a=True, unit_diagonal=True)":
        lambda: (low.T, lambda x: L.triangular_solve(x, b, left_side=True, transpose_a=True, unit_diagonal=True)),
    "triangular_solve(low.T, b.T, unit_diagonal=True)":
        lambda: (low.T, lambda x: L.triangular_solve(x, b.T, unit_diagonal=True)),
    "triangular_solve(low, x, left_side=True, lower=True) wrt b":
        lambda: (b, lambda x: L.triangular_solve(low, x, left_side=True, lower=True)),
    "triangular_solve(low, v, left_side=True, lower=True)":
        lambda: (low, lambda x: L.triangular_solve(x, v, left_side=True, lower=True)),
    "cholesky(spd)": lambda: (spd, lambda x: la.cholesky(x)),
    "cholesky(spdb)": lambda: (spdb, lambda x: la.cholesky(x)),
    "cholesky(spd, upper=True)": lambda: (spd, lambda x: la.cholesky(x, upper=True)),
    "lax.linalg.cholesky(spd, symmetrize_input=False)":
        lambda: (spd, lambda x: L.cholesky(x, symmetrize_input=False)),
    "lu(a)[0]": lambda: (a, lambda x: L.lu(x)[0]),
    "lu(a)[1]": lambda: (a, lambda x: L.lu(x)[1].astype(f32)),
    "lu(a)[2]": lambda: (a, lambda x: L.lu(x)[2].astype(f32)),
    "lu(ab)[0]": lambda: (ab, lambda x: L.lu(x)[0]),
    "lu(wide)[0]": lambda: (wide, lambda x: L.lu(x)[0]),
    "lu(wide)[1]": lambda: (wide, lambda x: L.lu(x)[1].astype(f32)),
    "lu(tall)[0]": lambda: (tall, lambda x: L.lu(x)[0]),
    "lu(tall)[2]": lambda: (tall, lambda x: L.lu(x)[2].astype(f32)),
    "solve(a, b)": lambda: (a, lambda x: la.solve(x, b)),
    "solve(a, x) wrt b": lambda: (b, lambda x: la.solve(a, x)),
    "solve(a, v)": lambda: (a, lambda x: la.solve(x, v)),
    "solve(ab, b)": lambda: (ab, lambda x: la.solve(x, b)),
    "solve(ab, v)": lambda: (ab, lambda x: la.solve(x, v)),
    "inv(a)": lambda: (a, lambda x: la.inv(x)),
    "inv(ab)": lambda: (ab, lambda x: la.inv(x)),
    "det(a)": lambda: (a, lambda x: la.det(x)),
    "det(a4)": lambda: (a4, lambda x: la.det(x)),
    "det(ab)": lambda: (ab, lambda x: la.det(x)),
    "det(a[:2, :2])": lambda: (a[:2, :2], lambda x: la.det(x)),
    "slogdet(a4)[0]": lambda: (a4, lambda x: la.slogdet(x)[0]),
    "slogdet(a4)[1]": lambda: (a4, lambda x: la.slogdet(x)[1]),
    "slogdet(ab)[1]": lambda: (ab, lambda x: la.slogdet(x)[1]),
    "slogdet(a[:2, :2])[1]": lambda: (a[:2, :2], lambda x: la.slogdet(x)[1]),
    "slogdet(-a[:1, :1])[0]": lambda: (-a[:1, :1], lambda x: la.slogdet(x)[0]),
    "matrix_power(a, 3)": lambda: (a, lambda x: la.matrix_power(x, 3)),
    "matrix_power(a, 5)": lambda: (a, lambda x: la.matrix_power(x, 5)),
    "matrix_power(a, -2)": lambda: (a, lambda x: la.matrix_power(x, -2)),
    "matrix_power(ab, 0)": lambda: (ab, lambda x: la.matrix_power(x, 0)),
    "matrix_power(a, -1)": lambda: (a, lambda x: la.matrix_power(x, -1)),
    "matrix_power(a, -3)": lambda: (a, lambda x: la.matrix_power(x, -3)),
    "matrix_power(ab, -3)": lambda: (ab, lambda x: la.matrix_power(x, -3)),
    "eigh(spd)[0]": lambda: (spd, lambda x: la.eigh(x)[0]),
    "eigh(spd)[1] ** 2": lambda: (spd, lambda x: la.eigh(x)[1] ** 2),
    "eigh(a)[0]": lambda: (a, lambda x: la.eigh(x)[0]),
    "eigh(a, UPLO='U')[0]": lambda: (a, lambda x: la.eigh(x, UPLO="U")[0]),
    "eigh(a, symmetrize_input=False)[1] ** 2": lambda: (a, lambda x: la.eigh(x, symmetrize_input=False)[1] ** 2),
    "eigh(spdb)[0]": lambda: (spdb, lambda x: la.eigh(x)[0]),
    "qr(tall)[0] ** 2": lambda: (tall, lambda x: la.qr(x)[0] ** 2),
    "qr(tall)[1] ** 2": lambda: (tall, lambda x: la.qr(x)[1] ** 2),
    "qr(ab)[1] ** 2": lambda: (ab, lambda x: la.qr(x)[1] ** 2),
    "qr(tall, mode='complete')[0] ** 2": lambda: (tall, lambda x: la.qr(x, mode="complete")[0] ** 2),
    "qr(wide)[1] ** 2": lambda: (wide, lambda x: la.qr(x)[1] ** 2),
    "svd(a)[1]": lambda: (a, lambda x: la.svd(x)[1]),
    "svd(a, full_matrices=False)[0] ** 2": lambda: (a, lambda x: la.svd(x, full_matrices=False)[0] ** 2),
    "svd(tall, full_matrices=False)[0] ** 2": lambda: (tall, lambda x: la.svd(x, full_matrices=False)[0] ** 2),
    "svd(tall, full_matrices=False)[2] ** 2": lambda: (tall, lambda x: la.svd(x, full_matrices=False)[2] ** 2),
    "svd(wide, full_matrices=False)[0] ** 2": lambda: (wide, lambda x: la.svd(x, full_matrices=False)[0] ** 2),
    "svd(wide, full_matrices=False)[2] ** 2": lambda: (wide, lambda x: la.svd(x, full_matrices=False)[2] ** 2),
    "svd(wide)[2] ** 2": lambda: (wide, lambda x: la.svd(x)[2] ** 2),
    "svdvals(wide)": lambda: (wide, lambda x: la.svdvals(x)),
    "svdvals(ab)": lambda: (ab, lambda x: la.svdvals(x)),
    "pinv(a)": lambda: (a, lambda x: la.pinv(x)),
    "pinv(wide)": lambda: (wide, lambda x: la.pinv(x)),
    "pinv(tall)": lambda: (tall, lambda x: la.pinv(x)),
    "matrix_rank(a)": lambda: (a, lambda x: la.matrix_rank(x).astype(f32)),
    "matrix_rank(defic)": lambda: (defic, lambda x: la.matrix_rank(x).astype(f32)),
    "matrix_rank(jnp.stack([tall, defic]))":
        lambda: (jnp.stack([tall, defic]), lambda x: la.matrix_rank(x).astype(f32)),
    "matrix_rank(v)": lambda: (v, lambda x: la.matrix_rank(x).astype(f32)),
    "matrix_rank(0 * v)": lambda: (0 * v, lambda x: la.matrix_rank(x).astype(f32)),
    # An absolute tolerance in JAX (numpy's rtol would be relative: rank 0).
    "matrix_rank(a, rtol=2.0)": lambda: (a, lambda x: la.matrix_rank(x, rtol=2.0).astype(f32)),
    "lstsq(tall, v4)[0]": lambda: (tall, lambda x: la.lstsq(x, v4)[0]),
    "lstsq(tall, v4)[1]": lambda: (tall, lambda x: la.lstsq(x, v4)[1]),
    "lstsq(tall, b4)[0]": lambda: (tall, lambda x: la.lstsq(x, b4)[0]),
    "lstsq(tall, x)[0] wrt b": lambda: (b4, lambda x: la.lstsq(tall, x)[0]),
    "lstsq(tall, b4)[1]": lambda: (tall, lambda x: la.lstsq(x, b4)[1]),
    "lstsq(tall, b4)[2]": lambda: (tall, lambda x: la.lstsq(x, b4)[2].astype(f32)),
    "lstsq(tall, b4)[3]": lambda: (tall, lambda x: la.lstsq(x, b4)[3]),
    "lstsq(tall, v4, rcond=0.5)[0]": lambda: (tall, lambda x: la.lstsq(x, v4, rcond=0.5)[0]),
    "lstsq(tall, v4, rcond=0.5)[2]": lambda: (tall, lambda x: la.lstsq(x, v4, rcond=0.5)[2].astype(f32)),
    "lstsq(wide, v)[0]": lambda: (wide, lambda x: la.lstsq(x, v)[0]),
    "lstsq(wide, x)[0] wrt b": lambda: (v, lambda x: la.lstsq(wide, x)[0]),
    "lstsq(wide, v)[2]": lambda: (wide, lambda x: la.lstsq(x, v)[2].astype(f32)),
    "lstsq(defic, v4)[0]": lambda: (defic, lambda x: la.lstsq(x, v4)[0]),
    "lstsq(defic, v4)[1]": lambda: (defic, lambda x: la.lstsq(x, v4)[1]),
    "lstsq(defic, v4)[2]": lambda: (defic, lambda x: la.lstsq(x, v4)[2].astype(f32)),
    "norm(a, 2)": lambda: (a, lambda x: la.norm(x, 2)),
    "norm(a, -2)": lambda: (a, lambda x: la.norm(x, -2)),
    "norm(wide, 'nuc')": lambda: (wide, lambda x: la.norm(x, "nuc")),
    "norm(ab, 2, axis=(0, 2), keepdims=True)": lambda: (ab, lambda x: la.norm(x, 2, axis=(0, 2), keepdims=True)),
}


def number(x):
    return repr(float(x))


def weighted_sum(fn):
    def loss(x):
        y = fn(x)
        return jnp.sum(y * (jnp.arange(1, y.size + 1, dtype=f32) ** 2).reshape(y.shape))
    return loss


out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "linalg_decompositions_cases.inc")
with open(out, "w") as f:
    f.write("// Generated by tests/golden/linalg_decompositions_cases.py with JAX %s; do not edit.\n" % jax.__version__)
    f.write("// {case, result shape, result, gradient of sum(result * (1, 4, 9, ...)), or {} where JAX has none}\n")
    for name, make in CASES.items():
        x, fn = make()
        y = np.asarray(fn(x))
        try:
            g = np.asarray(jax.grad(weighted_sum(fn))(x))
        except NotImplementedError:
            g = np.zeros(0)
        f.write('{"%s", {%s}, {%s}, {%s}},\n' % (name, ", ".join(map(str, y.shape)),
                                               ", ".join(number(e) for e in y.reshape(-1)),
                                               ", ".join(number(e) for e in g.reshape(-1))))
print("wrote", out, len(CASES), "cases")
