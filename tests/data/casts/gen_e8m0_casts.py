#!/usr/bin/env python3
"""What the libraries' float32 -> float8_e8m0fnu casts give, for the values where they part.

float8_e8m0fnu is a power of two, 2^-127 to 2^127, with no sign, no zero and one NaN code (0xff).
A correct cast rounds a positive value to the nearest power of two (in the exponent), takes
everything below 2^-127 to 2^-127, and has nothing to give a negative value or zero but NaN.
Run on the libraries here, the casts part from that in two ways: ml_dtypes 0.6.0 (and PyTorch)
round the float32 subnormals in (2^-127, 1.5 * 2^-127) up to 2^-126, and PyTorch casts a negative
value as its magnitude and a zero to 2^-127 instead of NaN.

This records, for float32 inputs, each library's code: {"rows": [{"library", "version", "value"
(float.hex of the float32 input), "code"}]}, merged into e8m0_casts.json beside this script by
(library, version). tests/core/dtype/e8m0_casts_test.cpp compares Precision Lab's cast with every
row and requires the differences to be exactly those named above.

Run with each interpreter whose libraries are to be recorded:
  python3 tests/data/casts/gen_e8m0_casts.py   (PyPI: torch 2.15, ml_dtypes 0.6.0)
  python3 tests/data/casts/gen_e8m0_casts.py   (PyPI: ml_dtypes 0.7.0)
"""
import json
import pathlib

import ml_dtypes
import numpy as np

OUT = pathlib.Path(__file__).resolve().parent / "e8m0_casts.json"
VALUES = [1.0, 3.0, 5.0, 6.0, 0.75, 2.0 ** 127, 2.0 ** -126, 2.0 ** -127, 2.0 ** -128, 2.0 ** -149,
          2.0 ** -127 + 2.0 ** -149, 1.5 * 2.0 ** -127 - 2.0 ** -149, 1.5 * 2.0 ** -127,
          -1.0, -3.0, -(2.0 ** -130), 0.0, -0.0, float("inf"), float("-inf"), float("nan")]


def rows_of(library, version, codes):
    return [{"library": library, "version": version, "value": float(np.float32(v)).hex(), "code": int(c)}
            for v, c in zip(VALUES, codes)]


def main():
    x = np.array(VALUES, dtype=np.float32)
    with np.errstate(over="ignore", invalid="ignore"):
        rows = rows_of("ml_dtypes", ml_dtypes.__version__, x.astype(ml_dtypes.float8_e8m0fnu).view(np.uint8))
    try:
        import torch
        codes = torch.from_numpy(x).to(torch.float8_e8m0fnu).view(torch.uint8).tolist()
        rows += rows_of("torch", torch.__version__.split("+")[0], codes)
    except ImportError:
        pass  # (an interpreter with ml_dtypes alone records ml_dtypes alone)
    recorded = json.loads(OUT.read_text())["rows"] if OUT.exists() else []
    ran = {(r["library"], r["version"]) for r in rows}
    kept = [r for r in recorded if (r["library"], r["version"]) not in ran]
    merged = sorted(kept + rows, key=lambda r: (r["library"], r["version"]))
    OUT.write_text(json.dumps({"rows": merged}, indent=1) + "\n")
    print(f"wrote {OUT}: {len(merged)} rows")


if __name__ == "__main__":
    main()
