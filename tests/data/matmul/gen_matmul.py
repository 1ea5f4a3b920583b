#!/usr/bin/env python3
"""Golden matrix experiments for core/experiment/matmul, emulated independently in NumPy.

For each case: operands (float64, drawn here), the recipe applied with NumPy/ml_dtypes
arithmetic (casts by ml_dtypes, scales by np.float32), the dot products accumulated in exact
rationals with gen_accumulate.py's rounding oracle, the epilogue (scale, bias) rounded once,
the output cast by ml_dtypes. Custom formats (e5m7b15:ieee, ...), which ml_dtypes lacks,
are decoded by formula and rounded by the same oracle, after a check that the formula agrees
with ml_dtypes on every table format it can spell. Nothing is shared with the C++ code.

Recipes, as core/quantise/scaling.h documents them:
  per-tensor: scale = f32(max / amax), q = sat(round(x * scale)), factor = f32(1 / scale)
  per-channel (int8): the same per row with max 127, np.rint, clip to [-127, 127]
  mx: blocks of 32 along K, scale 2^(floor(log2 amax) - emax_elem), elements saturate
  nvfp4: enc = f32(2688 / amax), dec = f32(1 / enc), blocks of 16 along K with scale
         e4m3(sat(amax_b / 6 * enc)), q = fp4(sat(x / (scale_b * dec))), factor dec

Run: python3 tests/data/matmul/gen_matmul.py > tests/data/matmul/cases.json
"""
import json
import math
import os
import random
import sys
from fractions import Fraction

import ml_dtypes
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "accumulate"))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from gen_accumulate import rounder, sequential, chunked  # noqa: E402
from gen_golden import CustomFormat, Format, format_named  # noqa: E402

NP = {"float16": np.float16, "float32": np.float32, "float64": np.float64}


def dt(name):
    return NP.get(name) or getattr(ml_dtypes, name)


def is_custom(name):
    return ":" in name  # "e5m7b15:ieee", as Precision Lab names a custom format


def check_custom_decoder():
    """The formula that decodes custom formats must give ml_dtypes' values, NaN and Inf codes
    for every table format it can spell, before it is trusted with formats ml_dtypes lacks."""
    for table, custom in [("float16", "e5m10b15:ieee"), ("bfloat16", "e8m7b127:ieee"),
                          ("float8_e4m3fn", "e4m3b7:fn"), ("float8_e4m3fnuz", "e4m3b8:fnuz"),
                          ("float8_e4m3b11fnuz", "e4m3b11:fnuz"), ("float8_e3m4", "e3m4b3:ieee"),
                          ("float6_e3m2fn", "e3m2b3:finite"), ("float4_e2m1fn", "e2m1b1:finite")]:
        t, c = Format(table), CustomFormat(custom)
        same = np.array_equal(t.decoded, c.decoded, equal_nan=True)
        if not same or (t.nan, t.inf) != (c.nan, c.inf):
            raise SystemExit("custom decoder disagrees with ml_dtypes on " + table)


def cast(x, name, saturate=False):
    """float64 array -> float64 values of dtype `name`, rounded by ml_dtypes/NumPy (RNE); a
    custom format by the exact rounding oracle (one rounding from float64: the direct path)."""
    x = np.asarray(x, np.float64)
    if is_custom(name):
        fmt = format_named(name)
        rounded = [fmt.decoded[fmt.round(Fraction(float(v)), "rne", "default")] for v in x.ravel()]
        return np.array(rounded).reshape(x.shape)
    if saturate:
        top = float(ml_dtypes.finfo(dt(name)).max)
        x = np.clip(x, -top, top)
    return x.astype(dt(name)).astype(np.float64)


def emax(name):
    return int(math.floor(math.log2(float(ml_dtypes.finfo(dt(name)).max))))


def quantise(x, dtype, recipe):
    """rows x K float64 -> (values, row factors): the recipe, row by row along K."""
    rows, k = x.shape
    if recipe == "none":
        return cast(x, dtype), np.ones(rows)
    if recipe in ("per-tensor", "per-channel"):
        top = 127.0 if dtype == "int8" else float(ml_dtypes.finfo(dt(dtype)).max)
        amaxes = ([np.max(np.abs(x))] * rows if recipe == "per-tensor"
                  else list(np.max(np.abs(x), axis=1)))
        vals, factors = np.zeros_like(x), np.zeros(rows)
        for r in range(rows):
            scale = float(np.float32(top / amaxes[r])) if amaxes[r] > 0 else 1.0
            v = x[r] * scale
            vals[r] = (np.clip(np.rint(v), -127, 127) if dtype == "int8"
                       else cast(v, dtype, saturate=True))
            factors[r] = float(np.float32(1.0 / scale))
        return vals, factors
    if recipe == "mx":
        vals = np.zeros_like(x)
        for r in range(rows):
            for c0 in range(0, k, 32):
                blk = x[r, c0:c0 + 32]
                amax = float(np.max(np.abs(blk)))
                e = max(-127, min(127, math.frexp(amax)[1] - 1 - emax(dtype))) if amax > 0 else -127
                s = 2.0 ** e
                vals[r, c0:c0 + 32] = cast(blk / s, dtype, saturate=True) * s
        return vals, np.ones(rows)
    if recipe == "nvfp4":
        amax = float(np.max(np.abs(x)))
        enc = float(np.float32(448.0 * 6.0 / amax))
        dec = float(np.float32(1.0 / enc))
        vals = np.zeros_like(x)
        for r in range(rows):
            for c0 in range(0, k, 16):
                blk = x[r, c0:c0 + 16]
                bs = float(cast([float(np.max(np.abs(blk))) / 6.0 * enc], "float8_e4m3fn", True)[0])
                q = cast(blk / (bs * dec), "float4_e2m1fn", saturate=True) if bs > 0 else 0 * blk
                vals[r, c0:c0 + 16] = q * bs
        return vals, np.full(rows, dec)
    raise ValueError(recipe)


def accumulate(a, b, model):
    fa, fb = [Fraction(float(v)) for v in a], [Fraction(float(v)) for v in b]
    kind, fmt = model["kind"], model["format"]
    if kind == "float64":
        s = 0.0
        for x, y in zip(a, b):
            s += float(x) * float(y)
        return Fraction(s)
    if kind == "sequential":
        return sequential(fa, fb, rounder(fmt, "rne"))
    if kind == "chunked":
        return chunked(fa, fb, model["chunk"], rounder(fmt, "rne"), rounder("float32", "rne"))
    raise ValueError(kind)


def run(case, rng):
    m, n, k = case["m"], case["n"], case["k"]
    a = np.array([[rng.gauss(0, 1) for _ in range(k)] for _ in range(m)])
    w = np.array([[rng.gauss(0, 1) for _ in range(k)] for _ in range(n)])  # n x K
    if case.get("outlier_column") is not None:
        a[:, case["outlier_column"]] *= 30.0
    bias = np.array([rng.uniform(-1, 1) for _ in range(n)]) if case.get("bias") else None
    qa, fa = quantise(a, case["input"], case["input_scaling"])
    qw, fw = quantise(w, case["weight"], case["weight_scaling"])
    qbias = cast(bias, case["bias"]) if bias is not None else None
    model = case["accumulate"]
    acc_fmt = "float64" if model["kind"] == "float64" else (
        "float32" if model["kind"] == "chunked" else model["format"])
    r = None if acc_fmt == "float64" else rounder(acc_fmt, "rne")
    result, cacc, rq = [], [], []
    for i in range(m):
        for j in range(n):
            s = accumulate(qa[i], qw[j], model)
            factor = float(fa[i]) * float(fw[j])  # exact: two float32 numbers
            if factor != 1.0:
                s = Fraction(float(s) * factor) if r is None else r(s * Fraction(factor))
            if qbias is not None:
                s = Fraction(float(s) + float(qbias[j])) if r is None else r(s + Fraction(float(qbias[j])))
            cacc.append(float(s))
            result.append(float(cast([float(s)], case["output"])[0]))
            exact = sum((Fraction(float(x)) * Fraction(float(fa[i])) * Fraction(float(y)) * Fraction(float(fw[j]))
                         for x, y in zip(qa[i], qw[j])), Fraction(0))
            if qbias is not None:
                exact += Fraction(float(qbias[j]))
            rq.append(float(exact))
    hexes = lambda xs: [float(v).hex() for v in np.ravel(xs)]  # noqa: E731
    out = dict(case)
    out.update({"a": hexes(a), "w": hexes(w), "result": hexes(result), "accumulated": hexes(cacc),
                "rounded_reference": hexes(rq)})
    if bias is not None:
        out["bias_values"] = hexes(bias)
    return out


CASES = [
    dict(name="linear bf16, f32 sequential, bf16 bias and output", m=3, n=5, k=9,
         input="bfloat16", weight="bfloat16", bias="bfloat16", output="bfloat16",
         input_scaling="none", weight_scaling="none",
         accumulate=dict(kind="sequential", format="float32")),
    dict(name="f16 with f16 accumulation", m=4, n=9, k=40, input="float16", weight="float16",
         output="float16", input_scaling="none", weight_scaling="none",
         accumulate=dict(kind="sequential", format="float16")),
    dict(name="e4m3 per-tensor, f32 sequential, outlier column", m=4, n=3, k=24,
         input="float8_e4m3fn", weight="float8_e4m3fn", output="bfloat16", outlier_column=5,
         input_scaling="per-tensor", weight_scaling="per-tensor",
         accumulate=dict(kind="sequential", format="float32")),
    dict(name="MX e4m3 x e5m2", m=3, n=4, k=70, input="float8_e4m3fn", weight="float8_e5m2",
         output="float32", outlier_column=40, input_scaling="mx", weight_scaling="mx",
         accumulate=dict(kind="sequential", format="float32")),
    dict(name="NVFP4", m=3, n=3, k=40, input="float4_e2m1fn", weight="float4_e2m1fn",
         output="float32", input_scaling="nvfp4", weight_scaling="nvfp4",
         accumulate=dict(kind="sequential", format="float32")),
    dict(name="int8 per-channel, f64 accumulation, f32 bias", m=3, n=4, k=33, input="int8",
         weight="int8", bias="float32", output="float32", input_scaling="per-channel",
         weight_scaling="per-channel", accumulate=dict(kind="float64", format="float64")),
    dict(name="bf16 chunked(4) into f32", m=2, n=10, k=9, input="bfloat16", weight="bfloat16",
         output="float32", input_scaling="none", weight_scaling="none",
         accumulate=dict(kind="chunked", format="bfloat16", chunk=4)),
    # Custom formats, which no library has: decoded by formula, rounded by the oracle.
    dict(name="custom e5m7 x e4m4b5:fnuz, e6m9 sequential, e5m7 bias and output", m=3, n=5, k=40,
         input="e5m7b15:ieee", weight="e4m4b5:fnuz", bias="e5m7b15:ieee", output="e5m7b15:ieee",
         input_scaling="none", weight_scaling="none",
         accumulate=dict(kind="sequential", format="e6m9b31:ieee")),
    dict(name="custom e3m3:finite (saturating outliers), e8m12:fn chunked(8) into f32", m=4, n=3, k=50,
         input="e3m3b3:finite", weight="e3m3b3:finite", output="e4m6b7:ieee", outlier_column=3,
         input_scaling="none", weight_scaling="none",
         accumulate=dict(kind="chunked", format="e8m12b127:fn", chunk=8)),
    dict(name="custom e4m2b3:fn into a shifted-bias e5m4b20 accumulator", m=3, n=4, k=64,
         input="e4m2b3:fn", weight="e4m2b3:fn", output="float32", outlier_column=7,
         input_scaling="none", weight_scaling="none",
         accumulate=dict(kind="sequential", format="e5m4b20:ieee")),
]


def main():
    check_custom_decoder()
    rng = random.Random(20261122)
    json.dump({"generator": "gen_matmul.py", "numpy": np.__version__,
               "ml_dtypes": ml_dtypes.__version__, "cases": [run(c, rng) for c in CASES]},
              sys.stdout, indent=0)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
