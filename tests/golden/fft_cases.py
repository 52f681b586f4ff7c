#!/usr/bin/env python3
"""Golden values for tests/test_fft.cpp: every jnp.fft function from JAX,
over sizes 1 to 64 (primes, odd and even), every norm, n/s cropping and
padding, axis/axes, and float64 inputs; and the gradients of a few real
losses through complex intermediates.

Inputs are a formula the test computes too: element k (row-major) of a
real input is sin(0.37 k + 0.1), of a complex one that plus
i cos(0.53 k - 0.2); of an integer one k % 7 - 3. Each case: function,
input kind ('r', 'c', 'i', or 'R'/'C' for float64/complex128), input
shape, s (n), axes (axis), norm, result dtype, result shape, result
(complex as re, im pairs).

Needs JAX (not needed by the tests):
    python3 tests/golden/fft_cases.py
It rewrites tests/golden/fft_cases.inc beside this script.
"""

import os

import jax

jax.config.update("jax_enable_x64", True)  # for the float64 cases; the others are made float32 explicitly
import jax.numpy as jnp
import numpy as np

F32, C64, F64, C128 = jnp.float32, jnp.complex64, jnp.float64, jnp.complex128


def make(kind, shape):
    k = np.arange(int(np.prod(shape)), dtype=np.float64)
    re = np.sin(0.37 * k + 0.1)
    im = np.cos(0.53 * k - 0.2)
    if kind == "r":
        return jnp.asarray(re.astype(np.float32).reshape(shape))
    if kind == "R":
        return jnp.asarray(re.reshape(shape))
    if kind == "c":
        return jnp.asarray(re.astype(np.float32).reshape(shape)) + 1j * jnp.asarray(im.astype(np.float32).reshape(shape))
    if kind == "C":
        return jnp.asarray((re + 1j * im).reshape(shape))
    return jnp.asarray((np.arange(int(np.prod(shape))) % 7 - 3).astype(np.int32).reshape(shape))


ONE_D = ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft")
CASES = []  # (function, kind, shape, s, axes, norm)
for n in (1, 2, 3, 4, 5, 7, 8, 9, 11, 12, 13, 16, 17, 31, 32, 37, 45, 64):
    CASES.append(("fft", "c", (n,), None, None, None))
    CASES.append(("rfft", "r", (n,), None, None, None))
for n in (1, 2, 3, 5, 8, 13, 16, 17, 31, 64):
    CASES.append(("ifft", "c", (n,), None, None, None))
    CASES.append(("ihfft", "r", (n,), None, None, None))
for m in (1, 2, 3, 5, 9, 17, 33):  # irfft and hfft take n/2 + 1 points: outputs of 2(m - 1)
    CASES.append(("irfft", "c", (m,), None, None, None))
    CASES.append(("hfft", "c", (m,), None, None, None))
for f in ONE_D:
    kind = "r" if f in ("rfft", "ihfft") else "c"
    for norm in ("backward", "ortho", "forward"):
        CASES.append((f, kind, (7,), None, None, norm))
        CASES.append((f, kind, (3, 6), (5,), (0,), norm))  # n crops/pads, along axis 0
    CASES.append((f, kind, (2, 5), (8,), None, None))       # zero-padded
    CASES.append((f, kind, (2, 9), (4,), (-1,), None))      # cropped
    CASES.append((f, kind, (4, 3), (7,), (-2,), None))      # odd n for the real ones
CASES += [
    ("fft", "r", (6,), None, None, None),     # real input becomes complex
    ("fft", "i", (5,), None, None, None),     # integers too
    ("rfft", "i", (6,), None, None, None),
    ("fft", "C", (9,), None, None, None),     # complex128
    ("rfft", "R", (10,), None, None, "ortho"),
    ("irfft", "C", (6,), (11,), None, None),
    ("hfft", "r", (5,), None, None, None),    # hfft of a real input
]
for f in ("fft2", "ifft2", "rfft2", "irfft2"):
    kind = "r" if f == "rfft2" else "c"
    for norm in ("backward", "ortho", "forward"):
        CASES.append((f, kind, (2, 3, 5), None, None, norm))
    CASES.append((f, kind, (4, 6), (3, 8), None, None))
    CASES.append((f, kind, (3, 4, 5), None, (0, 2), None))
    CASES.append((f, kind, (3, 4, 5), (5, 3), (2, 0), "ortho"))
for f in ("fftn", "ifftn", "rfftn", "irfftn"):
    kind = "r" if f == "rfftn" else "c"
    for norm in ("backward", "ortho", "forward"):
        CASES.append((f, kind, (2, 3, 4), None, None, norm))
    CASES.append((f, kind, (3, 5), (4,), None, None))          # s alone: the last axes
    CASES.append((f, kind, (2, 3, 4), (3, 2), (1, 0), None))
    CASES.append((f, kind, (2, 2, 3, 2, 3), None, None, None))  # five axes: beyond XLA's three
    CASES.append((f, kind, (4, 3), None, (1,), "forward"))


def call(f, x, s, axes, norm):
    fn = getattr(jnp.fft, f)
    if f in ONE_D:
        kw = {}
        if s is not None:
            kw["n"] = s[0]
        if axes is not None:
            kw["axis"] = axes[0]
        return fn(x, norm=norm, **kw)
    kw = {}
    if s is not None:
        kw["s"] = s
    if axes is not None:
        kw["axes"] = axes
    return fn(x, norm=norm, **kw)


def numbers(a, digits):
    a = np.asarray(a).ravel()
    if np.iscomplexobj(a):
        a = np.stack([a.real, a.imag], -1).ravel()
    return ", ".join(("%." + str(digits) + "g") % v for v in a)


def braces(t):
    return "{" + ", ".join(str(v) for v in (t or ())) + "}"


# Gradients of real losses of complex intermediates (float32 input of 6).
LOSSES = {
    "parseval": lambda x: jnp.sum(jnp.abs(jnp.fft.fft(x)) ** 2),
    "real_ifft": lambda x: jnp.sum(jnp.real(jnp.fft.ifft(x * x)) * jnp.arange(6.0, dtype=F32)),
    "rfft_irfft": lambda x: jnp.sum(jnp.fft.irfft(jnp.fft.rfft(x) * jnp.fft.rfft(jnp.sin(x)), n=6) ** 2),
    "abs_rfft_ortho": lambda x: jnp.sum(jnp.abs(jnp.fft.rfft(x, n=9, norm="ortho"))),
    "imag_fft2": lambda x: jnp.sum(jnp.imag(jnp.fft.fft2(x.reshape(2, 3))) ** 2),
    "hfft_ihfft": lambda x: jnp.sum(jnp.fft.hfft(jnp.fft.ihfft(x) * (1 + 0.5j), n=7) * jnp.cos(jnp.arange(7.0, dtype=F32))),
}

# The frequencies and shifts: {spelling, dtype, shape, values}.
x34 = jnp.arange(12, dtype=F32).reshape(3, 4)
FREQ = {
    "fftfreq(8)": jnp.fft.fftfreq(8, dtype=F32),
    "fftfreq(7, 0.5)": jnp.fft.fftfreq(7, 0.5, dtype=F32),
    "fftfreq(1)": jnp.fft.fftfreq(1, dtype=F32),
    "fftfreq<double>(9, 0.1)": jnp.fft.fftfreq(9, 0.1, dtype=F64),
    "fftfreq<int32>(6, 0.25)": jnp.fft.fftfreq(6, 0.25, dtype=jnp.int32),
    "rfftfreq(8)": jnp.fft.rfftfreq(8, dtype=F32),
    "rfftfreq(7, 0.1)": jnp.fft.rfftfreq(7, 0.1, dtype=F32),
    "rfftfreq<int32>(9, 0.5)": jnp.fft.rfftfreq(9, 0.5, dtype=jnp.int32),
    "fftshift(x34)": jnp.fft.fftshift(x34),
    "fftshift(x34, 0)": jnp.fft.fftshift(x34, 0),
    "fftshift(x34, {-1})": jnp.fft.fftshift(x34, (-1,)),
    "ifftshift(x34)": jnp.fft.ifftshift(x34),
    "ifftshift(x34, 1)": jnp.fft.ifftshift(x34, 1),
    "ifftshift(fftshift(x5))": jnp.fft.ifftshift(jnp.fft.fftshift(jnp.arange(5, dtype=F32))),
    "fftshift(x5)": jnp.fft.fftshift(jnp.arange(5, dtype=F32)),
}

out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fft_cases.inc")
with open(out, "w") as f:
    f.write("// Generated by tests/golden/fft_cases.py with JAX %s; do not edit.\n" % jax.__version__)
    f.write("// {function, input kind, input shape, has s, s, has axes, axes, norm, result dtype, result shape, result}\n")
    f.write("#ifdef JAXCC_FFT_VALUE_CASES\n")
    for fn, kind, shape, s, axes, norm in CASES:
        y = call(fn, make(kind, shape), s, axes, norm)
        digits = 17 if y.dtype in (F64, C128) else 9
        f.write('{"%s", \'%s\', %s, %s, %s, %s, %s, "%s", "%s", %s, {%s}},\n' % (
            fn, kind, braces(shape), "true" if s is not None else "false", braces(s),
            "true" if axes is not None else "false", braces(axes), norm or "backward", y.dtype,
            braces(y.shape), numbers(y, digits)))
    f.write("#endif\n#ifdef JAXCC_FFT_GRAD_CASES\n")
    x = make("r", (6,))
    for name, loss in LOSSES.items():
        value, g = jax.value_and_grad(loss)(x)
        f.write('{"%s", %s, {%s}},\n' % (name, "%.9g" % value, numbers(g, 9)))
    f.write("#endif\n#ifdef JAXCC_FFT_FREQ_CASES\n")
    for label, y in FREQ.items():
        f.write('{"%s", "%s", %s, {%s}},\n' % (label, y.dtype, braces(y.shape), numbers(y, 9)))
    f.write("#endif\n")
