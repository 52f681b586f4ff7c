#!/usr/bin/env python3
"""The test runtime_held: a file linking the precompiled runtime compiles
none of the rules the runtime holds for the FFT, the gamma sampler and the
special functions, nor the printer of arrays.

    check_runtime_held.py NM OBJECT

Reads the object's defined functions (nm -C) and fails on any of
PrimitiveOf or Binder of fft_p or random_gamma_p, or of a one-op
region (fusion::Region) or op row (fusion::op_row) of a special function,
or jaxcc::to_string of an array and the printer it runs (ArrayPrinter):
the runtime's list (tools/generate_runtime_instances.py) declares them
extern, so the file only calls them. It also fails if the object calls none
of them (else it would pass on a file that uses nothing).
"""

import re
import subprocess
import sys

SPECIAL = "igamma_p|xlogy_p|erfcx_p|log_ndtr_p|bessel_i0e_p|zeta_p"
HELD = re.compile(r"(PrimitiveOf|Binder)<jaxcc::primitives::(fft_p|random_gamma_p)"
                  rf"|fusion::(Region<jaxcc::fusion::Expr<|op_row<)jaxcc::primitives::({SPECIAL})\b"
                  r"|jaxcc::to_string<|jaxcc::detail::ArrayPrinter<")


def main():
    nm, path = sys.argv[1:3]
    listing = subprocess.run([nm, "-C", path], check=True, capture_output=True, text=True).stdout
    compiled, called = [], []
    for line in listing.splitlines():
        kind, name = line[17:18], line[19:]
        if not HELD.search(name):
            continue
        if kind in "TtWw":
            compiled.append(name)
        elif kind == "U":
            called.append(name)
    if compiled:
        print(f"{len(compiled)} functions the runtime holds were compiled by the file, e.g.:")
        for name in compiled[:5]:
            print("  " + name[:200])
        return 1
    if not called:
        print("the file calls none of the runtime's FFT, gamma, special-function or printing rules: nothing was checked")
        return 1
    print(f"the file calls {len(called)} of the runtime's rules and compiles none of them")
    return 0


if __name__ == "__main__":
    sys.exit(main())
