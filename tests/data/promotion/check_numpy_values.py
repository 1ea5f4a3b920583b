#!/usr/bin/env python3
"""Cross-checks the numpy engines against the NumPy that runs this script, on Python
scalars of values the recorded tables (gen_numpy.py's VALUES) do not hold: integer-range edges,
infinities, NaN, negative zero, floats past float32's and float16's range, complex values.

    python check_numpy_values.py --engine numpy  --pl build/precision-lab   # NumPy 2.4.6 + ml_dtypes 0.6.0
    python check_numpy_values.py --engine numpy1 --pl build/precision-lab   # NumPy 1.26.4 + ml_dtypes 0.5.1
    python check_numpy_values.py --engine numpy-ml_dtypes0.7 --pl build/precision-lab  # 2.4.6 + 0.7.0

Every (array dtype, scalar, op, operand order) cell is asked of `precision-lab promote --json`
and of NumPy; the result dtype, or the error's type and text, must agree (integers past int64
and uint64 included: NumPy 2 raises or converts them by dtype and op, NumPy 1 makes object
arrays). Integers of magnitude 2**127 or more are refused by the engines (not modelled) and are
counted apart. Warnings (overflow in the cast)
are NumPy's, not an outcome. Not run by CTest: it needs NumPy; the recorded tables are the test.
Each run's last line, with the releases, is kept in check_values.txt.
"""
import argparse
import sys
import warnings

import ml_dtypes
import numpy as np

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from engine_cli import engine_outcome  # noqa: E402

ARRAYS = ["bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64", "float16",
          "float32", "float64", "complex64", "complex128", "bfloat16", "float8_e4m3fn", "float8_e5m2", "int4",
          "uint4"]
INTS = [0, 1, -1, 127, 128, -128, -129, 255, 256, 32767, 32768, 65535, 65536, -32769, 2**31 - 1, 2**31,
        2**32, 2**63 - 1, 2**63, 2**64 - 1, -2**63, 2**64, -2**63 - 1, 2**100, -(2**126)]
FLOATS = ["1.5", "-0.0", "65504.0", "65520.0", "1e39", "3.4e38", "1e-50", "1e308", "inf", "nan", "-inf", "300.0"]
SCALARS = ([("int64", str(v), v) for v in INTS] + [("float64", v, float(v)) for v in FLOATS] +
           [("complex128", v, complex(v)) for v in ["1+2j", "1e39+0j"]] +
           [("bool", v, v == "True") for v in ["True", "False"]])
TOO_LARGE = [("int64", str(v), v) for v in [2**127, -10**40]]
OPS = {"add": np.add, "subtract": np.subtract, "multiply": np.multiply, "true_divide": np.true_divide}


def numpy_outcome(op, array_dtype, value, scalar_first):
    dt = getattr(ml_dtypes, array_dtype) if hasattr(ml_dtypes, array_dtype) and not hasattr(np, array_dtype) \
        else np.dtype(array_dtype)
    x = np.ones(3, dtype=dt)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            r = OPS[op](value, x) if scalar_first else OPS[op](x, value)
            return ("ok", str(r.dtype))
        except Exception as e:  # the outcome asked about
            return ("err", f"{type(e).__name__}: {e}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--engine", default="numpy", choices=["numpy", "numpy1", "numpy-ml_dtypes0.7"])
    ap.add_argument("--pl", default="build/precision-lab")
    a = ap.parse_args()
    checked = mismatched = 0
    for array in ARRAYS:
        for scalar_dtype, literal, value in SCALARS:
            for op in OPS:
                for scalar_first in (False, True):
                    want = numpy_outcome(op, array, value, scalar_first)
                    got = engine_outcome(a.pl, a.engine, op, array, scalar_dtype, literal, scalar_first)
                    checked += 1
                    if got != want:
                        mismatched += 1
                        print(f"MISMATCH {op}({'scalar ' + literal + ', ' + array if scalar_first else array + ', scalar ' + literal}):"
                              f" numpy {want}, engine {got}")
    refused = sum(engine_outcome(a.pl, a.engine, "add", "float32", d, lit, False)[0] == "refused"
                  for d, lit, _ in TOO_LARGE)
    print(f"numpy {np.__version__}, ml_dtypes {ml_dtypes.__version__}, engine {a.engine}: {checked} cells, "
          f"{mismatched} mismatches; integers past 2**127 refused (not modelled): {refused} of {len(TOO_LARGE)}")
    return 1 if mismatched else 0


if __name__ == "__main__":
    sys.exit(main())
