#!/usr/bin/env python3
"""JAX's figure for bench_random: jax.random.uniform of 2^24 float32 under
jit on CPU, median of 21 timed calls after warm-up (the time of
bench_random's BM_jaxcc_uniform is read beside it). Needs JAX:
    /tmp/jaxenv/bin/pip install jax && /tmp/jaxenv/bin/python bench/random_jax.py
"""
import statistics
import time

import jax

n = 1 << 24
draw = jax.jit(lambda key: jax.random.uniform(key, (n,)))
key = jax.random.key(0)
for _ in range(3):
    draw(key).block_until_ready()
times = []
for _ in range(21):
    t0 = time.perf_counter()
    draw(key).block_until_ready()
    times.append(time.perf_counter() - t0)
print(f"jax {jax.__version__} jit(jax.random.uniform) 2^24 float32: median {1e3 * statistics.median(times):.2f} ms "
      f"({n / statistics.median(times) / 1e9:.3f} G items/s)")
