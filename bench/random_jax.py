#!/usr/bin/env python3
"""JAX's figures for bench_random: jax.random.uniform of 2^24 float32 under
jit on CPU, median of 21 timed calls after warm-up (the time of
bench_random's BM_jaxcc_uniform is read beside it); and 2^20 draws of
jax.random.gamma(key, 0.5) and jax.random.poisson(key, 3.0) under jit,
median of 5 calls, for BM_jaxcc_gamma_jit and BM_jaxcc_poisson_jit (run it
as `taskset -c 0` with XLA_FLAGS=--xla_cpu_multi_thread_eigen=false for the
one-thread figures those are). Needs JAX:
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

m = 1 << 20
for name, sampler in [("gamma(key, 0.5)", lambda key: jax.random.gamma(key, 0.5, (m,))),
                      ("poisson(key, 3.0)", lambda key: jax.random.poisson(key, 3.0, (m,)))]:
    jitted = jax.jit(sampler)
    jitted(key).block_until_ready()
    times = []
    for _ in range(5):
        t0 = time.perf_counter()
        jitted(key).block_until_ready()
        times.append(time.perf_counter() - t0)
    print(f"jax {jax.__version__} jit(jax.random.{name}) 2^20: median {1e3 * statistics.median(times):.1f} ms "
          f"({m / statistics.median(times) / 1e6:.2f} M draws/s)")
