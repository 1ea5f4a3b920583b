#!/usr/bin/env python3
"""Fixture files for core/io: .npy files written by NumPy itself (every numeric dtype, both
byte orders, Fortran order, 0-d and 1-d, format 2.0, ml_dtypes arrays saved as raw views) and a
.safetensors file written by the safetensors package (numpy API), with the values each must
read as in expected.json.

Run: python3 tests/data/io/gen_io.py   (numpy 2.x, ml_dtypes, safetensors 0.8)
"""
import json
import os

import ml_dtypes
import numpy as np
from safetensors.numpy import save_file

HERE = os.path.dirname(os.path.abspath(__file__))
expected = {"npy": [], "safetensors": {}}


def npy(name, arr, raw=None, version=None):
    path = os.path.join(HERE, name)
    if version:
        with open(path, "wb") as f:
            np.lib.format.write_array(f, arr, version=version)
    else:
        np.save(path, arr)
    values = arr.view(raw).astype(np.float64) if raw else arr.astype(np.float64)
    expected["npy"].append({"file": name, "raw": raw.__name__ if raw else None,
                            "shape": list(arr.shape),
                            "values": [float(v).hex() for v in np.ravel(values, order="C")]})


rng = np.random.default_rng(7)
base = rng.standard_normal((3, 4)) * 10
npy("f64.npy", base)
npy("f32_big_endian.npy", base.astype(">f4"))
npy("f16.npy", base.astype(np.float16))
npy("f64_fortran.npy", np.asfortranarray(base))
npy("f32_3d_fortran.npy", np.asfortranarray(rng.standard_normal((2, 3, 4)).astype(np.float32)))
npy("i8.npy", np.array([[-128, 0, 127]], np.int8))
npy("u16.npy", np.array([0, 65535, 7], np.uint16))
npy("i64_big_endian.npy", np.array([-(2**53), 2**53, 5], ">i8"))
npy("bool.npy", np.array([True, False, True]))
npy("scalar.npy", np.array(2.5))
npy("v2.npy", base.astype(np.float32), version=(2, 0))
# ml_dtypes arrays stored as their raw bits, as the issue asks: uint16/uint8 views.
npy("bf16_raw.npy", base.astype(ml_dtypes.bfloat16).view(np.uint16), raw=ml_dtypes.bfloat16)
npy("e4m3_raw.npy", base.astype(ml_dtypes.float8_e4m3fn).view(np.uint8), raw=ml_dtypes.float8_e4m3fn)

w = rng.standard_normal((6, 5)).astype(np.float32)
tensors = {"layer.weight": w, "layer.bias": rng.standard_normal(6).astype(np.float16),
           "emb": rng.integers(-100, 100, (2, 3, 4)).astype(np.int8),
           "bf": rng.standard_normal((2, 8)).astype(ml_dtypes.bfloat16)}
save_file(tensors, os.path.join(HERE, "model.safetensors"), metadata={"format": "np"})
for k, v in tensors.items():
    expected["safetensors"][k] = {"shape": list(v.shape),
                                  "values": [float(x).hex() for x in np.ravel(v.astype(np.float64))]}
expected["safetensors"]["layer.weight[1:4,2:5]"] = {
    "shape": [3, 3], "values": [float(x).hex() for x in np.ravel(w[1:4, 2:5].astype(np.float64))]}
expected["versions"] = {"numpy": np.__version__, "ml_dtypes": ml_dtypes.__version__}
with open(os.path.join(HERE, "expected.json"), "w") as f:
    json.dump(expected, f, indent=0)
    f.write("\n")
