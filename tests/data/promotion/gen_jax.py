#!/usr/bin/env python3
"""Golden promotion tables from the real JAX (CPU), for core/promote/jax_engine.

One table set per configuration: "x32" (the default: jax_enable_x64 off, standard
promotion), "x64" (jax_enable_x64 on) and "strict" (jax_numpy_dtype_promotion=strict,
x64 off). For every ordered pair of dtypes it records the result dtype or the exception
type and exact message:

  tensor:  a 1-d array;  zerodim: a 0-d array (strongly typed like any array);
  scalar:  the Python scalar of the dtype's category (True, 2, 2.5, 2.5+1j), weakly typed.

"pyvalue" tables pair an array of each dtype with each Python scalar in "values".
Shapes and dtypes come from jax.eval_shape (the same tracing and argument parsing the
eager call does, without compiling thousands of kernels -- and XLA's CPU backend cannot
even create float6 arrays: "Invalid XLA PrimitiveType: 36 (F6E2M3FN)").

JAX names the dtypes of a failed promotion in a tuple built from a Python set, so their
order changes from one process to the next (str hashes are randomised); this script
writes them in call order.

Layout as in gen_torch.py, with "configs": name -> {"tables": ...} and a shared "outcomes".
Run: python3 tests/data/promotion/gen_jax.py > tests/data/promotion/jax_cpu.json
"""
import ast
import json
import re
import sys
import warnings

warnings.simplefilter("ignore")

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import ml_dtypes  # noqa: E402
from golden_io import Outcomes, write_golden  # noqa: E402

NAMES = ["bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64",
         "float16", "bfloat16", "float32", "float64", "complex64", "complex128",
         "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz",
         "float8_e4m3b11fnuz", "float8_e4m3", "float8_e3m4", "float8_e8m0fnu",
         "float6_e2m3fn", "float6_e3m2fn", "float4_e2m1fn", "int4", "uint4"]
DT = {n: jnp.dtype(n) if n != "bool" else jnp.dtype(bool) for n in NAMES}
SCALAR = {"b": True, "i": 2, "u": 2, "f": 2.5, "V": 2.5, "c": 2.5 + 1j}
VALUES = ["True", "2", "300", "-1", "2**31", "2**40", "2**63", "2.5", "1e300", "2.5+1j",
          # From check_jax_values.py: int32, uint32 and int64 edges, 2**53 + 1,
          # negative zero, floats past float16's and float32's range, an infinity (1e999).
          "127", "128", "-129", "255", "256", "32768", "65536", "2147483647", "-2**31", "-2147483649",
          "4294967295", "2**32", "9007199254740993", "9223372036854775807", "-2**63",
          "18446744073709551615", "-0.0", "65520.0", "3.4e38", "1e39", "-1e999", "1e-50",
          # Past int64 and uint64 (kept exactly up to 2**127 by the engines).
          "2**64", "-9223372036854775809", "2**100", "-2**100"]
KIND_PAIRS = [("tensor", "tensor"), ("tensor", "zerodim"), ("tensor", "scalar"),
              ("scalar", "tensor")]
CONFIGS = {"x32": (False, "standard"), "x64": (True, "standard"), "strict": (False, "strict")}


# ml_dtypes gives its types kind 'V': a float's Python scalar is a float, int4's and uint4's an int.
INT4_KINDS = {"int4": "i", "uint4": "u"}


def kind_of(n):
    k = DT[n].kind
    return INT4_KINDS.get(n, "f" if k == "V" else k)


def spec(n, kind, shape):
    if kind == "scalar":
        return SCALAR[kind_of(n)]
    return jax.ShapeDtypeStruct(() if kind == "zerodim" else shape, DT[n])


def call_order(message, names):
    """Rewrites JAX's set-ordered "Input dtypes (...)" tuple in call order, each item as JAX
    prints it (a weak type as "<class 'float'>")."""
    m = re.match(r"Input dtypes (\(.*?\)) have", message)
    if not m:
        return message
    try:
        listed = list(ast.literal_eval(m.group(1)))
    except (ValueError, SyntaxError):
        return message
    want = [n for n in names if n in listed] + [n for n in listed if n not in names]
    if sorted(want) != sorted(listed):
        return message
    return message.replace(m.group(1), repr(tuple(want)), 1)


def outcome(fn, names):
    try:
        return str(fn().dtype)
    except Exception as e:  # the exception class and its text, as JAX prints them
        return {"error": type(e).__name__, "message": call_order(str(e), names)}


def node_names(*items):
    """The dtype names as JAX prints them in promotion errors."""
    out = []
    for x in items:
        if isinstance(x, bool):
            out.append("bool")
        elif isinstance(x, (int, float, complex)):
            out.append(str(type(x)))  # JAX prints a weak type as its class: "<class 'float'>"
        else:  # arrays are canonicalized first (float64 -> float32 with x64 off)
            out.append(str(jax.dtypes.canonicalize_dtype(x.dtype)))
    return out



OPS = {"add": jnp.add, "multiply": jnp.multiply, "true_divide": jnp.true_divide}


def tables_for(outcomes):
    tables = {}

    def table(name, fn, cols=NAMES):
        tables[name] = [[outcomes.add(fn(a, b)) for b in cols] for a in NAMES]

    table("promote_types", lambda a, b: outcome(
        lambda: jax.ShapeDtypeStruct((), jnp.promote_types(DT[a], DT[b])), [a, b]))
    for op, f in OPS.items():
        for ka, kb in KIND_PAIRS:
            def cell(a, b, f=f, ka=ka, kb=kb):
                x, y = spec(a, ka, (2,)), spec(b, kb, (2,))
                # A Python scalar is closed over, as in `x + 2.5`; arrays are traced.
                if ka == "scalar":
                    return outcome(lambda: jax.eval_shape(lambda v: f(x, v), y), node_names(x, y))
                if kb == "scalar":
                    return outcome(lambda: jax.eval_shape(lambda u: f(u, y), x), node_names(x, y))
                return outcome(lambda: jax.eval_shape(f, x, y), node_names(x, y))
            table(f"{op}:{ka},{kb}", cell)

        def value_cell(a, v, f=f):
            x, y = spec(a, "tensor", (2,)), eval(v)
            return outcome(lambda: jax.eval_shape(lambda u: f(u, y), x), node_names(x, y))
        table(f"{op}:tensor,pyvalue", value_cell, VALUES)
    mats = {
        "matmul": lambda x, y: jnp.matmul(x, y),
        "matmul_f32acc": lambda x, y: jnp.matmul(x, y, preferred_element_type=jnp.float32),
    }
    for op, f in mats.items():
        def mat_cell(a, b, f=f):
            x, y = spec(a, "tensor", (2, 3)), spec(b, "tensor", (3, 2))
            return outcome(lambda: jax.eval_shape(f, x, y), node_names(x, y))
        table(f"{op}:tensor,tensor", mat_cell)
    table("astype:tensor,tensor", lambda a, b: outcome(
        lambda: jax.eval_shape(lambda x: x.astype(DT[b]), spec(a, "tensor", (2,))), [a, b]))
    return tables


def main():
    outcomes = Outcomes()
    configs = {}
    for name, (x64, promotion) in CONFIGS.items():
        jax.config.update("jax_enable_x64", x64)
        jax.config.update("jax_numpy_dtype_promotion", promotion)
        configs[name] = tables_for(outcomes)
    header = {"framework": "jax", "version": jax.__version__, "ml_dtypes": ml_dtypes.__version__,
              "device": "cpu"}
    write_golden(sys.stdout, header, NAMES, outcomes, configs=configs, extra={"values": VALUES})

if __name__ == "__main__":
    main()
