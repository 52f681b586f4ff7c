#!/usr/bin/env bash
# Several processes against one, on the same cores: runs bench_distributed
# as 1 process x 1 device, 1 process x 2 devices and 2 processes x 1 device
# (mpirun -np 2), interleaved for ROUNDS rounds, and prints each figure's
# median and the ratios (bench/README.md, "Where the library stands").
#
#   bench/distributed.sh [build dir, default build-bench] [rounds, default 3]
set -euo pipefail
build="${1:-build-bench}"
rounds="${2:-3}"
bench="$build/bench/bench_distributed"
[ -x "$bench" ] || { echo "no $bench: configure with -DJAXCC_BUILD_BENCH=ON and build bench_distributed" >&2; exit 1; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT

for round in $(seq "$rounds"); do
  JAXCC_NUM_DEVICES=1 "$bench" --benchmark_format=csv >"$out/1x1.$round" 2>/dev/null
  JAXCC_NUM_DEVICES=2 "$bench" --benchmark_format=csv >"$out/1x2.$round" 2>/dev/null
  JAXCC_NUM_DEVICES=1 mpirun --oversubscribe -np 2 "$bench" --benchmark_format=csv >"$out/2x1.$round" 2>/dev/null
done

python3 - "$out" "$rounds" <<'EOF'
import csv, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
def times(layout, name, field="real_time"):
    values = []
    for r in range(1, rounds + 1):
        for row in csv.DictReader(l for l in open(f"{out}/{layout}.{r}") if not l.startswith("#")):
            if row["name"].startswith(name):
                values.append(float(row[field]))
    return values
def median(v): return statistics.median(v)
def spread(v): return f"{min(v):.3g}-{max(v):.3g}"
step = {l: times(l, "BM_train_step") for l in ("1x1", "1x2", "2x1")}
print(f"data-parallel MLP step (784-128-10, batch 1024), ms, median of {rounds} (range):")
for l, label in (("1x1", "1 process x 1 device"), ("1x2", "1 process x 2 devices"), ("2x1", "2 processes x 1 device")):
    print(f"  {label:24s} {median(step[l]):8.3f}  ({spread(step[l])})")
print(f"  speedup over 1x1: 1x2 {median(step['1x1']) / median(step['1x2']):.2f}, 2x1 {median(step['1x1']) / median(step['2x1']):.2f};"
      f" 2x1 / 1x2 time {median(step['2x1']) / median(step['1x2']):.2f}")
psum = times("2x1", "BM_psum_64MiB", "bytes_per_second")
mpi = times("2x1", "BM_mpi_allreduce_64MiB", "bytes_per_second")
print(f"64 MiB all-reduce across 2 processes, GB/s: jaxcc psum {median(psum) / 1e9:.2f} ({spread([v / 1e9 for v in psum])}),"
      f" MPI_Allreduce {median(mpi) / 1e9:.2f} ({spread([v / 1e9 for v in mpi])});"
      f" ratio {median(psum) / median(mpi):.2f} (per round: {', '.join(f'{a / b:.2f}' for a, b in zip(psum, mpi))})")
local = times("1x2", "BM_psum_64MiB", "bytes_per_second")
print(f"  (the same psum over 2 devices of one process: {median(local) / 1e9:.2f} GB/s)")
EOF
