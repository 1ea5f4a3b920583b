#!/usr/bin/env python3
"""The synthetic checkpoint of the scenario 29-checkpoint-outlier-channels, and the figures
NumPy computes for it.

assets/scenarios/checkpoints/outlier-channels.safetensors: a four-layer Llama-style model
(hidden 128, MLP 256, bfloat16, written by the safetensors package). Its weights are N(0, 0.02^2)
except the MLP down projections of layers 1 and 2, whose four outlier input channels (columns)
are 40 times the rest.

outlier-checkpoint.json records, for every weight and candidate of the scenario, the SQNR that
tests/data/checkpoint/gen_checkpoint.py's independent NumPy recipes give (each recipe from its
definition, rounding on an exact grid checked against ml_dtypes), and for each budget of the
scenario the plan that minimises the total error energy found here another way than the app's:
the Lagrangian relaxation (each tensor takes the candidate that minimises error + lambda x bits;
lambda bisected to the largest spend within the budget), whose plans are optimal for the bits
they spend, and the least-error plan within each budget by dynamic programming over the bits
(exact_plans). The scenario's checks are bounds around these numbers; the scan must land inside.

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


BUDGETS = (4.5, 6.0)


def db(energy, error):
    return 10 * math.log10(energy / error) if error > 0 else None


def lagrangian_plan(items, budget):
    """items: name -> (params, energy, [(bits per param, error energy)] per candidate). The plan
    at the largest spend within the budget among the Lagrangian optima (bisection on lambda)."""
    def plan(lam):
        return {n: min(range(len(c)), key=lambda k: (c[k][1] + lam * c[k][0] * p, c[k][0]))
                for n, (p, _, c) in items.items()}

    def spend(choice):
        return sum(items[n][2][k][0] * items[n][0] for n, k in choice.items()) / sum(p for p, _, _ in items.values())

    lo, hi = 0.0, 1.0
    while spend(plan(hi)) > budget:
        hi *= 2
    for _ in range(200):  # lambda = lo spends too much (or is 0), hi fits
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if spend(plan(mid)) > budget else (lo, mid)
    choice = plan(hi)
    error = sum(items[n][2][k][1] for n, k in choice.items())
    energy = sum(e for _, e, _ in items.values())
    return {"bits_per_param": spend(choice), "sqnr_db": db(energy, error),
            "tensors": {n: CANDIDATES[k] for n, k in sorted(choice.items())}}


def exact_plan(items, budget):
    """The least total error energy within the budget, by dynamic programming over the bits spent
    beyond each tensor's cheapest candidate (a multiple-choice knapsack; every candidate's bits
    for a tensor are a whole number here): the plan the app's solver must match, which the
    Lagrangian plans above approach from below on the bits."""
    names = sorted(items)
    total = sum(items[n][0] for n in names)
    cost = {}
    for n in names:
        p, _, c = items[n]
        bits = [b * p for b, _ in c]
        assert all(abs(b - round(b)) < 1e-6 for b in bits), n
        cost[n] = [int(round(b)) for b in bits]
    room = math.floor(budget * total + 1e-9) - sum(min(cost[n]) for n in names)
    best = np.zeros(room + 1)  # best[r]: the least error of the tensors so far within r extra bits
    picks = []
    for n in names:
        base = min(cost[n])
        new = np.full(room + 1, np.inf)
        pick = np.zeros(room + 1, dtype=np.int8)
        for k, (_, err) in enumerate(items[n][2]):
            extra = cost[n][k] - base
            if extra > room:
                continue
            cand = np.full(room + 1, np.inf)
            cand[extra:] = best[:room + 1 - extra] + err
            better = cand < new
            new[better], pick[better] = cand[better], k
        best = new
        picks.append(pick)
    choice, r = {}, room
    for n, pick in zip(reversed(names), reversed(picks)):
        k = int(pick[r])
        choice[n] = k
        r -= cost[n][k] - min(cost[n])
    bits = sum(cost[n][k] for n, k in choice.items()) / total
    energy = sum(e for _, e, _ in items.values())
    return {"bits_per_param": bits, "sqnr_db": db(energy, float(best[room])),
            "tensors": {n: CANDIDATES[k] for n, k in sorted(choice.items())}}


def figures(tensors):
    out = {"candidates": CANDIDATES, "tensors": {}}
    items = {}
    for name in sorted(tensors):
        v = tensors[name]
        if v.ndim < 2:
            continue
        x = v.astype(np.float64)
        energy = float(np.sum(x * x))
        scores = []
        for c in CANDIDATES:
            q, _ = recipes.quantise(x, c)
            scores.append((recipes.bits_per_param(c, *x.shape), float(np.sum((q - x) ** 2))))
        out["tensors"][name] = {c: db(energy, e) for c, (_, e) in zip(CANDIDATES, scores)}
        items[name] = (x.size, energy, scores)
    energy = sum(e for _, e, _ in items.values())
    cheapest = CANDIDATES.index("float4_e2m1fn:mx")
    out["every_tensor_in_float4_e2m1fn_mx_sqnr_db"] = db(energy, sum(c[cheapest][1] for _, _, c in items.values()))
    out["plans"] = {str(b): lagrangian_plan(items, b) for b in BUDGETS}
    out["exact_plans"] = {str(b): exact_plan(items, b) for b in BUDGETS}
    # How far a row's per-channel scale is stretched: the row's outlier column against the largest
    # of its ordinary values, the median over the rows of each outlier down projection.
    ordinary = [c for c in range(INTER) if c not in OUTLIER_COLUMNS]
    out["outlier_row_amax_over_ordinary_median"] = {
        name: float(np.median(np.abs(x[:, list(OUTLIER_COLUMNS)]).max(axis=1) / np.abs(x[:, ordinary]).max(axis=1)))
        for name in sorted(tensors) if name.endswith("mlp.down_proj.weight")
        and int(name.split(".")[2]) in OUTLIER_LAYERS for x in [tensors[name].astype(np.float64)]}
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
