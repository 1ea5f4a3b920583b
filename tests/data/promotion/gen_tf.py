#!/usr/bin/env python3
"""Golden promotion tables from the real TensorFlow (CPU), for core/promote/tf_engine.

Two modes, each recorded in its own process because the switch is global:
  "default": TensorFlow's own rule -- no implicit promotion between tensors;
  "all":     tf.experimental.numpy.experimental_enable_numpy_behavior(
                 dtype_conversion_mode="all") -- automatic, JAX-like promotion with
             weakly typed Python scalars.

  tensor: a 1-d tensor;  scalar: the Python scalar of the dtype's category (True, 2, 2.5,
  2.5+1j), converted by TensorFlow.

Run: python3 tests/data/promotion/gen_tf.py > tests/data/promotion/tf_cpu.json
     (runs itself once per mode: gen_tf.py --mode MODE writes that mode's tables). It records
     with oneDNN off (TF_ENABLE_ONEDNN_OPTS=0, set here unless given, and refused otherwise):
     a CPU where TensorFlow turns oneDNN on prints _MklMatMul for MatMul in matmul's errors,
     which gen_tf_onednn.py records.
"""
import json
import os
import subprocess
import sys
import warnings

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")  # (read when TensorFlow is imported)
warnings.simplefilter("ignore")

from golden_io import Outcomes, write_golden  # noqa: E402

NAMES = ["bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64",
         "float16", "bfloat16", "float32", "float64", "complex64", "complex128",
         "float8_e4m3fn", "float8_e5m2",
         # More of tf.dtypes.experimental's: no op takes them, and Cast only to and from the
         # integers (int4, uint4) or to themselves.
         "int4", "uint4", "float8_e4m3fnuz", "float8_e5m2fnuz", "float8_e4m3b11fnuz", "float4_e2m1fn"]
SCALAR = {"b": True, "i": 2, "u": 2, "f": 2.5, "c": 2.5 + 1j}
KIND_PAIRS = [("tensor", "tensor"), ("tensor", "scalar"), ("scalar", "tensor")]
MODES = ["default", "all"]


# What the recorders share (this file's tables and gen_tf_values.py's): TensorFlow is imported
# only by the process that records one mode.
def start_tf(mode):
    """TensorFlow with the mode's promotion on: the switch is global, so one mode a process."""
    import tensorflow as tf
    tf.get_logger().setLevel("ERROR")
    if mode != "default":
        tf.experimental.numpy.experimental_enable_numpy_behavior(dtype_conversion_mode=mode)
    return tf


def np_dtype(n):
    import ml_dtypes
    import numpy as np
    return np.dtype(getattr(ml_dtypes, n)) if hasattr(ml_dtypes, n) else np.dtype(n)


def scalar_kind(n):
    """The NumPy kind of the Python scalar that stands for dtype n: ml_dtypes' types are all
    kind "V", and its int4 and uint4 are integers."""
    k = np_dtype(n).kind
    return k if k != "V" else {"int4": "i", "uint4": "u"}.get(n, "f")


def zeros(tf, n, shape):
    """A tensor of zeros of dtype n, made from NumPy: tf.zeros cannot make float8 tensors (it
    casts an int64 zero)."""
    import numpy as np
    return tf.constant(np.zeros(shape, np_dtype(n)))


def outcome(fn):
    """The result's dtype, or the exception's class and text as TF prints them."""
    try:
        return fn().dtype.name
    except Exception as e:  # noqa: BLE001
        return {"error": type(e).__name__, "message": str(e)}


def tables_for(mode):
    tf = start_tf(mode)

    def tf_dtype(n):
        return getattr(tf, n) if hasattr(tf, n) else getattr(tf.dtypes.experimental, n)

    def tensor(n, shape):
        return zeros(tf, n, shape)

    def operand(n, kind, shape):
        if kind == "tensor":
            return tensor(n, shape)
        return SCALAR[scalar_kind(n)]

    outcomes, tables = Outcomes(), {}

    def table(name, fn):
        tables[name] = [[outcomes.add(outcome(lambda: fn(a, b))) for b in NAMES] for a in NAMES]

    ops = {"add": tf.add, "multiply": tf.multiply, "truediv": tf.math.truediv}
    for op, f in ops.items():
        for ka, kb in KIND_PAIRS:
            table(f"{op}:{ka},{kb}",
                  lambda a, b, f=f, ka=ka, kb=kb: f(operand(a, ka, (2,)), operand(b, kb, (2,))))
    table("matmul:tensor,tensor", lambda a, b: tf.linalg.matmul(tensor(a, (2, 3)), tensor(b, (3, 2))))
    table("cast:tensor,tensor", lambda a, b: tf.cast(tensor(a, (2,)), tf_dtype(b)))
    return outcomes.items, tables, tf.__version__


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--mode":
        outcomes, tables, version = tables_for(sys.argv[2])
        json.dump({"version": version, "outcomes": outcomes, "tables": tables}, sys.stdout)
        return
    if os.environ["TF_ENABLE_ONEDNN_OPTS"] != "0":
        sys.exit("gen_tf.py records with oneDNN off: run it without TF_ENABLE_ONEDNN_OPTS, or with 0")
    write_modes(__file__, "cpu, TF_ENABLE_ONEDNN_OPTS=0")


def write_modes(script, device):
    """Runs `script --mode MODE` once per mode, each in its own process (the switch is global),
    and writes their tables as one golden file on stdout."""
    merged, configs, version = Outcomes(), {}, None
    for mode in MODES:
        run = subprocess.run([sys.executable, script, "--mode", mode], check=True,
                             capture_output=True, text=True)
        part = json.loads(run.stdout)
        version = part["version"]
        remap = [merged.add(o) for o in part["outcomes"]]
        configs[mode] = {k: [[remap[x] for x in row] for row in v]
                         for k, v in part["tables"].items()}
    header = {"framework": "tensorflow", "version": version, "device": device}
    write_golden(sys.stdout, header, NAMES, merged, configs=configs)

if __name__ == "__main__":
    main()
