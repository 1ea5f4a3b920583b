#!/usr/bin/env python3
"""PyTorch with operands on different devices: the exact error texts, recorded on a GPU machine.

For each op (add, mul, mm, matmul, bmm, addmm with its bias, F.linear and F.conv1d/F.conv2d with
and without a bias, convolutions at a small shape that takes PyTorch's own CPU kernel and a batch of two that
takes oneDNN), each placement of a and b (cpu, cuda; the bias lives with b, as a module's
parameters do), a's kind (a dimensioned tensor, or a zero-dim tensor, which a CUDA kernel takes
from the CPU as a scalar) and a few dtype pairs, this records the result's dtype and device or the
exception, as the golden tables do. The torch engines model placement from PyTorch's source
(core/promote/torch_devices.h); tests/core/promote/torch_devices_test.cpp checks them against
this recording cell by cell when it is present (the recorded release is in the header; the model
is 2.15's).

Run on a machine with a GPU: python3 tests/data/promotion/gen_torch_devices.py > tests/data/promotion/torch_devices_cuda.json
(scripts/gpu_check.sh does, with the other CUDA tables)
"""
import json
import platform
import sys

import torch
import torch.nn.functional as F

if not torch.cuda.is_available():
    sys.exit("gen_torch_devices.py: no CUDA device here; run it on a machine with a GPU")

DEVICES = ["cpu", "cuda"]
DTYPES = [("float32", "float32"), ("float16", "float32"), ("float32", "float64"), ("bfloat16", "bfloat16")]
# op -> (a's shape, b's shape, takes a bias)
SHAPES = {
    "add": ((2, 3), (2, 3), False), "mul": ((2, 3), (2, 3), False),
    "mm": ((2, 3), (3, 4), False), "matmul": ((2, 3), (3, 4), False), "bmm": ((2, 2, 3), (2, 3, 4), False),
    "addmm": ((2, 3), (3, 4), True), "linear": ((2, 3), (4, 3), True),
    "conv1d": ((1, 1, 3), (1, 1, 2), True), "conv2d": ((1, 1, 3, 3), (1, 1, 2, 2), True),
    "conv1d-batch2": ((2, 1, 8), (3, 1, 3), True), "conv2d-batch2": ((2, 1, 8, 8), (3, 1, 3, 3), True),
}


def call(op, a, b, bias):
    base = op.split("-")[0]
    if base in ("add", "mul", "mm", "matmul", "bmm"):
        return getattr(torch, base)(a, b)
    if base == "addmm":
        return torch.addmm(bias, a, b)
    if base == "linear":
        return F.linear(a, b, bias)
    return (F.conv2d if base == "conv2d" else F.conv1d)(a, b, bias)


def outcome(fn):
    try:
        r = fn()
        return str(r.dtype).removeprefix("torch."), str(r.device)
    except Exception as e:  # noqa: BLE001 -- the exception is the answer
        return f"{type(e).__name__}: {e}", None


cells = []
for op, (sa, sb, takes_bias) in SHAPES.items():
    for da in DEVICES:
        for db in DEVICES:
            for kind in ("tensor", "zerodim"):
                if kind == "zerodim" and op not in ("add", "mul"):
                    continue
                for ta, tb in DTYPES:
                    # (addmm has no form without its bias)
                    for with_bias in ((True,) if op == "addmm" else (False, True) if takes_bias else (False,)):
                        a = torch.ones(() if kind == "zerodim" else sa, dtype=getattr(torch, ta), device=da)
                        b = torch.ones(sb, dtype=getattr(torch, tb), device=db)
                        bias_len = sb[-1] if op == "addmm" else sb[0]
                        bias = torch.ones(bias_len, dtype=b.dtype, device=db) if with_bias else None
                        result, device = outcome(lambda: call(op, a, b, bias))
                        cells.append({"op": op, "a_shape": list(sa), "b_shape": list(sb), "a_kind": kind,
                                      "a_device": da, "b_device": db, "a": ta, "b": tb,
                                      "bias": tb if with_bias else None, "outcome": result,
                                      "result_device": device})
# The modules people call: a CPU batch into a model moved to the GPU.
for module, x_shape in ((torch.nn.Linear(3, 4), (2, 3)), (torch.nn.Conv2d(1, 3, 3), (2, 1, 8, 8))):
    m = module.cuda()
    result, device = outcome(lambda: m(torch.ones(x_shape)))
    cells.append({"op": "module " + type(module).__name__, "a_shape": list(x_shape), "a_device": "cpu",
                  "b_device": "cuda", "outcome": result, "result_device": device})
json.dump({"header": {"torch": torch.__version__, "gpu": torch.cuda.get_device_name(), "cuda": torch.version.cuda,
                      "threads": torch.get_num_threads(), "machine": platform.machine(),
                      "mkldnn": torch.backends.mkldnn.is_available()},
           "cells": cells}, sys.stdout, indent=1)
sys.stdout.write("\n")
