#!/usr/bin/env python3
"""PyTorch with operands on different devices: the exact error texts, recorded on a GPU machine.

For each op (add, mul, matmul, linear with and without bias, conv2d with and without bias,
and nn.Linear / nn.Conv2d modules on CUDA fed a CPU tensor), each placement of a and b (cpu,
cuda), and a's kind (a dimensioned tensor, or a zero-dim tensor, which PyTorch lets stay on the
CPU), this records the result's dtype and device or the exception, as the golden tables do. The
torch engines model device placement once these are recorded (no GPU was at hand when the
scenarios were written; until then they say nothing about devices).

Run on a machine with a GPU: python3 tests/data/promotion/gen_torch_devices.py > .../torch_devices_cuda.json
(scripts/gpu_check.sh does, with the other CUDA tables)
"""
import json
import sys

import torch
import torch.nn.functional as F

if not torch.cuda.is_available():
    sys.exit("gen_torch_devices.py: no CUDA device here; run it on a machine with a GPU")

DEVICES = ["cpu", "cuda"]
SHAPES = {"add": ((2, 3), (2, 3)), "mul": ((2, 3), (2, 3)), "matmul": ((2, 3), (3, 4)),
          "linear": ((2, 3), (4, 3)), "linear_bias": ((2, 3), (4, 3)),
          "conv2d": ((2, 1, 8, 8), (3, 1, 3, 3)), "conv2d_bias": ((2, 1, 8, 8), (3, 1, 3, 3))}


def call(op, a, b):
    if op in ("add", "mul"):
        return getattr(torch, op)(a, b)
    if op == "matmul":
        return a @ b
    if op.startswith("linear"):
        return F.linear(a, b, torch.ones(b.shape[0], device=b.device) if op.endswith("bias") else None)
    return F.conv2d(a, b, torch.ones(b.shape[0], device=b.device) if op.endswith("bias") else None)


def outcome(fn):
    try:
        r = fn()
        return f"{str(r.dtype).removeprefix('torch.')} on {r.device}"
    except Exception as e:  # noqa: BLE001 -- the exception is the answer
        return f"{type(e).__name__}: {e}"


cells = []
for op, (sa, sb) in SHAPES.items():
    for da in DEVICES:
        for db in DEVICES:
            for kind in ("tensor", "zerodim"):
                if kind == "zerodim" and op not in ("add", "mul"):
                    continue
                a = torch.ones(() if kind == "zerodim" else sa, device=da)
                b = torch.ones(sb, device=db)
                cells.append({"op": op, "a_device": da, "b_device": db, "a_kind": kind,
                              "outcome": outcome(lambda: call(op, a, b))})
for module, x_shape in ((torch.nn.Linear(3, 4), (2, 3)), (torch.nn.Conv2d(1, 3, 3), (2, 1, 8, 8))):
    m = module.cuda()
    cells.append({"op": "module " + type(module).__name__, "a_device": "cpu", "b_device": "cuda", "a_kind": "tensor",
                  "outcome": outcome(lambda: m(torch.ones(x_shape)))})
json.dump({"header": {"torch": torch.__version__, "gpu": torch.cuda.get_device_name(), "cuda": torch.version.cuda},
           "cells": cells}, sys.stdout, indent=1)
sys.stdout.write("\n")
