#!/usr/bin/env bash
# Compile cost of jaxcc as a user pays it: each file below is compiled and
# linked on its own (g++ -std=c++20 -O2, one job at a time), under GNU time,
# beside an Eigen program of similar reach built the same way in the same
# run. Prints wall time, peak memory and the ratio to the Eigen file, and,
# with --check, exits non-zero when a file exceeds its target by more than
# 25% (the targets are in docs/compile_cost.md, "The figures").
#
#   bench/compile_cost.sh [--check | --enforce NAME,...] [--quick] [--only NAME,...] [--compiler g++] [--include DIR] [--repeat N] [--runtime LIB]
#
# --enforce: as --check, but only for the named files (empty, quickstart, mlp,
# quickstart+runtime, mlp+runtime, gtest_kernels, gtest_kernels+runtime); the others' figures are reported, not
# enforced. CI enforces the targets met so far, so that a change that loses
# them fails.
# --include: where jaxcc's headers are (default: this checkout's include/);
# point it at an installed prefix's include/ to measure the installed package.
# --quick: the Eigen, empty and quickstart files, and with --runtime the
# quickstart, the MLP file and the GoogleTest kernels file linking it, but
# not the MLP file nor the GoogleTest kernels file from the headers alone
# (what CI runs, for time).
# --runtime: the precompiled runtime's library (libjaxcc_runtime.a, built
# by default, cmake/runtime.cmake): the quickstart, the MLP file and the
# GoogleTest kernels file are then also measured with it (compiled with
# -DJAXCC_PRECOMPILED_RUNTIME and linked against it).
# --only NAME,...: measure only these files (and the Eigen file each is
# compared with).
#
# A test file's cost: gtest_kernels (bench/compile_cost/gtest_kernels.cpp,
# four small kernels each checked by jaxcc::testing's check_grads,
# check_vmap, check_jit and check_batching_rule under GoogleTest) is
# compared with gtest_eigen (the same kernels on Eigen, their gradients
# written and checked by hand, under GoogleTest), measured in the same run.
# Both need GoogleTest (Debian: libgtest-dev); without it they are skipped.
# The cpu column is user + system time (the median run's), which a machine
# shared with other work disturbs less than the wall time.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
cxx=g++
include="$root/include"
check=0
enforce=""
quick=0
repeat=1
runtime=""
only=""
while [ $# -gt 0 ]; do
  case "$1" in
    --check) check=1 ;;
    --enforce) enforce=",$2,"; shift ;;
    --quick) quick=1 ;;
    --compiler) cxx="$2"; shift ;;
    --include) include="$2"; shift ;;
    --repeat) repeat="$2"; shift ;;
    --only) only=",$2,"; shift ;;
    --runtime) runtime="$(cd "$(dirname "$2")" && pwd)/$(basename "$2")"; shift ;;
    *) echo "usage: $0 [--check | --enforce NAME,...] [--quick] [--only NAME,...] [--compiler CXX] [--include DIR] [--repeat N] [--runtime LIB]" >&2; exit 2 ;;
  esac
  shift
done
command -v /usr/bin/time >/dev/null || { echo "GNU time (/usr/bin/time) is needed: apt-get install time" >&2; exit 2; }

out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
flags=(-std=c++20 -O2 -fopenmp -I"$include" -I/usr/include/eigen3)

# name, source, target ratio to the Eigen file (wall time), extra arguments.
# A file with no target is an Eigen baseline: the files after it are
# compared with it.
files=(
  "eigen|$here/compile_cost/eigen.cpp||"
  "empty|$here/compile_cost/empty.cpp|2|"
  "quickstart|$root/examples/quickstart.cpp|3|"
)
((quick)) || files+=("mlp|$root/examples/mlp.cpp|6|")
if [ -n "$runtime" ]; then
  # The runtime's generated instance list: beside the library in its build
  # tree (generated/include; the tests' runtime is one folder down, in
  # tests/), or in the include folder it was installed with.
  runtime_include="$(dirname "$runtime")/generated/include"
  [ -d "$runtime_include" ] || runtime_include="$(dirname "$runtime")/../generated/include"
  [ -d "$runtime_include" ] || runtime_include="$(dirname "$runtime")/../include"
  with_runtime="-DJAXCC_PRECOMPILED_RUNTIME -I$runtime_include $runtime"
  files+=("quickstart+runtime|$root/examples/quickstart.cpp|3|$with_runtime")
  files+=("mlp+runtime|$root/examples/mlp.cpp|4|$with_runtime")
fi
gtest="-lgtest_main -lgtest -pthread"
if echo '#include <gtest/gtest.h>' | "$cxx" -std=c++20 -E -x c++ - >/dev/null 2>&1; then
  files+=("gtest_eigen|$here/compile_cost/gtest_eigen.cpp||$gtest")
  ((quick)) || files+=("gtest_kernels|$here/compile_cost/gtest_kernels.cpp|4|$gtest")
  [ -z "$runtime" ] || files+=("gtest_kernels+runtime|$here/compile_cost/gtest_kernels.cpp|4|$with_runtime $gtest")
else
  echo "gtest_eigen, gtest_kernels: skipped (no GoogleTest: apt-get install libgtest-dev)" >&2
fi
if [ -n "$only" ]; then
  # The named files, and the baseline before each.
  kept=() baseline=""
  for entry in "${files[@]}"; do
    IFS='|' read -r name _ target _ <<<"$entry"
    if [ -z "$target" ]; then baseline="$entry"; continue; fi
    [[ "$only" == *",$name,"* ]] || continue
    [ -n "$baseline" ] && kept+=("$baseline") && baseline=""
    kept+=("$entry")
  done
  files=("${kept[@]}")
fi
memory_target_kb=$((1024 * 1024))

# One measurement: "seconds kilobytes cpu-seconds" (the median wall time of
# --repeat runs, the largest peak, the median run's user + system time).
measure() {
  local name="$1" source="$2" extra=() times=() peak=0
  read -r -a extra <<<"$3"
  for ((i = 0; i < repeat; ++i)); do
    /usr/bin/time -f "%e %M %U %S" -o "$out/$name.time" "$cxx" "${flags[@]}" "$source" "${extra[@]}" -o "$out/$name" 2>"$out/$name.log" \
      || { cat "$out/$name.log" >&2; echo "$name: compile failed" >&2; exit 1; }
    read -r t m u s <"$out/$name.time"
    times+=("$t $(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.2f", u + s }')")
    ((m > peak)) && peak=$m
  done
  read -r t c < <(printf '%s\n' "${times[@]}" | sort -n | sed -n "$(((repeat + 1) / 2))p")
  printf '%s %s %s\n' "$t" "$peak" "$c"
}

echo "compiler: $($cxx --version | head -1); flags: ${flags[*]}"
printf '%-22s %9s %8s %10s %8s %8s %s\n' file "wall (s)" "cpu (s)" "peak (MB)" ratio target check
failed=0
base=""
enforced() { ((check)) || [[ "$enforce" == *",$1,"* ]]; }
for entry in "${files[@]}"; do
  IFS='|' read -r name source target extra <<<"$entry"
  read -r seconds kb cpu < <(measure "$name" "$source" "$extra")
  [ -z "$target" ] && base="$seconds"
  ratio=$(awk -v a="$seconds" -v b="$base" 'BEGIN { printf "%.1f", a / b }')
  status=""
  if [ -n "$target" ]; then enforced "$name" && status=enforced || status=reported; fi
  printf '%-22s %9s %8s %10d %8s %8s %s\n' "$name" "$seconds" "$cpu" $((kb / 1024)) "$ratio" "${target:+<= $target}" "$status"
  if [ -n "$target" ]; then
    over=()
    if awk -v r="$ratio" -v t="$target" 'BEGIN { exit !(r > 1.25 * t) }'; then
      over+=("${ratio}x the Eigen file, more than 25% over its target of ${target}x")
    fi
    if ((kb > memory_target_kb * 5 / 4)); then
      over+=("peak memory $((kb / 1024)) MB, more than 25% over 1024 MB")
    fi
    for o in "${over[@]}"; do
      echo "  $name: $o" >&2
      if enforced "$name"; then failed=1; fi
    done
  fi
done
if ((failed)); then exit 1; fi
