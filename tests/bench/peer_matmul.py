#!/usr/bin/env python3
"""The peer of Precision Lab's 1024^3 experiment: the same job done the way users do it today.

A script draws A and B, rounds them to bfloat16, multiplies in float32 (NumPy: ml_dtypes +
float32 BLAS; PyTorch: a bfloat16 matmul on the CPU, which accumulates in float32), multiplies
the float64 originals as the reference, and computes the difference's statistics (max/mean
absolute, max/mean relative, percentiles) and a log histogram. Timed as the median of --reps
runs with the operands drawn once beforehand, as the C++ benchmark does. Prints one JSON line.

Run: python3 tests/bench/peer_matmul.py [--n 1024] [--reps 5]
"""
import argparse
import json
import statistics
import time

import numpy as np


def stats(c, ref):
    e = c - ref
    a = np.abs(e)
    rel = a / np.maximum(np.abs(ref), np.finfo(np.float32).tiny)
    hist = np.histogram(np.log10(rel[rel > 0]), bins=48)
    return (float(a.max()), float(a.mean()), float(rel.max()), float(rel.mean()),
            np.percentile(a, [50, 90, 99]).tolist(), hist[0].sum())


def median_time(fn, reps):
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=1024)
    ap.add_argument("--reps", type=int, default=5)
    args = ap.parse_args()
    n = args.n
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((n, n)), rng.standard_normal((n, n))
    out = {"n": n, "reps": args.reps}
    try:
        import ml_dtypes

        def numpy_job():
            a16 = a.astype(ml_dtypes.bfloat16).astype(np.float32)
            b16 = b.astype(ml_dtypes.bfloat16).astype(np.float32)
            return stats((a16 @ b16).astype(np.float64), a @ b)
        out["numpy_seconds"] = median_time(numpy_job, args.reps)
        out["numpy"] = np.__version__
        out["ml_dtypes"] = ml_dtypes.__version__
    except ImportError as e:
        out["numpy_error"] = str(e)
    try:
        import torch
        ta, tb = torch.from_numpy(a), torch.from_numpy(b)

        def torch_job():
            c = (ta.to(torch.bfloat16) @ tb.to(torch.bfloat16)).to(torch.float64)
            ref = ta @ tb
            e = (c - ref).abs()
            rel = e / ref.abs().clamp_min(torch.finfo(torch.float32).tiny)
            torch.histc(torch.log10(rel[rel > 0]), bins=48)
            return e.max(), e.mean(), rel.max(), rel.mean(), torch.quantile(e.flatten()[:1 << 24].float(), 0.5)
        out["torch_seconds"] = median_time(torch_job, args.reps)
        out["torch"] = torch.__version__
        out["torch_threads"] = torch.get_num_threads()
    except ImportError as e:
        out["torch_error"] = str(e)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
