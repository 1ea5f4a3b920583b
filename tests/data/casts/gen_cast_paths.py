#!/usr/bin/env python3
"""Which frameworks round a float64 value twice (through float32) when they cast it to a narrower float.

For each target format the probe is x = 1 + 2^-(m+1) + 2^-40, m the format's mantissa bits: one
correct rounding takes it up to 1 + 2^-m, while a first rounding to float32 drops the 2^-40 and
leaves a tie that goes to even, 1.0. The framework's own cast of a float64 array says which it did.
A second probe near the top of the range, the largest finite value plus just under half its
spacing, shows the same in overflow (float64 65519.999 -> float16: 65504 once, inf twice).

Each row also records what the cast does past the largest finite value, which the formats leave
to the framework: a value three quarters of a spacing past it (past the halfway point, where
rounding to nearest overflows, and finite in float32, so the route does not decide it) and +inf
each become "inf", "nan" or "largest" (the cast saturates). PyTorch's float8_e4m3fn saturates,
inf too, where ml_dtypes' gives nan. And what a NaN becomes: a format without one leaves that to the
framework too (ml_dtypes makes +NaN the zero of the other sign, -0).

Each run records the libraries of the interpreter that runs it and merges them into
cast_paths.json beside this script: {"rows": [{"framework", "release", "dtype", "path",
"past_largest", "inf", "nan"}]}.
core/dtype/framework_cast_paths.cpp holds the same rows; FrameworkCastPaths.AreTheRecordedOnes
compares them.

Run with each interpreter whose libraries are to be recorded:
  python3 tests/data/casts/gen_cast_paths.py   (PyPI: torch 2.15, numpy 2.4, ml_dtypes 0.7.0)
  python3 tests/data/casts/gen_cast_paths.py   (PyPI: numpy 2.4, ml_dtypes 0.6.0)
  /usr/bin/python3 tests/data/casts/gen_cast_paths.py   (Debian 12: python3-torch 1.13.1, numpy 1.24)
"""
import json
import math
import pathlib
import sys

import numpy as np

OUT = pathlib.Path(__file__).resolve().parent / "cast_paths.json"
TARGETS = {  # name: (mantissa bits, largest finite, spacing of the top binade)
    "float16": (10, 65504.0, 32.0),
    "bfloat16": (7, 3.3895313892515355e38, 2.0 ** 120),
    "float8_e4m3fn": (3, 448.0, 32.0),
    "float8_e5m2": (2, 57344.0, 8192.0),
    "float8_e4m3fnuz": (3, 240.0, 16.0),
    "float8_e4m3": (3, 240.0, 16.0),
    "float8_e3m4": (4, 15.5, 0.5),
    "float8_e5m2fnuz": (2, 57344.0, 8192.0),
    "float6_e2m3fn": (3, 7.5, 0.5),
    "float6_e3m2fn": (2, 28.0, 4.0),
    "float4_e2m1fn": (1, 6.0, 2.0),
}


def probes(m):
    return 1 + 2.0 ** -(m + 1) + 2.0 ** -40


def classify(name, cast):
    """'direct', 'via-float32', or None where the framework has no such cast. `cast` maps a float64
    numpy array to float64 values after the round trip through the target."""
    m, top, spacing = TARGETS[name]
    x = probes(m)
    try:
        got = cast(np.array([x], dtype=np.float64))[0]
    except (TypeError, RuntimeError, AttributeError, ValueError):
        return None
    once, twice = 1 + 2.0 ** -m, 1.0
    if got == once:
        path = "direct"
    elif got == twice:
        path = "via-float32"
    else:
        raise SystemExit(f"{name}: {x!r} became {got!r}, neither one rounding ({once}) nor two ({twice})")
    # The top of the range tells the same story where float32 rounds the value onto the tie.
    near = top + spacing / 2 - spacing * 2.0 ** -30
    if np.float32(near) == top + spacing / 2 and name == "float16":
        top_got = cast(np.array([near], dtype=np.float64))[0]
        expected = top if path == "direct" else math.inf
        if top_got != expected:
            raise SystemExit(f"{name}: {near!r} became {top_got!r}, not {expected!r} as the {path} path gives")
    return path


def overflow_of(name, cast):
    """What the cast gives past the largest finite value and for +inf: each "inf", "nan" or
    "largest"."""
    _, top, spacing = TARGETS[name]
    past = top + 0.75 * spacing
    if float(np.float32(past)) != past or past <= top + spacing / 2:
        raise SystemExit(f"{name}: the probe {past!r} is not past the halfway point and finite in float32")

    def kind(v):
        if math.isnan(v):
            return "nan"
        if v == math.inf:
            return "inf"
        if v == top:
            return "largest"
        raise SystemExit(f"{name}: a value past the largest finite became {v!r}")
    got = cast(np.array([past, math.inf], dtype=np.float64))
    return {"past_largest": kind(float(got[0])), "inf": kind(float(got[1]))}


def nan_of(name, cast):
    """What the cast makes of a NaN, which a format without one (float6, float4) leaves to the
    framework: "nan" (a NaN stays one), "zero" (+NaN gives +0 and -NaN -0) or "zero-other-sign"
    (+NaN gives -0)."""
    got = cast(np.array([math.nan, -math.nan], dtype=np.float64))
    if math.isnan(got[0]) and math.isnan(got[1]):
        return {"nan": "nan"}
    if got[0] == 0 and got[1] == 0:
        same = not math.copysign(1, got[0]) < 0 and math.copysign(1, got[1]) < 0
        other = math.copysign(1, got[0]) < 0 and not math.copysign(1, got[1]) < 0
        if same or other:
            return {"nan": "zero" if same else "zero-other-sign"}
    raise SystemExit(f"{name}: +nan and -nan became {got[0]!r} and {got[1]!r}")


def row(framework, release, name, cast):
    path = classify(name, cast)
    return {"framework": framework, "release": release, "dtype": name, "path": path,
            **overflow_of(name, cast), **nan_of(name, cast)} if path else None


def rows_for_this_interpreter():
    rows = []
    try:
        import torch
        release = ".".join(torch.__version__.split("+")[0].split(".")[:2])
        for name in TARGETS:
            t = getattr(torch, name, None)
            if t is None:
                continue
            r = row("PyTorch", release, name, lambda a, t=t: torch.from_numpy(a).to(t).to(torch.float64).numpy())
            if r:
                rows.append(r)
    except ImportError:
        pass
    release = ".".join(np.__version__.split(".")[:2])
    with np.errstate(over="ignore"):  # (NumPy warns on the overflow it is asked to show)
        rows.append(row("NumPy", release, "float16", lambda a: a.astype(np.float16).astype(np.float64)))
    try:
        import ml_dtypes
        for name in TARGETS:
            t = getattr(ml_dtypes, name, None)
            if t is None:
                continue
            r = row("ml_dtypes", ml_dtypes.__version__, name, lambda a, t=t: a.astype(t).astype(np.float64))
            if r:
                rows.append(r)
    except ImportError:
        pass
    return rows


def main():
    recorded = json.loads(OUT.read_text())["rows"] if OUT.exists() else []
    new = rows_for_this_interpreter()
    keys = {(r["framework"], r["release"]) for r in new}
    rows = [r for r in recorded if (r["framework"], r["release"]) not in keys] + new
    rows.sort(key=lambda r: (r["framework"], r["release"], r["dtype"]))
    OUT.write_text(json.dumps({"rows": rows}, indent=1) + "\n")
    for r in new:
        print(f"{r['framework']} {r['release']}: float64 -> {r['dtype']}: {r['path']}; past the largest: "
              f"{r['past_largest']}, inf: {r['inf']}, nan: {r['nan']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
