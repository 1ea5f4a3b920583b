#!/usr/bin/env python3
"""Which path F.linear takes with a bias of another dtype, by the input's rank and layout,
recorded from the real library for core/promote/torch_engine's linear rule.

The promotion tables (gen_torch.py) call F.linear on a 2-D input, where it calls addmm, which
does not promote the bias: float32 x and w with a float16 bias raise. On an input of more
dimensions PyTorch flattens the input into addmm only when it can (a contiguous input; 1.13
only a 3-D one); otherwise it computes matmul and then adds the bias in place (add_), which
keeps the product's float32 for a real bias of any dtype and raises for a complex one. This
records, for float32 x and w and each bias dtype below, what F.linear returns or raises for a
contiguous and a non-contiguous (transposed) input of 2, 3 and 4 dimensions.

Run: python3 tests/data/promotion/gen_torch_linear_bias.py > tests/data/promotion/torch_linear_bias.json
     /usr/bin/python3 ... > tests/data/promotion/torch1.13_linear_bias.json   (Debian's 1.13)
"""
import json
import sys

import torch
import torch.nn.functional as F

BIASES = ["float16", "bfloat16", "float64", "int32", "bool", "complex64"]
SHAPES = [(2, 3), (5, 2, 3), (5, 2, 2, 3)]


def call(shape, contiguous, bias):
    torch.manual_seed(0)
    if contiguous:
        x = torch.randn(*shape)
    else:  # the same shape, its strides reversed
        x = torch.randn(*shape[::-1]).permute(*range(len(shape) - 1, -1, -1))
    w = torch.randn(4, shape[-1])
    b = torch.ones(4, dtype=getattr(torch, bias))
    try:
        return {"result": str(F.linear(x, w, b).dtype).replace("torch.", "")}
    except Exception as e:  # noqa: BLE001 -- the error is the answer
        return {"error": type(e).__name__, "message": str(e)}


def main():
    rows = []
    for bias in BIASES:
        for shape in SHAPES:
            for contiguous in (True, False):
                if len(shape) == 2 and not contiguous:
                    continue  # (a transposed 2-D input is addmm's too: one row is enough)
                rows.append({"input": "float32", "weight": "float32", "bias": bias, "shape": list(shape),
                             "contiguous": contiguous, **call(shape, contiguous, bias)})
    json.dump({"versions": {"torch": torch.__version__.split("+")[0], "python": sys.version.split()[0]},
               "calls": rows}, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
