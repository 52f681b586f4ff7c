#!/usr/bin/env python3
"""JAX's figures for bench_conv: the same convolution (batch 32, 3 -> 64
channels, 56x56, 3x3, SAME, NCHW/OIHW, then NHWC/HWIO as Flax lays it out)
on the same data, forward and jit(value_and_grad) of sum(conv(x, w) * c)
with respect to x and w, on CPU; median of 21 timed calls after warm-up. Needs JAX:
    /tmp/jaxenv/bin/pip install jax && /tmp/jaxenv/bin/python bench/conv_jax.py
"""
import statistics
import time

import jax
import jax.numpy as jnp
from jax import lax


def filled(shape, scale):
    n = 1
    for d in shape:
        n *= d
    return jnp.sin(jnp.arange(n, dtype=jnp.float32) * scale).reshape(shape)


x = filled((32, 3, 56, 56), 0.37)
w = filled((64, 3, 3, 3), 0.53)
c = filled((32, 64, 56, 56), 0.11)
forward = jax.jit(lambda x, w: lax.conv(x, w, (1, 1), "SAME"))
step = jax.jit(jax.value_and_grad(lambda x, w, c: jnp.sum(lax.conv(x, w, (1, 1), "SAME") * c), argnums=(0, 1)))


def median_ms(fn):
    for _ in range(3):
        jax.block_until_ready(fn())
    times = []
    for _ in range(21):
        t0 = time.perf_counter()
        jax.block_until_ready(fn())
        times.append(time.perf_counter() - t0)
    return 1e3 * statistics.median(times)


print(f"jax {jax.__version__} conv forward: median {median_ms(lambda: forward(x, w)):.2f} ms")
print(f"jax {jax.__version__} jit(value_and_grad) forward+backward: median {median_ms(lambda: step(x, w, c)):.2f} ms")

flax = ("NHWC", "HWIO", "NHWC")
x_nhwc, w_hwio, c_nhwc = x.transpose(0, 2, 3, 1), w.transpose(2, 3, 1, 0), c.transpose(0, 2, 3, 1)
forward_nhwc = jax.jit(lambda x, w: lax.conv_general_dilated(x, w, (1, 1), "SAME", dimension_numbers=flax))
step_nhwc = jax.jit(jax.value_and_grad(
    lambda x, w, c: jnp.sum(lax.conv_general_dilated(x, w, (1, 1), "SAME", dimension_numbers=flax) * c), argnums=(0, 1)))
print(f"jax {jax.__version__} NHWC conv forward: median {median_ms(lambda: forward_nhwc(x_nhwc, w_hwio)):.2f} ms")
print(f"jax {jax.__version__} NHWC jit(value_and_grad) forward+backward: "
      f"median {median_ms(lambda: step_nhwc(x_nhwc, w_hwio, c_nhwc)):.2f} ms")
