#!/usr/bin/env python3
"""The synthetic checkpoint of the scenario 29-checkpoint-outlier-channels, and the figures
NumPy computes for it.

assets/scenarios/checkpoints/outlier-channels.safetensors: a four-layer Llama-style model
(hidden 128, MLP 256, bfloat16, written by the safetensors package). Its weights are N(0, 0.02^2)
except the MLP down projections of layers 1 and 2, whose four outlier input channels (columns)
are 40 times the rest, as large language models' down projections have.

outlier-checkpoint.json records, for every weight and candidate of the scenario, the SQNR that
tests/data/checkpoint/gen_checkpoint.py's independent NumPy recipes give (each recipe from its
definition, rounding on an exact grid checked against ml_dtypes). The scenario's checks are
bounds around these numbers; the scan must land inside them.

Run: python3 tests/data/scenarios/gen_outlier_checkpoint.py [--check]
(numpy 2.x, ml_dtypes, safetensors; exit 77 without them). --check recomputes the figures from
the committed checkpoint and compares.
"""
import json
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tests", "data", "checkpoint"))
import gen_checkpoint as recipes  # noqa: E402 (exits 77 without numpy, ml_dtypes, safetensors)

import ml_dtypes  # noqa: E402
import numpy as np  # noqa: E402
import safetensors  # noqa: E402
from safetensors.numpy import load_file, save_file  # noqa: E402

CHECKPOINT = os.path.join(ROOT, "assets", "scenarios", "checkpoints", "outlier-channels.safetensors")
OUT = os.path.join(HERE, "outlier-checkpoint.json")
HIDDEN, INTER, LAYERS = 128, 256, 4
OUTLIER_LAYERS, OUTLIER_COLUMNS, GAIN = (1, 2), (9, 77, 130, 201), 40.0
CANDIDATES = ["float8_e4m3fn:per-tensor", "float8_e4m3fn:mx", "int8:per-channel", "float6_e2m3fn:mx",
              "float4_e2m1fn:mx", "float4_e2m1fn:nvfp4"]


def make_tensors():
    rng = np.random.default_rng(29)
    t = {}
    for i in range(LAYERS):
        p = f"model.layers.{i}."
        for name in ("q_proj", "k_proj", "v_proj", "o_proj"):
            t[p + "self_attn." + name + ".weight"] = rng.standard_normal((HIDDEN, HIDDEN)) * 0.02
        t[p + "mlp.gate_proj.weight"] = rng.standard_normal((INTER, HIDDEN)) * 0.02
        t[p + "mlp.up_proj.weight"] = rng.standard_normal((INTER, HIDDEN)) * 0.02
        down = rng.standard_normal((HIDDEN, INTER)) * 0.02
        if i in OUTLIER_LAYERS:
            down[:, list(OUTLIER_COLUMNS)] *= GAIN
        t[p + "mlp.down_proj.weight"] = down
        t[p + "input_layernorm.weight"] = np.ones(HIDDEN)
        t[p + "post_attention_layernorm.weight"] = np.ones(HIDDEN)
    return {k: v.astype(ml_dtypes.bfloat16) for k, v in t.items()}


def sqnr(x, candidate):
    q, _ = recipes.quantise(x, candidate)
    e2 = float(np.sum((q - x) ** 2))
    return 10 * math.log10(float(np.sum(x * x)) / e2) if e2 > 0 else None


def figures(tensors):
    out = {"candidates": CANDIDATES, "tensors": {}}
    for name in sorted(tensors):
        v = tensors[name]
        if v.ndim < 2:
            continue
        x = v.astype(np.float64)
        out["tensors"][name] = {c: sqnr(x, c) for c in CANDIDATES}
    out["versions"] = {"numpy": np.__version__, "ml_dtypes": ml_dtypes.__version__,
                       "safetensors": safetensors.__version__}
    return out


def main():
    if "--check" in sys.argv:
        recorded = json.load(open(OUT))
        again = figures(load_file(CHECKPOINT))
        recorded.pop("versions"), again.pop("versions")
        if not recipes.same(recorded, again):
            print("gen_outlier_checkpoint: the recomputed figures differ from outlier-checkpoint.json")
            return 1
        print("gen_outlier_checkpoint: outlier-checkpoint.json recomputed the same")
        return 0
    tensors = make_tensors()
    os.makedirs(os.path.dirname(CHECKPOINT), exist_ok=True)
    save_file(tensors, CHECKPOINT, metadata={"format": "pt"})
    with open(OUT, "w") as f:
        json.dump(figures(load_file(CHECKPOINT)), f, indent=1)
        f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
