#!/usr/bin/env python3
"""The test runtime_private: the precompiled runtime's inline code is its own.

    check_runtime_private.py NM LIBRARY

Reads the runtime's symbols (nm) and fails if a function of Eigen, xsimd or
the standard library is global in it: the linker could then pick the
runtime's copy, compiled for the baseline, for a program compiled for
another -march, or the program's for the runtime (docs/packaging.md). It
also checks that the runtime holds such functions at all, as local ones
(else this test would pass on an empty library), and that its
instantiations (graph::PrimitiveOf's members) stay global.
"""

import subprocess
import sys

# Mangled prefixes of names in namespaces Eigen, xsimd and std (const
# members too).
FOREIGN = ("_ZN5Eigen", "_ZNK5Eigen", "_ZN5xsimd", "_ZNK5xsimd", "_ZNSt", "_ZNKSt", "_ZSt")


def main():
    nm, library = sys.argv[1:3]
    listing = subprocess.run([nm, "--format=sysv", "--defined-only", library], check=True, capture_output=True,
                             text=True).stdout
    functions = []
    for line in listing.splitlines():
        fields = [field.strip() for field in line.split("|")]
        if len(fields) >= 4 and fields[3] == "FUNC":
            functions.append((fields[0], fields[2]))
    global_foreign = sorted({name for name, kind in functions if kind.isupper() and name.startswith(FOREIGN)})
    local_foreign = [name for name, kind in functions if kind.islower() and name.startswith(FOREIGN)]
    exported = [name for name, kind in functions if kind.isupper() and name.startswith("_ZN5jaxcc5graph11PrimitiveOf")]
    failures = []
    if global_foreign:
        failures.append(f"{len(global_foreign)} functions of Eigen, xsimd or std are global in the runtime, "
                        f"e.g. {global_foreign[:3]}")
    if not local_foreign:
        failures.append("the runtime holds no local function of Eigen, xsimd or std: nothing was checked")
    if not exported:
        failures.append("no member of graph::PrimitiveOf is global: the runtime exports none of its instantiations")
    for failure in failures:
        print(f"runtime_private: {failure}")
    if failures:
        sys.exit(1)
    print(f"runtime_private: {len(local_foreign)} functions of Eigen, xsimd and std private to the runtime, "
          f"{len(exported)} members of graph::PrimitiveOf exported")


if __name__ == "__main__":
    main()
