#!/usr/bin/env python3
"""The regression guard: runs the headline benchmarks, takes each ratio of a
jaxcc figure to its baseline from the same run, and compares it with the
target committed in bench/ratio_targets.json.

Each benchmark binary runs once, its benchmarks interleaved at random and
repeated (Google Benchmark's --benchmark_enable_random_interleaving), so a
ratio's two figures share the machine's state. A ratio is the median of the
jaxcc figure over the median of its baseline; the baseline's own spread
((max - min) / median over the repetitions) is printed beside it: above 20%
the ratio is noise, and the run should be repeated on a quieter machine.

    cmake --preset bench && cmake --build build-bench --target bench_sharding bench_vmap bench_autodiff bench_conv bench_elementwise
    bench/check_ratios.py                          # every ratio, 5 repetitions
    bench/check_ratios.py --short                  # the ratios marked short, 3 repetitions (CI)
    bench/check_ratios.py --enforce                # exit 1 on a ratio more than 25% past its target, twice
    bench/check_ratios.py --markdown               # the table for bench/README.md

A target is "at_most" (the jaxcc figure over the baseline's, in time) or
"at_least" (a speed-up: the baseline's time over the jaxcc figure's).
"""

import argparse
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SLACK = 1.25  # --enforce fails a ratio this far past its target
NOISY = 0.20  # a baseline whose own spread is above this makes its ratio noise


def run_binary(path, names, repetitions, min_time):
    """Real times (seconds) of each repetition of each benchmark in `names`."""
    pattern = "^(" + "|".join(n.replace("<", ".").replace(">", ".") for n in sorted(names)) + ")$"
    command = [path, f"--benchmark_filter={pattern}", f"--benchmark_repetitions={repetitions}",
               "--benchmark_enable_random_interleaving=true", f"--benchmark_min_time={min_time}",
               "--benchmark_format=json"]
    out = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    times = {}
    for b in json.loads(out)["benchmarks"]:
        if b.get("run_type") != "iteration":
            continue
        scale = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[b["time_unit"]]
        times.setdefault(b["run_name"], []).append(b["real_time"] * scale)
    missing = set(names) - set(times)
    if missing:
        sys.exit(f"check_ratios: {os.path.basename(path)} ran no benchmark named {', '.join(sorted(missing))}")
    return times


def spread(values):
    m = statistics.median(values)
    return (max(values) - min(values)) / m if m else 0.0


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default="build-bench", help="the build directory holding bench/ (the bench preset's)")
    parser.add_argument("--targets", default=os.path.join(HERE, "ratio_targets.json"))
    parser.add_argument("--short", action="store_true", help="only the ratios marked short")
    parser.add_argument("--repetitions", type=int, help="default 5 (3 with --short)")
    parser.add_argument("--min-time", type=float, help="seconds per repetition (default 0.5; 0.2 with --short)")
    parser.add_argument("--enforce", action="store_true", help=f"exit 1 on a ratio more than {SLACK}x past its target")
    parser.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    args = parser.parse_args()
    repetitions = args.repetitions or (3 if args.short else 5)
    min_time = args.min_time or (0.2 if args.short else 0.5)

    with open(args.targets) as f:
        ratios = [r for r in json.load(f)["ratios"] if r.get("short") or not args.short]
    by_binary = {}
    for r in ratios:
        by_binary.setdefault(r["binary"], set()).update([r["jaxcc"], r["baseline"]])
    def measure(binaries):
        times = {}
        for binary in binaries:
            path = os.path.join(args.build, "bench", binary)
            if not os.path.exists(path):
                sys.exit(f"check_ratios: no {path}: build it first (cmake --build {args.build} --target {binary})")
            times.update(run_binary(path, by_binary[binary], repetitions, min_time))
        return times

    times = measure(by_binary)
    rows, failed = evaluate(ratios, times)
    if failed and args.enforce:
        # A slip must show twice: the binaries of the ratios that slipped run again.
        again = {r["binary"] for r in ratios if r["name"] in failed}
        print(f"past the target by more than {SLACK}x: {', '.join(failed)}; running {', '.join(sorted(again))} again")
        times.update(measure(again))
        rows, failed = evaluate(ratios, times)
    report(rows, args.markdown, repetitions)
    if failed:
        print(f"more than {SLACK}x past the target: {', '.join(failed)}")
        if args.enforce:
            sys.exit(1)


def evaluate(ratios, times):
    """The table's rows, and the names of the ratios that slipped by more
    than SLACK with a quiet baseline."""
    rows, failed = [], []
    for r in ratios:
        ours, base = times[r["jaxcc"]], times[r["baseline"]]
        at_least = r["kind"] == "at_least"
        ratio = statistics.median(base) / statistics.median(ours) if at_least else \
            statistics.median(ours) / statistics.median(base)
        met = ratio >= r["target"] if at_least else ratio <= r["target"]
        slipped = ratio < r["target"] / SLACK if at_least else ratio > r["target"] * SLACK
        noise = spread(base) > NOISY
        verdict = "met" if met else ("FAILS" if slipped else "short")
        if noise:
            verdict += " (noise: rerun)"
        if slipped and not noise:
            failed.append(r["name"])
        rows.append((r["name"], f"{ratio:.2f}", ("≥ " if at_least else "≤ ") + f"{r['target']:g}", verdict,
                     f"{statistics.median(ours) * 1e3:.3f}", f"{statistics.median(base) * 1e3:.3f}",
                     f"{spread(base) * 100:.0f}%", r["what"]))
    return rows, failed


def report(rows, markdown, repetitions):
    header = ("ratio", "now", "target", "verdict", "jaxcc ms", "baseline ms", "baseline spread", "what")
    if markdown:
        print("| " + " | ".join(header) + " |")
        print("|" + " --- |" * len(header))
        for row in rows:
            print("| " + " | ".join(row) + " |")
    else:
        widths = [max(len(str(x)) for x in col) for col in zip(header, *rows)]
        for row in [header] + rows:
            print("  ".join(str(x).ljust(w) for x, w in zip(row, widths)).rstrip())
    print(f"{len(rows)} ratios, {repetitions} repetitions each, interleaved; "
          f"{sum(1 for row in rows if row[3].startswith('met'))} met")


if __name__ == "__main__":
    main()
