#!/usr/bin/env python3
"""Golden values for tests/test_special_*.cpp, made by JAX itself: each
jax.scipy.special (and lax, jax.numpy) function on a few inputs, edge values
included (0, poles, negative integers, inf, nan), in float32 (JAX's
default) and float64 (JAX_ENABLE_X64=1), and in float64 the gradient of
the sum of the result with respect to one argument where JAX defines it.

Needs JAX (not needed by the tests):
    python3 -m venv /tmp/jaxenv && /tmp/jaxenv/bin/pip install jax==0.10.2
    /tmp/jaxenv/bin/python tests/golden/special_cases.py
It rewrites tests/golden/special_cases.inc beside this script; it runs
itself once per precision, in a child process, since x64 is fixed at start.
"""

import json
import math
import os
import subprocess
import sys

inf, nan = math.inf, math.nan

# name: (function of the arguments, argument lists, index of the argument
# differentiated, or None)
CASES = {
    "gammaln": ("sp.gammaln(x)", [[-2.5, -1, 0, 0.5, 1, 3.7, 10, inf, -inf, nan]], None),
    "gammaln_grad": ("sp.gammaln(x)", [[-2.5, 0.5, 1, 3.7, 10]], 0),
    "gammasgn": ("sp.gammasgn(x)", [[-2.5, -1.5, -1, -0.0, 0, 0.5, 3, -inf, inf, nan]], None),
    "gamma": ("sp.gamma(x)", [[-2.5, -1.5, -1, -0.0, 0, 0.5, 3, 5.5, -inf, inf, nan]], None),
    "gamma_grad": ("sp.gamma(x)", [[-2.5, -1.5, 0.5, 3, 5.5]], 0),
    "loggamma": ("sp.loggamma(x)", [[-1.5, 0, 0.5, 2.5, 10]], None),
    "digamma": ("sp.digamma(x)", [[-2.5, -1, 0, 0.5, 1, 3.7, 10]], None),
    "polygamma": ("sp.polygamma(n.astype(jnp.int32), x)", [[0, 1, 2, 3, 1], [1.5, 0.5, 3.7, 10, -2.5]], 1),
    "beta": ("sp.beta(a, b)", [[0.5, 1, 2.5, -0.5, 10, 30], [0.5, 3, 1.5, 2, 20, 40]], 0),
    "betaln": ("sp.betaln(a, b)", [[0.5, 1, 2.5, 3, 10, 100], [0.5, 3, 1.5, 9, 20, 1000]], 0),
    "factorial": ("sp.factorial(x)", [[-1, 0, 1, 3.5, 5, 10]], None),
    "comb": ("sp.comb(a, b)", [[5, 10, 4, -1, 3, 5.5], [2, 3, 5, 1, 0, 2]], None),
    "comb_repetition": ("sp.comb(a, b, repetition=True)", [[5, 10, 4, -1, 3, 0], [2, 3, 5, 1, 0, 0]], None),
    "poch": ("sp.poch(a, b)", [[1.5, 2, 3.5, -0.5, 4], [0, 1, 2.5, 2, -1]], 0),
    "multigammaln": ("sp.multigammaln(x, 3)", [[1.5, 2.5, 5, 10]], 0),
    "expit": ("sp.expit(x)", [[-50, -2, 0, 1.5, 50, inf, -inf, nan]], None),
    "logit": ("sp.logit(x)", [[0, 0.1, 0.5, 0.9, 1, -0.5, 1.5, nan]], None),
    "logit_grad": ("sp.logit(x)", [[0.1, 0.5, 0.9]], 0),
    "xlogy": ("sp.xlogy(a, b)", [[0, 0, 0, 1.5, 2, -1, 0], [0, 2.5, nan, 2, 0, 3, inf]], None),
    "xlogy_grad": ("sp.xlogy(a, b)", [[0, 1.5, -1], [2.5, 2, 3]], 0),
    "xlogy_grad_y": ("sp.xlogy(a, b)", [[0, 1.5, -1], [2.5, 2, 3]], 1),
    "xlog1py": ("sp.xlog1py(a, b)", [[0, 0, 1.5, 2, 0], [-1, 2.5, 2, 0.5, nan]], None),
    "xlog1py_grad": ("sp.xlog1py(a, b)", [[0, 1.5, 2], [2.5, 2, 0.5]], 0),
    "entr": ("sp.entr(x)", [[-1, 0, 0.5, 1, 2.5, inf, nan]], None),
    "entr_grad": ("sp.entr(x)", [[0.5, 1, 2.5]], 0),
    "rel_entr": ("sp.rel_entr(a, b)", [[0, 0, 1, 2, -1, 0.5, 1], [0, 1, 2, 1, 1, -1, 0]], None),
    "kl_div": ("sp.kl_div(a, b)", [[0, 0, 1, 2, -1, 0.5, 1], [0, 1, 2, 1, 1, -1, 0]], None),
    "kl_div_grad": ("sp.kl_div(a, b)", [[1, 2, 0.5], [2, 1, 3]], 0),
    "boxcox": ("sp.boxcox(a, b)", [[0.5, 1, 2.5, 3, 0], [0, 0.5, -1, 2, 1]], 0),
    "boxcox1p": ("sp.boxcox1p(a, b)", [[-0.5, 0, 1.5, 3, -1], [0, 0.5, -1, 2, 1]], None),
    "erf": ("sp.erf(x)", [[-3, -0.5, 0, 0.25, 1, 4, inf, nan]], None),
    "erfc": ("sp.erfc(x)", [[-3, -0.5, 0, 0.25, 1, 4, 10, inf, nan]], None),
    "erfinv": ("sp.erfinv(x)", [[-1, -0.9, -0.2, 0, 0.3, 0.99, 1, 1.5]], None),
    "ndtr": ("sp.ndtr(x)", [[-40, -10, -3, -0.5, 0, 0.7, 3, 10, inf, -inf, nan]], None),
    "ndtr_grad": ("sp.ndtr(x)", [[-3, -0.5, 0.7, 3]], 0),
    "ndtri": ("sp.ndtri(x)", [[0, 1e-30, 1e-10, 0.01, 0.1, 0.5, 0.9, 0.999, 1, -0.5, 1.5]], None),
    "ndtri_grad": ("sp.ndtri(x)", [[1e-10, 0.01, 0.1, 0.5, 0.9, 0.999]], 0),
    "log_ndtr": ("sp.log_ndtr(x)", [[-40, -15, -8, -3, 0, 3, 6, 10, inf, -inf, nan]], None),
    "log_ndtr_grad": ("sp.log_ndtr(x)", [[-40, -15, -8, -3, 0, 3, 6]], 0),
    "log_ndtr_order5": ("sp.log_ndtr(x, series_order=5)", [[-40, -25, -12, 1]], None),
    "gammainc": ("sp.gammainc(a, b)", [[0.5, 1, 2, 5, 0, 1, -1, 3, 100, 0, nan], [0.5, 2, 0.1, 10, 1, 0, 1, inf, 90, 0, 1]], None),
    "gammainc_grad_x": ("sp.gammainc(a, b)", [[0.5, 1, 2, 5, 20], [0.5, 2, 0.1, 10, 25]], 1),
    "gammainc_grad_a": ("sp.gammainc(a, b)", [[0.5, 1, 2, 5, 20], [0.5, 2, 0.1, 10, 25]], 0),
    "gammaincc": ("sp.gammaincc(a, b)", [[0.5, 1, 2, 5, 0, 1, -1, 3, 100, 0, nan], [0.5, 2, 0.1, 10, 1, 0, 1, inf, 90, 0, 1]], None),
    "gammaincc_grad_a": ("sp.gammaincc(a, b)", [[0.5, 1, 2, 5, 20], [0.5, 2, 0.1, 10, 25]], 0),
    "igamma_grad_a": ("lax.igamma_grad_a(a, b)", [[0.5, 1, 2, 5, 0, 3], [0.5, 2, 0.1, 10, 1, 0]], None),
    "random_gamma_grad": ("lax.random_gamma_grad(a, b)", [[0.5, 1, 2, 5, 0, 3], [0.5, 2, 0.1, 10, 1, 0]], None),
    "betainc": ("sp.betainc(a, b, c)", [[0.5, 1, 2, 5, 0, 2, 1, 10, 3], [0.5, 3, 2, 1, 1, 0, 1, 20, 4],
                                         [0.2, 0.5, 0.9, 0.3, 0.5, 0.5, 1, 0.4, 1.5]], None),
    "betainc_grad": ("sp.betainc(a, b, c)", [[0.5, 1, 2, 5, 10], [0.5, 3, 2, 1, 20], [0.2, 0.5, 0.9, 0.3, 0.4]], 2),
    "zeta": ("sp.zeta(a, b)", [[2, 3, 1, 0.5, 4.5, 2, 3], [1, 2.5, 1, 1, 0.5, -1.5, -2]], None),
    "zeta_grad_q": ("sp.zeta(a, b)", [[2, 3, 4.5], [1, 2.5, 0.5]], 1),
    "i0e": ("sp.i0e(x)", [[-30, -2.5, -0.5, 0, 0.5, 1, 5, 20, 30, inf, nan]], None),
    "i0e_grad": ("sp.i0e(x)", [[-2.5, -0.5, 0.5, 5, 30]], 0),
    "i0": ("sp.i0(x)", [[-30, -2.5, -0.5, 0, 0.5, 1, 5, 20]], None),
    "i1e": ("sp.i1e(x)", [[-30, -2.5, -0.5, 0, 0.5, 1, 5, 20, 30, inf, nan]], None),
    "i1e_grad": ("sp.i1e(x)", [[-2.5, -0.5, 0, 0.5, 5, 30]], 0),
    "i1": ("sp.i1(x)", [[-30, -2.5, -0.5, 0, 0.5, 1, 5, 20]], None),
    "jnp_i0": ("jnp.i0(x)", [[-3, -0.5, 0, 0.5, 2, 10]], 0),
    "expi": ("sp.expi(x)", [[-5, -0.5, 0, 0.5, 1, 5, 30, 50, 100, -inf, inf, nan]], None),
    "expi_grad": ("sp.expi(x)", [[-5, -0.5, 0.5, 1, 5, 30]], 0),
    "exp1": ("sp.exp1(x)", [[0, 0.1, 1, 2, 10, 50, -1, inf, nan]], None),
    "exp1_grad": ("sp.exp1(x)", [[0.1, 1, 2, 10]], 0),
    "expn": ("sp.expn(a, b)", [[0, 1, 2, 3, 5, 2, -1, 0, 1, 3], [1.5, 0.5, 0, 2.5, 10, 0.01, 1, 0, 0, 1.5]], None),
    "erfcx": ("sp.erfcx(x)", [[-30, -3, -0.5, 0, 0.5, 2, 9, 10, 26, 27, 1e5, inf, -inf, nan]], None),
    "erfcx_grad": ("sp.erfcx(x)", [[-3, -0.5, 0.5, 2, 10, 30]], 0),
    "dawsn": ("sp.dawsn(x)", [[-7, -4, -1, 0, 0.5, 2, 3.25, 5, 6.25, 10, 1e3, inf, -inf, nan]], None),
    "dawsn_grad": ("sp.dawsn(x)", [[-4, -1, 0.5, 2, 5, 10]], 0),
    "spence": ("sp.spence(x)", [[-1, 0, 0.25, 0.5, 1, 1.25, 1.75, 2, 3, 10, inf, nan]], None),
    "spence_grad": ("sp.spence(x)", [[0.25, 0.4, 0.75, 3, 10]], 0),
    "sici_si": ("sp.sici(x)[0]", [[-30, -5, -1, 0, 0.5, 3, 4, 6, 10, 1e10, inf, -inf, nan]], None),
    "sici_ci": ("sp.sici(x)[1]", [[-30, -5, -1, 0, 0.5, 3, 4, 6, 10, 1e10, inf, -inf, nan]], None),
    "sici_si_grad": ("sp.sici(x)[0]", [[-5, -1, 0.5, 3, 6, 10]], 0),
    "sici_ci_grad": ("sp.sici(x)[1]", [[-5, -1, 0.5, 3, 6, 10]], 0),
    "owens_t": ("sp.owens_t(a, b)", [[0, 0.5, 1, -1.5, 2, 0.3, 5, 0, nan, 1], [0.5, 1, 2, 0.7, -3, 0.2, 1, 0, 1, inf]], None),
    "owens_t_grad_h": ("sp.owens_t(a, b)", [[0.5, 1, -1.5, 2, 0.3], [1, 2, 0.7, -3, 0.2]], 0),
    "owens_t_grad_a": ("sp.owens_t(a, b)", [[0.5, 1, -1.5, 2, 0.3], [1, 2, 0.7, -3, 0.2]], 1),
    "expn_grad": ("sp.expn(a, b)", [[1, 2, 3, 5], [0.5, 2.5, 1.5, 0.2]], 1),
}


def compute():
    import jax
    import jax.numpy as jnp
    import jax.scipy.special as sp
    from jax import lax
    import numpy as np

    dtype = jnp.float64 if jax.config.jax_enable_x64 else jnp.float32
    out = {}
    for name, (expr, args, grad_arg) in CASES.items():
        names = ["a", "b", "c"][:len(args)] if len(args) > 1 else ["x"]
        if expr.startswith("sp.polygamma") or expr.startswith("sp.expn"):
            names = ["n", "x"] if expr.startswith("sp.polygamma") else ["a", "b"]
        fn = eval("lambda %s: %s" % (", ".join(names), expr),
                  {"sp": sp, "jnp": jnp, "lax": lax})
        arrays = [jnp.array(a, dtype) for a in args]
        values = np.asarray(fn(*arrays)).astype(np.float64).tolist()
        grad = []
        if grad_arg is not None and dtype == jnp.float64:
            g = jax.grad(lambda *xs: jnp.sum(fn(*xs)), argnums=grad_arg)(*arrays)
            grad = np.asarray(g).tolist()
        out[name] = {"values": values, "grad": grad}
    out["bernoulli"] = {"values": np.asarray(sp.bernoulli(12)).astype(np.float64).tolist(), "grad": []}
    out["kaiser"] = {"values": np.asarray(jnp.kaiser(6, 2.5)).astype(np.float64).tolist(), "grad": []}
    m = jnp.array([[0.5, -1.0, 2.0], [3.0, 0.25, -inf]], dtype)
    bm = jnp.array([[1.0, -2.0, 0.5], [0.0, 1.5, 2.0]], dtype)
    out["logsumexp"] = {"values": np.asarray(sp.logsumexp(m)).reshape(-1).tolist(), "grad": []}
    out["logsumexp_axis1"] = {"values": np.asarray(sp.logsumexp(m, axis=1)).tolist(), "grad": []}
    out["logsumexp_b"] = {"values": np.asarray(sp.logsumexp(m, axis=1, b=bm)).tolist(), "grad": []}
    out["logsumexp_b_axis0"] = {"values": np.asarray(sp.logsumexp(m, axis=0, b=bm, keepdims=True)).reshape(-1).tolist(), "grad": []}
    out["softmax"] = {"values": np.asarray(sp.softmax(m)).reshape(-1).tolist(), "grad": []}
    out["log_softmax"] = {"values": np.asarray(sp.log_softmax(m, axis=0)).reshape(-1).tolist(), "grad": []}
    return out


def number(x):
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return repr(float(x))


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        json.dump(compute(), sys.stdout)
        return
    import jax
    results = {}
    for bits, x64 in ((32, "0"), (64, "1")):
        env = dict(os.environ, JAX_ENABLE_X64=x64, JAX_PLATFORMS="cpu")
        text = subprocess.run([sys.executable, os.path.abspath(__file__), "--child"], env=env, check=True,
                              capture_output=True, text=True).stdout
        results[bits] = json.loads(text)
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "special_cases.inc")
    names = list(CASES) + ["bernoulli", "kaiser", "logsumexp", "logsumexp_axis1", "logsumexp_b", "logsumexp_b_axis0",
                           "softmax", "log_softmax"]
    with open(out, "w") as f:
        f.write("// Generated by tests/golden/special_cases.py with JAX %s; do not edit.\n" % jax.__version__)
        f.write("// {case, bits, {arguments...}, result, gradient of its sum (float64 only)}\n")
        for bits in (32, 64):
            for name in names:
                args = CASES[name][1] if name in CASES else []
                r = results[bits][name]
                f.write('{"%s", %d, {%s}, {%s}, {%s}},\n' % (
                    name, bits, ", ".join("{%s}" % ", ".join(number(v) for v in a) for a in args),
                    ", ".join(number(v) for v in r["values"]), ", ".join(number(v) for v in r["grad"])))
    print("wrote", out, len(names), "cases per precision")


if __name__ == "__main__":
    main()
