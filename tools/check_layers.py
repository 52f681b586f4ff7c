#!/usr/bin/env python3
"""The layering of include/jaxcc: each folder includes only its own layer and
the layers below it (docs/architecture.md, "Layers").

    python3 tools/check_layers.py [--include DIR] [--figures]

Fails, naming each one, on an include that goes up a layer, on a
file-level include cycle and on an include below a file's first declaration. Every header's includes are read, in every
folder; with every direct edge going down or sideways, no chain of them goes
up. --figures prints the counts (upward folder edges, file cycles, late
includes) without failing.
"""
import argparse
import collections
import pathlib
import re
import sys

# Bottom to top; folders on one line share a layer. The top-level headers
# (jaxcc.hpp, random.hpp, eigen.hpp, ...) are "(top)".
LAYERS = [
    ["core"],  # Array, Shape, dtypes, buffers, errors, the tracer's handle, strided views
    ["kernels"],  # loops over memory: reductions, 16-bit batches, special functions
    ["graph"],  # traced programs, interpreters, jit's plan, the primitive interface
    ["devices"],  # devices as thread groups, meshes, SPMD runs with their collectives' transport
    ["fusion"],  # the elementwise ops, fused regions and their programs
    ["primitives"],  # every other primitive with its rules
    ["tree"],  # pytrees
    ["io"],  # files: .npy, .npz, .safetensors, pytree checkpoints
    ["tracing"],  # a C++ function over pytrees traced into a closed program; reverse mode's value operations
    ["lax"],  # jax.lax
    ["numpy", "nn", "scipy"],  # jax.numpy, jax.nn, jax.scipy
    ["random"],  # jax.random
    ["sharding"],  # meshes, shardings, the partitioner, eager sharded ops
    ["transforms"],  # grad, vmap, jit, shard_map, ...
    ["multihost"],  # arrays made of several processes' data (jax.make_array_from_*, multihost_utils)
    ["optim"],  # optax's gradient transformations, optimizers and schedules (jaxcc/optim.hpp)
    ["testing", "runtime", "(top)"],  # test helpers, the precompiled runtime, umbrella headers
]


INCLUDE = re.compile(r'^\s*#\s*include\s+[<"](jaxcc/[^">]+)[">]')


def folder(header):
    parts = header.split("/")
    return parts[1] if len(parts) > 2 else "(top)"


def read_headers(include_dir):
    """{header: [(line number, included header, below the file's top)]}"""
    headers = {}
    for path in sorted(include_dir.glob("jaxcc/**/*.hpp")):
        name = path.relative_to(include_dir).as_posix()
        includes, declared = [], False
        in_comment = False
        for number, line in enumerate(path.read_text().splitlines(), 1):
            stripped = line.strip()
            if in_comment:
                in_comment = "*/" not in stripped
                continue
            if stripped.startswith("/*"):
                in_comment = "*/" not in stripped
                continue
            match = INCLUDE.match(line)
            if match:
                includes.append((number, match.group(1), declared))
            elif stripped and not stripped.startswith(("#", "//")):
                declared = True
        headers[name] = includes
    return headers


def cycles(headers):
    """The strongly connected components of more than one header."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for _, w, _ in headers.get(v, ()):
            if w not in headers:
                continue
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.add(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(frozenset(component))

    sys.setrecursionlimit(10000)
    for v in headers:
        if v not in index:
            visit(v)
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--include", type=pathlib.Path,
                        default=pathlib.Path(__file__).resolve().parent.parent / "include")
    parser.add_argument("--figures", action="store_true", help="print the counts, do not fail")
    args = parser.parse_args()

    rank = {f: i for i, layer in enumerate(LAYERS) for f in layer}
    headers = read_headers(args.include)
    problems = []
    unknown = sorted({folder(h) for h in headers} - rank.keys())
    problems += [f"folder {f}/ is in no layer: add it to LAYERS (tools/check_layers.py) and to docs/architecture.md"
                 for f in unknown]

    upward, late, folder_edges = set(), set(), set()
    for header, includes in headers.items():
        for number, target, below_top in includes:
            if below_top:
                late.add((header, target))
            a, b = folder(header), folder(target)
            if a in rank and b in rank and rank[b] > rank[a]:
                upward.add((header, target))
                folder_edges.add((a, b))
                problems.append(f"{header}:{number} includes {target}: {b}/ is above {a}/")
            if below_top:
                problems.append(f"{header}:{number} includes {target} below the file's top")
    found_cycles = cycles(headers)
    problems += [f"include cycle of {len(c)} headers: {', '.join(sorted(c))}" for c in found_cycles]

    if args.figures:
        print(f"headers: {len(headers)}")
        print(f"folder-level edges that go up: {len(folder_edges)} ({len(upward)} includes)")
        print(f"file-level include cycles: {len(found_cycles)}")
        print(f"includes below a file's top: {len(late)}")
        return 0
    if problems:
        print("\n".join(problems))
        return 1
    print(f"{len(headers)} headers in {len(LAYERS)} layers: no upward include, no include cycle, "
          "no include below a file's top")
    return 0


if __name__ == "__main__":
    sys.exit(main())
