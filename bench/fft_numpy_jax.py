#!/usr/bin/env python3
"""numpy's and JAX's figures for bench_fft, on the same data: a 1-D
complex64 FFT of 2^10, 2^16 and 2^20 points and rfft2 of a 64 x 256 x 256
float32 batch (numpy.fft and jax.jit(jnp.fft.*), block_until_ready), and
jit(grad) of a loss through an FFT-based circular convolution of 64
signals of 4096 points; median of 21 timed calls after warm-up, in
microseconds of wall time and of CPU time summed over the process's
threads (the figure to compare on a loaded machine). Needs numpy and JAX:
    pip install jax && python3 bench/fft_numpy_jax.py
"""
import statistics
import time

import jax
import jax.numpy as jnp
import numpy as np


def complex_data(n):
    k = np.arange(n)
    return (np.sin(0.37 * (k % 4096)) + 1j * np.cos(0.53 * (k % 4099))).astype(np.complex64)


def real_data(shape):
    k = np.arange(int(np.prod(shape)))
    return np.sin(0.37 * (k % 4096)).astype(np.float32).reshape(shape)


def median_us(fn, block=False):
    """(wall, CPU of every thread of the process) medians in microseconds."""
    for _ in range(3):
        out = fn()
        if block:
            jax.block_until_ready(out)
    wall, cpu = [], []
    for _ in range(21):
        t0, c0 = time.perf_counter(), time.process_time()
        out = fn()
        if block:
            jax.block_until_ready(out)
        wall.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    return 1e6 * statistics.median(wall), 1e6 * statistics.median(cpu)


def report(name, numpy_fn, jax_fn):
    n_wall, n_cpu = median_us(numpy_fn) if numpy_fn else (float("nan"), float("nan"))
    j_wall, j_cpu = median_us(jax_fn, block=True)
    print(f"{name:28s} numpy {np.__version__}: {n_wall:9.1f} us (cpu {n_cpu:9.1f})"
          f"   jax {jax.__version__}: {j_wall:9.1f} us (cpu {j_cpu:9.1f})")


fft = jax.jit(jnp.fft.fft)
for log2 in (10, 16, 20):
    x = complex_data(1 << log2)
    xj = jnp.asarray(x)
    report(f"fft complex64 2^{log2}", lambda: np.fft.fft(x), lambda: fft(xj))

r = real_data((64, 256, 256))
rj = jnp.asarray(r)
rfft2 = jax.jit(jnp.fft.rfft2)
report("rfft2 float32 64x256x256", lambda: np.fft.rfft2(r), lambda: rfft2(rj))


def conv_loss(signal, kernel):
    """sum(tanh(circular convolution of each signal with the kernel))."""
    n = signal.shape[-1]
    y = jnp.fft.irfft(jnp.fft.rfft(signal) * jnp.fft.rfft(kernel), n=n)
    return jnp.sum(jnp.tanh(y))


signals = jnp.asarray(real_data((64, 4096)))
kernel = jnp.asarray(real_data((4096,)) * 0.01)
step = jax.jit(jax.grad(conv_loss, argnums=(0, 1)))
report("jit(grad) fft conv 64x4096", None, lambda: step(signals, kernel))
