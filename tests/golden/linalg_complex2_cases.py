#!/usr/bin/env python3
"""Golden values for tests/test_linalg_complex2.cpp, made by JAX itself:
jnp.linalg's decompositions (cholesky, eigh, eigvalsh, qr, svd, svdvals)
and what builds on them (pinv, lstsq, matrix_rank, norm, cond) on complex64
matrices. Each case is named by its Python spelling (the test holds the same
spelling beside its C++ form) and the input it takes: h (Hermitian positive
definite 3 x 3), a (3 x 3), g (tall 4 x 3) or w (wide 3 x 4). Eigenvectors
and singular vectors are defined up to a phase each, so the cases use only
phase-invariant functions of them: their moduli and rank-one projectors.
With each value comes the gradient with respect to the input of the real
loss sum(0.7 real(out) + 0.3 imag(out)) (JAX's convention: the conjugate of
the gradient as a vector of R^2), where a case has a derivative.

Needs JAX (not needed by the tests):
    python3 -m venv /tmp/jaxenv && /tmp/jaxenv/bin/pip install jax
    /tmp/jaxenv/bin/python tests/golden/linalg_complex2_cases.py
It rewrites tests/golden/linalg_complex2_cases.inc beside this script.
"""

import os

import jax
import jax.numpy as jnp
import numpy as np

assert not jax.config.jax_enable_x64

c64 = jnp.complex64
a = jnp.array([[2.0 + 1.0j, -1.0 + 0.5j, 0.3 - 0.2j],
               [0.5 - 1.0j, 3.0 + 0.25j, 1.0 + 1.0j],
               [-0.2 + 0.1j, 0.75 - 0.5j, 1.5 - 2.0j]], c64)
h = a @ jnp.conj(a.T) + jnp.eye(3, dtype=c64)
g = jnp.array([[1.0 + 0.5j, -0.3 + 0.0j, 0.2 - 0.4j],
               [0.0 - 1.0j, 2.0 + 0.2j, 0.5 + 0.1j],
               [0.4 + 0.4j, -1.0 + 0.1j, 1.5 - 0.3j],
               [0.7 - 0.2j, 0.5 + 0.5j, -0.6 + 0.8j]], c64)
w = g.T
b = jnp.array([1.0 + 0.5j, -0.3 + 0.2j, 0.0 - 1.0j, 2.0 + 0.2j], c64)
INPUTS = {"h": h, "a": a, "g": g, "w": w}


def projector(v, j):
    """v[:, j] v[:, j]^H: phase-invariant."""
    return v[:, j:j + 1] * jnp.conj(v[:, j:j + 1]).T


def pair(u, vh, j):
    """u[:, j] vh[j, :]: the j-th singular pair's outer product, phase-invariant."""
    return u[:, j:j + 1] * vh[j:j + 1, :]


# (spelling, input, function, differentiable)
CASES = [
    ("cholesky(h)", "h", lambda m: jnp.linalg.cholesky(m), True),
    ("cholesky(h, upper=True)", "h", lambda m: jnp.linalg.cholesky(m, upper=True), True),
    ("cholesky(a @ a^H)", "a", lambda m: jnp.linalg.cholesky(m @ jnp.conj(m.T)), True),
    ("eigvalsh(h)", "h", lambda m: jnp.linalg.eigvalsh(m), True),
    ("eigh(h, UPLO='U', symmetrize_input=False)[0]", "h",
     lambda m: jnp.linalg.eigh(m, UPLO="U", symmetrize_input=False)[0], True),
    ("abs(eigh(h)[1])", "h", lambda m: jnp.abs(jnp.linalg.eigh(m)[1]), True),
    ("projector(eigh(h)[1], 0)", "h", lambda m: projector(jnp.linalg.eigh(m)[1], 0), True),
    ("projector(eigh(h)[1], 2)", "h", lambda m: projector(jnp.linalg.eigh(m)[1], 2), True),
    ("qr(g)[0]", "g", lambda m: jnp.linalg.qr(m)[0], True),
    ("qr(g)[1]", "g", lambda m: jnp.linalg.qr(m)[1], True),
    ("qr(g, 'complete')[0]", "g", lambda m: jnp.linalg.qr(m, mode="complete")[0], True),
    ("qr(w)[0]", "w", lambda m: jnp.linalg.qr(m)[0], True),
    ("qr(w)[1]", "w", lambda m: jnp.linalg.qr(m)[1], True),
    ("svdvals(g)", "g", lambda m: jnp.linalg.svdvals(m), True),
    ("svdvals(w)", "w", lambda m: jnp.linalg.svdvals(m), True),
    ("svd(a)[1]", "a", lambda m: jnp.linalg.svd(m)[1], True),
    ("abs(svd(a)[0])", "a", lambda m: jnp.abs(jnp.linalg.svd(m)[0]), True),
    ("pair(svd(a), 0)", "a", lambda m: pair(*jnp.linalg.svd(m)[::2], 0), True),
    ("pair(svd(g, full_matrices=False), 1)", "g",
     lambda m: pair(*jnp.linalg.svd(m, full_matrices=False)[::2], 1), True),
    ("pair(svd(w, full_matrices=False), 2)", "w",
     lambda m: pair(*jnp.linalg.svd(m, full_matrices=False)[::2], 2), True),
    ("pinv(a)", "a", lambda m: jnp.linalg.pinv(m), True),
    ("pinv(g)", "g", lambda m: jnp.linalg.pinv(m), True),
    ("pinv(w)", "w", lambda m: jnp.linalg.pinv(m), True),
    ("lstsq(g, b)[0]", "g", lambda m: jnp.linalg.lstsq(m, b)[0], True),
    ("lstsq(g, b)[1]", "g", lambda m: jnp.linalg.lstsq(m, b)[1], True),
    ("lstsq(g, b)[3]", "g", lambda m: jnp.linalg.lstsq(m, b)[3], True),
    ("matrix_rank(g)", "g", lambda m: jnp.linalg.matrix_rank(m), False),
    ("norm(a)", "a", lambda m: jnp.linalg.norm(m), True),
    ("norm(a, 2)", "a", lambda m: jnp.linalg.norm(m, 2), True),
    ("norm(a, -2)", "a", lambda m: jnp.linalg.norm(m, -2), True),
    ("norm(a, 'nuc')", "a", lambda m: jnp.linalg.norm(m, "nuc"), True),
    ("norm(a, 1)", "a", lambda m: jnp.linalg.norm(m, 1), True),
    ("norm(a, inf)", "a", lambda m: jnp.linalg.norm(m, jnp.inf), True),
    ("norm(g, axis=0)", "g", lambda m: jnp.linalg.norm(m, axis=0), True),
    ("norm(g, 3, axis=1)", "g", lambda m: jnp.linalg.norm(m, 3, axis=1), True),
    ("norm(g, -inf, axis=1)", "g", lambda m: jnp.linalg.norm(m, -jnp.inf, axis=1), True),
    ("norm(g, 0, axis=1)", "g", lambda m: jnp.linalg.norm(m, 0, axis=1), False),
    ("vector_norm(g)", "g", lambda m: jnp.linalg.vector_norm(m), True),
    ("cond(a)", "a", lambda m: jnp.linalg.cond(m), True),
    ("cond(a, 1)", "a", lambda m: jnp.linalg.cond(m, 1), True),
    ("cond(a, 'fro')", "a", lambda m: jnp.linalg.cond(m, "fro"), True),
]


def flat(x):
    x = np.asarray(x)
    if np.iscomplexobj(x):
        return [float(v) for c in x.ravel() for v in (c.real, c.imag)]
    return [float(v) for v in x.ravel()]


def nums(vs):
    return "{" + ", ".join(repr(v) for v in vs) + "}"


lines = []
for spelling, name, f, differentiable in CASES:
    x = INPUTS[name]
    out = f(x)
    grad = []
    if differentiable:
        loss = lambda m: jnp.sum(0.7 * jnp.real(f(m)) + 0.3 * jnp.imag(f(m)))
        grad = flat(jax.grad(loss)(x))
    lines.append(f'    {{"{spelling}", "{name}", {{{", ".join(str(d) for d in out.shape)}}}, {nums(flat(out))},\n'
                 f'     {nums(grad)}}},')

path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "linalg_complex2_cases.inc")
with open(path, "w") as fh:
    fh.write(f"// Generated by tests/golden/linalg_complex2_cases.py with JAX {jax.__version__}; do not edit.\n")
    fh.write("// Each case: spelling, input, result shape, values and the gradient of sum(0.7 real + 0.3 imag)\n")
    fh.write("// with respect to the input (complex as re, im pairs; empty where not differentiable).\n")
    fh.write("inline std::vector<LinalgCase2> const linalg_complex2_cases = {\n")
    fh.write("\n".join(lines) + "\n};\n")
    for name, x in INPUTS.items():
        fh.write(f"inline std::vector<double> const input_{name} = {nums(flat(x))};\n")
    fh.write(f"inline std::vector<double> const input_b = {nums(flat(b))};\n")
