#!/usr/bin/env python3
"""Golden promotion tables from the real NumPy (+ ml_dtypes), for core/promote/numpy_engine.

Runs under NumPy 2.x (NEP 50 promotion) and 1.x (value-based promotion) alike; the
version is recorded. For every ordered pair of dtypes and every operand-kind pair it
records the result dtype or the exception type and its exact message.

  tensor:  a 1-d array of the dtype
  zerodim: np.array(v, dtype) with v the category's default value (True, 2, 2.5, 2.5+1j)
  scalar:  the Python scalar of the category (True, 2, 2.5, 2.5+1j)

"pyvalue" tables pair an array of each dtype with each Python scalar in "values": the
values matter in 1.x (value-based) and for out-of-range integers in 2.x (OverflowError).
The layout is the one gen_torch.py writes; see there. Extra keys: "values" (the Python
scalars as literals) and "safe_casts" (np.can_cast(a, b, "safe") for every pair).

Run: python3 tests/data/promotion/gen_numpy.py > tests/data/promotion/numpy2_cpu.json
     /path/to/numpy1-venv/bin/python tests/data/promotion/gen_numpy.py > .../numpy1_cpu.json
"""
import json
import sys
import warnings

import ml_dtypes
import numpy as np

from golden_io import Outcomes, write_golden

warnings.simplefilter("ignore")

BUILTIN = ["bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64",
           "float16", "float32", "float64", "complex64", "complex128"]
ML = ["bfloat16", "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz",
      "float8_e4m3", "float8_e3m4", "float8_e4m3b11fnuz", "float8_e8m0fnu", "float6_e2m3fn",
      "float6_e3m2fn", "float4_e2m1fn", "int4", "uint4"]
NAMES = BUILTIN + [n for n in ML if hasattr(ml_dtypes, n)]
DT = {n: np.dtype(getattr(ml_dtypes, n) if n in ML else n) for n in NAMES}
DEFAULT = {"b": True, "i": 2, "u": 2, "f": 2.5, "c": 2.5 + 1j, "V": 2.5}
VALUES = ["True", "2", "-1", "200", "300", "-300", "70000", "2**33", "2**63", "2.5", "1e10",
          "1e300", "2.5+1j", "1e300j",
          # From check_numpy_values.py: integer-range edges, negative zero,
          # floats past float16's and float32's range, an infinity (1e999 is Python's inf).
          "127", "128", "-129", "255", "256", "32768", "65536", "2**32", "18446744073709551615",
          "-2**63", "-0.0", "65520.0", "1e39", "-1e999", "1e-50",
          # Past int64 and uint64 (kept exactly up to 2**127 by the engines).
          "2**64", "-9223372036854775809", "2**100", "-2**100"]
KIND_PAIRS = [("tensor", "tensor"), ("tensor", "zerodim"), ("zerodim", "tensor"),
              ("zerodim", "zerodim"), ("tensor", "scalar"), ("scalar", "tensor"),
              ("zerodim", "scalar")]
UFUNCS = {"add": np.add, "subtract": np.subtract, "multiply": np.multiply,
          "true_divide": np.true_divide}


# ml_dtypes gives its types kind 'V': a float's Python scalar is a float, int4's and uint4's an int.
INT4_KINDS = {"int4": "i", "uint4": "u"}


def category(n):
    return INT4_KINDS.get(n, DT[n].kind)


def operand(n, kind):
    if kind == "tensor":
        return np.zeros(2, DT[n])
    if kind == "zerodim":
        return np.array(DEFAULT[category(n)]).astype(DT[n])
    if category(n) == "V":
        return 2.5
    return DEFAULT[category(n)]


def dtype_name(d):
    return str(d) if str(d) != "bool" else "bool"


def outcome(fn):
    try:
        r = fn()
        return dtype_name(np.asarray(r).dtype)
    except Exception as e:  # record the message exactly as NumPy prints it
        return {"error": type(e).__name__, "message": str(e)}



def main():
    outcomes = Outcomes()
    tables = {}

    def table2(name, fn, cols=NAMES):
        tables[name] = [[outcomes.add(outcome(lambda: fn(a, b))) for b in cols] for a in NAMES]

    table2("promote_types", lambda a, b: np.empty(0, np.promote_types(DT[a], DT[b])))
    for op, fn in UFUNCS.items():
        for ka, kb in KIND_PAIRS:
            table2(f"{op}:{ka},{kb}", lambda a, b: fn(operand(a, ka), operand(b, kb)))
        table2(f"{op}:tensor,pyvalue", lambda a, v: fn(operand(a, "tensor"), eval(v)), VALUES)
    table2("matmul:tensor,tensor",
           lambda a, b: np.matmul(np.zeros((2, 3), DT[a]), np.zeros((3, 2), DT[b])))
    table2("dot:tensor,tensor",
           lambda a, b: np.dot(np.zeros((2, 3), DT[a]), np.zeros((3, 2), DT[b])))
    table2("astype:tensor,tensor", lambda a, b: np.zeros(2, DT[a]).astype(DT[b]))
    safe = [[bool(np.can_cast(DT[a], DT[b], "safe")) for b in NAMES] for a in NAMES]

    header = {"framework": "numpy", "version": np.__version__, "ml_dtypes": ml_dtypes.__version__,
              "device": "cpu"}
    write_golden(sys.stdout, header, NAMES, outcomes, tables=tables,
                 extra={"values": VALUES, "type_numbers": [DT[n].num for n in NAMES],
                        "safe_casts": safe})

if __name__ == "__main__":
    main()
