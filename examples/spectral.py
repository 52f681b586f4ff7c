"""Viscous Burgers' equation u_t + u u_x = nu u_xx on a periodic domain,
solved pseudo-spectrally in JAX: derivatives by the real FFT, time stepping
by RK4 in a lax.scan. Then the gradient of the final state's energy with
respect to the initial condition, by jax.grad through every step.
examples/spectral.cpp is its port to jaxcc; this file is the original, and
running it prints the figures the port must reproduce
(examples/spectral.expected).

    python3 -m venv /tmp/jaxenv && /tmp/jaxenv/bin/pip install jax==0.10.2
    /tmp/jaxenv/bin/python examples/spectral.py > examples/spectral.expected
"""
import jax
import jax.numpy as jnp

N, NU, DT, STEPS = 64, 0.05, 0.01, 100
L = 2 * jnp.pi
x = jnp.arange(N) * (L / N)
k = jnp.fft.rfftfreq(N, d=L / N) * 2 * jnp.pi  # wavenumbers 0, 1, ..., N/2


def rhs(u):
    u_hat = jnp.fft.rfft(u)
    u_x = jnp.fft.irfft(1j * k * u_hat, n=N)
    u_xx = jnp.fft.irfft(-(k ** 2) * u_hat, n=N)
    return -u * u_x + NU * u_xx


def step(u, _):
    a = rhs(u)
    b = rhs(u + 0.5 * DT * a)
    c = rhs(u + 0.5 * DT * b)
    d = rhs(u + DT * c)
    return u + DT / 6 * (a + 2 * b + 2 * c + d), None


def solve(u0):
    u, _ = jax.lax.scan(step, u0, None, length=STEPS)
    return u


def energy(u0):
    return 0.5 * jnp.mean(solve(u0) ** 2)


u0 = jnp.sin(x) + 0.5 * jnp.cos(2 * x)
u = solve(u0)
g = jax.grad(energy)(u0)
print(f"energy at t=0: {0.5 * jnp.mean(u0 ** 2):.6f}")
print(f"energy at t=1: {energy(u0):.6f}")
for i, name in zip(range(0, N, N // 4), ["0", "pi/2", "pi", "3pi/2"]):
    print(f"u(1) at x={name}: {u[i]:.6f}")
for i, name in zip(range(0, N, N // 4), ["0", "pi/2", "pi", "3pi/2"]):
    print(f"d energy / d u0 at x={name}: {g[i]:.6f}")
print(f"sum of d energy / d u0: {jnp.sum(g):.6f}")
