#!/usr/bin/env python3
"""Files numpy (and Hugging Face's safetensors) write, for tests/test_io_*.cpp.

Every array's values follow one formula of its row-major element index i
(value() below; the tests compute the same), so the tests know what each
file holds without reading it through jaxcc.

  npy/<dtype>_<order>_<endian>.npy   shape (2, 3): every jaxcc dtype, C and
                                     Fortran order, little and big endian
                                     (bfloat16: ml_dtypes', which np.save
                                     writes as '<V2')
  npy/float32_v2.npy, _v3.npy        format versions 2.0 and 3.0
  npy/float64_0d.npy, int32_empty.npy, float32_3d_F.npy
  savez.npz, savez_compressed.npz    a: float32 (2, 3), b: int64 (3,),
                                     c: bool (), layers/0/kernel: float16 (3, 2)
  model.safetensors                  (with the safetensors package, where
                                     installed) w: float32 (2, 3),
                                     b: int64 (3,), h: bfloat16 (2, 3)

Run with a Python that has numpy and ml_dtypes:
    python3 tests/golden/io_files.py
It rewrites tests/golden/io/ beside this script.
"""

import os

import ml_dtypes
import numpy as np

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "io")

DTYPES = ["bool", "int8", "uint8", "int16", "int32", "int64", "uint32", "float16", "bfloat16", "float32", "float64",
          "complex64", "complex128"]
SCALE = {"int8": 1, "int16": 300, "int32": 100000, "int64": 10**12}


def value(dtype, i):
    """Element i of every test array of `dtype` (tests/test_io_npy.cpp's expected())."""
    if dtype == "bool":
        return i % 3 != 1
    if dtype in SCALE:
        return ((i * 37) % 100 - 50) * SCALE[dtype]
    if dtype == "uint8":
        return (i * 37) % 100 + 100
    if dtype == "uint32":
        return ((i * 37) % 100) * 40000000
    if dtype.startswith("complex"):
        return complex((i - 2.5) * 0.75, i * 0.5 - 1)
    return (i - 2.5) * 0.75


def np_dtype(dtype):
    return ml_dtypes.bfloat16 if dtype == "bfloat16" else np.dtype(dtype)


def array(dtype, shape):
    n = int(np.prod(shape))
    return np.array([value(dtype, i) for i in range(n)], dtype=np_dtype(dtype)).reshape(shape)


def main():
    os.makedirs(os.path.join(HERE, "npy"), exist_ok=True)
    for dtype in DTYPES:
        x = array(dtype, (2, 3))
        endians = ["<", ">"] if x.dtype.itemsize > 1 and dtype != "bfloat16" else ["<"]
        for order in ["C", "F"]:
            for endian in endians:
                y = x.astype(x.dtype.newbyteorder(endian)) if endian == ">" else x
                y = np.asfortranarray(y) if order == "F" else np.ascontiguousarray(y)
                np.save(os.path.join(HERE, "npy", f"{dtype}_{order}_{'le' if endian == '<' else 'be'}.npy"), y)
    for version in [(2, 0), (3, 0)]:
        with open(os.path.join(HERE, "npy", f"float32_v{version[0]}.npy"), "wb") as f:
            np.lib.format.write_array(f, array("float32", (2, 3)), version=version)
    np.save(os.path.join(HERE, "npy", "float64_0d.npy"), array("float64", ()))
    np.save(os.path.join(HERE, "npy", "int32_empty.npy"), array("int32", (0, 4)))
    np.save(os.path.join(HERE, "npy", "float32_3d_F.npy"), np.asfortranarray(array("float32", (2, 3, 4))))

    arrays = {"a": array("float32", (2, 3)), "b": array("int64", (3,)), "c": array("bool", ()),
              "layers/0/kernel": array("float16", (3, 2))}
    np.savez(os.path.join(HERE, "savez.npz"), **arrays)
    np.savez_compressed(os.path.join(HERE, "savez_compressed.npz"), **arrays)

    try:
        from safetensors.numpy import save_file
    except ImportError:
        print("no safetensors package: model.safetensors left as it is")
    else:
        tensors = {"w": array("float32", (2, 3)), "b": array("int64", (3,)), "h": array("bfloat16", (2, 3))}
        save_file(tensors, os.path.join(HERE, "model.safetensors"), metadata={"format": "np"})


if __name__ == "__main__":
    main()
