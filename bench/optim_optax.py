#!/usr/bin/env python3
"""optax's figure for bench_optim: one jitted Adam step (optax.adam(1e-3) and
apply_updates) over the same 10M-parameter tree {'a': (2000, 2500),
'b': (1000, 4000), 'c': (1000, 1000)} on CPU, without and with the params
and state donated; median and minimum of 21 timed calls after
warm-up (the minimum for a loaded machine). Needs JAX and optax:
    /work/venv/bin/python bench/optim_optax.py
"""
import statistics
import time

import jax
import jax.numpy as jnp
import optax


def filled(scale):
    shapes = {"a": (2000, 2500), "b": (1000, 4000), "c": (1000, 1000)}
    return {k: jnp.sin(jnp.arange(s[0] * s[1], dtype=jnp.float32).reshape(s) * scale) for k, s in shapes.items()}


opt = optax.adam(1e-3)
grads = filled(0.37)


def step(p, s, g):
    u, s = opt.update(g, s, p)
    return optax.apply_updates(p, u), s


def median_ms(fn, donate):
    p = filled(0.11)
    s = opt.init(p)
    for _ in range(3):
        p, s = jax.block_until_ready(fn(p, s, grads))
    times = []
    for _ in range(21):
        t0 = time.perf_counter()
        p, s = jax.block_until_ready(fn(p, s, grads))
        times.append(time.perf_counter() - t0)
    return 1e3 * statistics.median(times), 1e3 * min(times)


for label, fn in (("", jax.jit(step)), (", params and state donated", jax.jit(step, donate_argnums=(0, 1)))):
    median, least = median_ms(fn, bool(label))
    print(f"jax {jax.__version__} optax {optax.__version__} jit adam step (10M params){label}: "
          f"median {median:.2f} ms, min {least:.2f} ms")
