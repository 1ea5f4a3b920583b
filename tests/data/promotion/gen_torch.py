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
     (torch 2.15.0 from PyPI, recorded on an AMD EPYC with AVX-512; the tables
     recorded before without a flag were byte-identical to --no-mkldnn's but for the header:
     the machine that made them took the path without oneDNN. With oneDNN, 2.15 differs in 96
     cells, 2,304 under autocast: every bfloat16 convolution whose weight dtype differs;
     onednn_differences.py counts them.)
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
     the GPU's name is recorded in the header. On CUDA the cells run in forked workers
     (cell_pool.py; --workers N at a time, --spares M more made ready beforehand): a kernel's
     device-side assert is recorded as its cell's outcome, and a spare takes the rest of that
     worker's chunk, since CUDA then fails every later call in that process. --cells-log FILE
     appends each outcome as it comes, and a run cut off by a time limit resumes from it.
     --forked runs the CPU tables the same way, to test that machinery.)
     python3 tests/data/promotion/gen_torch.py --partial-from LOG --version 2.11.0 --gpu NAME
         --cuda 13.0 [--autocast-cuda float16] > ..._partial.json
     (the cells such a log holds, the others null, with the same torch release, no GPU needed)
Needs torch (any CPU-capable build); the version is recorded in the output.

Layout (compact: a few thousand distinct outcomes repeat across ~90k cells):
  "dtypes":   the torch dtype names, in the order every table indexes them;
  "outcomes": each distinct outcome once: a dtype name, or {"error": class, "message": text};
  "tables":   name -> nested lists of outcome indices, [a][b] or, with a bias, [a][b][bias].
              Names: "promote_types", "OP:AKIND,BKIND" and "OP:tensor,tensor,bias".
"""
import contextlib
import itertools
import json
import subprocess
import sys
import warnings

import torch
import torch.nn.functional as F

from cell_pool import read_log, run_cells
from golden_io import Outcomes, write_golden

warnings.simplefilter("ignore")

NAMES = ["bool", "uint8", "int8", "int16", "int32", "int64", "uint16", "uint32", "uint64",
         "float16", "bfloat16", "float32", "float64", "complex32", "bcomplex32", "complex64",
         "complex128",
         "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz", "float8_e8m0fnu",
         "float4_e2m1fn_x2", "int4", "uint4"]
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
        if DEVICE == "cuda":
            torch.cuda.synchronize()  # a kernel's device-side assert surfaces here, in its own cell
        return str(r.dtype).replace("torch.", "")
    except Exception as e:  # record the message exactly as PyTorch prints it
        return {"error": type(e).__name__, "message": str(e)}


def cuda_usable():
    """Whether this process's CUDA context still runs kernels. A cell may launch a kernel that
    asserts and then raise a Python error before any synchronisation (autocast casts a float4
    input, then the op refuses the dtypes): the cell's outcome is that error, and the assert
    would surface in the next cell of this process -- the CUDA autocast recording found
    float16 x float16 mm failing with CUBLAS_STATUS_EXECUTION_FAILED so."""
    try:
        torch.cuda.synchronize()
        return torch.ones(1, device="cuda").add_(1).item() == 2
    except Exception:
        return False


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
    if option("--partial-from"):
        return write_partial(option("--partial-from"))
    header = {}
    if option("--device") == "cuda":
        # Asked in a child: CUDA used here would be unusable in the forked workers.
        probe = subprocess.run([sys.executable, "-c", "import torch; print(torch.cuda.get_device_name(0))"],
                               capture_output=True, text=True)
        if probe.returncode != 0 or not torch.version.cuda:
            sys.exit("--device cuda needs a GPU and a CUDA build of PyTorch: " + probe.stderr[-300:])
        DEVICE = "cuda"
        header["gpu"] = probe.stdout.strip()
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
        write_tables({**header, "autocast": "cuda", "autocast_dtype": dtype}, autocast=dtype)
    elif "--autocast-cpu" in sys.argv[1:]:
        with torch.autocast("cpu", dtype=torch.bfloat16):
            write_tables({**header, "autocast": "cpu", "autocast_dtype": "bfloat16"})
    else:
        write_tables(header)


def table_specs():
    """(name, arity, fn) for every table, in the order the file lists them."""
    specs = [("promote_types", 2, lambda a, b: torch.empty(0, dtype=torch.promote_types(DT[a], DT[b])))]
    for op, fn in ELEMENTWISE.items():
        for ka, kb in KIND_PAIRS:
            specs.append((f"{op}:{ka},{kb}", 2,
                          lambda a, b, fn=fn, ka=ka, kb=kb: fn(operand(a, ka, (2,)), operand(b, kb, (2,)))))
    mats = {
        "matmul": lambda a, b: torch.matmul(tensor(a, (2, 3)), tensor(b, (3, 2))),
        "mm": lambda a, b: torch.mm(tensor(a, (2, 3)), tensor(b, (3, 2))),
        "bmm": lambda a, b: torch.bmm(tensor(a, (1, 2, 3)), tensor(b, (1, 3, 2))),
        "linear": lambda a, b: F.linear(tensor(a, (2, 3)), tensor(b, (4, 3))),
        "conv1d": lambda a, b: F.conv1d(tensor(a, (1, 3, 5)), tensor(b, (4, 3, 2))),
        "conv2d": lambda a, b: F.conv2d(tensor(a, (1, 3, 5, 5)), tensor(b, (4, 3, 2, 2))),
        "to": lambda a, b: tensor(a, (2,)).to(DT[b]),
    }
    specs += [(f"{op}:tensor,tensor", 2, fn) for op, fn in mats.items()]
    # A zero-dim source takes copy_'s scalar path, which names "copy_" where a dimensioned
    # float32 <-> fp4 copy names "copy_kernel".
    specs.append(("to:zerodim,tensor", 2, lambda a, b: tensor(a, ()).to(DT[b])))
    biased = {
        "addmm": lambda a, b, c: torch.addmm(tensor(c, (2, 2)), tensor(a, (2, 3)), tensor(b, (3, 2))),
        "linear": lambda a, b, c: F.linear(tensor(a, (2, 3)), tensor(b, (4, 3)), tensor(c, (4,))),
        "conv1d": lambda a, b, c: F.conv1d(tensor(a, (1, 3, 5)), tensor(b, (4, 3, 2)), tensor(c, (4,))),
        "conv2d": lambda a, b, c: F.conv2d(tensor(a, (1, 3, 5, 5)), tensor(b, (4, 3, 2, 2)), tensor(c, (4,))),
    }
    specs += [(f"{op}:tensor,tensor,bias", 3, fn) for op, fn in biased.items()]
    return specs


def cells(specs):
    """Every (table, dtype indices) in file order: row-major over NAMES."""
    return [(t, idx) for t, (_, arity, _) in enumerate(specs)
            for idx in itertools.product(range(len(NAMES)), repeat=arity)]


def run_cell(specs, cell):
    t, idx = cell
    return outcome(lambda: specs[t][2](*(NAMES[i] for i in idx)))


def cuda_warm_up(autocast):
    """Makes the worker's CUDA context before it is handed cells (cell_pool parks it so)."""
    def warm_up():
        with autocast_context(autocast):
            x = torch.ones(2, 3, device="cuda")
            F.linear(x, torch.ones(4, 3, device="cuda"))
            torch.cuda.synchronize()
    return warm_up


def autocast_context(autocast):
    return torch.autocast("cuda", dtype=getattr(torch, autocast)) if autocast else contextlib.nullcontext()


def write_tables(extra_header, autocast=None):
    specs = table_specs()
    todo = cells(specs)
    if DEVICE == "cuda" or "--forked" in sys.argv[1:]:  # --forked: the same on the CPU, to test it
        # In forked workers (cell_pool.py): a cell that ends in a device-side assert leaves its
        # process's CUDA context unusable, so a spare takes the rest of its chunk.
        def run(k):
            with autocast_context(autocast):
                o = run_cell(specs, todo[k])
            return o, DEVICE == "cuda" and not cuda_usable()

        results = run_cells(len(todo), run, cuda_warm_up(autocast) if DEVICE == "cuda" else lambda: None,
                            workers=int(option("--workers") or 4), spares=int(option("--spares") or 2),
                            log=option("--cells-log"),
                            describe=lambda k: f"{specs[todo[k][0]][0]} {[NAMES[i] for i in todo[k][1]]}")
    else:
        results = [run_cell(specs, c) for c in todo]
    header = {"framework": "torch", "version": torch.__version__.split("+")[0], "device": DEVICE,
              **extra_header}
    outcomes, tables = golden_tables(specs, todo, results)
    write_golden(sys.stdout, header, NAMES, outcomes, tables=tables)


def golden_tables(specs, todo, results):
    """The interned outcomes and the nested tables of cells todo with their results (None: a
    cell not recorded, written as null; a table with no recorded cell is left out)."""
    outcomes = Outcomes()
    tables = {}
    recorded = {t for (t, _), o in zip(todo, results) if o is not None}
    for (t, idx), o in zip(todo, results):
        if t not in recorded:
            continue
        name, arity, _ = specs[t]
        row = tables.setdefault(name, [])
        for i in idx[:-1]:  # nested lists [a][b] or [a][b][bias], filled in row-major order
            if len(row) <= i:
                row.append([])
            row = row[i]
        row.append(None if o is None else outcomes.add(o))
    return outcomes, tables


def write_partial(log):
    """The cells a cell log (--cells-log of a run cut off by its limit) holds, as a golden file
    marked partial, the others null, without running anything: the header says what was recorded
    where (--version, --gpu, --cuda, --autocast-cuda as the recording run had them), and the
    dtypes are this torch's, which must be the recording's release."""
    specs = table_specs()
    todo = cells(specs)
    done = read_log(log)
    results = [done.get(k) for k in range(len(todo))]
    outcomes, tables = golden_tables(specs, todo, results)
    header = {"framework": "torch", "version": option("--version"), "device": "cuda",
              "gpu": option("--gpu"), "cuda": option("--cuda")}
    if option("--autocast-cuda"):
        header.update(autocast="cuda", autocast_dtype=option("--autocast-cuda"))
    if torch.__version__.split("+")[0] != header["version"]:
        sys.exit(f"the log was recorded with torch {header['version']}; this is {torch.__version__}")
    header["partial"] = (f"{len(done)} of {len(todo)} cells recorded; the others are null, and "
                         f"{len(specs) - len(tables)} tables with none are left out")
    write_golden(sys.stdout, header, NAMES, outcomes, tables=tables)


if __name__ == "__main__":
    main()
