#!/usr/bin/env python3
"""What torch.set_float32_matmul_precision switches, recorded from the real library, for
core/promote/torch_matmul_precision.

For each setting (highest, high, medium) this records the backend flags PyTorch derives from
it, and, as evidence of what this machine's CPU does, the float32 product of two 256 x 256
normal matrices compared bit for bit with the one computed under "highest", and its normwise
error against the float64 product: a product whose bits change may still compute in float32
(another kernel, another order), where inputs rounded to bfloat16 give an error of the order of bfloat16's u, 2^-9
(recorded beside it, as `bfloat16_inputs_normwise_error`). The CPU's AMX and AVX-512 BF16 flags
are recorded with it (Linux's /proc/cpuinfo).

Run: python3 tests/data/promotion/gen_torch_matmul_precision.py > .../torch_matmul_precision.json
     /usr/bin/python3 ... > .../torch1.13_matmul_precision.json   (Debian's 1.13: fewer flags)
Recorded: torch_matmul_precision.json and torch1.13_matmul_precision.json on an AVX2 machine
(they hold the flags and the same-bits answers, not the errors or the CPU's flags);
torch_matmul_precision_avx512.json with torch 2.15.0 on an AVX-512 machine with AVX512-BF16 and
no AMX.
"""
import json
import sys
import warnings

import torch

warnings.simplefilter("ignore")

FLAGS = ["cuda.matmul.allow_tf32", "cudnn.allow_tf32", "cuda.matmul.fp32_precision",
         "cudnn.conv.fp32_precision", "mkldnn.matmul.fp32_precision"]


def flag(name):
    obj = torch.backends
    for part in name.split("."):
        try:
            obj = getattr(obj, part)
        except (AttributeError, AssertionError):  # 1.13's cuda.matmul asserts on unknown names
            return None  # this release has no such flag
    return obj


def cpu_flags():
    """The flags that decide oneDNN's reduced-precision kernels, as Linux lists them."""
    try:
        with open("/proc/cpuinfo") as f:
            line = next(line for line in f if line.startswith("flags"))
    except (OSError, StopIteration):
        return None
    have = set(line.split(":", 1)[1].split())
    return sorted(f for f in have if f.startswith("amx") or f in ("avx512_bf16", "avx512_fp16", "avx_ne_convert"))


def main():
    torch.manual_seed(0)
    a, b = torch.randn(256, 256), torch.randn(256, 256)
    torch.set_float32_matmul_precision("highest")
    base = a @ b
    settings = {}
    exact = a.double() @ b.double()

    def normwise(c):
        return float(torch.linalg.norm(c.double() - exact) / torch.linalg.norm(exact))

    for p in ["highest", "high", "medium"]:
        torch.set_float32_matmul_precision(p)
        c = a @ b
        settings[p] = {"flags": {f: flag(f) for f in FLAGS if flag(f) is not None},
                       "cpu_product_same_bits_as_highest": bool(torch.equal(c, base)),
                       "cpu_product_normwise_error": normwise(c)}
    torch.set_float32_matmul_precision("highest")
    rounded = a.bfloat16().double() @ b.bfloat16().double()
    cap = torch.backends.cpu.get_cpu_capability() if hasattr(torch.backends, "cpu") else "unknown"
    json.dump({"framework": "torch", "version": torch.__version__.split("+")[0],
               "cpu_capability": cap, "cpu_flags": cpu_flags(),
               "bfloat16_inputs_normwise_error": normwise(rounded), "settings": settings}, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
