#!/usr/bin/env python3
"""What a float64 value becomes when a framework casts it to an integer dtype.

C++ leaves an out-of-range float-to-int conversion undefined, so what NumPy's `astype` and
PyTorch's `.to()` print is whatever the machine's conversion instruction gives (on x86-64 a
truncating cvttsd2si, whose "integer indefinite" result a narrower target then wraps). The
Formats panel's integer table and the `int_cast` checks reproduce that route as
IntOverflow::Wrap (core/dtype/int_convert.h); IntConvertGolden.MatchesTheRecordedFrameworks
compares it with the casts recorded here, value by value.

Writes int_casts.json beside this script: {"machine", "versions", "values", "rows": [{"framework",
"to", "value", "result"}]}, values and results as text (bool as 0 or 1). NumPy's rows come from
an array of one element ("numpy") and of 64 ("numpy-64"): a long array takes NumPy's vectorised
loop, which does not convert as the scalar one does. PyTorch's rows are recorded when torch
imports. Run: python3 tests/data/casts/gen_int_casts.py
"""
import json
import pathlib
import platform
import sys
import warnings

import numpy as np

OUT = pathlib.Path(__file__).resolve().parent / "int_casts.json"
VALUES = ["-2.7", "2.7", "0.5", "-0.5", "200", "300", "-1.5", "-5", "-129", "255.9", "256", "65535.9",
          "65536", "-32769", "3e9", "-3e9", "5e9", "1e19", "-1e19", "2e19", "1e300", "inf", "-inf", "nan",
          "3000000001", "-2147483649", "12884901893"]  # past int32 with a nonzero low byte: torch's uint8 differs
TARGETS = ["bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64"]


def text(v):
    return str(int(v))  # bool as 0 or 1


def numpy_rows(length, framework):
    rows = []
    for to in TARGETS:
        for v in VALUES:
            with np.errstate(all="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                got = np.full(length, float(v), dtype=np.float64).astype(to)
            values = {text(x) for x in got}
            if len(values) != 1:
                sys.exit(f"numpy {to} {v}: elements disagree {sorted(values)}")
            rows.append({"framework": framework, "to": to, "value": v, "result": values.pop()})
    return rows


def torch_rows(torch):
    rows = []
    for to in TARGETS:
        t = getattr(torch, to)
        for v in VALUES:
            # A tensor of 64 copies, so that a vectorised conversion loop (not only the scalar
            # tail) produces the value; every element must agree.
            got = torch.full((64,), float(v), dtype=torch.float64).to(t)
            values = {text(x) for x in got.tolist()}
            if len(values) != 1:
                sys.exit(f"torch {to} {v}: elements disagree {sorted(values)}")
            rows.append({"framework": "torch", "to": to, "value": v, "result": values.pop()})
    return rows


def main():
    versions = {"python": platform.python_version(), "numpy": np.__version__}
    rows = numpy_rows(1, "numpy") + numpy_rows(64, "numpy-64")
    try:
        import torch
        torch.set_num_threads(1)
        versions["torch"] = torch.__version__
        rows += torch_rows(torch)
    except ImportError:
        print("torch is not installed: NumPy's rows only", file=sys.stderr)
    OUT.write_text(json.dumps({"machine": platform.machine(), "versions": versions, "values": VALUES,
                               "rows": rows}, indent=1) + "\n")
    print(f"wrote {OUT} ({len(rows)} rows)")


if __name__ == "__main__":
    main()
