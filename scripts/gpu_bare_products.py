#!/usr/bin/env python3
"""The same n x n x n products as `precision-lab bench --op product`, called bare through
PyTorch (which calls cuBLASLt/cuBLAS itself), timed the same way in the same run: the goal is for each
of Precision Lab's cuBLASLt paths to come within 5% of a bare library call of the same shape.

Timing matches kernels/product_engine.cpp: random operands (never zeros: they run faster),
3 warm-ups, the median of --reps CUDA-event timings, operand copies rotated so that the
inputs of one call are not left in L2 by the one before (H100: 50 MB of L2).
Output layout matches the product bench's JSON: {"device", "torch", "results": [...]}.

Run on the GPU machine: python3 scripts/gpu_bare_products.py --sizes 4096,8192 --reps 20 > bare.json
"""
import argparse
import json
import statistics
import sys

import torch


def operands(dtype, n, copies, draw):
    """copies pairs (a, b) of n x n random normal operands in dtype, b given as b^T's storage
    (the TN layout cuBLASLt's fp8 and int8 GEMMs require, and the one Precision Lab packs).
    Drawn in float64 for float64 (draw "dtype"), as Precision Lab's bench draws them: float32
    draws widened to float64 leave 29 zero bits in every significand, and PyTorch's float64 GEMM
    ran 5-13% faster on those (an H100: 62.7/62.0 against 59.6/56.1 TFLOP/s at
    4096/8192 through cuBLAS, 62.7/63.4 against 60.1/59.0 through cuBLASLt), which had read as
    Precision Lab's cuBLASLt call being 6-12% behind. --draw float32 keeps them, for the A/B."""
    wide = torch.float64 if dtype == torch.float64 and draw == "dtype" else torch.float32
    pairs = []
    for _ in range(copies):
        a = torch.randn(n, n, device="cuda", dtype=wide)
        b = torch.randn(n, n, device="cuda", dtype=wide)
        if dtype == torch.int8:
            a, b = (a * 30).round().clamp(-127, 127), (b * 30).round().clamp(-127, 127)
        pairs.append((a.to(dtype), b.to(dtype)))
    return pairs


def call_for(name, fast):
    """The bare call for a dtype, and what it is, as the results file records it."""
    one = torch.ones((), device="cuda", dtype=torch.float32)
    if name in ("float64", "float32", "tf32", "float16", "bfloat16"):
        wide = name in ("float16", "bfloat16")

        def mm(a, b):
            # float16/bfloat16 into a float32 result, as Precision Lab's plan writes it.
            return torch.mm(a, b.t(), out_dtype=torch.float32) if wide else torch.mm(a, b.t())

        if wide:
            try:  # out_dtype needs torch 2.8+; plain mm (a 16-bit result) otherwise, and say so
                a = torch.ones(16, 16, device="cuda", dtype=torch.float16)
                torch.mm(a, a, out_dtype=torch.float32)
                what = "torch.mm(out_dtype=float32)"
            except (TypeError, RuntimeError):
                mm = lambda a, b: torch.mm(a, b.t())  # noqa: E731
                what = "torch.mm (16-bit result)"
        else:
            what = "torch.mm"
        return mm, what
    if name == "float8_e4m3fn":
        return (lambda a, b: torch._scaled_mm(a, b.t(), one, one, out_dtype=torch.float32, use_fast_accum=fast),
                f"torch._scaled_mm(out_dtype=float32, use_fast_accum={fast})")
    if name == "int8":
        return (lambda a, b: torch._int_mm(a, b.t()), "torch._int_mm")
    raise SystemExit(f"no bare call for {name}")


def time_one(name, n, reps, fast, draw):
    dtype = torch.float32 if name == "tf32" else getattr(torch, name)
    torch.backends.cuda.matmul.allow_tf32 = name == "tf32"
    torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction = False
    torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction = False
    bytes_per_pair = 2 * n * n * dtype.itemsize
    copies = max(2, min(8, -(-3 * 50 * 2**20 // bytes_per_pair)))  # 3x an H100's L2, 2 to 8 pairs
    pairs = operands(dtype, n, copies, draw)
    mm, what = call_for(name, fast)
    start = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
    stop = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
    for i in range(3):
        mm(*pairs[i % copies])
    for i in range(reps):
        a, b = pairs[(i + 3) % copies]
        start[i].record()
        mm(a, b)
        stop[i].record()
    torch.cuda.synchronize()
    ms = statistics.median(s.elapsed_time(e) for s, e in zip(start, stop))
    return {"dtype": name, "n": n, "fast_accumulation": fast, "median_ms": ms,
            "tflops": 2 * n**3 / (ms * 1e-3) / 1e12, "call": what, "copies": copies}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--dtypes", default="float64,float32,tf32,float16,bfloat16,float8_e4m3fn,int8")
    p.add_argument("--sizes", default="4096,8192")
    p.add_argument("--reps", type=int, default=20)
    p.add_argument("--fast-accum", action="store_true")
    p.add_argument("--blas", choices=["default", "cublas", "cublaslt"], default="default",
                   help="the library PyTorch calls (torch.backends.cuda.preferred_blas_library): the goal names "
                        "a bare cuBLASLt call; PyTorch's default on an H100 is cuBLAS, whose float64 "
                        "kernel cuBLASLt's heuristic does not offer")
    p.add_argument("--draw", choices=["dtype", "float32"], default="dtype",
                   help="float64 operands drawn in float64 (as the product bench draws them) or in float32")
    a = p.parse_args()
    if not torch.cuda.is_available():
        sys.exit("no CUDA device for PyTorch")
    if a.blas != "default":
        torch.backends.cuda.preferred_blas_library(a.blas)
    rows = []
    for name in a.dtypes.split(","):
        for n in map(int, a.sizes.split(",")):
            try:
                rows.append(time_one(name, n, a.reps, a.fast_accum, a.draw))
            except Exception as e:  # a call this torch or GPU lacks: recorded, not fatal
                rows.append({"dtype": name, "n": n, "fast_accumulation": a.fast_accum, "error": str(e)[:300]})
            torch.cuda.empty_cache()
    json.dump({"device": torch.cuda.get_device_name(0), "torch": torch.__version__,
               "cublaslt": torch.backends.cuda.preferred_blas_library().name
               if hasattr(torch.backends.cuda, "preferred_blas_library") else "",
               "method": "CUDA events around each call, median after 3 warm-ups, rotating operand copies",
               "draw": a.draw,
               "results": rows}, sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main()
