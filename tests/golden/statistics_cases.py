#!/usr/bin/env python3
"""Golden values for tests/test_statistics.cpp, made by JAX itself: the
predicates (isclose, allclose, array_equal, array_equiv, isin), counting
(count_nonzero, nonzero, flatnonzero, argwhere, bincount), statistics
(average, ptp, cov, corrcoef, percentile), the NaN-ignoring reductions and
quantiles, and cumulative_sum / cumulative_prod.

Each case is named by its Python spelling (the test holds the same
spelling beside its C++ form) and records every result array: its dtype,
shape and values. "grad:" cases are the gradient of sum(f(x) * w) with
respect to the first argument, w = 1 + 0.5 * arange(size) in f(x)'s shape.

Needs JAX (not needed by the tests):
    python3 -m venv /tmp/jaxenv && /tmp/jaxenv/bin/pip install jax
    /tmp/jaxenv/bin/python tests/golden/statistics_cases.py
It rewrites tests/golden/statistics_cases.inc beside this script.
"""

import math
import os

import jax
import jax.numpy as jnp
import numpy as np

assert not jax.config.jax_enable_x64

nan, inf = np.nan, np.inf
# The test builds the same inputs.
a = jnp.array([[0.5, -1.0, 2.0, 2.5], [3.0, 0.25, -4.0, 1.5], [1.0, 1.75, 9.0, -3.0]], jnp.float32)
n = jnp.array([[0.5, nan, 2.0, 2.5], [3.0, 0.25, nan, 1.5], [nan, nan, nan, nan]], jnp.float32)
v = jnp.array([3.0, 1.0, 2.0, nan, 1.0, -0.5, 0.0, -2.5], jnp.float32)
p = jnp.array([1.0, 1.00001, nan, inf, -inf, 0.0, 2.0], jnp.float32)
q = jnp.array([1.0, 1.0, nan, inf, inf, 1e-9, 2.1], jnp.float32)
i = jnp.array([[3, 0, 4, 1], [0, 2, 0, 5]], jnp.int32)
c = jnp.array([0, 3, 1, 3, 3, 6], jnp.int32)
w = jnp.array([0.5, 1.0, 2.0, 0.25, 1.5, 3.0], jnp.float32)
wa = jnp.array([1.0, 2.0, 0.5, 3.0], jnp.float32)
f = jnp.array([1, 2, 1, 3], jnp.int32)
u = jnp.array([[3.0, 1.0, nan, 2.0], [1.0, nan, 3.0, 3.0]], jnp.float32)
s1 = jnp.array([5, 1, 3, 1, 7, 3], jnp.int32)
s2 = jnp.array([3, 8, 5, 9], jnp.int32)

CASES = {
    # predicates
    "isclose(p, q)": lambda: jnp.isclose(p, q),
    "isclose(p, q, equal_nan=True)": lambda: jnp.isclose(p, q, equal_nan=True),
    "isclose(p, q, 0.0, 0.2)": lambda: jnp.isclose(p, q, 0.0, 0.2),
    "isclose(i, i + 1, 0.0, 1.0)": lambda: jnp.isclose(i, i + 1, 0.0, 1.0),
    "allclose(p, q)": lambda: jnp.allclose(p, q),
    "allclose(a, a + 1e-6)": lambda: jnp.allclose(a, a + 1e-6),
    "allclose(n, n, equal_nan=True)": lambda: jnp.allclose(n, n, equal_nan=True),
    "array_equal(a, a)": lambda: jnp.array_equal(a, a),
    "array_equal(a, a[:2])": lambda: jnp.array_equal(a, a[:2]),
    "array_equal(n, n)": lambda: jnp.array_equal(n, n),
    "array_equal(n, n, equal_nan=True)": lambda: jnp.array_equal(n, n, equal_nan=True),
    "array_equiv(a[0], a)": lambda: jnp.array_equiv(a[0], a),
    "array_equiv(a[1], jnp.tile(a[1], (2, 1)))": lambda: jnp.array_equiv(a[1], jnp.tile(a[1], (2, 1))),
    "isin(i, c)": lambda: jnp.isin(i, c),
    "isin(i, c, invert=True)": lambda: jnp.isin(i, c, invert=True),
    "isin(a, v)": lambda: jnp.isin(a, v),
    # counting
    "count_nonzero(i)": lambda: jnp.count_nonzero(i),
    "count_nonzero(i, 1)": lambda: jnp.count_nonzero(i, 1),
    "count_nonzero(a > 1, 0, keepdims=True)": lambda: jnp.count_nonzero(a > 1, 0, keepdims=True),
    "nonzero(i)": lambda: jnp.nonzero(i),
    "nonzero(i, size=7, fill_value=-1)": lambda: jnp.nonzero(i, size=7, fill_value=-1),
    "nonzero(i, size=3)": lambda: jnp.nonzero(i, size=3),
    "flatnonzero(i)": lambda: jnp.flatnonzero(i),
    "flatnonzero(a > 1, size=8, fill_value=9)": lambda: jnp.flatnonzero(a > 1, size=8, fill_value=9),
    "argwhere(i)": lambda: jnp.argwhere(i),
    "argwhere(i, size=6, fill_value=-2)": lambda: jnp.argwhere(i, size=6, fill_value=-2),
    "argwhere(v)": lambda: jnp.argwhere(v),
    "bincount(c)": lambda: jnp.bincount(c),
    "bincount(c, w, 9)": lambda: jnp.bincount(c, w, 9),
    "bincount(c, length=4)": lambda: jnp.bincount(c, length=4),
    # statistics
    "average(a)": lambda: jnp.average(a),
    "average(a, 1)": lambda: jnp.average(a, 1),
    "average(a, 1, wa)": lambda: jnp.average(a, 1, wa),
    "average(a, 1, wa, returned=True)": lambda: jnp.average(a, 1, wa, returned=True),
    "average(a, None, a * a, keepdims=True)": lambda: jnp.average(a, None, a * a, keepdims=True),
    "average(i, 0, returned=True)": lambda: jnp.average(i, 0, returned=True),
    "ptp(a)": lambda: jnp.ptp(a),
    "ptp(a, 1)": lambda: jnp.ptp(a, 1),
    "ptp(i, 0, keepdims=True)": lambda: jnp.ptp(i, 0, keepdims=True),
    "cov(a)": lambda: jnp.cov(a),
    "cov(a, rowvar=False)": lambda: jnp.cov(a, rowvar=False),
    "cov(a[0], a[1])": lambda: jnp.cov(a[0], a[1]),
    "cov(a[0])": lambda: jnp.cov(a[0]),
    "cov(a, bias=True)": lambda: jnp.cov(a, bias=True),
    "cov(a, ddof=2)": lambda: jnp.cov(a, ddof=2),
    "cov(a, fweights=f)": lambda: jnp.cov(a, fweights=f),
    "cov(a, aweights=wa)": lambda: jnp.cov(a, aweights=wa),
    "cov(a, fweights=f, aweights=wa)": lambda: jnp.cov(a, fweights=f, aweights=wa),
    "cov(a, a[:, :2] * 2, False)": lambda: jnp.cov(a, a[:, :2] * 2, False),
    "corrcoef(a)": lambda: jnp.corrcoef(a),
    "corrcoef(a[0], a[2])": lambda: jnp.corrcoef(a[0], a[2]),
    "corrcoef(a[0])": lambda: jnp.corrcoef(a[0]),
    "corrcoef(i, rowvar=False)": lambda: jnp.corrcoef(i, rowvar=False),
    "percentile(a, 30)": lambda: jnp.percentile(a, 30),
    "percentile(a, jnp.array([10.0, 50.0, 90.0]), 1)": lambda: jnp.percentile(a, jnp.array([10.0, 50.0, 90.0]), 1),
    "percentile(i, 75, 0, 'lower', True)": lambda: jnp.percentile(i, 75, 0, method="lower", keepdims=True),
    # NaN-ignoring
    "nansum(n)": lambda: jnp.nansum(n),
    "nansum(n, 1)": lambda: jnp.nansum(n, 1),
    "nansum(i, 0)": lambda: jnp.nansum(i, 0),
    "nanprod(n, 0)": lambda: jnp.nanprod(n, 0),
    "nanmax(n, 1)": lambda: jnp.nanmax(n, 1),
    "nanmax(n, 1, initial=0.0)": lambda: jnp.nanmax(n, 1, initial=0.0),
    "nanmin(n, 0, keepdims=True)": lambda: jnp.nanmin(n, 0, keepdims=True),
    "nanmin(v)": lambda: jnp.nanmin(v),
    "nanmean(n, 1)": lambda: jnp.nanmean(n, 1),
    "nanmean(v)": lambda: jnp.nanmean(v),
    "nanmean(i, 1)": lambda: jnp.nanmean(i, 1),
    "nanvar(n, 1)": lambda: jnp.nanvar(n, 1),
    "nanvar(n, 0, ddof=1)": lambda: jnp.nanvar(n, 0, ddof=1),
    "nanstd(v, keepdims=True)": lambda: jnp.nanstd(v, keepdims=True),
    "nanargmax(n, 1)": lambda: jnp.nanargmax(n, 1),
    "nanargmin(n, 0, keepdims=True)": lambda: jnp.nanargmin(n, 0, keepdims=True),
    "nanargmax(v)": lambda: jnp.nanargmax(v),
    "nanargmin(i)": lambda: jnp.nanargmin(i),
    "nancumsum(n, 1)": lambda: jnp.nancumsum(n, 1),
    "nancumsum(v)": lambda: jnp.nancumsum(v),
    "nancumprod(n, 0)": lambda: jnp.nancumprod(n, 0),
    "nanquantile(n, 0.3, 1)": lambda: jnp.nanquantile(n, 0.3, 1),
    "nanquantile(v, jnp.array([0.0, 0.5, 1.0]))": lambda: jnp.nanquantile(v, jnp.array([0.0, 0.5, 1.0])),
    "nanquantile(n, jnp.array([0.25, 0.8]), 0, 'nearest', True)":
        lambda: jnp.nanquantile(n, jnp.array([0.25, 0.8]), 0, method="nearest", keepdims=True),
    "nanquantile(n, 0.6, 1, 'lower')": lambda: jnp.nanquantile(n, 0.6, 1, method="lower"),
    "nanquantile(n, 0.6, 1, 'higher')": lambda: jnp.nanquantile(n, 0.6, 1, method="higher"),
    "nanquantile(n, 0.6, None, 'midpoint', True)": lambda: jnp.nanquantile(n, 0.6, None, method="midpoint", keepdims=True),
    "nanpercentile(n, 40, 1)": lambda: jnp.nanpercentile(n, 40, 1),
    "nanmedian(n, 1)": lambda: jnp.nanmedian(n, 1),
    "nanmedian(v)": lambda: jnp.nanmedian(v),
    "nanmedian(n, 0, True)": lambda: jnp.nanmedian(n, 0, keepdims=True),
    # binning
    "digitize(v, jnp.array([-1.0, 0.0, 1.0, 2.5]))": lambda: jnp.digitize(v, jnp.array([-1.0, 0.0, 1.0, 2.5])),
    "digitize(v, jnp.array([-1.0, 0.0, 1.0, 2.5]), True)": lambda: jnp.digitize(v, jnp.array([-1.0, 0.0, 1.0, 2.5]), True),
    "digitize(i, jnp.array([4, 2, 0]))": lambda: jnp.digitize(i, jnp.array([4, 2, 0])),
    "histogram_bin_edges(a, 4)": lambda: jnp.histogram_bin_edges(a, 4),
    "histogram_bin_edges(i, 3, (1.0, 1.0))": lambda: jnp.histogram_bin_edges(i, 3, (1.0, 1.0)),
    "histogram(a, 7)": lambda: jnp.histogram(a, 7),
    "histogram(a, 3, (-2.0, 2.0))": lambda: jnp.histogram(a, 3, (-2.0, 2.0)),
    "histogram(i, jnp.array([0, 1, 3, 5]), weights=i * 0.5)": lambda: jnp.histogram(i, jnp.array([0, 1, 3, 5]), weights=i * 0.5),
    "histogram(a, 4, density=True)": lambda: jnp.histogram(a, 4, density=True),
    # set operations
    "unique(u)": lambda: jnp.unique(u),
    "unique(s1)": lambda: jnp.unique(s1),
    "unique(s1, size=6)": lambda: jnp.unique(s1, size=6),
    "unique(s1, size=2)": lambda: jnp.unique(s1, size=2),
    "unique(u, size=7, fill_value=-1.0)": lambda: jnp.unique(u, size=7, fill_value=-1.0),
    "unique_values(u)": lambda: jnp.unique_values(u),
    "unique_counts(s1)": lambda: jnp.unique_counts(s1),
    "unique_counts(s1, size=6, fill_value=0)": lambda: jnp.unique_counts(s1, size=6, fill_value=0),
    "unique_inverse(u)": lambda: jnp.unique_inverse(u),
    "unique_all(s1)": lambda: jnp.unique_all(s1),
    "unique_all(s1, size=3)": lambda: jnp.unique_all(s1, size=3),
    "union1d(s1, s2)": lambda: jnp.union1d(s1, s2),
    "union1d(s1, s2, size=9, fill_value=-1)": lambda: jnp.union1d(s1, s2, size=9, fill_value=-1),
    "union1d(s1, u)": lambda: jnp.union1d(s1, u),
    "setdiff1d(s1, s2)": lambda: jnp.setdiff1d(s1, s2),
    "setdiff1d(s1, s2, size=4)": lambda: jnp.setdiff1d(s1, s2, size=4),
    "setdiff1d(s1, s2, size=4, fill_value=-5)": lambda: jnp.setdiff1d(s1, s2, size=4, fill_value=-5),
    "setdiff1d(s2, s1, True)": lambda: jnp.setdiff1d(s2, s1, True),
    "setdiff1d(u, s1)": lambda: jnp.setdiff1d(u, s1),
    "intersect1d(s1, s2)": lambda: jnp.intersect1d(s1, s2),
    "intersect1d(s1, s2, size=4)": lambda: jnp.intersect1d(s1, s2, size=4),
    "intersect1d(s1, s2, size=3, fill_value=-1)": lambda: jnp.intersect1d(s1, s2, size=3, fill_value=-1),
    "intersect1d(s2, s2 + 100, size=2)": lambda: jnp.intersect1d(s2, s2 + 100, size=2),
    "intersect1d(s2, jnp.array([9.0, 2.0, 3.0]), True)": lambda: jnp.intersect1d(s2, jnp.array([9.0, 2.0, 3.0]), True),
    "setxor1d(s1, s2)": lambda: jnp.setxor1d(s1, s2),
    "setxor1d(s1, s2, size=6)": lambda: jnp.setxor1d(s1, s2, size=6),
    "setxor1d(s2, u)": lambda: jnp.setxor1d(s2, u),
    "setxor1d(s1, s2, size=3, fill_value=0)": lambda: jnp.setxor1d(s1, s2, size=3, fill_value=0),
    # cumulative
    "cumulative_sum(a, axis=1)": lambda: jnp.cumulative_sum(a, axis=1),
    "cumulative_sum(v, include_initial=True)": lambda: jnp.cumulative_sum(v, include_initial=True),
    "cumulative_sum(i.astype(jnp.int8), axis=0, include_initial=True)":
        lambda: jnp.cumulative_sum(i.astype(jnp.int8), axis=0, include_initial=True),
    "cumulative_prod(a, axis=0, include_initial=True)": lambda: jnp.cumulative_prod(a, axis=0, include_initial=True),
    "cumulative_prod(i > 0, axis=1)": lambda: jnp.cumulative_prod(i > 0, axis=1),
}

# Gradients with respect to the first argument, of sum(f(x) * w).
GRADS = {
    "average(a, 1, wa)": (a, lambda x: jnp.average(x, 1, wa)),
    "average(a, None, a * a, keepdims=True)": (a, lambda x: jnp.average(x, None, x * x, keepdims=True)),
    "ptp(a, 1)": (a, lambda x: jnp.ptp(x, 1)),
    "cov(a)": (a, lambda x: jnp.cov(x)),
    "cov(a, fweights=f, aweights=wa)": (a, lambda x: jnp.cov(x, fweights=f, aweights=wa)),
    "corrcoef(a)": (a, lambda x: jnp.corrcoef(x)),
    "percentile(a, jnp.array([10.0, 50.0, 90.0]), 1)": (a, lambda x: jnp.percentile(x, jnp.array([10.0, 50.0, 90.0]), 1)),
    "nansum(n, 1)": (n, lambda x: jnp.nansum(x, 1)),
    "nanprod(n, 0)": (n, lambda x: jnp.nanprod(x, 0)),
    "nanmax(n, 1)": (n, lambda x: jnp.nanmax(x, 1)),
    "nanmean(n, 1)": (n, lambda x: jnp.nanmean(x, 1)),
    "nanvar(n, 0, ddof=1)": (n, lambda x: jnp.nanvar(x, 0, ddof=1)),
    "nanstd(v, keepdims=True)": (v, lambda x: jnp.nanstd(x, keepdims=True)),
    "nancumsum(n, 1)": (n, lambda x: jnp.nancumsum(x, 1)),
    "nanquantile(n, 0.3, 1)": (n, lambda x: jnp.nanquantile(x, 0.3, 1)),
    "nanmedian(v)": (v, lambda x: jnp.nanmedian(x)),
    "histogram(a, 3, (-2.0, 2.0), weights=a * a)": (a, lambda x: jnp.histogram(a, 3, (-2.0, 2.0), weights=x * x)[0]),
    "cumulative_prod(a, axis=0, include_initial=True)": (a, lambda x: jnp.cumulative_prod(x, axis=0, include_initial=True)),
}


def number(x):
    x = float(x)
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return repr(x)


def leaves(out):
    return list(out) if isinstance(out, tuple) else [out]


def entry(name, arrays):
    parts = []
    for r in arrays:
        r = np.asarray(r)
        parts.append('{{%s}, "%s", {%s}}' % (", ".join(map(str, r.shape)), r.dtype.name,
                                             ", ".join(number(e) for e in r.reshape(-1))))
    return '{"%s", {%s}},\n' % (name, ", ".join(parts))


out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "statistics_cases.inc")
with open(out, "w") as fh:
    fh.write("// Generated by tests/golden/statistics_cases.py with JAX %s; do not edit.\n" % jax.__version__)
    fh.write("// {case, {{result shape, dtype, values}, ...}}\n")
    for name, make in CASES.items():
        fh.write(entry(name, leaves(make())))
    for name, (x, fn) in GRADS.items():
        def loss(y, fn=fn):
            r = fn(y)
            return jnp.sum(r * (1 + 0.5 * jnp.arange(r.size, dtype=r.dtype).reshape(r.shape)))
        fh.write(entry("grad:" + name, [jax.grad(loss)(x)]))
print("wrote", out, len(CASES) + len(GRADS), "cases")
