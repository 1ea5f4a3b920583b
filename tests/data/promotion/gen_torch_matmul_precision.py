#!/usr/bin/env python3
"""What torch.set_float32_matmul_precision switches, recorded from the real library, for
core/promote/torch_matmul_precision.

For each setting (highest, high, medium) this records the backend flags PyTorch derives from
it, and, as evidence of what this machine's CPU does, the float32 product of two 256 x 256
normal matrices compared bit for bit with the one computed under "highest".

Run: python3 tests/data/promotion/gen_torch_matmul_precision.py > .../torch_matmul_precision.json
     /usr/bin/python3 ... > .../torch1.13_matmul_precision.json   (Debian's 1.13: fewer flags)
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


def main():
    torch.manual_seed(0)
    a, b = torch.randn(256, 256), torch.randn(256, 256)
    torch.set_float32_matmul_precision("highest")
    base = a @ b
    settings = {}
    for p in ["highest", "high", "medium"]:
        torch.set_float32_matmul_precision(p)
        c = a @ b
        settings[p] = {"flags": {f: flag(f) for f in FLAGS if flag(f) is not None},
                       "cpu_product_same_bits_as_highest": bool(torch.equal(c, base))}
    cap = torch.backends.cpu.get_cpu_capability() if hasattr(torch.backends, "cpu") else "unknown"
    json.dump({"framework": "torch", "version": torch.__version__.split("+")[0],
               "cpu_capability": cap, "settings": settings}, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
