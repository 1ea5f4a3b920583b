#!/usr/bin/env python3
"""What NumPy 1.x gives for a float32 array plus a zero-dim float64 array (and plus the same value
as a Python float), for values across float32's range: the value-based rule scenario 25's look-at
states. NumPy 1 cannot be installed beside NumPy 2, so this runs on its own under NumPy 1.x and
writes numpy1-value-based.json beside itself, which gen_facts.py reads.

Run under NumPy 1.x (recorded with 1.26.4):
  python3 tests/data/scenarios/gen_numpy1_value_based.py
"""
import json
import pathlib
import sys

import numpy as np

OUT = pathlib.Path(__file__).resolve().parent / "numpy1-value-based.json"
# Ordinary values, the edges of float32's range (its largest, 3.4028234663852886e38, among them),
# values past it, and the non-finite ones.
VALUES = ["2.5", "1e-50", "65520.0", "1e10", "3e38", "3.4e38", "3.4028234663852886e38", "3.5e38", "1e39",
          "1e300", "inf", "-inf", "nan"]


def main():
    if not np.__version__.startswith("1."):
        print(f"run this under NumPy 1.x (this is {np.__version__})", file=sys.stderr)
        return 2
    a = np.ones(3, dtype=np.float32)
    rows = [{"value": v, "zero_dim_float64": str((a + np.array(float(v))).dtype),
             "python_float": str((a + float(v)).dtype)} for v in VALUES]
    OUT.write_text(json.dumps({"numpy": np.__version__, "array": "float32", "rows": rows}, indent=1) + "\n")
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
