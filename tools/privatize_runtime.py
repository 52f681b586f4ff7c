#!/usr/bin/env python3
"""Link the precompiled runtime's objects into one whose code is its own.

    privatize_runtime.py --ld LD --nm NM --objcopy OBJCOPY --output OUT.o INPUT.o...

The runtime's objects hold, beside the instantiations the headers declare
extern (what a file linking the runtime calls), a copy of every inline
function those use: Eigen's, the standard library's, jaxcc's own kernels,
compiled for the runtime's -march. Left global, the linker may pick the
runtime's copy of such a function for the rest of the program, or the
program's for the runtime, and code compiled for two targets then shares
what it must not: Eigen's aligned allocation, for one, frees with the rules
of the -march it was compiled for.

So the inputs are linked into one relocatable object (`ld -r
--force-group-allocation`, which dissolves the COMDAT groups and keeps one
copy of each member), and every weak function in it that is not one of the
runtime's instantiations becomes local (objcopy): the runtime then calls
only its own copies, and the program its own. Data stays global, weak data
included (inline variables, the static locals of inline functions, vtables,
type information), so that state the headers define is one object for the
whole program, whichever side touches it.

The runtime's instantiations, kept global (cmake/runtime.cmake generates
them, runtime/machinery.hpp and the testing checks list the rest):
  - every member of graph::PrimitiveOf<P>, graph::Binder<P> and fusion::Region<...>;
  - fusion::op_row<...> and fusion::OpRules<...>::tangent;
  - graph::install_value_ops<Ops>;
  - jaxcc::to_string<T>, printing an array;
  - the type-erased machinery: every jaxcc template instantiated at <void>.
"""

import argparse
import re
import subprocess
import sys
from pathlib import Path

EXPORTED_TEMPLATES = {"PrimitiveOf", "Binder", "Region", "op_row", "install_value_ops", "to_string"}
SOURCE_NAME = re.compile(r"(\d+)")


def jaxcc_template(encoding):
    """For a mangled nested name in namespace jaxcc (`N...E`, past `_Z`):
    the source names up to the first template argument list, and what
    follows that list's opening `I`; None for any other name."""
    if not encoding.startswith("N"):
        return None
    i = 1
    while i < len(encoding) and encoding[i] in "rVKRO":  # cv- and ref-qualifiers
        i += 1
    names = []
    while i < len(encoding):
        match = SOURCE_NAME.match(encoding, i)
        if not match:
            break
        length = int(match.group(1))
        start = match.end()
        names.append(encoding[start:start + length])
        i = start + length
    if not names or names[0] != "jaxcc" or i >= len(encoding) or encoding[i] != "I":
        return None
    return names, encoding[i + 1:]


def exported(symbol):
    """Whether a weak function of the runtime is one of its instantiations."""
    if not symbol.startswith("_Z"):
        return False
    encoding = symbol[2:]
    # A thunk (_ZThn<offset>_, _ZTv<offset>_<offset>_) adjusts `this` for
    # the function it names: exported with it.
    thunk = re.match(r"T(?:hn?\d+_|vn?\d+_n?\d+_)", encoding)
    if thunk:
        encoding = encoding[thunk.end():]
    found = jaxcc_template(encoding)
    if found is None:
        return False
    names, arguments = found
    template = names[-1]
    if template == "OpRules":
        return "7tangent" in arguments
    return template in EXPORTED_TEMPLATES or arguments.startswith("vE")


def run(command):
    subprocess.run(command, check=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ld", required=True)
    parser.add_argument("--nm", required=True)
    parser.add_argument("--objcopy", required=True)
    parser.add_argument("--output", required=True, type=Path)
    parser.add_argument("inputs", nargs="+")
    args = parser.parse_args()

    linked = args.output.with_suffix(".linked.o")
    run([args.ld, "-r", "--force-group-allocation", "-o", str(linked), *args.inputs])
    # name|value|class|type|size|line|section: a weak function is class W of
    # type FUNC (class W also holds weak thread-locals, type TLS: data).
    listing = subprocess.run([args.nm, "--format=sysv", "--defined-only", str(linked)], check=True,
                             capture_output=True, text=True).stdout
    symbols = [[field.strip() for field in line.split("|")[:4]] for line in listing.splitlines() if line.count("|") >= 6]
    weak_functions = [name for name, _, kind, type_ in symbols if kind == "W" and type_ == "FUNC"]
    unique_data = [name for name, _, kind, _ in symbols if kind == "u"]
    private = [name for name in weak_functions if not exported(name)]
    if len(private) == len(weak_functions):
        sys.exit(f"privatize_runtime.py: none of the {len(weak_functions)} weak functions of {linked} "
                 "is one of the runtime's instantiations: is the list of exported templates out of date?")
    localize = args.output.with_suffix(".private.txt")
    localize.write_text("".join(name + "\n" for name in private))
    options = [f"--localize-symbols={localize}"]
    if unique_data:  # g++'s STB_GNU_UNIQUE data, out of its COMDAT groups: weak, as other inline data
        weaken = args.output.with_suffix(".unique.txt")
        weaken.write_text("".join(name + "\n" for name in unique_data))
        options.append(f"--weaken-symbols={weaken}")
    run([args.objcopy, *options, str(linked), str(args.output)])
    print(f"privatize_runtime.py: {len(weak_functions) - len(private)} instantiations exported, "
          f"{len(private)} inline functions made private to the runtime")


if __name__ == "__main__":
    main()
