#!/usr/bin/env python3
"""Golden promotion tables from the real PyTorch (CPU), for core/promote/torch_engine.

For every ordered pair of dtypes (and a third for bias) and every operand-kind pair this
records what PyTorch does: the result dtype, or the exception type and its exact message.
A "scalar" operand is a Python scalar whose type is the category of the named dtype
(bool -> True, integers -> 2, floats -> 2.5, complex -> 2.5+1j).

Run: python3 tests/data/promotion/gen_torch.py --no-mkldnn > tests/data/promotion/torch_cpu.json
     python3 tests/data/promotion/gen_torch.py --no-mkldnn --autocast-cpu > .../torch_autocast_cpu.json
     (every call inside torch.autocast("cpu", dtype=torch.bfloat16))
     python3 tests/data/promotion/gen_torch.py --onednn > .../torch_cpu_onednn.json
     python3 tests/data/promotion/gen_torch.py --onednn --autocast-cpu > .../torch_autocast_cpu_onednn.json
     (torch 2.15.0 from PyPI, recorded on an AMD EPYC with AVX-512 on 2026-11-23; the tables
     recorded before without a flag were byte-identical to --no-mkldnn's but for the header:
     the machine that made them took the path without oneDNN. With oneDNN, 2.15 differs in 88
     cells, 2,016 under autocast: every bfloat16 convolution whose weight dtype differs.)
     /usr/bin/python3 tests/data/promotion/gen_torch.py --no-mkldnn > .../torch1.13_cpu.json
     /usr/bin/python3 tests/data/promotion/gen_torch.py --no-mkldnn --autocast-cpu > .../torch1.13_autocast_cpu.json
     /usr/bin/python3 tests/data/promotion/gen_torch.py --onednn > .../torch1.13_cpu_onednn.json
     (on a CPU with AVX-512 BW/VL/DQ: the oneDNN bfloat16 convolutions)
     (Debian 12's python3-torch 1.13.1+dfsg-4, which reports 1.13.0a0; only the 13 dtypes
     that release has are recorded)
     --no-mkldnn: with torch.backends.mkldnn.enabled = False, the path a CPU without AVX-512
     (BW, VL, DQ) takes for bfloat16 convolutions. With them, PyTorch routes bfloat16
     convolutions through oneDNN and a dtype mismatch reads "Input type (...) and weight type
     (...) should be the same or input should be a MKLDNN tensor and weight is a dense tensor"
     instead (1.13.1 on an AVX-512 machine: 204 cells, all bfloat16-input convolutions). The
     1.13 tables are recorded with it, so they do not depend on the recording machine.
     python3 tests/data/promotion/gen_torch.py --device cuda > .../torch_cuda.json
     python3 tests/data/promotion/gen_torch.py --device cuda --autocast-cuda float16 > ...
     (on a machine with a GPU and a CUDA build of PyTorch: scripts/gpu_check.sh records these;
     the GPU's name is recorded in the header)
Needs torch (any CPU-capable build); the version is recorded in the output.

Layout (compact: a few thousand distinct outcomes repeat across ~90k cells):
  "dtypes":   the torch dtype names, in the order every table indexes them;
  "outcomes": each distinct outcome once: a dtype name, or {"error": class, "message": text};
  "tables":   name -> nested lists of outcome indices, [a][b] or, with a bias, [a][b][bias].
              Names: "promote_types", "OP:AKIND,BKIND" and "OP:tensor,tensor,bias".
"""
import json
import sys
import warnings

import torch
import torch.nn.functional as F

from golden_io import Outcomes, write_golden

warnings.simplefilter("ignore")

NAMES = ["bool", "uint8", "int8", "int16", "int32", "int64", "uint16", "uint32", "uint64",
         "float16", "bfloat16", "float32", "float64", "complex32", "bcomplex32", "complex64",
         "complex128",
         "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz", "float8_e8m0fnu",
         "float4_e2m1fn_x2"]
NAMES = [n for n in NAMES if hasattr(torch, n)]  # older releases (1.13) lack the newer dtypes
DT = {n: getattr(torch, n) for n in NAMES}
SCALAR = {"bool": True, "int": 2, "float": 2.5, "complex": 2.5 + 1j}


def category(n):
    t = DT[n]
    if t == torch.bool:
        return "bool"
    if t.is_complex:
        return "complex"
    if t.is_floating_point:
        return "float"
    return "int"


DEVICE = "cpu"


def tensor(n, shape):
    # empty() works for every dtype, including the ones with no fill kernels; the values
    # never matter here, only dtypes and errors.
    return torch.empty(shape, dtype=DT[n], device=DEVICE)


def operand(n, kind, shape):
    if kind == "tensor":
        return tensor(n, shape)
    if kind == "zerodim":
        return tensor(n, ())
    return SCALAR[category(n)]


def outcome(fn):
    try:
        r = fn()
        return str(r.dtype).replace("torch.", "")
    except Exception as e:  # record the message exactly as PyTorch prints it
        return {"error": type(e).__name__, "message": str(e)}


ELEMENTWISE = {"add": torch.add, "sub": torch.sub, "mul": torch.mul, "div": torch.div}
KIND_PAIRS = [("tensor", "tensor"), ("tensor", "zerodim"), ("zerodim", "tensor"),
              ("zerodim", "zerodim"), ("tensor", "scalar"), ("scalar", "tensor"),
              ("zerodim", "scalar")]



def cpu_has_avx512_bw_vl_dq():
    try:
        flags = open("/proc/cpuinfo").read().split()
    except OSError:
        return False
    return all(f in flags for f in ("avx512bw", "avx512vl", "avx512dq"))


def option(name):
    args = sys.argv[1:]
    return args[args.index(name) + 1] if name in args and args.index(name) + 1 < len(args) else None


def main():
    global DEVICE
    header = {}
    if option("--device") == "cuda":
        if not torch.cuda.is_available():
            sys.exit("--device cuda needs a GPU and a CUDA build of PyTorch")
        DEVICE = "cuda"
        header["gpu"] = torch.cuda.get_device_name(0)
        header["cuda"] = torch.version.cuda
    if "--no-mkldnn" in sys.argv[1:]:
        torch.backends.mkldnn.enabled = False
        header["mkldnn"] = "disabled"
    elif "--onednn" in sys.argv[1:]:  # record the oneDNN path, on a CPU that takes it
        if not (torch.backends.mkldnn.is_available() and cpu_has_avx512_bw_vl_dq()):
            sys.exit("--onednn needs oneDNN and a CPU with AVX-512 BW, VL and DQ")
        header["mkldnn"] = "enabled, AVX-512 BW/VL/DQ"
    if option("--autocast-cuda"):
        dtype = option("--autocast-cuda")
        with torch.autocast("cuda", dtype=getattr(torch, dtype)):
            write_tables({**header, "autocast": "cuda", "autocast_dtype": dtype})
    elif "--autocast-cpu" in sys.argv[1:]:
        with torch.autocast("cpu", dtype=torch.bfloat16):
            write_tables({**header, "autocast": "cpu", "autocast_dtype": "bfloat16"})
    else:
        write_tables(header)


def write_tables(extra_header):
    outcomes = Outcomes()
    tables = {}

    def table2(name, fn):
        tables[name] = [[outcomes.add(outcome(lambda: fn(a, b))) for b in NAMES] for a in NAMES]

    def table3(name, fn):
        tables[name] = [[[outcomes.add(outcome(lambda: fn(a, b, c))) for c in NAMES]
                         for b in NAMES] for a in NAMES]

    table2("promote_types", lambda a, b: torch.empty(0, dtype=torch.promote_types(DT[a], DT[b])))
    for op, fn in ELEMENTWISE.items():
        for ka, kb in KIND_PAIRS:
            table2(f"{op}:{ka},{kb}",
                   lambda a, b: fn(operand(a, ka, (2,)), operand(b, kb, (2,))))
    mats = {
        "matmul": lambda a, b: torch.matmul(tensor(a, (2, 3)), tensor(b, (3, 2))),
        "mm": lambda a, b: torch.mm(tensor(a, (2, 3)), tensor(b, (3, 2))),
        "bmm": lambda a, b: torch.bmm(tensor(a, (1, 2, 3)), tensor(b, (1, 3, 2))),
        "linear": lambda a, b: F.linear(tensor(a, (2, 3)), tensor(b, (4, 3))),
        "conv1d": lambda a, b: F.conv1d(tensor(a, (1, 3, 5)), tensor(b, (4, 3, 2))),
        "conv2d": lambda a, b: F.conv2d(tensor(a, (1, 3, 5, 5)), tensor(b, (4, 3, 2, 2))),
        "to": lambda a, b: tensor(a, (2,)).to(DT[b]),
    }
    for op, fn in mats.items():
        table2(f"{op}:tensor,tensor", fn)
    biased = {
        "addmm": lambda a, b, c: torch.addmm(tensor(c, (2, 2)), tensor(a, (2, 3)), tensor(b, (3, 2))),
        "linear": lambda a, b, c: F.linear(tensor(a, (2, 3)), tensor(b, (4, 3)), tensor(c, (4,))),
        "conv1d": lambda a, b, c: F.conv1d(tensor(a, (1, 3, 5)), tensor(b, (4, 3, 2)), tensor(c, (4,))),
        "conv2d": lambda a, b, c: F.conv2d(tensor(a, (1, 3, 5, 5)), tensor(b, (4, 3, 2, 2)), tensor(c, (4,))),
    }
    for op, fn in biased.items():
        table3(f"{op}:tensor,tensor,bias", fn)
    header = {"framework": "torch", "version": torch.__version__.split("+")[0], "device": DEVICE,
              **extra_header}
    write_golden(sys.stdout, header, NAMES, outcomes, tables=tables)

if __name__ == "__main__":
    main()
