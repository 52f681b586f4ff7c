#!/usr/bin/env python3
"""numpy reads what jaxcc::io writes.

    python3 tests/io_roundtrip_check.py PROGRAM [ARGS...]

Runs PROGRAM ARGS (the test program, with the filter of test_io_checkpoint's
case [.io_roundtrip]) with JAXCC_IO_ROUNDTRIP_DIR set to a fresh folder,
then reads every file it wrote with numpy: each .npy byte for byte as
np.save writes the same array, the .npz archives with np.load (and
zipfile's CRC check), the .safetensors file by its format (and with the
safetensors package, where installed), the checkpoint's keys, and an archive
of more than 65535 entries (zip64 end records). Exits 77 (ctest's skip)
where numpy or ml_dtypes is missing.
"""

import io
import json
import os
import struct
import subprocess
import sys
import tempfile
import zipfile

try:
    import ml_dtypes
    import numpy as np
except ImportError as e:
    print(f"skipped: this Python ({sys.executable}) has no numpy or ml_dtypes ({e})")
    sys.exit(77)


def expected():
    """The arrays the C++ case writes (tests/test_io_checkpoint.cpp)."""
    return {
        "bool": np.array([True, False, True]),
        "int8": np.full((2, 2), -5, np.int8),
        "uint8": np.full((3,), 250, np.uint8),
        "int16": np.array(-1234, np.int16),
        "int32": np.arange(6, dtype=np.int32).reshape(2, 3),
        "int32_F": np.arange(6, dtype=np.int32).reshape(2, 3).T,
        "int64": np.full((2,), 1 << 40, np.int64),
        "uint32": np.full((2,), 4000000000, np.uint32),
        "float16": np.full((2,), 1.5, np.float16),
        "bfloat16": np.full((2,), -2.5, ml_dtypes.bfloat16),
        "float32": np.arange(12, dtype=np.float32).reshape(3, 4) * np.float32(0.5),
        "float64": np.full((0, 3), 1.0),
    }


def same(name, got, want, failures):
    if got.dtype == np.dtype("V2"):  # np.load's bfloat16, as jnp.load reads it
        got = got.view(ml_dtypes.bfloat16)
    if got.dtype != want.dtype or got.shape != want.shape or not np.array_equal(got, want):
        failures.append(f"{name}: got {got.dtype} {got.shape} {got!r}, want {want.dtype} {want.shape} {want!r}")


def check_npy(out, failures):
    for name, want in expected().items():
        path = os.path.join(out, name + ".npy")
        same(name + ".npy", np.load(path), want, failures)
        buffer = io.BytesIO()
        np.save(buffer, want)
        with open(path, "rb") as f:
            if f.read() != buffer.getvalue():
                failures.append(f"{name}.npy: not the bytes np.save writes")


def check_npz(out, failures):
    for archive in ["arrays.npz", "arrays_compressed.npz"]:
        path = os.path.join(out, archive)
        with zipfile.ZipFile(path) as z:
            if z.testzip() is not None:
                failures.append(f"{archive}: bad CRC")
        with np.load(path) as data:
            if sorted(data.files) != sorted(expected()):
                failures.append(f"{archive}: keys {sorted(data.files)}")
            for name, want in expected().items():
                same(f"{archive}/{name}", data[name], want, failures)
    with np.load(os.path.join(out, "many.npz")) as data:
        if len(data.files) != 65537 or int(data["k65536"]) != 65536 or int(data["k7"]) != 7:
            failures.append(f"many.npz: {len(data.files)} entries")


def check_safetensors(out, failures):
    path = os.path.join(out, "arrays.safetensors")
    raw = open(path, "rb").read()
    (size,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8:8 + size])
    types = {"BOOL": np.bool_, "I8": np.int8, "U8": np.uint8, "I16": np.int16, "I32": np.int32, "I64": np.int64,
             "U32": np.uint32, "F16": np.float16, "BF16": ml_dtypes.bfloat16, "F32": np.float32, "F64": np.float64}
    if size % 8 or header.pop("__metadata__") != {"writer": "jaxcc"}:
        failures.append("arrays.safetensors: header size or metadata")
    want = expected()
    del want["int32_F"]
    for name, info in header.items():
        begin, end = info["data_offsets"]
        got = np.frombuffer(raw[8 + size + begin:8 + size + end], types[info["dtype"]]).reshape(info["shape"])
        same(f"arrays.safetensors/{name}", got, want.pop(name), failures)
    if want:
        failures.append(f"arrays.safetensors lacks {sorted(want)}")
    try:
        from safetensors.numpy import load_file
    except ImportError:
        print("(no safetensors package: arrays.safetensors read by its format alone)")
        return
    for name, got in load_file(path).items():
        same(f"safetensors.numpy.load_file/{name}", got, expected()[name], failures)


def check_checkpoint(out, failures):
    with np.load(os.path.join(out, "state.npz")) as data:
        keys = set(data.files)
        params = {"w1", "layers/0/kernel", "layers/0/bias", "layers/1/kernel", "layers/1/bias", "scale"}
        want = ({"params/" + k for k in params} | {"opt/adam/0"} | {"opt/adam/1/" + k for k in params}
                | {"opt/adam/2/" + k for k in params} | {"opt/extras/lr", "opt/extras/decay"})
        if keys != want:
            failures.append(f"state.npz: keys {sorted(keys ^ want)} differ")
        elif int(data["opt/adam/0"]) != 7 or data["params/w1"].shape != (3, 4):
            failures.append("state.npz: values")


def main():
    with tempfile.TemporaryDirectory(prefix="jaxcc_io_roundtrip_") as out:
        env = dict(os.environ, JAXCC_IO_ROUNDTRIP_DIR=out)
        run = subprocess.run(sys.argv[1:], env=env)
        if run.returncode != 0:
            print(f"{sys.argv[1:]} failed ({run.returncode})")
            return 1
        failures = []
        for check in [check_npy, check_npz, check_safetensors, check_checkpoint]:
            check(out, failures)
        for failure in failures:
            print("FAILED:", failure)
        print(f"numpy read every file jaxcc::io wrote: {'no' if failures else 'yes'}")
        return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
