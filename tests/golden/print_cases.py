#!/usr/bin/env python3
"""Golden strings for tests/test_print.cpp: what JAX's `repr` prints.

Each case is built with numpy and formatted the way jax.Array.__repr__ formats
it (jax/_src/array.py): `Array(` + numpy.array2string(x, prefix='Array(',
suffix=',', separator=', ') + `, dtype=...)`, or `Array([], shape=..., ...)`
for an empty array, with numpy's default print options (linewidth 75,
threshold 1000, edgeitems 3, precision 8, floatmode 'maxprec').

Run with the numpy JAX installs (numpy 2; JAX 0.10 requires it):
    python3 tests/golden/print_cases.py
It rewrites tests/golden/print_cases.inc beside this script.
"""

import math
import os

import numpy as np

PREFIX = 'Array('


def jax_repr(x):
    """jax.Array.__repr__ for a fully addressable, not weakly typed array."""
    dtype_str = f'dtype={x.dtype.name})'
    line_width = np.get_printoptions()['linewidth']
    if x.size == 0:
        s = f'[], shape={x.shape}'
    else:
        s = np.array2string(x, prefix=PREFIX, suffix=',', separator=', ',
                            max_line_width=line_width)
    last_line_len = len(s) - s.rfind('\n') + 1
    sep = ' '
    if last_line_len + len(dtype_str) + 1 > line_width:
        sep = ' ' * len(PREFIX)
    return f'{PREFIX}{s},{sep}{dtype_str}'


def literal(v, dtype):
    """A C++ literal that holds exactly `v` in the case's element type."""
    if dtype in (np.complex64, np.complex128):
        part = np.float32 if dtype == np.complex64 else np.float64
        return '{' + literal(v.real, part) + ', ' + literal(v.imag, part) + '}'
    if dtype == np.bool_:
        return 'true' if v else 'false'
    if dtype in (np.int32, np.int64):
        v = int(v)
        if dtype == np.int64 and v == -2**63:
            return 'INT64_MIN'
        if dtype == np.int32 and v == -2**31:
            return 'INT32_MIN'
        return f'{v}LL' if dtype == np.int64 else str(v)
    if math.isnan(v):
        return 'NAN'
    if math.isinf(v):
        return 'INFINITY' if v > 0 else '-INFINITY'
    # Shortest round-trip text of the value in its own type.
    text = str(np.float32(v)) if dtype == np.float32 else repr(float(v))
    if not any(c in text for c in '.e'):
        text += '.0'
    return text + ('f' if dtype == np.float32 else '')


def cpp_string(s):
    return '"' + s.replace('\\', '\\\\').replace('"', '\\"').replace('\n', '\\n') + '"'


def cases():
    f32, f64, i32, i64, b = np.float32, np.float64, np.int32, np.int64, np.bool_
    rng = np.random.default_rng(20240601)
    out = []

    def add(name, x):
        out.append((name, np.asarray(x)))

    # The API contract's example and the basic dtypes.
    add('design_example', np.array([[3.5, 6.5], [2.5, 5.5], [6.5, 11.5]], f32))
    add('int32_row', np.array([1, 2, 3], i32))
    add('bool_row', np.array([True, False], b))

    # Ranks 0..4, one-element arrays.
    for dt in (f32, f64, i32, i64, b):
        name = np.dtype(dt).name
        add(f'{name}_rank0', np.array(1, dt))
        add(f'{name}_one_element', np.array([1], dt))
        add(f'{name}_1x1x1', np.ones((1, 1, 1), dt))
        add(f'{name}_rank4', (np.arange(2 * 3 * 2 * 2) % 5 > 1).astype(dt).reshape(2, 3, 2, 2)
            if dt == b else np.arange(2 * 3 * 2 * 2).astype(dt).reshape(2, 3, 2, 2) - 7)
        add(f'{name}_empty_0', np.zeros((0,), dt))
        add(f'{name}_empty_0x3', np.zeros((0, 3), dt))
        add(f'{name}_empty_2x0x3', np.zeros((2, 0, 3), dt))
    add('float32_rank0_fraction', np.array(-2.75, f32))
    add('float64_rank0_tiny', np.array(1e-10, f64))
    add('float32_rank0_nan', np.array(np.nan, f32))
    add('float64_rank0_neg_inf', np.array(-np.inf, f64))
    add('float32_rank0_neg_zero', np.array(-0.0, f32))
    add('int64_rank0_negative', np.array(-123456789012, i64))
    add('bool_rank0_false', np.array(False, b))
    add('float32_rank3', np.arange(24, dtype=f32).reshape(2, 3, 4) / 4 - 2)
    add('float64_rank4_mixed', (np.arange(2 * 2 * 2 * 3, dtype=f64) - 11.5).reshape(2, 2, 2, 3) * 0.5)
    add('float32_column', np.array([[1.5], [-2.25], [3.0]], f32))

    # Values: negatives, tiny, huge, mixed magnitudes, non-finite, -0.0.
    for dt in (f32, f64):
        name = np.dtype(dt).name
        add(f'{name}_whole', np.array([1, 2, 3], dt))
        add(f'{name}_negative', np.array([-1.5, 2.25, -3.125], dt))
        add(f'{name}_tenth', np.array([0.1, 0.2, 0.3], dt))
        add(f'{name}_third', np.array([1 / 3, 2 / 3, 1.0], dt))
        add(f'{name}_pi_e', np.array([np.pi, np.e, -np.pi], dt))
        add(f'{name}_tiny', np.array([1e-10, 2e-10], dt))
        add(f'{name}_tiny_and_one', np.array([1e-10, 1.0], dt))
        add(f'{name}_huge', np.array([1e20, -3e20, 1.0], dt))
        add(f'{name}_huge_alone', np.array([1e20], dt))
        add(f'{name}_ratio_over_1000', np.array([1.0, 1001.0], dt))
        add(f'{name}_ratio_1000', np.array([1.0, 1000.0], dt))
        add(f'{name}_just_below_1e8', np.array([99999990.0, 1.5e7], dt))
        add(f'{name}_1e8', np.array([1e8, 2e8], dt))
        add(f'{name}_1e-4', np.array([1e-4, 1e-3], dt))
        add(f'{name}_nan_inf', np.array([np.nan, np.inf, -np.inf, 1.5], dt))
        add(f'{name}_only_nan', np.array([np.nan, np.nan], dt))
        add(f'{name}_only_inf', np.array([np.inf, np.nan], dt))
        add(f'{name}_only_neg_inf', np.array([-np.inf, np.nan, np.inf], dt))
        add(f'{name}_nan_with_exp', np.array([np.nan, 1e-7, -np.inf], dt))
        add(f'{name}_nan_long_fraction', np.array([np.nan, 0.125, -np.inf], dt))
        add(f'{name}_neg_zero', np.array([-0.0, 0.0, 1.0], dt))
        add(f'{name}_neg_zero_exp', np.array([-0.0, 1e-9, 1.0], dt))
        add(f'{name}_zeros', np.zeros((2, 2), dt))
        add(f'{name}_many_digits', np.array([1.23456789012, 0.5], dt))
        add(f'{name}_rounds_up', np.array([0.999999999, 1.5], dt))
        add(f'{name}_big_int_part', np.array([12345678.5, -0.25], dt))
        add(f'{name}_exp_mixed', np.array([1.5e-5, -2.0e3, 3.25e10, 0.0], dt))
        add(f'{name}_exp_precision_pad', np.array([1e20, 1.23456e-3], dt))
        add(f'{name}_exp_3_digits', np.array([1e-30, 1e30], dt) if dt == f32
            else np.array([1e-300, 5e100, -2.5], dt))
        add(f'{name}_max', np.array([np.finfo(dt).max, np.finfo(dt).tiny], dt))
        add(f'{name}_eps', np.array([1 + np.finfo(dt).eps, 1.0], dt))
    # float32 integers past 2**24: Dragon4 prints every integer digit exactly
    # (99999992.) where the shortest round-trip digits are 9999999.
    add('float32_integers_past_2_24', np.array([99999992., 16777217., 33554436., 12345679.], f32))
    add('float32_denormal', np.array([1e-45, 1e-40], f32))
    add('float64_denormal', np.array([5e-324, 1e-310], f64))
    add('float64_tenth_plus_fifth', np.array([0.1 + 0.2, 0.3], f64))
    add('float32_tenth_plus_fifth', np.array([0.1, 0.2], f32) + np.float32(0.2))
    add('float64_1e23', np.array([1e23, 1.0], f64))
    add('int32_extremes', np.array([np.iinfo(i32).min, 0, np.iinfo(i32).max], i32))
    add('int64_extremes', np.array([np.iinfo(i64).min, 0, np.iinfo(i64).max], i64))
    add('int32_negative_widths', np.array([[-5, 10], [100, -1000]], i32))
    add('int64_matrix', np.arange(-6, 6, dtype=i64).reshape(3, 4) * 1000003)
    add('bool_matrix', np.array([[True, False, True], [False, False, True]], b))

    # Long rows that wrap, at several nesting depths.
    add('float32_wrap', np.linspace(0, 1, 30, dtype=f32))
    add('float64_wrap', np.linspace(-1, 1, 41, dtype=f64))
    add('float64_wrap_exp', np.geomspace(1e-6, 1e6, 20, dtype=f64))
    add('int32_wrap', np.arange(100, dtype=i32) * 37 - 1000)
    add('int64_wrap_3d', (np.arange(2 * 2 * 30, dtype=i64) * 7919).reshape(2, 2, 30))
    add('bool_wrap', np.arange(40) % 3 == 0)
    add('float32_wrap_2d', np.linspace(-5, 5, 3 * 25, dtype=f32).reshape(3, 25))
    add('float32_wrap_nan', np.where(np.arange(26) % 5 == 0, np.nan, np.arange(26) / 8).astype(f32))
    # Widths where the last element or the dtype just fits or just overflows
    # the line, and where the dtype moves to a far separator.
    for n in range(10, 16):
        add(f'int32_fill_{n}', np.arange(n, dtype=i32) * 1000 + 10000)
    for n in range(5, 10):
        add(f'float64_fill_{n}', np.full(n, -1.25, f64) + np.arange(n))
    for n in (11, 12, 13, 14):
        add(f'bool_fill_{n}', np.ones(n, b))

    # Summarized past 1000 elements (edgeitems 3).
    add('int32_arange_2000', np.arange(2000, dtype=i32))
    add('float32_arange_2000', np.arange(2000, dtype=f32))
    add('float32_40x40', (np.arange(1600, dtype=f32) / 7).reshape(40, 40))
    add('int64_3x400', np.arange(1200, dtype=i64).reshape(3, 400) - 600)
    add('float64_3x400', np.linspace(-1, 1, 1200, dtype=f64).reshape(3, 400))
    add('float64_1001', np.arange(1001, dtype=f64) * 0.5)
    add('int32_1000_not_summarized', np.arange(1000, dtype=i32).reshape(10, 100))
    add('bool_11x11x11', (np.arange(1331) % 7 == 0).reshape(11, 11, 11))
    add('float32_summary_width_from_edges', np.concatenate(
        [np.ones(3), np.full(1000, 1e9), np.ones(3)]).astype(f32))
    add('float64_2x3x200', rng.standard_normal((2, 3, 200)))
    add('int32_7x7x7x7', np.arange(7 ** 4, dtype=i32).reshape(7, 7, 7, 7))

    # Sources of the non-contiguous views the test prints (values as x.T()).
    add('int32_40x50_transposed', np.arange(2000, dtype=i32).reshape(40, 50).T)
    add('float64_2x3x4_transposed', (np.arange(24, dtype=f64) / 8 - 1).reshape(2, 3, 4).T)

    # Random values: shortest digits and alignment across many magnitudes.
    for dt in (f32, f64):
        name = np.dtype(dt).name
        add(f'{name}_normal_4x5', rng.standard_normal((4, 5)).astype(dt))
        add(f'{name}_uniform_3x7', rng.uniform(-100, 100, (3, 7)).astype(dt))
        for k in range(40):
            exps = rng.uniform(-12, 12, 3)
            vals = rng.choice([-1, 1], 3) * rng.uniform(1, 10, 3) * 10.0 ** np.floor(exps)
            add(f'{name}_random_magnitudes_{k}', vals.astype(dt))
        for k in range(40):
            add(f'{name}_random_scale_{k}', (rng.standard_normal(4) * 10.0 ** rng.integers(-4, 8)).astype(dt))
        bits = rng.integers(0, 2 ** 32 if dt == f32 else 2 ** 63, 60, dtype=np.uint64)
        raw = bits.astype(np.uint32).view(f32) if dt == f32 else bits.view(f64)
        raw = raw[np.isfinite(raw)]
        for k in range(len(raw)):
            add(f'{name}_random_bits_{k}', np.array([raw[k]], dt))

    # Complex numbers: each part in a float layout of its own, the
    # imaginary one signed with '+', and 'j' before its padding.
    c64, c128 = np.complex64, np.complex128
    for dt in (c64, c128):
        name = np.dtype(dt).name
        add(f'{name}_rank0', np.array(1 + 2j, dt))
        add(f'{name}_row', np.array([1 + 2j, 3 - 4j], dt))
        add(f'{name}_mixed_notation', np.array([1.5 + 2j, -3 - 4.25j, 0j, 1e-5j], dt))
        add(f'{name}_non_finite', np.array([complex(np.nan, 0), complex(1, np.inf), complex(-np.inf, -2)], dt))
        add(f'{name}_large_real', np.array([1e9 + 1j, 2 + 3j], dt))
        add(f'{name}_neg_zero_imag', np.array([complex(1, -0.0), complex(-0.0, 0.5)], dt))
        add(f'{name}_zeros_2x2', np.zeros((2, 2), dt))
        add(f'{name}_empty', np.zeros((0, 2), dt))
        add(f'{name}_wrap', (np.linspace(-1, 1, 12) + 1j * np.linspace(3, -3, 12)).astype(dt))
        add(f'{name}_random_2x3', (rng.standard_normal((2, 3)) + 1j * rng.standard_normal((2, 3)) * 100).astype(dt))
        add(f'{name}_arange_1200', (np.arange(1200) * (1 - 0.5j)).astype(dt))
    return out


def main():
    type_of = {'float32': 'float', 'float64': 'double', 'int32': 'std::int32_t',
               'int64': 'std::int64_t', 'bool': 'bool', 'complex64': 'std::complex<float>',
               'complex128': 'std::complex<double>'}
    grouped = {name: [] for name in type_of}
    for name, x in cases():
        grouped[x.dtype.name].append((name, x))
    lines = ['// Generated by tests/golden/print_cases.py with numpy '
             f'{np.__version__}; do not edit.',
             '// Each case: name, shape, row-major values, and what JAX\'s repr prints.']
    for dtype_name, items in grouped.items():
        lines.append(f'inline std::vector<PrintCase<{type_of[dtype_name]}>> const '
                     f'{dtype_name}_print_cases = {{')
        for name, x in items:
            shape = ', '.join(str(d) for d in x.shape)
            values = ', '.join(literal(v, x.dtype.type) for v in x.ravel())
            lines.append(f'    {{{cpp_string(name)}, {{{shape}}}, {{{values}}},')
            lines.append(f'     {cpp_string(jax_repr(x))}}},')
        lines.append('};')
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'print_cases.inc')
    with open(path, 'w') as f:
        f.write('\n'.join(lines) + '\n')


if __name__ == '__main__':
    main()
