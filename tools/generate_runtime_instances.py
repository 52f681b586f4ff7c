#!/usr/bin/env python3
"""Writes jaxcc/runtime/runtime_instances.hpp: the rule instantiations that
the precompiled runtime (CMake target jaxcc_runtime) compiles once. The
build writes it into its own tree (cmake/runtime.cmake), where the runtime
and what links it find it, and installs it with the runtime.

They are the ones that jaxcc's own rules reach: the primitives at the real
dtypes they take (the FFT at complex64 and complex128 too), and the
elementwise ops, the special functions included, each as a one-op fused
region at the real dtypes and mixes of array and scalar operands it takes.
The narrow integers (int8, uint8, int16) and the 16-bit floats (bfloat16,
float16) are left out: few files use them, they would nearly double the
library's build, and a file that uses them compiles their instantiations
itself. So are the complex types beside the FFT, and eig, lax.clamp and
lax.bitcast_convert_type: the complex decompositions with eig took the
linalg group's source from 108 to 380 s (g++ 12, -O3) to save a file that
uses them about 114 s (docs/compile_cost.md). A user's own fused
regions of several ops are not among them: they are compiled where they are
written, and their rules reach these.

    python3 tools/generate_runtime_instances.py OUTPUT_HEADER
"""
import itertools
import pathlib
import sys

FLOATS = ["float", "double"]
COMPLEX = ["std::complex<float>", "std::complex<double>"]
INDICES = ["std::int32_t", "std::int64_t"]
INTS = INDICES + ["std::uint32_t"]
NUMERIC = FLOATS + INTS
ALL = NUMERIC + ["bool"]

instances = []  # (group, template arguments of graph::PrimitiveOf and graph::Binder)
regions = []  # (group, the expression type of one fusion::Region)
op_rules = []  # (group, template arguments of fusion::op_row and fusion::OpRules)


def primitive(group, name, *operands):
    instances.append((group, ", ".join([f"primitives::{name}", *operands])))


def region(group, op, *leaves):
    """A one-op fused region: op applied to leaves, each ('A', T) or ('S', T)."""
    nodes = ", ".join(f"Array<{t}>" if kind == "A" else f"fusion::ScalarLeaf<{t}>" for kind, t in leaves)
    regions.append((group, f"fusion::Expr<primitives::{op}, {nodes}>"))
    rule = ", ".join([f"primitives::{op}", *(t for _, t in leaves)])
    if (group, rule) not in op_rules:
        op_rules.append((group, rule))


def binary_kinds(t, u=None):
    u = u or t
    return [(("A", t), ("A", u)), (("A", t), ("S", u)), (("S", t), ("A", u))]


# --- primitives ---------------------------------------------------------------
# The dtype-generic ones: once, for every dtype.
for name in ["transpose_p", "broadcast_in_dim_p", "reshape_p", "squeeze_p", "float_convert_p"]:
    primitive("layout", name, "AnyArray")
for t in ALL:
    for name in ["slice_p", "device_part_p",
                 "reduce_sum_p", "reduce_max_p", "reduce_min_p", "argmax_p", "argmin_p"]:
        primitive("layout", name, f"Array<{t}>")
    for name in ["psum_p", "pmax_p", "pmin_p", "all_gather_p", "psum_scatter_p", "ppermute_p", "all_to_all_p",
                 "sharding_constraint_p"]:
        primitive("collectives", name, f"Array<{t}>")
    primitive("layout", "concatenate_p", f"std::vector<Array<{t}>>")
    primitive("layout", "pad_p", f"Array<{t}>", f"Array<{t}>")
    primitive("contraction", "dot_general_p", f"Array<{t}>", f"Array<{t}>")
    primitive("indexing", "scatter_p", f"Array<{t}>", f"Array<{t}>")
    primitive("indexing", "scatter_apply_p", f"Array<{t}>", "Array<std::int32_t>", f"Array<{t}>")
    for i in INDICES:
        primitive("indexing", "gather_p", f"Array<{t}>", f"Array<{i}>")
        primitive("indexing", "scatter_add_p", f"Array<{t}>", f"Array<{i}>", f"Array<{t}>")
        primitive("indexing", "dynamic_slice_p", f"Array<{t}>", f"std::vector<Array<{i}>>")
        primitive("indexing", "dynamic_update_slice_p", f"Array<{t}>", f"Array<{t}>", f"std::vector<Array<{i}>>")
for t in NUMERIC:
    primitive("layout", "reduce_prod_p", f"Array<{t}>")
    for name in ["cumsum_p", "cumprod_p", "cummax_p", "cummin_p"]:
        primitive("sorting", name, f"Array<{t}>")
for t in ALL:
    for name in ["sort_p", "argsort_p"]:
        primitive("sorting", name, f"Array<{t}>")
    primitive("sorting", "searchsorted_p", f"Array<{t}>", f"Array<{t}>")
for t in FLOATS:
    primitive("layout", "stop_gradient_p", f"Array<{t}>")
    for name in ["cholesky_p", "lu_p", "eigh_p", "qr_p", "svd_p"]:
        primitive("linalg", name, f"Array<{t}>")
    primitive("linalg", "triangular_solve_p", f"Array<{t}>", f"Array<{t}>")
for t in FLOATS:
    primitive("contraction", "conv_general_dilated_p", f"Array<{t}>", f"Array<{t}>")
    for monoid in ["WindowMax", "WindowMin"]:
        primitive("layout", f"select_and_gather_add_p<primitives::{monoid}>", f"Array<{t}>", f"Array<{t}>")
        primitive("layout", f"select_and_scatter_add_p<primitives::{monoid}>", f"Array<{t}>", f"Array<{t}>")
for t in NUMERIC:
    for monoid in ["WindowSum", "WindowMax", "WindowMin"]:
        primitive("layout", f"reduce_window_p<primitives::{monoid}>", f"Array<{t}>")
primitive("layout", "reduce_or_p", "Array<bool>")
primitive("layout", "reduce_and_p", "Array<bool>")
primitive("collectives", "axis_index_p")
for u in ["std::uint32_t", "float", "double"]:
    primitive("random", f"random_bits_p<{u}>", "Array<std::uint32_t>")
primitive("random", "random_split_p", "Array<std::uint32_t>")
primitive("random", "random_fold_in_p", "Array<std::uint32_t>", "Array<std::uint32_t>")
primitive("random", "random_permutation_p", "Array<std::uint32_t>")
for t in FLOATS:
    primitive("random", f"random_gamma_p<{t}>", "Array<std::uint32_t>", f"Array<{t}>")
# The FFT: complex in and out, real in (rfft) and real out (irfft).
for t in COMPLEX:
    for kind in ["FFT", "IFFT", "IRFFT"]:
        primitive("fft", f"fft_p<primitives::FftKind::{kind}>", f"Array<{t}>")
for t in FLOATS:
    primitive("fft", "fft_p<primitives::FftKind::RFFT>", f"Array<{t}>")

# --- elementwise ops as one-op regions ------------------------------------------
for t in FLOATS:
    for op in ["sin_p", "cos_p", "tan_p", "tanh_p", "exp_p", "expm1_p", "log_p", "log1p_p", "sqrt_p", "logistic_p",
               "atan_p", "cbrt_p", "floor_p", "round_p", "erf_p", "erfc_p", "erf_inv_p", "is_finite_p", "lgamma_p",
               "digamma_p", "sinh_p", "cosh_p", "asin_p", "acos_p", "asinh_p", "acosh_p", "atanh_p", "exp2_p",
               "rsqrt_p", "round_away_p"]:
        region("unary", op, ("A", t))
    region("unary", "polygamma_p", ("S", t), ("A", t))
    # lax's and jax.scipy.special's special functions (scalar loops).
    for op in ["bessel_i0e_p", "bessel_i1e_p", "xlogx_p", "expi_p", "erfcx_p", "dawsn_p", "sici_si_p", "sici_ci_p"]:
        region("special", op, ("A", t))
    region("special", "log_ndtr_p", ("A", t), ("S", t))  # x and the series' order
    for kinds in binary_kinds(t):
        for op in ["igamma_p", "igammac_p", "igamma_grad_a_p", "random_gamma_grad_p", "zeta_p", "xlogy_p",
                   "xlog1py_p", "expn_p", "owens_t_p"]:
            region("special", op, *kinds)
    region("special", "regularized_incomplete_beta_p", ("A", t), ("A", t), ("A", t))
    for kinds in binary_kinds(t):
        for op in ["div_p", "atan2_p", "logaddexp_p", "logaddexp2_p", "nextafter_p"]:
            region("arithmetic", op, *kinds)
    for c in "AS":  # a * b + c with a an array (jax.random.uniform's scale and shift)
        for b in "AS":
            region("arithmetic", "fma_p", ("A", t), (b, t), (c, t))
for t in NUMERIC:
    for op in ["neg_p", "abs_p", "sign_p", "square_p"]:
        region("unary", op, ("A", t))
    for op in ["add_p", "sub_p", "mul_p", "max_p", "min_p", "pow_p", "rem_p"]:
        for kinds in binary_kinds(t):
            region("arithmetic", op, *kinds)
    for op in ["eq_p", "ne_p", "lt_p", "le_p", "gt_p", "ge_p"]:
        for kinds in binary_kinds(t):
            region("compare", op, *kinds)
for t in INTS + ["bool"]:
    for op in ["and_p", "or_p", "xor_p"]:
        for kinds in binary_kinds(t):
            region("compare", op, *kinds)
    region("unary", "not_p", ("A", t))
for t in INTS:
    for op in ["shift_left_p", "shift_right_logical_p", "shift_right_arithmetic_p", "mulhi_p"]:
        for kinds in binary_kinds(t):
            region("arithmetic", op, *kinds)
    for op in ["population_count_p", "clz_p"]:
        region("unary", op, ("A", t))
for op in ["add_p", "mul_p", "eq_p", "ne_p"]:
    for kinds in binary_kinds("bool"):
        region("compare", op, *kinds)
for t in ALL:
    for x, y in itertools.product("AS", repeat=2):
        region("select", "select_p", ("A", "bool"), (x, t), (y, t))
    for u in ALL:
        if u != t:
            region("unary", f"convert_p<{u}>", ("A", t))

groups = sorted({g for g, _ in instances + regions + op_rules})
lines = [
    "// Generated by tools/generate_runtime_instances.py: do not edit.",
    "//",
    "// The rule instantiations that the precompiled runtime (CMake target",
    "// jaxcc_runtime) compiles once: the primitives at the dtypes it holds, and",
    "// the elementwise ops as one-op fused regions at those dtypes and mixes of",
    "// array and scalar operands (tools/generate_runtime_instances.py says which",
    "// are left out, and why). Each entry of",
    "// JAXCC_RUNTIME_INSTANCES_<GROUP> is the template arguments of one",
    "// graph::PrimitiveOf, in namespace jaxcc; each of JAXCC_RUNTIME_REGIONS_<GROUP>",
    "// the expression of one fusion::Region; each of JAXCC_RUNTIME_OP_RULES_<GROUP>",
    "// those of one op's row kernel and tangent builder (fusion::op_row,",
    "// fusion::OpRules<...>::tangent), which programs of any region reach;",
    "// each group is one source file of the library.",
    "#pragma once",
    "",
    "// clang-format off",
]
for g in groups:
    entries = [args for group, args in instances if group == g]
    lines.append(f"#define JAXCC_RUNTIME_INSTANCES_{g.upper()}(X) \\")
    lines += [f"  X({args}) \\" for args in entries]
    lines.append("")
    lines.append(f"#define JAXCC_RUNTIME_REGIONS_{g.upper()}(X) \\")
    lines += [f"  X({expr}) \\" for group, expr in regions if group == g]
    lines.append("")
    lines.append(f"#define JAXCC_RUNTIME_OP_RULES_{g.upper()}(X) \\")
    lines += [f"  X({args}) \\" for group, args in op_rules if group == g]
    lines.append("")
lines.append("#define JAXCC_RUNTIME_GROUPS " + " ".join(g for g in groups))
lines.append("#define JAXCC_RUNTIME_INSTANCES(X) \\")
lines += [f"  JAXCC_RUNTIME_INSTANCES_{g.upper()}(X) \\" for g in groups]
lines.append("")
lines.append("#define JAXCC_RUNTIME_REGIONS(X) \\")
lines += [f"  JAXCC_RUNTIME_REGIONS_{g.upper()}(X) \\" for g in groups]
lines.append("")
lines.append("#define JAXCC_RUNTIME_OP_RULES(X) \\")
lines += [f"  JAXCC_RUNTIME_OP_RULES_{g.upper()}(X) \\" for g in groups]
lines.append("")
lines.append("// clang-format on")
if len(sys.argv) != 2:
    sys.exit("usage: generate_runtime_instances.py OUTPUT_HEADER")
out = pathlib.Path(sys.argv[1])
out.parent.mkdir(parents=True, exist_ok=True)
text = "\n".join(lines) + "\n"
if not out.exists() or out.read_text() != text:  # an unchanged list keeps its timestamp: nothing rebuilds
    out.write_text(text)
print(f"{out}: {len(instances)} instantiations, {len(regions)} regions and {len(op_rules)} ops' rules in {len(groups)} groups")
