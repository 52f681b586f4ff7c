#!/usr/bin/env python3
"""JAX's figures for bench_random: jax.random.uniform of 2^24 float32, and
jax.random.multivariate_normal of 2^14 draws of dimension 64 (cholesky),
under jit on CPU, median of 21 timed calls after warm-up (the times of
bench_random's BM_jaxcc_uniform and BM_jaxcc_multivariate_normal are read
beside them). For one thread, as the jaxcc figures with Arg(1), run it
pinned to one core: `taskset -c 0 python bench/random_jax.py`. Needs JAX:
    /tmp/jaxenv/bin/pip install jax && /tmp/jaxenv/bin/python bench/random_jax.py
"""
import statistics
import time

import jax
import jax.numpy as jnp


def median_seconds(f, *args):
    for _ in range(3):
        f(*args).block_until_ready()
    times = []
    for _ in range(21):
        t0 = time.perf_counter()
        f(*args).block_until_ready()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


key = jax.random.key(0)
n = 1 << 24
t = median_seconds(jax.jit(lambda key: jax.random.uniform(key, (n,))), key)
print(f"jax {jax.__version__} jit(jax.random.uniform) 2^24 float32: median {1e3 * t:.2f} ms "
      f"({n / t / 1e9:.3f} G items/s)")

# The covariance of bench_random.cpp's mvn_covariance().
draws, d = 1 << 14, 64
a = jnp.sin(jnp.arange(d * d, dtype=jnp.float32).reshape(d, d))
cov = a @ a.T / d + jnp.eye(d, dtype=jnp.float32)
mean = jnp.zeros(d, jnp.float32)
mvn = jax.jit(lambda key, mean, cov: jax.random.multivariate_normal(key, mean, cov, (draws,)))
t = median_seconds(mvn, key, mean, cov)
print(f"jax {jax.__version__} jit(jax.random.multivariate_normal) 2^14 x 64 float32: median {1e3 * t:.2f} ms "
      f"({draws * d / t / 1e9:.3f} G items/s)")
