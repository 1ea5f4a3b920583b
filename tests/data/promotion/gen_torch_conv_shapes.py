#!/usr/bin/env python3
"""PyTorch's CPU convolutions over a grid of shapes: which dtype error each one raises.

A convolution's dtype error depends on the path PyTorch picks for it, and the CPU path
(oneDNN or PyTorch's own slow kernels) depends on the shapes, the groups, the input dtype, the
thread count and the CPU: a float32 input with a float64 weight raises "expected scalar type
Float but found Double" on the slow path and "Input type (torch.FloatTensor) and weight type
(torch.DoubleTensor) should be the same or input should be a MKLDNN tensor and weight is a dense
tensor" through oneDNN. This records, for every cell of a grid (op, input shape, weight shape,
groups, threads, input/weight/bias dtypes), the result dtype or the exception, as the golden
tables do; torch_engine's conv_path must reproduce every cell.

Run: ONEDNN_MAX_CPU_ISA=AVX2 python3 tests/data/promotion/gen_torch_conv_shapes.py > .../torch_conv_shapes.json
     ONEDNN_MAX_CPU_ISA=AVX512_CORE python3 tests/data/promotion/gen_torch_conv_shapes.py > .../torch_conv_shapes_onednn.json
     /usr/bin/python3 tests/data/promotion/gen_torch_conv_shapes.py > .../torch1.13_conv_shapes_onednn.json
     (torch 2.15.0 from PyPI, and Debian 12's python3-torch 1.13.1, on an Intel CPU with AVX-512
     BW/VL/DQ, BF16 and FP16; the header records its flags. 2.15 asks oneDNN whether the CPU
     takes bfloat16 and float16 convolutions, so ONEDNN_MAX_CPU_ISA stands in for the machines the
     engines model: AVX2 for a CPU without AVX-512 (torch), AVX512_CORE for one with AVX-512 but
     without FP16 (torch-onednn). 1.13 reads the CPU flags itself, so its recording is this
     machine's: torch1.13-onednn. float32 and float64 take the same path on every x86 machine.)
     python3 tests/data/promotion/gen_torch_conv_shapes.py --device cuda > .../torch_cuda_conv_shapes.json
     (on a GPU: scripts/gpu_check.sh records it with the other CUDA tables)
"""
import itertools
import json
import os
import platform
import sys

import torch
import torch.nn.functional as F

DTYPES = ["float32", "float64", "float16", "bfloat16"]
PAIRS = [(a, b) for a in range(len(DTYPES)) for b in range(len(DTYPES)) if DTYPES[b] != "float16"]


def shapes():
    """(op, input shape, weight shape, groups): batch 1, 2 and 16; 1 and 3 channels; kernels of
    1 to 5; images small, near and past oneDNN's 20480-element threshold; depthwise groups."""
    for n, c, k, hw, g in itertools.product((1, 2, 16), (1, 3), (1, 2, 3, 5), (5, 64, 90), (1, 3)):
        if g > c or c % g:
            continue
        yield "conv2d", (n, c, hw, hw), (2 * g, c // g, k, k), g
        yield "conv1d", (n, c, hw * hw), (2 * g, c // g, k), g
    # kernels that are wide in one direction only (oneDNN's "both sides > 3" test)
    for kh, kw in ((1, 5), (5, 1), (4, 4), (2, 7)):
        yield "conv2d", (1, 1, 8, 8), (2, 1, kh, kw), 1


DEVICE = "cuda" if "--device" in sys.argv and sys.argv[sys.argv.index("--device") + 1] == "cuda" else "cpu"


def outcome(op, a_shape, w_shape, groups, a, w, bias):
    x = torch.ones(a_shape, dtype=getattr(torch, a), device=DEVICE)
    wt = torch.ones(w_shape, dtype=getattr(torch, w), device=DEVICE)
    b = torch.ones(w_shape[0], dtype=getattr(torch, bias), device=DEVICE) if bias else None
    fn = F.conv2d if op == "conv2d" else F.conv1d
    try:
        return str(fn(x, wt, b, groups=groups).dtype).removeprefix("torch.")
    except Exception as e:  # noqa: BLE001 -- the exception is the answer
        return f"{type(e).__name__}: {e}"


def cpu_flags():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return sorted(x for x in line.split(":")[1].split() if x.startswith(("avx512", "amx")))
    except OSError:
        pass
    return []


def main():
    grid = list(shapes())
    outcomes, cells = [], []
    for threads in (1, 2):
        torch.set_num_threads(threads)
        for si, (op, a_shape, w_shape, groups) in enumerate(grid):
            for ai, bi in PAIRS:
                for bias in (None, ai):
                    o = outcome(op, a_shape, w_shape, groups, DTYPES[ai], DTYPES[bi], DTYPES[bias] if bias is not None else None)
                    if o not in outcomes:
                        outcomes.append(o)
                    cells.append([si, threads, ai, bi, -1 if bias is None else bias, outcomes.index(o)])
    header = {"torch": torch.__version__, "python": platform.python_version(), "cpu_flags": cpu_flags(), "device": DEVICE,
              "gpu": torch.cuda.get_device_name() if DEVICE == "cuda" else "",
              "onednn_max_cpu_isa": os.environ.get("ONEDNN_MAX_CPU_ISA", ""),
              "mkldnn": torch.backends.mkldnn.is_available(), "cpus": os.cpu_count(),
              "cell": "[shape, threads, a, b, bias (-1: none), outcome]: indices into shapes, dtypes, outcomes"}
    out = sys.stdout
    out.write("{\"header\": " + json.dumps(header) + ",\n\"dtypes\": " + json.dumps(DTYPES) + ",\n")
    out.write("\"shapes\": [\n" + ",\n".join(json.dumps([op, list(a), list(w), g]) for op, a, w, g in grid) + "],\n")
    out.write("\"outcomes\": [\n" + ",\n".join(json.dumps(o) for o in outcomes) + "],\n")
    out.write("\"cells\": [\n" + ",\n".join(json.dumps(c, separators=(",", ":")) for c in cells) + "]}\n")


if __name__ == "__main__":
    main()
