#!/usr/bin/env python3
"""A synthetic transformer checkpoint for the checkpoint scan, and the figures the scan must
report for it, computed here independently with NumPy.

The checkpoint (sharded/: two shards and model.safetensors.index.json, as transformers writes
them) has Llama-style names: model.embed_tokens, model.layers.N.{self_attn.{q,k,v,o}_proj,
mlp.{gate,up,down}_proj,input_layernorm,post_attention_layernorm}, model.norm, lm_head, and an
integer buffer. Layer 0 and the embedding are float32, layer 1 and the head bfloat16, one tensor
float8_e4m3fn; q_proj of each layer has outlier output channels (rows 40x the rest) and
down_proj outlier input columns. The shards are written by the safetensors package itself.

activations.safetensors holds inputs for every linear layer (NAME.input for NAME.weight, 24
rows each, with two outlier feature columns as large language models' activations have; layer
1's down_proj inputs stored as bfloat16), as scripts/capture_activations.py writes them.

expected.json holds, for every weight and candidate, what the scan must find: bits per
parameter, error energy ||q(x) - x||^2, SQNR, max abs and max relative error, saturated and
flushed counts, and the tensor's statistics; and for every linear layer with inputs X, the
output energy ||X W^T||^2 and each candidate's output error energy ||X q(W)^T - X W^T||^2, and
the same with the inputs in int8 per row (per token): ||q_a(X) q(W)^T - X W^T||^2. The recipes are implemented here from their
definitions (core/quantise/scaling.h's comment names them), with rounding done on an exact
grid in float64 (x / quantum is exact, np.rint rounds ties to even), not by ml_dtypes' casts,
which round float64 through float32 (twice); ml_dtypes gives each format's parameters and checks
the grid rounding on every float32 value it can hold exactly.

Run: python3 tests/data/checkpoint/gen_checkpoint.py [--check]
(numpy 2.x, ml_dtypes, safetensors); --check recomputes expected.json and compares.
"""
import json
import math
import os
import sys

try:
    import ml_dtypes
    import numpy as np
    import safetensors
    from safetensors.numpy import save_file
except ImportError as missing:  # the CTest entry skips visibly (77) where the libraries are not installed
    print(f"SKIP: {missing}; install numpy, ml_dtypes and safetensors to recompute the scan's figures",
          file=sys.stderr)
    sys.exit(77)

HERE = os.path.dirname(os.path.abspath(__file__))
HIDDEN, INTER, VOCAB, LAYERS = 64, 96, 80, 2

CANDIDATES = ["bfloat16", "float8_e4m3fn:per-tensor", "float8_e4m3fn:per-channel", "float8_e4m3fn:mx",
              "int8:per-channel", "float6_e2m3fn:mx", "float4_e2m1fn:mx", "float4_e2m1fn:nvfp4",
              "int8:group:32", "uint8:group-asymmetric:32", "int4:per-channel", "int4:group:32",
              "uint4:group-asymmetric:32"]

INT_RANGES = {"int8": (-128, 127), "uint8": (0, 255), "int4": (-8, 7), "uint4": (0, 15)}

FORMATS = {  # name: (ml_dtypes type, element bits)
    "bfloat16": (ml_dtypes.bfloat16, 16),
    "float8_e4m3fn": (ml_dtypes.float8_e4m3fn, 8),
    "float6_e2m3fn": (ml_dtypes.float6_e2m3fn, 6),
    "float4_e2m1fn": (ml_dtypes.float4_e2m1fn, 4),
}


def f32(x):
    return np.float64(np.float32(x))


def grid_round(v, fmt):
    """Rounds float64 v to the format, nearest even, saturating at its largest finite value.
    Returns (rounded, saturated mask)."""
    fi = ml_dtypes.finfo(FORMATS[fmt][0])
    mant, emin, top = int(fi.nmant), int(math.log2(float(fi.smallest_normal))), float(fi.max)
    a = np.abs(v)
    e = np.maximum(np.frexp(a)[1] - 1, emin)  # a's exponent, exactly (frexp: a = m 2^E, m in [0.5, 1))
    quantum = np.exp2(e - mant)
    r = np.rint(a / quantum) * quantum
    step_top = 2.0 ** (math.floor(math.log2(top)) - mant)
    saturated = (a > top) & (np.rint(a / step_top) * step_top > top)
    r = np.minimum(r, top)
    return np.copysign(r, v), saturated


def check_grid_rounding():
    """The grid rounding agrees with ml_dtypes on values float32 holds (one rounding there)."""
    rng = np.random.default_rng(1)
    for fmt, (t, _) in FORMATS.items():
        fi = ml_dtypes.finfo(t)
        with np.errstate(over="ignore"):  # (bfloat16's range: some draws pass float32's and are dropped)
            v = (rng.standard_normal(200000) * float(fi.max) / 3).astype(np.float32).astype(np.float64)
        v = v[np.abs(v) <= float(fi.max)]
        # Halfway cases too: midpoints between neighbours.
        codes = np.arange(0, 2 ** FORMATS[fmt][1] if FORMATS[fmt][1] < 16 else 65536, dtype=np.uint32)
        dtype_u = np.uint8 if FORMATS[fmt][1] <= 8 else np.uint16
        with np.errstate(invalid="ignore"):  # (NaN codes, dropped)
            vals = codes.astype(dtype_u).view(t).astype(np.float64)
        vals = np.unique(vals[np.isfinite(vals)])
        mids = (vals[:-1] + vals[1:]) / 2
        v = np.concatenate([v, mids[np.abs(mids) <= float(fi.max)]])
        mine, _ = grid_round(v, fmt)
        theirs = v.astype(np.float32).astype(t).astype(np.float64)
        bad = np.flatnonzero(mine != theirs)
        assert bad.size == 0, f"{fmt}: grid rounding differs from ml_dtypes at {v[bad[:5]]}"


def emax(fmt):
    return int(math.floor(math.log2(float(ml_dtypes.finfo(FORMATS[fmt][0]).max))))


def quantise(x, candidate):
    """x as a matrix (rows x cols): the dequantised copy and the saturated count."""
    parts = candidate.split(":")
    fmt, recipe = parts[0], parts[1] if len(parts) > 1 else "none"
    rows, cols = x.shape
    if recipe in ("group", "group-asymmetric"):  # float16 scales per group of G along the row
        return group(x, int(parts[2]), recipe == "group-asymmetric", fmt)
    if recipe == "none":
        q, sat = grid_round(x, fmt)
        return q, int(sat.sum())
    if fmt in ("int8", "int4"):  # per-channel symmetric: scale = f32(qmax / amax), [-qmax, qmax]
        qmax = INT_RANGES[fmt][1]
        amax = np.abs(x).max(axis=1, keepdims=True)
        scale = np.where(amax > 0, f32(qmax / np.where(amax > 0, amax, 1)), 1.0)
        v = x * scale
        r = np.rint(v)
        sat = (r < -qmax) | (r > qmax)
        return np.clip(r, -qmax, qmax) * f32(1.0 / scale), int(sat.sum())
    top = float(ml_dtypes.finfo(FORMATS[fmt][0]).max)
    if recipe in ("per-tensor", "per-channel"):
        amax = np.abs(x).max() if recipe == "per-tensor" else np.abs(x).max(axis=1, keepdims=True)
        scale = np.where(amax > 0, f32(top / np.where(amax > 0, amax, 1)), 1.0)
        q, sat = grid_round(x * scale, fmt)
        return q * f32(1.0 / scale), int(sat.sum())
    if recipe == "mx":
        out, sat = np.empty_like(x), 0
        for c0 in range(0, cols, 32):
            blk = x[:, c0:c0 + 32]
            amax = np.abs(blk).max(axis=1, keepdims=True)
            e = np.where(amax > 0, np.floor(np.log2(np.where(amax > 0, amax, 1))) - emax(fmt), -127)
            scale = np.exp2(np.clip(e, -127, 127))
            q, s = grid_round(blk / scale, fmt)
            out[:, c0:c0 + 32] = q * scale
            sat += int(s.sum())
        return out, sat
    if recipe == "nvfp4":
        amax = np.abs(x).max()
        enc = f32(448.0 * 6.0 / amax) if amax > 0 else 1.0
        dec = f32(1.0 / enc)
        out, sat = np.empty_like(x), 0
        for c0 in range(0, cols, 16):
            blk = x[:, c0:c0 + 16]
            bs, _ = grid_round(np.abs(blk).max(axis=1, keepdims=True) / 6.0 * enc, "float8_e4m3fn")
            v = np.where(bs > 0, blk / np.where(bs > 0, bs * dec, 1), 0.0)
            q, s = grid_round(v, fmt)
            out[:, c0:c0 + 16] = (q * bs) * dec
            sat += int(s.sum())
        return out, sat
    raise ValueError(candidate)


def group(x, size, asymmetric, fmt):
    """GPTQ/AWQ-style groups: a float16 scale (NumPy's float64 -> float16 cast rounds once, to
    nearest even; saturated at 65504), symmetric in [-qmax, qmax] or with a zero point."""
    qmin, qmax = INT_RANGES[fmt]
    if not asymmetric:
        qmin = -qmax
    out, sat = np.empty_like(x), 0
    for c0 in range(0, x.shape[1], size):
        g = x[:, c0:c0 + size]
        if asymmetric:
            lo = np.minimum(g.min(axis=1, keepdims=True), 0)
            hi = np.maximum(g.max(axis=1, keepdims=True), 0)
            raw = (hi - lo) / (qmax - qmin)
        else:
            raw = np.abs(g).max(axis=1, keepdims=True) / qmax
        scale = np.minimum(raw, 65504).astype(np.float16).astype(np.float64)
        safe = np.where(scale > 0, scale, 1)
        z = np.where(scale > 0, np.clip(qmin - np.rint(lo / safe), qmin, qmax), 0) if asymmetric else 0
        v = np.where(scale > 0, g / safe + z, 0.0)
        r = np.rint(v)
        sat += int(np.sum((r < qmin) | (r > qmax)))
        out[:, c0:c0 + size] = (np.clip(r, qmin, qmax) - z) * scale
    return out, sat


def bits_per_param(candidate, rows, cols):
    parts = candidate.split(":")
    fmt, recipe = parts[0], parts[1] if len(parts) > 1 else "none"
    elem = {"int8": 8, "uint8": 8, "int4": 4, "uint4": 4}.get(fmt) or FORMATS[fmt][1]
    params = rows * cols
    if recipe.startswith("group"):
        groups = math.ceil(cols / int(parts[2])) * rows
        return elem + (16 + (elem if recipe == "group-asymmetric" else 0)) * groups / params
    return {"none": elem,
            "per-tensor": elem + 32 / params,
            "per-channel": elem + 32 * rows / params,
            "mx": elem + 8 * math.ceil(cols / 32) * rows / params,
            "nvfp4": elem + 8 * math.ceil(cols / 16) * rows / params + 32 / params}[recipe]


def figures(x, candidates=CANDIDATES):
    m = x.reshape(-1, x.shape[-1]) if x.ndim > 1 else x.reshape(1, -1)
    energy = float(np.sum(m * m))
    mean = m.mean()
    m2 = float(np.mean((m - mean) ** 2))
    row_amax = np.abs(m).max(axis=1)
    stats = {"amax": float(np.abs(m).max()), "rms": float(np.sqrt(np.mean(m * m))),
             "kurtosis": float(np.mean((m - mean) ** 4) / m2 ** 2) if m2 > 0 else 0.0,
             "channel_amax_spread": float(row_amax.max() / np.sort(row_amax)[len(row_amax) // 2])
             if len(row_amax) > 1 else 1.0}
    out = {"energy": energy, "stats": stats, "candidates": []}
    for c in candidates:
        q, sat = quantise(m, c)
        err = q - m
        e2 = float(np.sum(err * err))
        nz = m != 0
        out["candidates"].append({
            "candidate": c, "bits_per_param": bits_per_param(c, *m.shape), "error_energy": e2,
            "sqnr_db": 10 * math.log10(energy / e2) if e2 > 0 else None,
            "max_abs": float(np.abs(err).max()), "max_rel": float((np.abs(err[nz]) / np.abs(m[nz])).max()),
            "saturated": sat, "flushed": int(np.sum((q == 0) & nz))})
    return out


def make_tensors():
    rng = np.random.default_rng(2024)
    t = {"model.embed_tokens.weight": (rng.standard_normal((VOCAB, HIDDEN)) * 0.02).astype(np.float32)}
    for i in range(LAYERS):
        dt = np.float32 if i == 0 else ml_dtypes.bfloat16
        p = f"model.layers.{i}."
        for name in ("q_proj", "k_proj", "v_proj", "o_proj"):
            w = rng.standard_normal((HIDDEN, HIDDEN)) * 0.05
            if name == "q_proj":
                w[[3, 17, 50]] *= 40.0  # outlier output channels
            t[p + "self_attn." + name + ".weight"] = w.astype(dt)
        t[p + "mlp.gate_proj.weight"] = (rng.standard_normal((INTER, HIDDEN)) * 0.05).astype(dt)
        t[p + "mlp.up_proj.weight"] = (rng.standard_t(4, (INTER, HIDDEN)) * 0.05).astype(dt)  # heavy tails
        down = rng.standard_normal((HIDDEN, INTER)) * 0.03
        down[:, [5, 70]] *= 30.0  # outlier input columns
        t[p + "mlp.down_proj.weight"] = down.astype(dt)
        t[p + "input_layernorm.weight"] = (1 + 0.1 * rng.standard_normal(HIDDEN)).astype(dt)
        t[p + "post_attention_layernorm.weight"] = (1 + 0.1 * rng.standard_normal(HIDDEN)).astype(dt)
    # One tensor already stored in float8 (as fp8 checkpoints store weights).
    t["model.layers.1.self_attn.v_proj.weight"] = (rng.standard_normal((HIDDEN, HIDDEN)) * 8).astype(
        ml_dtypes.float8_e4m3fn)
    t["model.norm.weight"] = np.ones(HIDDEN, np.float32)
    t["lm_head.weight"] = (rng.standard_normal((VOCAB, HIDDEN)) * 0.02).astype(ml_dtypes.bfloat16)
    t["model.rotary_emb.position_ids"] = np.arange(32, dtype=np.int64).reshape(1, 32)
    return t


def write(tensors):
    folder = os.path.join(HERE, "sharded")
    os.makedirs(folder, exist_ok=True)
    shards = {"model-00001-of-00002.safetensors": {}, "model-00002-of-00002.safetensors": {}}
    for name, v in tensors.items():
        first = name.startswith("model.embed") or name.startswith("model.layers.0.")
        shards["model-00001-of-00002.safetensors" if first else "model-00002-of-00002.safetensors"][name] = v
    weight_map = {}
    for file, part in shards.items():
        save_file(part, os.path.join(folder, file), metadata={"format": "pt"})
        weight_map.update({n: file for n in part})
    total = sum(v.nbytes for v in tensors.values())
    with open(os.path.join(folder, "model.safetensors.index.json"), "w") as f:
        json.dump({"metadata": {"total_size": total}, "weight_map": dict(sorted(weight_map.items()))}, f, indent=2)
        f.write("\n")


INPUT_ROWS = 24
ACTIVATION_FORMAT = "int8:per-channel"


def is_linear(name, v):
    return v.ndim == 2 and ("self_attn." in name or "mlp." in name or name == "lm_head.weight")


def make_inputs(tensors):
    """NAME.input for each linear layer's NAME.weight: rows of its inputs."""
    rng = np.random.default_rng(77)
    inputs = {}
    for name, v in tensors.items():
        if not is_linear(name, v):
            continue
        x = rng.standard_normal((INPUT_ROWS, v.shape[1]))
        x[:, [7, v.shape[1] - 3]] *= 25.0  # outlier features
        dt = ml_dtypes.bfloat16 if name == "model.layers.1.mlp.down_proj.weight" else np.float32
        inputs[name[:-len(".weight")] + ".input"] = x.astype(dt)
    return inputs


def output_figures(tensors, inputs):
    out = {"activation_format": ACTIVATION_FORMAT, "tensors": {}}
    for name, v in tensors.items():
        if not is_linear(name, v):
            continue
        w = v.astype(np.float64)
        x = inputs[name[:-len(".weight")] + ".input"].astype(np.float64)
        xq, _ = quantise(x, ACTIVATION_FORMAT)
        y = x @ w.T
        plain, w8a8 = [], []
        for c in CANDIDATES:
            q, _ = quantise(w, c)
            e = x @ (q - w).T
            plain.append(float(np.sum(e * e)))
            e2 = e + (xq - x) @ q.T  # q_a(X) q(W)^T - X W^T
            w8a8.append(float(np.sum(e2 * e2)))
        out["tensors"][name] = {"input_rows": INPUT_ROWS, "output_energy": float(np.sum(y * y)),
                                "error_energy": plain, "error_energy_inputs_quantised": w8a8}
    return out


def expected_figures(tensors):
    out = {"candidates": CANDIDATES, "tensors": {}}
    for name, v in tensors.items():
        if v.ndim < 2 or v.dtype == np.int64:
            continue
        out["tensors"][name] = figures(v.astype(np.float64))
    out["outputs"] = output_figures(tensors, make_inputs(tensors))
    out["versions"] = {"numpy": np.__version__, "ml_dtypes": ml_dtypes.__version__,
                       "safetensors": safetensors.__version__, "python": sys.version.split()[0]}
    return out


def same(a, b):
    """Equal, numbers to 1e-12 relative: the output errors go through BLAS, whose summation order
    may differ from one machine's kernels to another's."""
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, float) and isinstance(b, (int, float)):
        return abs(a - b) <= 1e-12 * max(abs(a), abs(b))
    return a == b


def main():
    check_grid_rounding()
    tensors = make_tensors()
    expected = expected_figures(tensors)
    path = os.path.join(HERE, "expected.json")
    if "--check" in sys.argv:
        with open(path) as f:
            recorded = json.load(f)
        recorded.pop("versions"), expected.pop("versions")
        if not same(recorded, expected):
            print("gen_checkpoint: the recomputed figures differ from expected.json")
            return 1
        print("gen_checkpoint: expected.json recomputed the same")
        return 0
    write(tensors)
    save_file(make_inputs(tensors), os.path.join(HERE, "activations.safetensors"), metadata={"format": "pt"})
    with open(path, "w") as f:
        json.dump(expected, f, indent=1)
        f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
