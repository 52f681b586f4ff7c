#!/usr/bin/env python3
"""Golden values for the jax.nn functions of tests/test_nn_activations.cpp,
tests/test_nn_normalization.cpp and tests/test_nn_attention.cpp, made by JAX
itself:
- the elementwise activations (relu, relu6, hard_sigmoid, hard_silu,
  hard_tanh, leaky_relu, elu, celu, selu, mish, soft_sign, squareplus,
  sparse_plus, sparse_sigmoid, log1mexp, tanh): values at special points (0,
  +-inf, nan, large magnitudes, the kinks) and first derivatives (jax.grad,
  per element) at points that include every kink, where JAX's subgradient is
  the one to match; in float32 and float64;
- glu and logmeanexp along several axes, with the gradient of sum(w * f);
- standardize with both algorithms, given mean/variance, epsilon and where, with
  the gradient of sum(w * f);
- dot_product_attention (MHA, GQA, MQA, causal, bias, mask, scale, sequence
  lengths, local windows, 3-d operands, float64), with the gradients of
  sum(w * f) with respect to query, key, value and bias; and bfloat16,
  whose logits and softmax are float32.

Needs JAX (not needed by the tests):
    python3 -m venv /tmp/jaxenv && /tmp/jaxenv/bin/pip install jax
    /tmp/jaxenv/bin/python tests/golden/nn_more_cases.py
It rewrites tests/golden/nn_more_cases.inc beside this script.
"""

import os

import jax
import jax.numpy as jnp
import numpy as np

jax.config.update("jax_enable_x64", True)  # the float64 cases; float32 ones are asked for explicitly

inf, nan = float("inf"), float("nan")
VALUES = [0.0, -0.0, 0.25, -0.5, 1.0, -1.0, 2.5, -3.0, 3.0, -3.25, 6.0, 7.0, -9.5, 20.0, -30.0, 1e4, -1e4, 1e30,
          -1e30, inf, -inf, nan]
GRAD_POINTS = [-7.5, -3.0, -1.5, -1.0, -0.5, 0.0, 0.25, 1.0, 2.0, 3.0, 6.0, 7.5]
LOG1MEXP_VALUES = [0.0, 1e-30, 1e-6, 0.1, 0.5, 0.6931471805599453, 1.0, 5.0, 30.0, 100.0, 1e30, inf, -1.0, nan]
LOG1MEXP_GRAD_POINTS = [0.0, 1e-3, 0.1, 0.5, 0.6931471805599453, 1.0, 2.0, 5.0, 30.0, 100.0]
DTYPES = [(32, jnp.float32), (64, jnp.float64)]

unary = {
    "relu": jax.nn.relu,
    "relu6": jax.nn.relu6,
    "hard_sigmoid": jax.nn.hard_sigmoid,
    "hard_silu": jax.nn.hard_silu,
    "hard_tanh": jax.nn.hard_tanh,
    "leaky_relu": jax.nn.leaky_relu,
    "leaky_relu_0.2": lambda x: jax.nn.leaky_relu(x, 0.2),
    "elu": jax.nn.elu,
    "elu_0.5": lambda x: jax.nn.elu(x, 0.5),
    "celu": jax.nn.celu,
    "celu_2": lambda x: jax.nn.celu(x, 2.0),
    "selu": jax.nn.selu,
    "mish": jax.nn.mish,
    "soft_sign": jax.nn.soft_sign,
    "squareplus": jax.nn.squareplus,
    "squareplus_2.5": lambda x: jax.nn.squareplus(x, 2.5),
    "sparse_plus": jax.nn.sparse_plus,
    "sparse_sigmoid": jax.nn.sparse_sigmoid,
    "log1mexp": jax.nn.log1mexp,
    "tanh": jax.nn.tanh,
}

cases = []  # (function, bits, xs, values, dx)
for bits, dtype in DTYPES:
    for name, f in unary.items():
        values, points = (LOG1MEXP_VALUES, LOG1MEXP_GRAD_POINTS) if name == "log1mexp" else (VALUES, GRAD_POINTS)
        x = jnp.array(values, dtype)
        cases.append((name, bits, x, f(x), []))
        x = jnp.array(points, dtype)
        cases.append((name, bits, x, f(x), jax.vmap(jax.grad(f))(x)))

rng = np.random.default_rng(53)


def sample(shape, dtype=np.float32):
    """Normal samples, exactly representable in float32."""
    return np.asarray(rng.standard_normal(shape), np.float32).astype(dtype)  # bfloat16 rounds


def weighted_grads(f, args, argnums):
    """f(*args) and the gradients of sum(w * f) for a fixed w."""
    out = f(*args)
    w = jnp.asarray(sample(out.shape, out.dtype))
    grads = jax.grad(lambda *a: jnp.sum(w * f(*a)), argnums=argnums)(*args)
    return out, w, grads


# glu and logmeanexp: {name, axis (or 99 for none), keepdims, x shape, x, w, values, dx}
reductions = []
x = jnp.asarray(sample((4, 6)))
for axis in (-1, 0, 1):
    out, w, g = weighted_grads(lambda a: jax.nn.glu(a, axis), (x,), 0)
    reductions.append(("glu", axis, False, x, w, out, g))
x3 = jnp.asarray(sample((2, 3, 4)) * 3)
for axis, keepdims in ((None, False), (1, False), (-1, True), ((0, 2), False), (None, True)):
    out, w, g = weighted_grads(lambda a: jax.nn.logmeanexp(a, axis, keepdims=keepdims), (x3,), 0)
    code = 99 if axis is None else (10 * axis[0] + axis[1] + 100 if isinstance(axis, tuple) else axis)
    reductions.append(("logmeanexp", code, keepdims, x3, w, out, g))

# standardize: {name, axis code, epsilon, algorithm, mean (or none), variance (or none), x, w, values, dx}
standardize_cases = []
xs = jnp.asarray(sample((3, 5)) * 2 + 1)
given_mean = jnp.asarray(sample((3, 1)))
given_var = jnp.asarray(np.abs(sample((1, 5))) + 0.5)
where_rows = jnp.asarray([[True, False, True, True, False], [False, True, True, False, True],
                          [True, True, False, True, True]])
where_some_rows = jnp.asarray([[True], [False], [True]])  # broadcast along the rows, reduced along axis 0
for label, axis, mean, var, eps, where, algorithm in (
        ("fast last", -1, None, None, 1e-5, None, "fast"),
        ("stable last", -1, None, None, 1e-5, None, "stable"),
        ("fast axis 0", 0, None, None, 1e-5, None, "fast"),
        ("stable all", None, None, None, 0.1, None, "stable"),
        ("fast given mean", -1, given_mean, None, 1e-5, None, "fast"),
        ("stable given mean and variance", -1, given_mean, given_var, 1e-3, None, "stable"),
        ("fast where", -1, None, None, 1e-5, where_rows, "fast"),
        ("stable where, broadcast", 0, None, None, 1e-5, where_some_rows, "stable"),
        ("stable where, given mean", -1, given_mean, None, 1e-5, where_rows, "stable")):
    f = lambda a: jax.nn.standardize(a, axis, mean=mean, variance=var, epsilon=eps, where=where,
                                     algorithm=algorithm)
    out, w, g = weighted_grads(f, (xs,), 0)
    standardize_cases.append((label, 99 if axis is None else axis, eps, algorithm, mean, var, where, xs, w, out, g))

# dot_product_attention
attention = []


def attention_case(label, q_shape, kv_shape, bias_shape=None, mask_shape=None, scale=None, is_causal=False,
                   q_len=None, kv_len=None, window=None, dtype=np.float32):
    q = jnp.asarray(sample(q_shape, dtype))
    k = jnp.asarray(sample(kv_shape, dtype))
    v = jnp.asarray(sample(kv_shape, dtype))
    bias = None if bias_shape is None else jnp.asarray(sample(bias_shape, dtype))
    mask = None if mask_shape is None else jnp.asarray(rng.random(mask_shape) < 0.7)
    ql = None if q_len is None else jnp.asarray(q_len, jnp.int32)
    kl = None if kv_len is None else jnp.asarray(kv_len, jnp.int32)

    def f(q, k, v, bias):
        return jax.nn.dot_product_attention(q, k, v, bias, mask, scale=scale, is_causal=is_causal,
                                            query_seq_lengths=ql, key_value_seq_lengths=kl,
                                            local_window_size=window)

    bias_arg = jnp.zeros((), dtype) if bias is None else bias
    out, w, grads = weighted_grads(f if bias is not None else (lambda q, k, v, b: f(q, k, v, None)),
                                   (q, k, v, bias_arg), (0, 1, 2, 3))
    if isinstance(window, int):
        window = (window, window)
    bits = {np.dtype(np.float64): 64, np.dtype(np.float32): 32, np.dtype(jnp.bfloat16): 16}[np.dtype(dtype)]
    attention.append(dict(label=label, bits=bits, q=q, k=k, v=v, bias=bias, mask=mask,
                          scale=nan if scale is None else scale, causal=is_causal, q_len=q_len or [],
                          kv_len=kv_len or [], window=window or (-1, -1), w=w, out=out, grads=grads))


attention_case("MHA", (2, 3, 2, 4), (2, 5, 2, 4))
attention_case("GQA causal", (2, 4, 4, 3), (2, 4, 2, 3), is_causal=True)
attention_case("bias, mask and scale", (2, 3, 2, 4), (2, 5, 2, 4), bias_shape=(1, 2, 3, 5), mask_shape=(2, 1, 3, 5),
               scale=0.7)
attention_case("MQA, per-head bias and mask", (1, 3, 4, 2), (1, 4, 1, 2), bias_shape=(1, 4, 1, 4),
               mask_shape=(1, 4, 3, 4))
attention_case("sequence lengths", (2, 4, 2, 3), (2, 5, 2, 3), q_len=[2, 4], kv_len=[5, 3])
attention_case("kv lengths, causal", (2, 4, 2, 3), (2, 4, 2, 3), is_causal=True, kv_len=[1, 3])
attention_case("local window (1, 0)", (1, 5, 2, 3), (1, 5, 2, 3), window=(1, 0))
attention_case("local window 1, causal", (1, 5, 2, 3), (1, 6, 2, 3), window=1, is_causal=True)
attention_case("3-d operands", (3, 2, 4), (4, 2, 4), bias_shape=(3, 4))
attention_case("float64", (1, 3, 2, 4), (1, 4, 2, 4), bias_shape=(1, 1, 3, 4), is_causal=True, dtype=np.float64)
attention_case("bfloat16 GQA", (1, 3, 4, 4), (1, 5, 2, 4), bias_shape=(1, 1, 3, 5), is_causal=True,
               dtype=jnp.bfloat16)


def number(v):
    v = float(v)
    if np.isnan(v):
        return "nan"
    if np.isinf(v):
        return "inf" if v > 0 else "-inf"
    return repr(v)


def numbers(values):
    if values is None:
        return ""
    return ", ".join(number(v) for v in np.asarray(values, dtype=np.float64).reshape(-1))


def dims(a):
    return "" if a is None else ", ".join(str(d) for d in np.shape(a))


out_path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "nn_more_cases.inc")
with open(out_path, "w") as f:
    f.write("// Generated by tests/golden/nn_more_cases.py with JAX %s; do not edit.\n" % jax.__version__)
    f.write("// Needs `inf` and `nan` (double) in scope where it is included.\n")
    f.write("#ifdef JAXCC_GOLDEN_NN_ELEMENTWISE\n")
    f.write("// {function, float bits, x, y (none), values, d/dx (where differentiated), d/dy (none)}\n")
    for name, bits, x, values, dx in cases:
        f.write('{"%s", %d, {%s}, {}, {%s}, {%s}, {}},\n' % (name, bits, numbers(x), numbers(values), numbers(dx)))
    f.write("#endif\n#ifdef JAXCC_GOLDEN_NN_REDUCTIONS\n")
    f.write("// {function, axis (99: none; 100 + 10 a + b: (a, b)), keepdims, x shape, x, w, values shape, values,\n"
            "//  grad of sum(w * f)}\n")
    for name, axis, keepdims, x, w, values, g in reductions:
        f.write('{"%s", %d, %s, {%s}, {%s}, {%s}, {%s}, {%s}, {%s}},\n' % (
            name, axis, "true" if keepdims else "false", dims(x), numbers(x), numbers(w), dims(values),
            numbers(values), numbers(g)))
    f.write("#endif\n#ifdef JAXCC_GOLDEN_NN_STANDARDIZE\n")
    f.write("// {label, axis (99: none), epsilon, algorithm, mean shape, mean, variance shape, variance,\n"
            "//  where shape, where, x shape, x, w, values, grad of sum(w * f)}\n")
    for label, axis, eps, algorithm, mean, var, where, x, w, values, g in standardize_cases:
        f.write('{"%s", %d, %r, "%s", {%s}, {%s}, {%s}, {%s}, {%s}, {%s}, {%s}, {%s}, {%s}, {%s}, {%s}},\n' % (
            label, axis, eps, algorithm, dims(mean), numbers(mean), dims(var), numbers(var), dims(where),
            numbers(where), dims(x), numbers(x), numbers(w), numbers(values), numbers(g)))
    f.write("#endif\n#ifdef JAXCC_GOLDEN_NN_ATTENTION\n")
    f.write("// {label, float bits, query shape, query, key/value shape, key, value, bias shape, bias, mask shape,\n"
            "//  mask, scale (nan: none), is_causal, query_seq_lengths, key_value_seq_lengths, local window\n"
            "//  (-1, -1: none), w, values, grads of sum(w * f) for query, key, value, bias}\n")
    for c in attention:
        gq, gk, gv, gb = c["grads"]
        f.write('{"%s", %d, {%s}, {%s}, {%s}, {%s}, {%s}, {%s}, {%s}, {%s}, {%s}, %s, %s, {%s}, {%s}, {%d, %d},\n'
                ' {%s}, {%s}, {%s}, {%s}, {%s}, {%s}},\n' % (
                    c["label"], c["bits"], dims(c["q"]), numbers(c["q"]), dims(c["k"]), numbers(c["k"]),
                    numbers(c["v"]), dims(c["bias"]), numbers(c["bias"]), dims(c["mask"]), numbers(c["mask"]),
                    number(c["scale"]), "true" if c["causal"] else "false", ", ".join(map(str, c["q_len"])),
                    ", ".join(map(str, c["kv_len"])), c["window"][0], c["window"][1], numbers(c["w"]),
                    numbers(c["out"]), numbers(gq), numbers(gk), numbers(gv),
                    numbers(gb) if c["bias"] is not None else ""))
    f.write("#endif\n")
print("wrote", out_path, len(cases) + len(reductions) + len(standardize_cases) + len(attention), "cases")
