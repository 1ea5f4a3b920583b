#!/usr/bin/env python3
"""Golden dot products for core/experiment/accumulate, computed with exact rationals.

Every accumulation model is re-implemented here in fractions.Fraction arithmetic: the
products are exact, every addition is the exact sum rounded once by the exact rounding
oracle of tests/data/gen_golden.py (ml_dtypes formats; float32 by formula). Nothing is
shared with the C++ code (which uses TwoSum and rounding to odd instead), so agreement checks it.

Stochastic rounding is left to the statistical tests: its draws are not part of this oracle.

Run: python3 tests/data/accumulate/gen_accumulate.py > tests/data/accumulate/dots.json
"""
import json
import os
import random
import struct
import sys
from fractions import Fraction

import ml_dtypes
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from gen_golden import float32_oracle, format_named  # noqa: E402

MODES = ["rne", "rna", "rtz", "up", "down"]
FORMATS = {}


def rounder(name, mode):
    """x (Fraction) -> the value (Fraction, or a float inf/nan) of x rounded to the format."""
    if name == "float32":
        def r(x):
            # the exact sum itself, never a float64 of it (that would round twice)
            v = struct.unpack("<f", struct.pack("<I", float32_oracle(x, mode)))[0]
            return Fraction(v) if np.isfinite(v) else v
        return r
    if name not in FORMATS:
        FORMATS[name] = format_named(name)
    fmt = FORMATS[name]

    def r(x):
        v = fmt.decoded[fmt.round(x, mode, "default")]
        return Fraction(float(v)) if np.isfinite(v) else float(v)
    return r


def add(r, x, y):
    if not isinstance(x, Fraction) or not isinstance(y, Fraction):
        return float(x) + float(y)  # inf/nan propagate as in IEEE arithmetic
    return r(x + y)


def sequential(a, b, r):
    s = Fraction(0)
    for x, y in zip(a, b):
        s = add(r, s, x * y)
    return s


def pairwise(a, b, block, r):
    if len(a) <= block:
        return sequential(a, b, r)
    half = ((len(a) // block) // 2) * block
    mid = half if half else block
    return add(r, pairwise(a[:mid], b[:mid], block, r), pairwise(a[mid:], b[mid:], block, r))


def kahan(a, b, r):
    s, c = Fraction(0), Fraction(0)
    for x, y in zip(a, b):
        yy = add(r, r(x * y), -c)
        t = add(r, s, yy)
        c = add(r, add(r, t, -s), -yy)
        s = t
    return s


def chunked(a, b, chunk, r_inner, r_outer):
    s = Fraction(0)
    for k in range(0, len(a), chunk):
        s = add(r_outer, s, sequential(a[k:k + chunk], b[k:k + chunk], r_inner))
    return s


def values_of(dtype, rng, n, scale):
    """n random values of an ml_dtypes/NumPy dtype, as exact Fractions (and their floats)."""
    xs = (np.array([rng.gauss(0, 1) * scale for _ in range(n)]).astype(dtype)).astype(np.float64)
    return [float(x) for x in xs]


def main():
    rng = random.Random(20261122)
    cases = []
    shapes = [(1, "bfloat16", "float8_e4m3fn", 1.0), (7, "bfloat16", "bfloat16", 1.0),
              (64, "float16", "float16", 4.0), (300, "bfloat16", "float8_e4m3fn", 1.0),
              (257, "float16", "bfloat16", 64.0), (1000, "float8_e5m2", "float8_e4m3fn", 1.0)]
    # Crafted float32 inputs whose running sum needs more than float64's 53 bits and lands,
    # once rounded to float64, exactly on a rounding boundary of the accumulator: a
    # float64 detour would round twice and get these wrong.
    crafted = [
        # float16: 2050 + (1 - 2^-46) lies just below the tie at 2051 (-> 2050 in rne)
        ([2050.0, 1 + 2.0**-23], [1.0, 1 - 2.0**-23]),
        # float32: 2^40 + 2^17 + (2^16 - 2^-20) lies just below a tie (-> 2^40 + 2^17 in rne)
        ([2.0**40 + 2.0**17, 2.0**8 + 2.0**-10], [1.0, 2.0**8 - 2.0**-10]),
        # 2048 - 2^-46: just below a representable value (rtz and down go one step lower)
        ([2048.0, 2.0**-23], [1.0, -(2.0**-23)]),
    ]
    inputs = [(list(a), list(b), "float32", "float32") for a, b in crafted]
    for n, ta, tb, scale in shapes:
        inputs.append((values_of(getattr(ml_dtypes, ta) if ta != "float16" else np.float16, rng, n, scale),
                       values_of(getattr(ml_dtypes, tb) if tb != "float16" else np.float16, rng, n, scale),
                       ta, tb))
    for a, b, ta, tb in inputs:
        n = len(a)
        fa, fb = [Fraction(x) for x in a], [Fraction(x) for x in b]
        results = []
        for mode in MODES:
            for fmt in ["float32", "float16", "bfloat16"]:
                r = rounder(fmt, mode)
                results.append({"kind": "sequential", "format": fmt, "rounding": mode,
                                "value": float(sequential(fa, fb, r)).hex()})
                results.append({"kind": "pairwise", "format": fmt, "rounding": mode, "block": 4,
                                "value": float(pairwise(fa, fb, 4, r)).hex()})
                results.append({"kind": "kahan", "format": fmt, "rounding": mode,
                                "value": float(kahan(fa, fb, r)).hex()})
            for inner in ["float16", "bfloat16"]:
                results.append({"kind": "chunked", "format": inner, "rounding": mode, "chunk": 16,
                                "outer": "float32",
                                "value": float(chunked(fa, fb, 16, rounder(inner, mode),
                                                       rounder("float32", mode))).hex()})
        exact = sum((x * y for x, y in zip(fa, fb)), Fraction(0))
        cases.append({"n": n, "a_dtype": ta, "b_dtype": tb, "a": [x.hex() for x in a],
                      "b": [x.hex() for x in b], "exact": float(exact).hex(), "results": results})
    json.dump({"generator": "gen_accumulate.py", "ml_dtypes": ml_dtypes.__version__,
               "cases": cases}, sys.stdout, indent=0)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
