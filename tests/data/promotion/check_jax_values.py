#!/usr/bin/env python3
"""Cross-checks the jax / jax-x64 / jax-strict engines against the JAX that runs this script,
on Python scalars of values the recorded tables (gen_jax.py's VALUES) do not hold: int32 and
int64 edges, unsigned edges, infinities, NaN, negative zero, floats past float32's range,
complex values. Each cell is `array op scalar`, traced as gen_jax.py traces it (jax.eval_shape,
the scalar closed over), and asked of `precision-lab promote --json`; the result dtype, or
the error's type and text, must agree.

    python check_jax_values.py --pl build/precision-lab      # JAX 0.10.2, ml_dtypes 0.6.0

Integers of magnitude 2**127 or more are refused by the engines (not modelled). Not run by CTest:
it needs JAX; the recorded tables are the test. Each run's last line, with the releases, is kept
in check_values.txt.
"""
import argparse
import sys
import warnings

warnings.simplefilter("ignore")

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import ml_dtypes  # noqa: E402

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from engine_cli import engine_outcome  # noqa: E402
from gen_jax import DT, NAMES, call_order, node_names  # noqa: E402

INTS = [0, -1, 127, 128, 255, 256, -129, 32768, 65536, 2**31 - 1, 2**31, -2**31, -2**31 - 1, 2**32 - 1,
        2**32, 2**53 + 1, 2**63 - 1, -2**63, 2**64 - 1, 2**64, -2**63 - 1, 2**100]
FLOATS = ["-0.0", "65504.0", "65520.0", "3.4e38", "1e39", "1e-50", "inf", "-inf", "nan"]
SCALARS = ([("int64", str(v), v) for v in INTS] + [("float64", v, float(v)) for v in FLOATS] +
           [("complex128", v, complex(v)) for v in ["1e39+0j", "-1j"]] + [("bool", "False", False)])
OPS = {"add": jnp.add, "multiply": jnp.multiply, "true_divide": jnp.true_divide}
CONFIGS = {"jax": (False, "standard"), "jax-x64": (True, "standard"), "jax-strict": (False, "strict")}


def jax_outcome(op, array, value):
    x = jax.ShapeDtypeStruct((2,), DT[array])
    try:
        return ("ok", str(jax.eval_shape(lambda u: OPS[op](u, value), x).dtype))
    except Exception as e:  # the outcome asked about
        return ("err", f"{type(e).__name__}: {call_order(str(e), node_names(x, value))}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pl", default="build/precision-lab")
    a = ap.parse_args()
    checked = mismatched = 0
    for engine, (x64, promotion) in CONFIGS.items():
        jax.config.update("jax_enable_x64", x64)
        jax.config.update("jax_numpy_dtype_promotion", promotion)
        for array in NAMES:
            for scalar_dtype, literal, value in SCALARS:
                for op in OPS:
                    want = jax_outcome(op, array, value)
                    got = engine_outcome(a.pl, engine, op, array, scalar_dtype, literal)
                    checked += 1
                    if got != want:
                        mismatched += 1
                        print(f"MISMATCH {engine} {op}({array}, {literal}): jax {want}, engine {got}")
    print(f"jax {jax.__version__}, ml_dtypes {ml_dtypes.__version__}: {checked} cells, {mismatched} mismatches")
    return 1 if mismatched else 0


if __name__ == "__main__":
    sys.exit(main())
