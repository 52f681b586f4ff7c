#!/usr/bin/env python3
"""How much of JAX's public API jaxcc has, name by name.

    python3 tools/api_coverage.py [--write docs/api_coverage.md] [--missing]
    python3 tools/api_coverage.py --check docs/api_coverage.md

The first form needs JAX (`pip install jax`): it lists the public functions
of each JAX namespace below (callables that are neither classes nor
modules, as `dir()` shows them), reads the names that jaxcc declares in the
matching C++ namespace (clang's -ast-list of a file that includes the
public headers: functions, function objects and using-declarations), and
prints one line per namespace; --write writes the tables, --missing prints
what is neither built nor left out.

--check needs no JAX: it reads the JAX names and their states back from the
written tables and fails if a name the table calls built is not declared,
or one it calls missing or left out now is. That keeps the page true
(ctest runs it).
"""
import argparse
import pathlib
import re
import shutil
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent

# (JAX module, jaxcc namespace)
NAMESPACES = [
    ("jax.numpy", "jaxcc::numpy"),
    ("jax.numpy.linalg", "jaxcc::numpy::linalg"),
    ("jax.numpy.fft", "jaxcc::numpy::fft"),
    ("jax.lax", "jaxcc::lax"),
    ("jax.nn", "jaxcc::nn"),
    ("jax.scipy.special", "jaxcc::scipy::special"),
    ("jax.random", "jaxcc::random"),
]

# Names that are C++ keywords, and the spelling jaxcc gives them.
RENAMED = {
    "jax.numpy": {"delete": "delete_"},
    "jax.lax": {"switch": "switch_"},
}

# Names with no meaning in C++, and why. Everything else is to be built.
LEFT_OUT = {
    "jax.numpy": {
        "from_dlpack": "DLPack is Python's protocol for sharing buffers between libraries; in C++ an Array adopts or copies a pointer's data",
        "frompyfunc": "wraps a Python function as a ufunc; a C++ lambda over arrays is already one (vmap for batching)",
        "get_printoptions": "numpy's global print state; jaxcc prints arrays exactly as JAX's repr does, with no global options",
        "printoptions": "numpy's global print state (a Python context manager); see get_printoptions",
        "set_printoptions": "numpy's global print state; see get_printoptions",
        "iterable": "asks whether a Python object supports iteration; C++ answers that at compile time (std::ranges::range)",
    },
    "jax.lax": {
        "ConvGeneralDilatedDimensionNumbers": "a type, not a function (jaxcc::lax::ConvDimensionNumbers)",
        "DotDimensionNumbers": "a type, not a function (jaxcc::lax::DotDimensionNumbers)",
        "PrecisionLike": "a Python type annotation",
        "after_all": "tokens order side effects that XLA could reorder; jaxcc runs no effectful operations to order",
        "create_token": "tokens order side effects that XLA could reorder; jaxcc runs no effectful operations to order",
        "dce_sink": "JAX's tracing internals: keeps a value alive through XLA's dead-code elimination",
        "stage": "JAX's tracing internals: lifts a value into the current trace",
        "shape_as_value": "turns a symbolic (shape-polymorphic) dimension into a value; jaxcc's shapes are concrete",
        "pcast": "casts between shard_map's varying-manual-axes types, a type system jaxcc's shard_map does not have",
    },
    "jax.nn": {
        "scaled_matmul": "block-scaled (microscaling) products of fp8/fp4 values; jaxcc has no 8- or 4-bit float element types",
        "scaled_dot_general": "block-scaled (microscaling) products of fp8/fp4 values; jaxcc has no 8- or 4-bit float element types",
        "get_scaled_dot_general_config": "the configuration of scaled_dot_general (left out)",
    },
}


def jax_names():
    import inspect
    import importlib
    import types

    import jax

    names = {}
    for module_name, _ in NAMESPACES:
        module = importlib.import_module(module_name)
        names[module_name] = sorted(
            n
            for n in dir(module)
            if not n.startswith("_")
            and callable(getattr(module, n))
            and not inspect.isclass(getattr(module, n))
            and not isinstance(getattr(module, n), types.ModuleType)
        )
    return jax.__version__, names


def compiler(given):
    for name in ([given] if given else []) + ["clang++-14", "clang++"]:
        if shutil.which(name):
            return name
    sys.exit("api_coverage: needs clang++ (its -ast-list lists the declared names)")


def jaxcc_names(cxx=None, eigen="/usr/include/eigen3"):
    """Every name declared in the namespaces above, qualified."""
    public = ["jaxcc/jaxcc.hpp", "jaxcc/random.hpp"]
    public += [h for h in ("jaxcc/scipy/special.hpp", "jaxcc/fft.hpp") if (ROOT / "include" / h).exists()]
    source = "".join(f"#include <{h}>\n" for h in public)
    listing = subprocess.run(
        [compiler(cxx), "-std=c++20", "-fopenmp", "-fsyntax-only", f"-I{ROOT / 'include'}", "-isystem", eigen,
         "-x", "c++", "-", "-Xclang", "-ast-list"],
        input=source, capture_output=True, text=True)
    if listing.returncode != 0:
        sys.exit("api_coverage: the public headers do not compile:\n" + listing.stderr[-3000:])
    return set(listing.stdout.split())


def states(names, declared):
    """{module: [(name, state, note)]} with state built, left out or missing."""
    table = {}
    for module_name, namespace in NAMESPACES:
        rows = []
        for name in names[module_name]:
            spelled = RENAMED.get(module_name, {}).get(name, name)
            if f"{namespace}::{spelled}" in declared:
                rows.append((name, "built", f"spelled `{spelled}` (a C++ keyword)" if spelled != name else ""))
            elif name in LEFT_OUT.get(module_name, {}):
                rows.append((name, "left out", LEFT_OUT[module_name][name]))
            else:
                rows.append((name, "missing", ""))
        table[module_name] = rows
    return table


def counts(rows):
    built = sum(state == "built" for _, state, _ in rows)
    left_out = sum(state == "left out" for _, state, _ in rows)
    return built, left_out, len(rows)


def summary_line(module_name, rows):
    built, left_out, total = counts(rows)
    meaningful = total - left_out
    return (f"| {module_name} | {built} | {left_out} | {total - built - left_out} | {total} | "
            f"{100 * built / total:.0f}% | {100 * built / meaningful if meaningful else 100:.0f}% |")


def write(path, version, table):
    namespace_of = dict(NAMESPACES)
    lines = [
        "# API coverage: jaxcc beside JAX, name by name",
        "",
        f"Every public function of each JAX {version} namespace (what `dir()` lists that is",
        "callable and neither a class nor a module), and its state in jaxcc's matching",
        "C++ namespace: **built** (declared under JAX's name), **left out** (with the",
        "reason it has no meaning in C++), or **missing**. Written by",
        "`tools/api_coverage.py --write docs/api_coverage.md` (which needs JAX);",
        "ctest's `api_coverage` checks the states against the headers without JAX.",
        "",
        "| JAX namespace | built | left out | missing | JAX functions | built of all | built of those that mean something in C++ |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    lines += [summary_line(m, rows) for m, rows in table.items()]
    for module_name, rows in table.items():
        lines += ["", f"## {module_name} → `{namespace_of[module_name]}`", "", "| function | state | note |", "| --- | --- | --- |"]
        lines += [f"| `{name}` | {state} | {note} |" for name, state, note in rows]
    pathlib.Path(path).write_text("\n".join(lines) + "\n")


ROW = re.compile(r"^\| `([^`]+)` \| (built|left out|missing) \|")
HEADING = re.compile(r"^## (\S+) → ")


def read_table(path):
    table, module_name = {}, None
    for line in pathlib.Path(path).read_text().splitlines():
        if m := HEADING.match(line):
            module_name = m.group(1)
            table[module_name] = []
        elif module_name and (m := ROW.match(line)):
            table[module_name].append((m.group(1), m.group(2), ""))
    return table


def check(path, cxx, eigen):
    table = read_table(path)
    if set(table) != {m for m, _ in NAMESPACES}:
        sys.exit(f"api_coverage: {path} has tables for {sorted(table)}, not for {[m for m, _ in NAMESPACES]}")
    declared = jaxcc_names(cxx, eigen)
    namespace_of = dict(NAMESPACES)
    wrong = []
    for module_name, rows in table.items():
        for name, state, _ in rows:
            spelled = RENAMED.get(module_name, {}).get(name, name)
            is_declared = f"{namespace_of[module_name]}::{spelled}" in declared
            if (state == "built") != is_declared:
                now = "declared" if is_declared else "not declared"
                wrong.append(f"{module_name}.{name}: the table says {state}, but {namespace_of[module_name]}::{spelled} is {now}")
    if wrong:
        print("\n".join(wrong))
        sys.exit(f"api_coverage: {len(wrong)} names of {path} are out of date; rerun "
                 "tools/api_coverage.py --write docs/api_coverage.md")
    print(f"api_coverage: {sum(len(r) for r in table.values())} names of {path} match the headers")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--write", metavar="PATH", help="write the tables (markdown) to PATH")
    parser.add_argument("--missing", action="store_true", help="print the names neither built nor left out")
    parser.add_argument("--check", metavar="PATH", help="check a written table against the headers (no JAX needed)")
    parser.add_argument("--cxx", help="the clang++ to list names with (default: clang++-14 or clang++)")
    parser.add_argument("--eigen", default="/usr/include/eigen3", help="Eigen's include folder")
    args = parser.parse_args()
    if args.check:
        check(args.check, args.cxx, args.eigen)
        return
    version, names = jax_names()
    table = states(names, jaxcc_names(args.cxx, args.eigen))
    for module_name, rows in table.items():
        built, left_out, total = counts(rows)
        print(f"{module_name}: {built} built, {left_out} left out, {total - built - left_out} missing, of {total}")
        if args.missing:
            print("  missing: " + " ".join(n for n, state, _ in rows if state == "missing"))
    if args.write:
        write(args.write, version, table)


if __name__ == "__main__":
    main()
