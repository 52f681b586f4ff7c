#!/usr/bin/env python3
"""numpy's figures for bench_io: numpy.load of the files bench_io wrote
(1 GB float32 .npy, copied and memory-mapped; 100 MB .npz of four float32
arrays), median of timed loads after a warm-up, from the page cache as
bench_io reads them. Run right after bench_io on the same machine:
    ./build-bench/bench/bench_io && python3 bench/io_numpy.py --cleanup
(--cleanup removes the files afterwards; the folder is $JAXCC_BENCH_IO_DIR,
by default /tmp/jaxcc_bench_io.)
"""
import os
import shutil
import statistics
import sys
import time

import numpy as np

folder = os.environ.get("JAXCC_BENCH_IO_DIR", "/tmp/jaxcc_bench_io")
big, npz = os.path.join(folder, "big.npy"), os.path.join(folder, "data.npz")


def median_time(f, repeats):
    f()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        f()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def load_copy():
    return np.load(big)


def load_mmap():
    return np.load(big, mmap_mode="r")


def load_mmap_touch():
    x = np.load(big, mmap_mode="r")
    return x[::1024].sum()  # one float of every 4 KiB page


def load_npz():
    with np.load(npz) as data:
        return {k: data[k] for k in data.files}


size = os.path.getsize(big) / 1e9
rows = [("np.load 1 GB .npy (copy)", load_copy, 7, size),
        ("np.load 1 GB .npy (mmap_mode='r')", load_mmap, 51, None),
        ("np.load 1 GB .npy (mmap_mode='r') + a float per page", load_mmap_touch, 7, size),
        ("np.load 100 MB .npz, every array", load_npz, 11, os.path.getsize(npz) / 1e9)]
print(f"numpy {np.__version__}")
for name, f, repeats, gb in rows:
    t = median_time(f, repeats)
    rate = f" ({gb / t:.2f} GB/s)" if gb else ""
    print(f"{name}: median {t * 1e3:.3f} ms{rate}")
if "--cleanup" in sys.argv:
    shutil.rmtree(folder, ignore_errors=True)
