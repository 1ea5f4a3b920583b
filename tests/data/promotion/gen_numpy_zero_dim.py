#!/usr/bin/env python3
"""What np.array(v, dtype=T) holds, or the exception it raises, for gen_numpy.py's dtypes and
values: how the numpy engines build a zero-dim operand given a value. NumPy 2 refuses an
integer past the dtype's range, NumPy 1.x wraps one that fits a C long, ml_dtypes' int4 and
uint4 wrap one in every release, and each release words its exceptions its own way.

Each cell is {"int": "44"} (the integer or bool value held, as a decimal), {"held": true} (a
float or complex dtype holds a value; the engines read only integers' values exactly), or
{"error": class, "message": text} ("raised_late": ml_dtypes 0.5.1 left the exception set and the
next call raised SystemError from it). tests/core/promote/numpy_promotion_test.cpp checks the
engines against every cell.

Run under each engine's libraries:
  python3 tests/data/promotion/gen_numpy_zero_dim.py > tests/data/promotion/numpy2_zero_dim.json
  (NumPy 2.4.6 with ml_dtypes 0.6.0; numpy2_ml_dtypes0.7_zero_dim.json with 0.7.0;
  numpy1_zero_dim.json under NumPy 1.26.4 with ml_dtypes 0.5.1)
"""
import json
import sys
import warnings

import ml_dtypes
import numpy as np

from gen_numpy import DT, NAMES, VALUES

warnings.simplefilter("ignore")

# gen_numpy.py's literals, and the edges of a C long and of the unsigned types.
ZERO_DIM_VALUES = VALUES + ["False", "0", "-2.5", "9223372036854775807", "2**31", "-2147483649",
                            "4294967296", "1e19", "-1e300", "1e999"]


def cell(name, literal):
    try:
        held = np.array(eval(literal), dtype=DT[name])
        if DT[name].kind in "biu" or name in ("int4", "uint4"):
            return {"int": str(int(held))}
        return {"held": True}
    except SystemError as e:
        # ml_dtypes 0.5.1 returns from a float's failed conversion to int4 with its exception
        # still set, and the next call raises SystemError from it: the cause is what was raised.
        if e.__cause__ is None:
            raise
        return {"error": type(e.__cause__).__name__, "message": str(e.__cause__), "raised_late": True}
    except Exception as e:  # noqa: BLE001
        return {"error": type(e).__name__, "message": str(e)}


def main():
    out = {"numpy": np.__version__, "ml_dtypes": ml_dtypes.__version__, "dtypes": NAMES,
           "values": ZERO_DIM_VALUES,
           "cells": [[cell(n, v) for v in ZERO_DIM_VALUES] for n in NAMES]}
    sys.stdout.write("{\n" + ",\n".join(f"{json.dumps(k)}: {json.dumps(v)}" for k, v in out.items()) + "\n}\n")


if __name__ == "__main__":
    main()
