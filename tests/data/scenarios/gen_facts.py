#!/usr/bin/env python3
"""The numbers the scenarios state in words, computed by the real libraries.

A scenario's story or look-at says things like "about 1e-5 per element" or "11 significant
bits". Each such phrase is a fact in the scenario file ({"id", "says", "min"/"max" or
"equals"}); this script computes every fact with NumPy, ml_dtypes and PyTorch -- no code shared
with the app -- and writes facts.json beside it with the libraries' versions and the machine
facts that matter. The two constants no library defines (the MX block size, TF32's fraction
bits) are cited instead, each with its specification under "cited" in facts.json. The C++ test ScenarioLibrary.EveryStatedFactIsRecorded requires each fact to
have a recorded value inside what the scenario says; ScenarioLibrary.EveryNumberInTheTextIsBacked
requires every number in a story to be a fact, a check or an evidence setup.

Run:   python3 tests/data/scenarios/gen_facts.py           (writes facts.json)
Check: python3 tests/data/scenarios/gen_facts.py --check   (recomputes; exit 1 when a fact falls
       outside what its scenario says, or when the scenarios and facts.json name different facts)
Add:   python3 tests/data/scenarios/gen_facts.py --add     (records only the facts facts.json lacks,
       with the library versions it was recorded with; the timed facts stay the recording machine's)
Timed facts (marked MEASURED) describe the machine that recorded them, named in facts.json: --check
does not rerun them (tests never assert timings).
"""
import functools
import itertools
import os
import json
import math
import pathlib
import platform
import sys
import time
from fractions import Fraction

try:
    import ml_dtypes
    import numpy as np
    import torch
except ImportError as missing:  # the CTest entry skips visibly (77) where the libraries are not installed
    print(f"SKIP: {missing}; install numpy, ml_dtypes and torch to recompute the scenario facts", file=sys.stderr)
    sys.exit(77)

ROOT = pathlib.Path(__file__).resolve().parents[3]
SCENARIOS = ROOT / "assets" / "scenarios"
OUT = pathlib.Path(__file__).resolve().parent / "facts.json"

FACTS = {}      # (scenario, fact id) -> function returning a number or a string
MEASURED = set()  # facts that are timings on the recording machine
CITED = {}  # (scenario, fact id) -> the specification a constant is taken from: no library computes it


def fact(scenario, fid, measured=False, cited=None):
    def register(fn):
        FACTS[(scenario, fid)] = fn
        if measured:
            MEASURED.add((scenario, fid))
        if cited:
            CITED[(scenario, fid)] = cited
        return fn
    return register


def finfo(name):
    return ml_dtypes.finfo(getattr(ml_dtypes, name) if hasattr(ml_dtypes, name) else np.dtype(name))


def round_bits(x, p, truncate=False):
    """x (float64) to p significant bits, to nearest with ties to even or toward zero (no value
    here nears a format's range, so the exponent is unbounded)."""
    m, e = np.frexp(x)
    return np.ldexp((np.trunc if truncate else np.rint)(np.ldexp(m, p)), e - p)


def exact_sums(terms):
    """Each row of terms (float64) summed exactly, then rounded once to float64."""
    return np.array([math.fsum(row) for row in terms])


def sequential_sums(terms, rounding):
    """Each row of terms (float64) summed left to right, every partial sum passed through rounding
    (float64 array to float64 array): the accumulator of a loop kept in a narrower format."""
    s = np.zeros(terms.shape[0])
    for j in range(terms.shape[1]):
        s = rounding(s + terms[:, j])
    return s


# ---- 23: integers promoted to floats ----------------------------------------------------------
@fact("23-int-to-float-loses-digits", "float32-exact-limit")
def _():
    p = int(finfo("float32").nmant) + 1
    return f"2^{p} = {2 ** p}"


@fact("23-int-to-float-loses-digits", "torch-int32-plus-zero")
def _():
    r = torch.tensor([16777217]) + 0.0  # the story's expression: int64 tensor, Python float -> float32
    return repr(r.item())


@fact("23-int-to-float-loses-digits", "float64-exact-limit")
def _():
    return f"2^{int(finfo('float64').nmant) + 1}"


@fact("23-int-to-float-loses-digits", "float16-max")
def _():
    return f"{float(finfo('float16').max):g}"


@fact("23-int-to-float-loses-digits", "torch-70000-plus-float16-zero")
def _():
    r = torch.tensor([70000], dtype=torch.int32) + torch.tensor([0.0], dtype=torch.float16)
    return repr(r.item())


@fact("23-int-to-float-loses-digits", "numpy-2-53-plus-1")
def _():
    r = np.array([2 ** 53 + 1], dtype=np.int64) + np.array([0.0], dtype=np.float64)
    return repr(float(r[0]))


# ---- 01: the two fixes of a float64 batch into a float32 nn.Linear ------------------------------
@fact("01-numpy-float64-into-float32-model", "double-over-float")
def _():
    torch.manual_seed(1)
    layer = torch.nn.Linear(256, 64)  # float32 weight and bias, as the model has them
    x = torch.from_numpy(np.random.default_rng(1).standard_normal((64, 256)))  # NumPy's float64
    w = layer.weight.detach().double().numpy().astype(np.longdouble)
    b = layer.bias.detach().double().numpy().astype(np.longdouble)
    exact = x.numpy().astype(np.longdouble) @ w.T + b  # 64-bit significands: ~1e-19, far below what is measured
    rel = lambda y: float(np.linalg.norm(y.detach().double().numpy() - exact) / np.linalg.norm(exact))  # noqa: E731
    with torch.no_grad():
        as_float = rel(layer(x.to(torch.float32)))
        as_double = rel(layer.double()(x))
    return as_float / as_double


# ---- 25: NumPy and PyTorch ---------------------------------------------------------------------
@fact("25-numpy-interop", "numpy-of-float32")
def _():
    return str(torch.ones(2, 3).numpy().dtype)


@fact("25-numpy-interop", "numpy-times-python-float")
def _():
    return str((torch.ones(2, 3).numpy() * 2.0).dtype)


@fact("25-numpy-interop", "from-numpy-ones")
def _():
    return str(torch.from_numpy(np.ones(3)).dtype).removeprefix("torch.")


@fact("25-numpy-interop", "torch-int")
def _():
    return str(torch.int).removeprefix("torch.")


@fact("25-numpy-interop", "numpy1-value-based")
def _():
    # NumPy 1.x cannot sit beside NumPy 2: its answers are read from what
    # gen_numpy1_value_based.py recorded under it (a float32 array plus a zero-dim float64 array).
    recorded = json.loads((pathlib.Path(__file__).resolve().parent / "numpy1-value-based.json").read_text())
    got = {}
    for row in recorded["rows"]:
        got.setdefault(row["zero_dim_float64"], []).append(row["value"])
    return f"NumPy {recorded['numpy']}: " + "; ".join(f"{d} for {', '.join(v)}" for d, v in sorted(got.items()))


# ---- 26: load_state_dict ----------------------------------------------------------------------
def load_into(model_dtype, checkpoint_dtype):
    """(the weight's dtype after loading, the warnings raised)"""
    import warnings
    m = torch.nn.Linear(3, 2).to(model_dtype)
    checkpoint = torch.nn.Linear(3, 2).to(checkpoint_dtype).state_dict()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        m.load_state_dict(checkpoint)
    return str(m.weight.dtype).removeprefix("torch."), len(caught)


@fact("26-load-state-dict-keeps-dtype", "float32-into-double")
def _():
    return load_into(torch.float64, torch.float32)[0]


@fact("26-load-state-dict-keeps-dtype", "float64-into-float32")
def _():
    return load_into(torch.float32, torch.float64)[0]


@fact("26-load-state-dict-keeps-dtype", "no-warning")
def _():
    return "no warning" if load_into(torch.float32, torch.float64)[1] == 0 else "a warning"


# ---- 27: mixed precision misused --------------------------------------------------------------
@fact("27-mixed-precision-misuse", "unscale-fp16")
def _():
    m = torch.nn.Linear(3, 2).half()
    scaler = torch.amp.GradScaler("cpu")  # the CPU's scaler runs the same unscale_ check
    scaler.scale(m(torch.ones(1, 3, dtype=torch.float16)).sum()).backward()
    try:
        scaler.unscale_(torch.optim.SGD(m.parameters(), lr=0.1))
    except Exception as e:  # noqa: BLE001 -- the exception is the fact
        return f"{type(e).__name__}: {e}"
    return "no error"


@fact("27-mixed-precision-misuse", "gradscaler-cuda-on-cpu", measured=True)  # true on a machine without a GPU
def _():
    import warnings
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        enabled = torch.amp.GradScaler("cuda").is_enabled()
    return "enabled" if enabled else ("disabled with a warning" if caught else "disabled silently")


@fact("27-mixed-precision-misuse", "autocast-cuda-on-cpu", measured=True)  # true on a machine without a GPU
def _():
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with torch.autocast("cuda", dtype=torch.float16):
            return str((torch.ones(2, 2) @ torch.ones(2, 2)).dtype).removeprefix("torch.")


@fact("27-mixed-precision-misuse", "mse-loss-float32")
def _():
    with torch.autocast("cpu", dtype=torch.bfloat16):
        y = torch.nn.Linear(3, 2)(torch.ones(1, 3))
        assert y.dtype == torch.bfloat16
        return str(torch.nn.functional.mse_loss(y, torch.ones(1, 2)).dtype).removeprefix("torch.")


# ---- 28: training in low precision ------------------------------------------------------------
def round_to(x, fmt):
    """x (float64 array) rounded once to fmt, nearest-even. ml_dtypes converts a double through
    float (double rounding, tests/data/casts), so bfloat16 goes through float32 rounded to odd,
    which makes the second rounding exact (24 >= 8 + 2 bits)."""
    if fmt == "float64":
        return x
    if fmt in ("float32", "float16"):  # NumPy's own casts round once
        return x.astype(fmt).astype(np.float64)
    f = x.astype(np.float32)
    over = np.abs(f.astype(np.float64)) > np.abs(x)
    f = np.where(over, np.nextafter(f, np.float32(0)), f)  # toward zero
    inexact = f.astype(np.float64) != x
    f = np.where(inexact, (f.view(np.uint32) | np.uint32(1)).view(np.float32), f)  # then odd
    return f.astype(getattr(ml_dtypes, fmt)).astype(np.float64)


@functools.lru_cache(maxsize=None)
def train(model, steps=400, n=256, d=16, lr=0.05, noise=0.01, seed=28):
    """Gradient descent on a linear regression, every product, sum and update rounded to the
    compute format in order (as the app's train experiment does, written again here);
    model "bfloat16:float32" keeps float32 master weights. (final loss / least-squares loss,
    first step whose every update was lost or None, the updates lost over all the steps: a nonzero
    update that left its weight unchanged)."""
    compute, _, master = model.partition(":")
    master = master or compute
    rng = np.random.default_rng(seed)
    x64 = rng.standard_normal((n, d))
    y64 = x64 @ rng.standard_normal(d) + noise * rng.standard_normal(n)
    best = np.linalg.lstsq(x64, y64, rcond=None)[0]
    loss = lambda w: float(np.mean((x64 @ w - y64) ** 2))  # noqa: E731
    rc = lambda v: round_to(np.asarray(v, dtype=np.float64), compute)  # noqa: E731
    x, y = rc(x64), rc(y64)
    lr_c, scale = rc(lr), rc(2.0 / n)
    w = np.zeros(d)
    stalled = None
    lost = 0
    for step in range(steps):
        wc = rc(w)
        acc = np.zeros(n)
        for j in range(d):
            acc = rc(acc + rc(x[:, j] * wc[j]))
        r = rc(acc - y)
        acc = np.zeros(d)
        for i in range(n):
            acc = rc(acc + rc(r[i] * x[i, :]))
        u = rc(lr_c * rc(acc * scale))
        new = round_to(w - u, master)
        moved = u != 0
        lost += int(np.count_nonzero(new[moved] == w[moved]))
        if stalled is None and moved.any() and np.all(new[moved] == w[moved]):
            stalled = step
        w = new
    return loss(w) / loss(best), stalled, lost


@fact("28-training-in-low-precision", "bf16-stuck")
def _():
    return train("bfloat16")[0]


@fact("28-training-in-low-precision", "f16-bits-more")
def _():
    return str(int(finfo("float16").nmant) - int(finfo("bfloat16").nmant))


@fact("28-training-in-low-precision", "master-near-best")
def _():
    return train("bfloat16:float32")[0]


# The derivations' numbers for the same descent: where bfloat16's updates stop, and where float16
# and float32 end.
@fact("28-training-in-low-precision", "bf16-stall-step")
def _():
    return str(train("bfloat16")[1])


@fact("28-training-in-low-precision", "f16-end")
def _():
    return train("float16")[0]


@fact("28-training-in-low-precision", "master-lost-updates")
def _():
    return str(train("bfloat16:float32")[2])


@fact("28-training-in-low-precision", "f32-end")
def _():
    return train("float32")[0]


# ---- 04: integer wrap-around ------------------------------------------------------------------
@fact("04-int-float-bool-promotion", "uint8-modulus")
def _():
    return str(int(np.iinfo(np.uint8).max) + 1)


@fact("04-int-float-bool-promotion", "torch-uint8-plus-1000")
def _():
    return str(int((torch.tensor([1], dtype=torch.uint8) + 1000)[0]))


def int4_uint4_raise(others):
    """"raises" when PyTorch raises for int4 and uint4 tensors against each dtype of `others`, on
    either side (torch.empty: PyTorch cannot even fill a 4-bit tensor with ones)."""
    for four in (torch.int4, torch.uint4):
        for other in others:
            for a, b in ((four, other), (other, four)):
                x, y = torch.empty((2, 2), dtype=a), torch.empty((2, 2), dtype=b)  # (outside: the add must raise)
                try:
                    torch.add(x, y)
                except Exception:  # noqa: BLE001 -- raising is the answer
                    continue
                return f"{a} + {b} does not raise"
    return "raises"


def raises_both_ways(pairs):
    """"raises" when PyTorch refuses to mix each (a, b) dtype pair, in either order, asked through
    torch.cat, which promotes its tensors as add does. (Not add itself: the CPU has no add kernel
    for the float8 types or uint16 to uint64 even with a partner of the same dtype, so add would
    raise whatever the mix. cat joins every one of these dtypes with itself, which is checked
    first: what raises is the mix.)"""
    def cat(p, q):
        return torch.cat([torch.empty(2, dtype=p), torch.empty(2, dtype=q)])

    for d in {d for pair in pairs for d in pair}:
        cat(d, d)  # (raises here, and the fact with it, where a dtype cannot be joined at all)
    for a, b in pairs:
        for p, q in ((a, b), (b, a)):
            try:
                got = cat(p, q)
            except (RuntimeError, NotImplementedError):  # "Promotion for Float8 Types is not supported"
                continue
            return f"{p} with {q} gives {got.dtype}"
    return "raises"


def torch_float8_float4():
    return (torch.float8_e4m3fn, torch.float8_e5m2, torch.float8_e4m3fnuz, torch.float8_e5m2fnuz,
            torch.float8_e8m0fnu, torch.float4_e2m1fn_x2)


def torch_integers():
    return (torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64, torch.uint16, torch.uint32, torch.uint64)


@fact("04-int-float-bool-promotion", "torch-float8-float4-raise")
def _():
    return raises_both_ways(itertools.product(torch_float8_float4(), torch_integers() + (torch.bool,)))


@fact("04-int-float-bool-promotion", "torch-bool-wide-unsigned-raise")
def _():
    return raises_both_ways((torch.bool, u) for u in (torch.uint16, torch.uint32, torch.uint64))


@fact("23-int-to-float-loses-digits", "torch-float8-float4-with-integers-raise")
def _():
    return raises_both_ways(itertools.product(torch_float8_float4(), torch_integers()))


@fact("04-int-float-bool-promotion", "torch-int4-uint4-raise")
def _():
    return int4_uint4_raise((torch.bool, torch.float16, torch.bfloat16, torch.float32, torch.float64))


@fact("23-int-to-float-loses-digits", "torch-int4-uint4-with-floats-raise")
def _():
    return int4_uint4_raise((torch.float16, torch.bfloat16, torch.float32, torch.float64))


# ---- 05: integer conversions ------------------------------------------------------------------
@fact("05-float-to-int-casts", "torch-arange-uint8")
def _():
    return str(int(torch.arange(-5, 5, dtype=torch.uint8)[0]))


# ---- 06: float16's precision and range --------------------------------------------------------
@fact("06-float16-50-over-49", "significant-bits")
def _():
    return str(int(finfo("float16").nmant) + 1)


@fact("06-float16-50-over-49", "quotient-digits")
def _():
    return repr(50 / 49)[:9]  # the digits the story shows before its "..."


@fact("06-float16-50-over-49", "past-the-end")
def _():
    f = finfo("float16")
    top = float(f.max)
    return str(int(top + 2.0 ** (math.floor(math.log2(top)) - int(f.nmant))))  # the next step past the largest


# ---- 07: bfloat16 against float16 -------------------------------------------------------------
@fact("07-bfloat16-vs-float16", "bf16-exponent-bits")
def _():
    return str(int(finfo("bfloat16").nexp))


@fact("07-bfloat16-vs-float16", "bf16-significant-bits")
def _():
    return str(int(finfo("bfloat16").nmant) + 1)


@fact("07-bfloat16-vs-float16", "f16-bits")
def _():
    return f"{int(finfo('float16').nexp)} exponent bits and {int(finfo('float16').nmant) + 1} significant bits"


@fact("07-bfloat16-vs-float16", "precision-ratio")
def _():
    return float(finfo("bfloat16").eps) / float(finfo("float16").eps)


# ---- 08: a bfloat16 running sum, against float32 ----------------------------------------------
@functools.lru_cache(maxsize=None)
def running_sum_errors(dtype, lengths=(64, 1024, 16384), trials=16, seed=8):
    """max over trials of |sum in dtype - exact| / sum |a_k|, bfloat16 N(0,1) terms."""
    rng = np.random.default_rng(seed)
    out = []
    for k in lengths:
        worst = 0.0
        for _ in range(trials):
            a = rng.standard_normal(k).astype(ml_dtypes.bfloat16)
            exact = math.fsum(float(v) for v in a)
            if dtype == "float32":
                s = np.float32(0)
                for v in a.astype(np.float32):
                    s = np.float32(s + v)
            else:
                s = ml_dtypes.bfloat16(0)
                for v in a:
                    s = ml_dtypes.bfloat16(np.float32(s) + np.float32(v))
            worst = max(worst, abs(float(s) - exact) / math.fsum(abs(float(v)) for v in a))
        out.append(worst)
    return out


@fact("08-bfloat16-running-sum", "bf16-significant-bits")
def _():
    return str(int(finfo("bfloat16").nmant) + 1)


@fact("08-bfloat16-running-sum", "ku-at-256")
def _():
    return f"{256 * float(finfo('bfloat16').eps) / 2:g}"  # K u with u = 2^-8, half of epsilon


@fact("08-bfloat16-running-sum", "bf16-error-low")
def _():
    return min(running_sum_errors("bfloat16"))


@fact("08-bfloat16-running-sum", "bf16-error-high")
def _():
    return max(running_sum_errors("bfloat16"))


@fact("08-bfloat16-running-sum", "bf16-over-f32")
def _():
    b, f = running_sum_errors("bfloat16"), running_sum_errors("float32")
    return min(x / y for x, y in zip(b, f) if y > 0)  # a float32 sum of few bfloat16 terms can be exact


@fact("08-bfloat16-running-sum", "torch-bf16-sum")
def _():
    # 1000 ones alone cannot tell a float32 accumulator from a pairwise sum in bfloat16 (exact
    # too): 1 + 2^-8 + 2^-20 + 2^-20 can. Added in bfloat16 in any order and grouping, every
    # partial sum keeps 8 significant bits: each 2^-20 is lost, and 1 + 2^-8 is a tie that goes
    # to 1 (checked below over every order). In float32 the sum is 1 + 2^-8 + 2^-19, past the
    # tie, and rounds once to bfloat16's 1.0078125.
    ones = int(torch.ones(1000, dtype=torch.bfloat16).sum().item())
    terms = [1.0, 2.0 ** -8, 2.0 ** -20, 2.0 ** -20]
    small = torch.tensor(terms, dtype=torch.bfloat16).sum().item()

    def in_bfloat16(xs):  # every grouping of xs in order, each addition rounded to bfloat16
        if len(xs) == 1:
            yield xs[0]
            return
        for i in range(1, len(xs)):
            for a in in_bfloat16(xs[:i]):
                for b in in_bfloat16(xs[i:]):
                    yield float(ml_dtypes.bfloat16(a + b))
    sums = {s for order in itertools.permutations(terms) for s in in_bfloat16(list(order))}
    return f"{ones}; 1 + 2^-8 + 2 * 2^-20 gives {small!r} (in bfloat16, in any order: {sorted(sums)})"


@fact("08-bfloat16-running-sum", "numpy-bf16-sum")
def _():
    a = np.ones(1000, dtype=ml_dtypes.bfloat16)
    return f"{int(float(a.sum()))} ({int(a.sum(dtype=np.float32))} with dtype=np.float32)"


# ---- 09: TF32 ---------------------------------------------------------------------------------
def round_tf32(x):
    """float32 to TF32 (10 fraction bits), to nearest with ties to even on the float32 bits.

    NVIDIA documents the inputs only as rounded, and PTX's cvt.rna.tf32.f32 breaks ties away from
    zero. The two differ on ties alone (one float32 in 8192): on tf32-over-f32's operands, ties
    away gives a ratio of 853.706 against 853.711."""
    b = x.astype(np.float32).view(np.uint32).astype(np.uint64)
    b = (b + 0xFFF + ((b >> 13) & 1)) & ~np.uint64(0x1FFF)
    return b.astype(np.uint32).view(np.float32)


@fact("09-tf32-matmul", "bits",
      cited="NVIDIA A100 Tensor Core GPU Architecture whitepaper: TF32 has float32's 8 exponent bits and 10 "
            "fraction bits")
def _():
    tf32_fraction_bits = 10  # (no library here holds a TF32 type to ask)
    return f"{tf32_fraction_bits + 1} significant bits instead of {int(finfo('float32').nmant) + 1}"


@fact("09-tf32-matmul", "tf32-over-f32")
def _():
    rng = np.random.default_rng(9)
    a = rng.standard_normal((128, 1024)).astype(np.float32)
    b = rng.standard_normal((1024, 128)).astype(np.float32)
    ref = a.astype(np.float64) @ b.astype(np.float64)
    f32 = (a @ b).astype(np.float64)
    tf32 = (round_tf32(a).astype(np.float64) @ round_tf32(b).astype(np.float64)).astype(np.float32)
    rel = lambda c: np.linalg.norm(c - ref) / np.linalg.norm(ref)  # noqa: E731
    return rel(tf32.astype(np.float64)) / rel(f32)


# ---- 10: a float32 matmul against float64 -----------------------------------------------------
@functools.lru_cache(maxsize=None)
def matmul_1000():
    rng = np.random.default_rng(10)
    a = rng.standard_normal((1000, 1000)).astype(np.float32)
    b = rng.standard_normal((1000, 1000)).astype(np.float32)
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    err = np.abs((a @ b).astype(np.float64) - a64 @ b64)
    return err, np.abs(a64) @ np.abs(b64)


@fact("10-matmul-error-growth", "mean-error")
def _():
    return float(matmul_1000()[0].mean())


@fact("10-matmul-error-growth", "max-error")
def _():
    return float(matmul_1000()[0].max())


@fact("10-matmul-error-growth", "worst-ratio-to-bound")
def _():
    err, absprod = matmul_1000()
    u = 2.0 ** -24
    gamma = 1000 * u / (1 - 1000 * u)
    return float((err / (gamma * absprod)).max())


@fact("10-matmul-error-growth", "ku-at-4096")
def _():
    return f"{4096 * float(finfo('float16').eps) / 2:g}"


@functools.lru_cache(maxsize=None)
def float16_sum_errors(seed, lengths=(256, 4096), trials=32):
    """The scenario's dot experiment redone in NumPy: float16 N(0,1) vectors, their exact products
    summed in order with every addition rounded to float16; per length, the largest over the trials
    of |sum - exact| / sum |a_k b_k|."""
    rng = np.random.default_rng(seed)
    out = []
    for k in lengths:
        a = rng.standard_normal((trials, k)).astype(np.float16).astype(np.float64)
        b = rng.standard_normal((trials, k)).astype(np.float16).astype(np.float64)
        p = a * b  # exact: two 11-bit significands
        s = sequential_sums(p, lambda x: x.astype(np.float16).astype(np.float64))
        out.append(float(np.max(np.abs(s - exact_sums(p)) / np.abs(p).sum(axis=1))))
    return out


SEEDS_10 = range(1, 17)


@fact("10-matmul-error-growth", "f16-ratio-low")
def _():
    return min(e[1] / e[0] for e in map(float16_sum_errors, SEEDS_10))


@fact("10-matmul-error-growth", "f16-ratio-high")
def _():
    return max(e[1] / e[0] for e in map(float16_sum_errors, SEEDS_10))


@fact("10-matmul-error-growth", "f16-level-low")
def _():
    return min(float16_sum_errors(s)[1] for s in SEEDS_10) / 2.0 ** -11


@fact("10-matmul-error-growth", "f16-level-high")
def _():
    return max(float16_sum_errors(s)[1] for s in SEEDS_10) / 2.0 ** -11


# ---- 11: a deep float32 MLP -------------------------------------------------------------------
@functools.lru_cache(maxsize=None)
def mlp_activation_rms():
    """The RMS of each layer's outputs in a 24-layer ReLU MLP of PyTorch's own nn.Linear(256, 256)
    (its default initialisation), in float64, on a batch of 32 N(0,1) inputs: the mean over 8
    seeds, so that the fact is the network's, not one draw's."""
    per_seed = []
    for seed in range(8):
        torch.manual_seed(seed)
        layers = [torch.nn.Linear(256, 256).double() for _ in range(24)]
        h = torch.randn(32, 256, dtype=torch.float64)
        rms = []
        with torch.no_grad():
            for layer in layers:
                h = torch.relu(layer(h))
                rms.append(float(h.pow(2).mean().sqrt()))
        per_seed.append(rms)
    return [sum(r[i] for r in per_seed) / len(per_seed) for i in range(24)]


@fact("11-deep-mlp-float32", "rms-after-first")
def _():
    return mlp_activation_rms()[0]


@fact("11-deep-mlp-float32", "rms-level")
def _():
    return mlp_activation_rms()[23]


@fact("11-deep-mlp-float32", "rms-at-fifth")
def _():
    return mlp_activation_rms()[4]


@functools.lru_cache(maxsize=None)
def mlp_error_in_u():
    """The normwise relative error of the same networks (8 seeds) run in float32 against float64,
    after the last of their 24 layers, in units of float32's u = 2^-24."""
    out = []
    for seed in range(8):
        torch.manual_seed(seed)
        layers = [torch.nn.Linear(256, 256).double() for _ in range(24)]
        h64 = torch.randn(32, 256, dtype=torch.float64)
        h32 = h64.float()
        with torch.no_grad():
            for layer in layers:
                h64 = torch.relu(layer(h64))
                h32 = torch.relu(torch.nn.functional.linear(h32, layer.weight.float(), layer.bias.float()))
        out.append(float((h32.double() - h64).norm() / h64.norm()) / 2.0 ** -24)
    return out


@fact("11-deep-mlp-float32", "error-after-24-low")
def _():
    return min(mlp_error_in_u())


@fact("11-deep-mlp-float32", "error-after-24-high")
def _():
    return max(mlp_error_in_u())


# ---- 12: the E4M3 family ----------------------------------------------------------------------
@fact("12-which-e4m3", "fnuz-no-negative-zero")
def _():
    return hex(int(np.array(-0.0, dtype=np.float32).astype(ml_dtypes.float8_e4m3fnuz).view(np.uint8)))


@fact("12-which-e4m3", "fnuz-one-nan")
def _():
    codes = np.arange(256, dtype=np.uint8).view(ml_dtypes.float8_e4m3fnuz).astype(np.float32)
    return str(int(np.isnan(codes).sum()))


@fact("12-which-e4m3", "ml-dtypes-480")
def _():
    return str(float(np.array(480.0, dtype=np.float32).astype(ml_dtypes.float8_e4m3fn)))


@fact("12-which-e4m3", "torch-saturates")
def _():
    # Both a finite overflow and inf: the phrase claims both land on the largest finite value.
    got = {float(v) for v in torch.tensor([480.0, math.inf]).to(torch.float8_e4m3fn).float()}
    return f"{got.pop():g}" if len(got) == 1 else f"480 and inf differ: {sorted(got)}"


# ---- 13: fp8 and fp4 ranges -------------------------------------------------------------------
@fact("13-fp8-per-tensor-vs-mx", "e4m3fn-span")
def _():
    f = finfo("float8_e4m3fn")
    return f"2^{int(math.log2(float(f.smallest_subnormal)))} to {float(f.max):g}"


@fact("13-fp8-per-tensor-vs-mx", "e2m1-span")
def _():
    f = finfo("float4_e2m1fn")
    return f"{float(f.smallest_subnormal):g} to {float(f.max):g}"


@fact("13-fp8-per-tensor-vs-mx", "mx-block",
      cited="OCP Microscaling Formats (MX) Specification v1.0, section 5.2: k = 32 elements share one scale")
def _():
    return "32"  # (no library here defines an MX block)


@fact("13-fp8-per-tensor-vs-mx", "e4m3fn-max")
def _():
    return f"{float(finfo('float8_e4m3fn').max):g}"


@fact("13-fp8-per-tensor-vs-mx", "fp8-per-tensor-kept")
def _():
    # The scenario's data: 64 x 1024 N(0,1), 1% of the columns (10) times 100; one scale, amax / 448.
    rng = np.random.default_rng(13)
    x = rng.standard_normal((64, 1024))
    x[:, rng.choice(1024, size=10, replace=False)] *= 100
    s = np.abs(x).max() / float(finfo("float8_e4m3fn").max)
    q = (x / s).astype(ml_dtypes.float8_e4m3fn).astype(np.float64)
    return float(np.count_nonzero(q) / x.size)


# ---- 14: int8 ---------------------------------------------------------------------------------
@fact("14-int8-per-tensor-vs-per-channel", "int8-max")
@fact("14-int8-per-tensor-vs-per-channel", "int8-step")
def _():
    return str(int(np.iinfo(np.int8).max))


# ---- 15: where a bfloat16 matmul's error comes from -------------------------------------------
@functools.lru_cache(maxsize=None)
def bf16_components():
    """The scenario's layer, 16 x 16 outputs of length 1024: bfloat16 in and out, float32 sequential
    accumulation. Normwise parts: input rounding, arithmetic, output rounding."""
    rng = np.random.default_rng(15)
    x = rng.standard_normal((16, 1024))
    w = rng.standard_normal((16, 1024))
    ref = x @ w.T
    qx = x.astype(ml_dtypes.bfloat16).astype(np.float32)
    qw = w.astype(ml_dtypes.bfloat16).astype(np.float32)
    rq = qx.astype(np.float64) @ qw.astype(np.float64).T  # exact: 8-bit products, 1024 terms
    acc = np.zeros((16, 16), dtype=np.float32)
    for k in range(1024):  # one float32 addition at a time; bfloat16 products are exact in float32
        acc = acc + np.outer(qx[:, k], qw[:, k])
    acc = acc.astype(np.float64)
    out = acc.astype(ml_dtypes.bfloat16).astype(np.float64)
    n = np.linalg.norm(ref)
    return np.linalg.norm(rq - ref) / n, np.linalg.norm(acc - rq) / n, np.linalg.norm(out - acc) / n


@fact("15-where-did-the-error-come-from", "input-over-arithmetic")
def _():
    i, a, _ = bf16_components()
    return i / a


@fact("15-where-did-the-error-come-from", "output-over-arithmetic")
def _():
    _, a, o = bf16_components()
    return o / a


@fact("15-where-did-the-error-come-from", "input-part")
def _():
    return bf16_components()[0] / 2.0 ** -8  # in units of bfloat16's unit roundoff


@fact("15-where-did-the-error-come-from", "output-part")
def _():
    return bf16_components()[2] / 2.0 ** -8


# ---- 16: float16's smallest subnormal ---------------------------------------------------------
@fact("16-loss-scaling", "smallest-subnormal")
def _():
    s = float(finfo("float16").smallest_subnormal)
    return f"2^{int(math.log2(s))}, about {s:.0e}".replace("e-0", "e-")  # 5.96e-8: about 6e-8, not equal to it


@functools.lru_cache(maxsize=None)
def loss_scaling_rerun(seed):
    """The scenario's round trips redone in NumPy: 64 x 256 gradients N(0, (1e-7)^2) times 1024 and
    times 65536, cast to float16 (nearest-even) and back; per scale, (values rounded to zero, mean
    |q - x| / |x|)."""
    g = np.random.default_rng(seed).standard_normal(64 * 256) * 1e-7
    out = {}
    for scale in (1024, 65536):
        x = g * scale
        q = x.astype(np.float16).astype(np.float64)
        out[scale] = (int(np.count_nonzero(q == 0)), float(np.mean(np.abs(q - x) / np.abs(x))))
    return out


SEEDS_16 = range(1, 17)


@fact("16-loss-scaling", "x1024-flushed-low")
def _():
    return str(min(loss_scaling_rerun(s)[1024][0] for s in SEEDS_16))


@fact("16-loss-scaling", "x1024-flushed-high")
def _():
    return str(max(loss_scaling_rerun(s)[1024][0] for s in SEEDS_16))


@fact("16-loss-scaling", "x65536-flushed")
def _():
    return str(max(loss_scaling_rerun(s)[65536][0] for s in SEEDS_16))


@fact("16-loss-scaling", "x65536-error")
def _():
    return float(np.mean([loss_scaling_rerun(s)[65536][1] for s in SEEDS_16]))


@fact("16-loss-scaling", "x1024-error")
def _():
    return float(np.mean([loss_scaling_rerun(s)[1024][1] for s in SEEDS_16]))


# ---- 17: what CPU autocast does beyond the matrix products -------------------------------------
@fact("17-autocast", "cpu-prelu")
def _():
    x = torch.randn(4, 4)
    with torch.autocast("cpu"):
        return str(torch.nn.functional.prelu(x, torch.full((1,), 0.25)).dtype).removeprefix("torch.")


@fact("17-autocast", "cpu-mse-loss")
def _():
    x = torch.randn(4, 4, dtype=torch.bfloat16)
    with torch.autocast("cpu"):
        return str(torch.nn.functional.mse_loss(x, x.flip(0)).dtype).removeprefix("torch.")


@fact("17-autocast", "cpu-conv")
def _():
    x, w = torch.randn(1, 2, 5, 5), torch.randn(3, 2, 3, 3)
    with torch.autocast("cpu"):
        return str(torch.nn.functional.conv2d(x, w).dtype).removeprefix("torch.")


@fact("17-autocast", "float64-stays")
def _():
    # The products autocast lists, on float64 operands: each keeps float64.
    a = torch.randn(2, 2, 5, 5, dtype=torch.float64)
    m, w = torch.randn(4, 4, dtype=torch.float64), torch.randn(3, 2, 3, 3, dtype=torch.float64)
    with torch.autocast("cpu"):
        got = {str(t.dtype).removeprefix("torch.")
               for t in (m @ m, torch.nn.functional.linear(m, m), torch.nn.functional.conv2d(a, w))}
    return ", ".join(sorted(got))


# ---- 18: speed on this machine ----------------------------------------------------------------
def torch_seconds(dtype, n=1024, repeats=20):
    torch.set_num_threads(max(1, torch.get_num_threads()))
    a = torch.randn(n, n).to(dtype)
    b = torch.randn(n, n).to(dtype)
    for _ in range(3):
        a @ b
    best = math.inf
    for _ in range(repeats):
        t0 = time.perf_counter()
        a @ b
        best = min(best, time.perf_counter() - t0)
    return best


@fact("18-measured-speed", "recording-machine", measured=True)
def _():
    bf16 = "avx512_bf16" in cpu_flags()
    # (The instructions PyTorch's kernels use, which may be fewer than the CPU has: a build or
    # ATEN_CPU_CAPABILITY can hold them to AVX2.)
    return (f"{os.cpu_count()} cores {'with' if bf16 else 'without'} AVX-512 BF16, PyTorch "
            f"{'.'.join(torch.__version__.split('.')[:2])} using {torch.backends.cpu.get_cpu_capability()}")


@fact("18-measured-speed", "torch-cpu-bf16-speedup", measured=True)
def _():
    return torch_seconds(torch.float32) / torch_seconds(torch.bfloat16)


# ---- 19: PyTorch's float8 cast ----------------------------------------------------------------
@fact("19-framework-cast-vs-correct-rounding", "torch-result")
def _():
    x = torch.tensor(1 + 2.0 ** -4 + 2.0 ** -40, dtype=torch.float64)
    return repr(x.to(torch.float8_e4m3fn).to(torch.float64).item())


# ---- 20: methods that do not exist -----------------------------------------------------------
@fact("20-methods-that-do-not-exist", "set-another-dtype")
def _():
    x = torch.ones(2, 3)
    try:
        x.set_(torch.ones(2, 3, dtype=torch.float16))
    except Exception as e:  # noqa: BLE001 -- the exception is the fact
        return f"{type(e).__name__}: {e}"
    return "no error"


@fact("20-methods-that-do-not-exist", "data-assignment")
def _():
    m = torch.nn.Linear(3, 2)
    w = m.weight
    w.data = w.data.half()  # what Module._apply does to each parameter in m.half()
    return str(m.weight.dtype).removeprefix("torch.") + (" (the same Parameter)" if m.weight is w else " (a new Parameter)")


@fact("20-methods-that-do-not-exist", "swap-tensors")
def _():
    # m.half() itself, with the flag set: Module._apply then swaps each parameter's contents for
    # the converted tensor's (torch.utils.swap_tensors), keeping the Parameter object.
    # (The calls are counted: without the flag m.half() keeps the Parameter object too, by .data.)
    m = torch.nn.Linear(3, 2)
    w = m.weight
    before, swap = torch.__future__.get_swap_module_params_on_conversion(), torch.utils.swap_tensors
    calls = []
    torch.utils.swap_tensors = lambda *a: (calls.append(1), swap(*a))[1]
    torch.__future__.set_swap_module_params_on_conversion(True)
    try:
        m.half()
    finally:
        torch.__future__.set_swap_module_params_on_conversion(before)
        torch.utils.swap_tensors = swap
    if not calls:
        return "m.half() did not call torch.utils.swap_tensors"
    return str(m.weight.dtype).removeprefix("torch.") + (" (the same object)" if m.weight is w else " (another object)")


# ---- 21: a tensor core's block adder ------------------------------------------------------------
@functools.lru_cache(maxsize=None)
def block_adder_errors(seed, lengths=(256, 65536), trials=16, block=16, extra=2):
    """The scenario's dot sweep redone in NumPy: bfloat16 N(0,1) vectors, their exact products
    summed four ways -- a float32 loop rounding to nearest and truncating, and Fasi et al.'s
    multi-term adder (each block of 16 products and the running sum aligned to the largest term,
    every bit more than 2 below float32's last place there dropped toward zero, the exact sum
    rounded once to float32, truncated or to nearest). Per length, the largest over the trials of
    |sum - exact| / sum |a_k b_k| for each, in that order."""
    rng = np.random.default_rng(seed)
    out = {}
    for k in lengths:
        bf = lambda: rng.standard_normal((trials, k)).astype(ml_dtypes.bfloat16).astype(np.float64)  # noqa: E731
        prod = bf() * bf()  # exact: two 8-bit significands
        exact = exact_sums(prod)
        scale = np.abs(prod).sum(axis=1)
        errors = [sequential_sums(prod, functools.partial(round_bits, p=24, truncate=truncate))
                  for truncate in (False, True)]
        for truncate in (True, False):
            s = np.zeros(trials)
            for j in range(0, k, block):
                terms = np.concatenate([s[:, None], prod[:, j:j + block]], axis=1)
                top = np.frexp(np.abs(terms).max(axis=1))[1] - 1  # the largest term in [2^top, 2^(top+1))
                quantum = np.ldexp(1.0, top - 23 - extra)[:, None]
                kept = np.trunc(terms / quantum) * quantum  # exact: powers of two, and dropping bits
                s = round_bits(exact_sums(kept), 24, truncate)
            errors.append(s)
        out[k] = [float(np.max(np.abs(e - exact) / scale)) for e in errors]
    return out


SEEDS_21 = range(1, 5)


def block_adder_ratios(k, num, den):
    """The least and the largest, over the seeds, of model num's error over model den's at length k
    (models: 0 loop to nearest, 1 loop truncating, 2 block truncating, 3 block to nearest)."""
    r = [block_adder_errors(s)[k][num] / block_adder_errors(s)[k][den] for s in SEEDS_21]
    return min(r), max(r)


@fact("21-tensor-core-block-adder", "truncating-loop-over-rounding-loop")
def _():
    return block_adder_ratios(65536, 1, 0)[0]


@fact("21-tensor-core-block-adder", "block-over-truncating-loop")
def _():
    return block_adder_ratios(65536, 2, 1)[1]


@fact("21-tensor-core-block-adder", "rounding-over-truncating-block")
def _():
    return block_adder_ratios(65536, 3, 2)[1]


@fact("21-tensor-core-block-adder", "rounding-block-over-rounding-loop")
def _():
    return block_adder_ratios(65536, 3, 0)[1]


@fact("21-tensor-core-block-adder", "rounding-block-over-rounding-loop-256")
def _():
    return block_adder_ratios(256, 3, 0)[1]


# ---- 22: sixteen bits -------------------------------------------------------------------------
@fact("22-sixteen-bits-four-ways", "bits-after-sign")
def _():
    f = finfo("float16")
    return str(int(f.nexp) + int(f.nmant))


@fact("22-sixteen-bits-four-ways", "f16-mantissa")
def _():
    return str(int(finfo("float16").nmant))


@fact("22-sixteen-bits-four-ways", "bf16-mantissa")
def _():
    return str(int(finfo("bfloat16").nmant))


@fact("22-sixteen-bits-four-ways", "bf16-u-over-f16-u")
def _():
    ratio = Fraction(float(finfo("bfloat16").eps)) / Fraction(float(finfo("float16").eps))
    return str(ratio)


@fact("22-sixteen-bits-four-ways", "no-e6m9-e7m8")
def _():
    # Every 16-bit float dtype PyTorch, NumPy and ml_dtypes define, by its fraction bits: none
    # has e6m9's 9 or e7m8's 8. (The answer lists what was found, so an empty search cannot pass.)
    found = set()
    for t in vars(torch).values():
        if isinstance(t, torch.dtype) and t.is_floating_point and t.itemsize == 2:
            found.add((str(t).removeprefix("torch."), round(-math.log2(torch.finfo(t).eps))))
    for t in list(vars(ml_dtypes).values()) + [np.float16]:
        if isinstance(t, type) and issubclass(t, np.generic) and np.dtype(t).itemsize == 2:
            try:
                found.add((np.dtype(t).name, int(ml_dtypes.finfo(t).nmant)))
            except (ValueError, TypeError):  # not a float type
                continue
    hits = sorted(n for n, m in found if m in (8, 9))
    return ", ".join(hits) if hits else "none: " + ", ".join(f"{n} {m}" for n, m in sorted(found))


@functools.lru_cache(maxsize=None)
def float16_family_errors(seed, k=4096, trials=64):
    """The scenario's dot sweep at one length, redone in NumPy: float32 N(0,1) vectors, their
    exact products summed in order with every addition rounded to p significant bits (float16 11,
    e6m9 10, e7m8 9, bfloat16 8; no sum nears any of their ranges); the mean over the trials of
    |sum - exact| for each."""
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((trials, k)).astype(np.float32).astype(np.float64)
    b = rng.standard_normal((trials, k)).astype(np.float32).astype(np.float64)
    prod = a * b  # exact: two 24-bit significands
    exact = exact_sums(prod)
    return [float(np.mean(np.abs(sequential_sums(prod, functools.partial(round_bits, p=p)) - exact)))
            for p in (11, 10, 9, 8)]


SEEDS_22 = range(1, 9)


@fact("22-sixteen-bits-four-ways", "each-step-grows")
def _():
    # The least ratio, over the seeds, of one accumulator's mean |e| to the one before it.
    return min(e[i + 1] / e[i] for e in map(float16_family_errors, SEEDS_22) for i in range(3))


@fact("22-sixteen-bits-four-ways", "each-step-least")
def _():
    return FACTS[("22-sixteen-bits-four-ways", "each-step-grows")]()


@fact("22-sixteen-bits-four-ways", "bf16-over-f16")
def _():
    return min(e[3] / e[0] for e in map(float16_family_errors, SEEDS_22))


# -----------------------------------------------------------------------------------------------
def scenario_facts():
    out = {}
    for path in sorted(SCENARIOS.glob("*.json")):
        s = json.loads(path.read_text())
        for f in s.get("facts", []):
            out[(path.stem, f["id"])] = f
    return out


def within(f, value):
    if "equals" in f:
        if isinstance(value, str):
            return value == f["equals"]
        return float(f["equals"]) == value
    v = float(value)
    return ("min" not in f or v >= f["min"]) and ("max" not in f or v <= f["max"])


def cpu_flags():
    try:
        for line in pathlib.Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("flags"):
                return sorted(x for x in line.split(":")[1].split() if x.startswith(("avx512", "amx", "avx2", "fma")))
    except OSError:
        pass
    return []



# ---- the PyTorch release the stories of 04, 17, 19 and 23 name --------------------------------
def torch_release():
    return ".".join(torch.__version__.split(".")[:2])


for _scenario in ("04-int-float-bool-promotion", "17-autocast", "19-framework-cast-vs-correct-rounding",
                  "23-int-to-float-loses-digits"):
    fact(_scenario, "torch-release")(torch_release)


def main():
    args = sys.argv[1:]
    if len(args) > 1 or (args and args[0] not in ("--check", "--add")):
        print("usage: gen_facts.py [--check | --add]", file=sys.stderr)
        return 2
    check, add = args == ["--check"], args == ["--add"]
    stated = scenario_facts()
    if add:
        return add_missing(stated)
    problems = [f"{s}/{i}: the scenario states it but this script does not compute it" for s, i in stated if (s, i) not in FACTS]
    problems += [f"{s}/{i}: computed here but no scenario states it" for s, i in FACTS if (s, i) not in stated]
    recorded = json.loads(OUT.read_text()) if check and OUT.exists() else None
    values = {}
    for key, fn in sorted(FACTS.items()):
        if key not in stated:
            continue
        if check and key in MEASURED:  # tests never assert timings: the recorded value stands
            print(f"{key[0]}/{key[1]}: measured on the recording machine, not rerun", file=sys.stderr)
            continue
        v = fn()
        values.setdefault(key[0], {})[key[1]] = v
        if not within(stated[key], v):
            problems.append(f"{key[0]}/{key[1]}: the scenario says '{stated[key]['says']}', the libraries give {v!r}")
    if check and recorded is not None:
        names = {(s, i) for s, ids in recorded["facts"].items() for i in ids}
        if names != set(stated):
            problems.append(f"facts.json names other facts than the scenarios: {sorted(names ^ set(stated))}")
    for p in problems:
        print(p, file=sys.stderr)
    if not check:
        out = {
            "versions": {"python": platform.python_version(), "numpy": np.__version__,
                         "ml_dtypes": ml_dtypes.__version__, "torch": torch.__version__},
            "machine": {"cpu_flags": cpu_flags(), "torch_threads": torch.get_num_threads(),
                        "torch_cpu_capability": torch.backends.cpu.get_cpu_capability(),
                        "measured": sorted(f"{s}/{i}" for s, i in MEASURED)},
            "cited": {f"{s}/{i}": source for (s, i), source in sorted(CITED.items())},
            "facts": values,
        }
        OUT.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")
        print(f"wrote {OUT} ({sum(len(v) for v in values.values())} facts, {len(problems)} problems)")
    else:
        print(f"checked {sum(len(v) for v in values.values())} facts, {len(problems)} problems")
    return 1 if problems else 0


def add_missing(stated):
    """Records the facts the scenarios state and facts.json lacks, keeping every recorded value --
    the timed ones describe the machine that recorded them -- with the same library versions
    (refused otherwise: a file records one set of versions)."""
    recorded = json.loads(OUT.read_text())
    here = {"python": platform.python_version(), "numpy": np.__version__, "ml_dtypes": ml_dtypes.__version__,
            "torch": torch.__version__}
    if here != recorded["versions"]:
        print(f"refused: facts.json was recorded with {recorded['versions']}, this is {here}", file=sys.stderr)
        return 1
    problems, added = [], 0
    for key in sorted(stated):
        if key[1] in recorded["facts"].get(key[0], {}):
            continue
        if key not in FACTS:
            problems.append(f"{key[0]}/{key[1]}: the scenario states it but this script does not compute it")
            continue
        if key in MEASURED:
            problems.append(f"{key[0]}/{key[1]}: a timed fact: record the whole file on one machine")
            continue
        v = FACTS[key]()
        if not within(stated[key], v):
            problems.append(f"{key[0]}/{key[1]}: the scenario says '{stated[key]['says']}', the libraries give {v!r}")
            continue
        recorded["facts"].setdefault(key[0], {})[key[1]] = v
        added += 1
    recorded["cited"] = {f"{s}/{i}": source for (s, i), source in sorted(CITED.items())}
    for p in problems:
        print(p, file=sys.stderr)
    OUT.write_text(json.dumps(recorded, indent=1, sort_keys=True) + "\n")
    print(f"added {added} facts to {OUT}, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
