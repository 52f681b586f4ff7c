#!/usr/bin/env bash
# What jaxcc_precompile_headers saves a test suite: bench/compile_cost/suite/
# (N copies of gtest_kernels.cpp in one GoogleTest program) built against an
# installed jaxcc with one job (g++ -O2), without and with the precompiled
# headers, under GNU time: wall time, user + system time and the peak
# memory of the largest compile.
#
#   bench/compile_cost/suite.sh PREFIX [--files N] [--no-runtime] [--repeat R]
#
# PREFIX: an installed jaxcc (cmake --install; with the runtime, the
# default, unless --no-runtime).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
[ $# -ge 1 ] || { echo "usage: $0 PREFIX [--files N] [--no-runtime] [--repeat R]" >&2; exit 2; }
prefix="$(cd "$1" && pwd)"
shift
files=4
runtime=ON
repeat=1
while [ $# -gt 0 ]; do
  case "$1" in
    --files) files="$2"; shift ;;
    --no-runtime) runtime=OFF ;;
    --repeat) repeat="$2"; shift ;;
    *) echo "usage: $0 PREFIX [--files N] [--no-runtime] [--repeat R]" >&2; exit 2 ;;
  esac
  shift
done
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT

printf '%-28s %9s %8s %10s\n' build "wall (s)" "cpu (s)" "peak (MB)"
for pch in OFF ON; do
  build="$out/pch-$pch"
  cmake -S "$here/suite" -B "$build" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=None \
    -DCMAKE_CXX_FLAGS="-O2" -DJAXCC_SUITE_FILES="$files" -DJAXCC_SUITE_PCH="$pch" -DJAXCC_SUITE_RUNTIME="$runtime" >/dev/null
  runs=()
  for ((i = 0; i < repeat; ++i)); do
    cmake --build "$build" --target clean >/dev/null
    /usr/bin/time -f "%e %U %S %M" -o "$out/time" cmake --build "$build" -- -j1 >"$out/log" 2>&1 \
      || { cat "$out/log" >&2; exit 1; }
    read -r t u s m <"$out/time"
    runs+=("$t $(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.2f", u + s }') $m")
  done
  read -r t c m < <(printf '%s\n' "${runs[@]}" | sort -n | sed -n "$(((repeat + 1) / 2))p")
  printf '%-28s %9s %8s %10d\n' "$files files, precompiled $pch" "$t" "$c" $((m / 1024))
done
