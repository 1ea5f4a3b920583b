#!/usr/bin/env python3
"""What running a JAX call on XLA's CPU backend does where its trace succeeds: the evidence for
the Promotion panel's "(That is the trace: ... running it raises ...)" notes.

jax_cpu.json holds traces (jax.eval_shape): a call that traces may still fail when it runs.
This script runs, on the CPU, every call the notes are about -- matmul with
preferred_element_type=float32 for each pair with a 4-bit operand, and add for each pair with a
float6 operand, each operand an array or, the float6 dtype labelling it, a Python scalar (no
float6 array is made then) -- and records whether it ran
(the result's dtype) or raised (the exception's type and the message's first line).

Run: python3 tests/data/promotion/gen_jax_runtime.py > tests/data/promotion/jax_runtime_cpu.json
(jax with its CPU backend, ml_dtypes).
"""
import json
import platform
import sys
import warnings

warnings.simplefilter("ignore")

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import ml_dtypes  # noqa: E402
import numpy as np  # noqa: E402

SUB_BYTE = ["int4", "uint4", "float4_e2m1fn"]
FLOAT6 = ["float6_e2m3fn", "float6_e3m2fn"]
OTHERS = ["bool", "int8", "uint8", "int32", "float16", "bfloat16", "float32", "float8_e4m3fn"]
SCALAR = {"b": True, "i": 2, "u": 2, "f": 2.5}
INT4_KINDS = {"int4": "i", "uint4": "u"}


def dtype(name):
    return jnp.dtype(bool) if name == "bool" else jnp.dtype(name)


def kind_of(name):
    k = dtype(name).kind
    return INT4_KINDS.get(name, "f" if k == "V" else k)


def outcome(call):
    try:
        r = call()
        r.block_until_ready()
        return {"runs": str(r.dtype)}
    except Exception as e:  # noqa: BLE001  (any exception the run raises is the answer)
        return {"raises": type(e).__name__, "message": str(e).splitlines()[0] if str(e) else ""}


def ones(name):
    return jnp.ones((2, 2), dtype(name))


def main():
    rows = []
    for a in SUB_BYTE + OTHERS:
        for b in SUB_BYTE + OTHERS:
            if a not in SUB_BYTE and b not in SUB_BYTE:
                continue
            got = outcome(lambda: jnp.matmul(ones(a), ones(b), preferred_element_type=jnp.float32))
            rows.append({"op": "matmul_f32acc", "a": a, "b": b, "a_kind": "tensor", "b_kind": "tensor", **got})
    for a in FLOAT6 + OTHERS:
        for b in FLOAT6 + OTHERS:
            if a not in FLOAT6 and b not in FLOAT6:
                continue
            got = outcome(lambda: jnp.add(ones(a), ones(b)))
            rows.append({"op": "add", "a": a, "b": b, "a_kind": "tensor", "b_kind": "tensor", **got})
            # A float6 dtype as the label of a Python scalar's column: no float6 array is made.
            if a not in FLOAT6:
                got = outcome(lambda: jnp.add(ones(a), SCALAR[kind_of(b)]))
                rows.append({"op": "add", "a": a, "b": b, "a_kind": "tensor", "b_kind": "scalar", **got})
            if b not in FLOAT6:
                got = outcome(lambda: jnp.add(SCALAR[kind_of(a)], ones(b)))
                rows.append({"op": "add", "a": a, "b": b, "a_kind": "scalar", "b_kind": "tensor", **got})
    versions = {"python": platform.python_version(), "jax": jax.__version__, "numpy": np.__version__,
                "ml_dtypes": ml_dtypes.__version__, "backend": jax.default_backend()}
    json.dump({"versions": versions, "calls": rows}, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
