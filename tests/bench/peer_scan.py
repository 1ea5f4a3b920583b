#!/usr/bin/env python3
"""The checkpoint scan against a NumPy + ml_dtypes script computing the same figures, in one run.

Writes a synthetic bfloat16 checkpoint of --params parameters with Llama-style shapes (hidden
--hidden, MLP 4x wider, as many layers as fit), streamed tensor by tensor so that the writer
never holds more than one tensor; then times
  1. `precision-lab scan` over the whole checkpoint with the default 8 candidates (wall time,
     peak resident memory of the process, GB/s of checkpoint per candidate pass), and
  2. the NumPy peer (tests/data/checkpoint/gen_checkpoint.py's recipes, which the scan's tests
     check figure for figure) against `precision-lab scan --tensors` on the same first layer:
     the same tensors, read from the same file, under the same candidates.
Prints one JSON object. Run: python3 tests/bench/peer_scan.py --params 1e9 --dir /tmp/ckpt
(numpy, ml_dtypes, safetensors; about 2 bytes of disk per parameter).
"""
import argparse
import json
import math
import os
import resource
import struct
import subprocess
import sys
import time

import ml_dtypes
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "data", "checkpoint"))
import gen_checkpoint  # noqa: E402  (the recipes the scan's tests check against)


def shapes(params, hidden):
    inter = 4 * hidden
    per_layer = 4 * hidden * hidden + 3 * hidden * inter
    layers = max(1, math.ceil(params / per_layer))  # at least --params
    out = []
    for i in range(layers):
        p = f"model.layers.{i}."
        for n in ("q_proj", "k_proj", "v_proj", "o_proj"):
            out.append((p + "self_attn." + n + ".weight", (hidden, hidden)))
        out += [(p + "mlp.gate_proj.weight", (inter, hidden)), (p + "mlp.up_proj.weight", (inter, hidden)),
                (p + "mlp.down_proj.weight", (hidden, inter))]
    return out


def write_checkpoint(path, tensors, seed=0):
    header, offset = {}, 0
    for name, shape in tensors:
        n = int(np.prod(shape)) * 2
        header[name] = {"dtype": "BF16", "shape": list(shape), "data_offsets": [offset, offset + n]}
        offset += n
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    rng = np.random.default_rng(seed)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for name, shape in tensors:
            w = rng.standard_normal(shape, dtype=np.float32) * 0.02
            w[:: max(1, shape[0] // 3)] *= 20  # a few outlier rows
            f.write(w.astype(ml_dtypes.bfloat16).tobytes())
    return offset


def read_tensor(path, name):
    """A bfloat16 tensor of the checkpoint, mapped from the file as the scan maps it."""
    with open(path, "rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        entry = json.loads(f.read(n))[name]
    begin, end = entry["data_offsets"]
    return np.memmap(path, dtype=ml_dtypes.bfloat16, mode="r", offset=8 + n + begin,
                     shape=tuple(entry["shape"]))


def timed(cmd):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    seconds = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return out, seconds, after.ru_maxrss / 1024 if after.ru_maxrss > before.ru_maxrss else None


def copy_bandwidth(nbytes=1 << 30):
    a = np.ones(nbytes // 8)
    b = np.empty_like(a)
    np.copyto(b, a)
    t0 = time.perf_counter()
    for _ in range(3):
        np.copyto(b, a)
    return 3 * nbytes / (time.perf_counter() - t0) / 1e9  # GB/s, read + write counted once


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--params", type=float, default=1e9)
    ap.add_argument("--hidden", type=int, default=2048)
    ap.add_argument("--dir", default="/tmp/pl-scan-bench")
    ap.add_argument("--pl", default=os.path.join(HERE, "..", "..", "build", "precision-lab"))
    a = ap.parse_args()
    os.makedirs(a.dir, exist_ok=True)
    path = os.path.join(a.dir, "model.safetensors")
    tensors = shapes(a.params, a.hidden)
    params = sum(int(np.prod(s)) for _, s in tensors)
    t0 = time.perf_counter()
    nbytes = write_checkpoint(path, tensors)
    written = time.perf_counter() - t0
    out, whole_s, rss = timed([a.pl, "scan", path, "--json"])
    result = json.loads(out)
    candidates = len(result["candidates"])

    # The peer on layer 0 only (it would take far longer on all of it), against the scan of the same.
    layer0 = [(n, s) for n, s in tensors if n.startswith("model.layers.0.")]
    _, scan0_s, _ = timed([a.pl, "scan", path, "--json", "--tensors", r"^model\.layers\.0\."])
    t0 = time.perf_counter()
    for name, _ in layer0:  # the scan's own candidates, on the tensors the scan read
        gen_checkpoint.figures(np.asarray(read_tensor(path, name)).astype(np.float64), result["candidates"])
    peer_s = time.perf_counter() - t0
    layer0_params = sum(int(np.prod(s)) for _, s in layer0)
    json.dump({
        "params": params, "bytes": nbytes, "tensors": len(tensors), "candidates": candidates,
        "write_seconds": round(written, 1),
        "scan_seconds": round(whole_s, 2), "scan_peak_rss_mib": rss,
        "scan_gb_per_s_per_candidate_pass": round(nbytes * candidates / whole_s / 1e9, 3),
        "copy_gb_per_s": round(copy_bandwidth(), 2),
        "layer0_params": layer0_params, "layer0_scan_seconds": round(scan0_s, 2),
        "layer0_numpy_seconds": round(peer_s, 2), "speedup_over_numpy": round(peer_s / scan0_s, 1),
        "numpy": np.__version__, "ml_dtypes": ml_dtypes.__version__,
    }, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
