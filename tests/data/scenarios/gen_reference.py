#!/usr/bin/env python3
"""Independent answers for the scenario library's exact checks.

Reads every assets/scenarios/*.json and computes, for each check that carries no hand
derivation, the answer with the real frameworks -- PyTorch (CPU), NumPy 2 -- and, for casts, an
exact rational rounder over ml_dtypes' format limits (no code shared with the app). Writes
reference.json beside this script: {"versions": {library: version}, "answers": {"scenario-name":
{"check-id": "answer"}}}; the C++ test ScenarioLibrary.EveryExpectedValueIsBacked requires each
check's "expect" to agree with it.

Every cast NumPy or ml_dtypes can make (a dtype of theirs, a value float64 holds, the format's own
overflow) is made by them too, and must agree with the rounder, except where ml_dtypes before
0.7.0 rounds through float32 (scenario 19's 1 + 2^-4 + 2^-40: 1.0 there, 1.125 once).
Recorded with the versions reference.json names (torch 2.15.0, numpy 2.4.6, ml_dtypes 0.6.0;
ml_dtypes 0.7.0 gives the same answers).
Run:   python3 tests/data/scenarios/gen_reference.py           (writes reference.json; prints any
       scenario that disagrees)
Check: python3 tests/data/scenarios/gen_reference.py --check   (recomputes and compares with
       reference.json and the scenarios, writing nothing: exit 1 on any disagreement, 77 where the
       libraries are missing or are not the releases reference.json was recorded with)
"""
import json
import math
import pathlib
import platform
import sys
from fractions import Fraction

try:
    import ml_dtypes
    import numpy as np
    import torch
    import torch.nn.functional as F
except ImportError as missing:  # the CTest entry skips visibly (77) where the libraries are not installed
    print(f"SKIP: {missing}; install numpy, ml_dtypes and torch to recompute the scenario answers", file=sys.stderr)
    sys.exit(77)

ROOT = pathlib.Path(__file__).resolve().parents[3]
SCENARIOS = ROOT / "assets" / "scenarios"
OUT = pathlib.Path(__file__).resolve().parent / "reference.json"


# ---- casts: one correct rounding of the exact value (round to nearest, ties to even) --------
def float_format(name):
    """(significand bits after the point, smallest normal exponent, largest finite, what overflow gives)"""
    if name == "tf32":  # NVIDIA TF32: float32's exponent, 10 fraction bits
        return 10, -126, Fraction(2 - 2 ** -10) * 2 ** 127, "inf"
    t = {"float16": np.float16, "float32": np.float32, "float64": np.float64}.get(name) or getattr(ml_dtypes, name)
    fi = ml_dtypes.finfo(t)
    overflow = "inf" if name in ("float16", "float32", "float64", "bfloat16", "float8_e5m2", "float8_e4m3", "float8_e3m4") else (
        "saturate" if name.startswith(("float4", "float6")) else "nan")
    return int(fi.nmant), int(fi.minexp), Fraction(float(fi.max)), overflow


def exact_value(text):
    for op in "/*":
        if op in text:
            a, b = (exact_value(p) for p in text.split(op, 1))
            return a / b if op == "/" else a * b
    return Fraction(float.fromhex(text) if text.lower().startswith(("0x", "-0x")) else float(text))


def binade(ax):
    """e with 2^e <= ax < 2^(e+1), for a positive Fraction ax."""
    e = ax.numerator.bit_length() - ax.denominator.bit_length()
    return e - 1 if Fraction(2) ** e > ax else e


def round_once(x, name, overflow_policy):
    nmant, minexp, fmax, overflow = float_format(name)
    if overflow_policy == "saturate":
        overflow = "saturate"
    if x == 0:
        return 0.0
    sign, ax = (-1 if x < 0 else 1), abs(x)
    e = max(binade(ax), minexp)
    quantum = Fraction(2) ** (e - nmant)
    q = ax / quantum
    n = math.floor(q)
    rest = q - n
    if rest > Fraction(1, 2) or (rest == Fraction(1, 2) and n % 2 == 1):
        n += 1
    r = n * quantum
    if r > fmax:
        return sign * float(fmax) if overflow == "saturate" else (sign * math.inf if overflow == "inf" else math.nan)
    return sign * float(r)


LIBRARY_CASTS = []  # (the cast, the rounder's answer, the library's) for every cast a library can make


def library_cast(x, name, overflow_policy):
    """The same cast by NumPy or ml_dtypes (astype from float64), where one can make it: a value
    float64 holds exactly (else the library would round twice), a dtype it has, and the format's
    own overflow (no library saturates on request). None elsewhere."""
    t = {"float16": np.float16, "float32": np.float32}.get(name) or getattr(ml_dtypes, name, None)
    if t is None or overflow_policy != "default" or Fraction(float(x)) != x:
        return None
    with np.errstate(over="ignore", invalid="ignore"):
        return float(np.array([float(x)], dtype=np.float64).astype(t).astype(np.float64)[0])


def through_float32(x, name):
    """x rounded to float32, then to `name`: what ml_dtypes before 0.7.0 does from float64 to every
    float of its own, bfloat16 included (0x1.1000000001p+0 to float8_e4m3fn: 1.0 in 0.6.0, 1.125
    in 0.7.0)."""
    with np.errstate(over="ignore"):
        f = float(np.float32(float(x)))
    if math.isinf(f):  # past float32's range: the second cast overflows as the format does
        return round_once(Fraction(math.copysign(float(np.finfo(np.float32).max), f)) * 2, name, "default")
    return round_once(Fraction(f), name, "default")


def cast(p):
    if p.get("rounding", "rne") != "rne":
        return None  # no framework rounds any other way: the scenario must carry a derivation
    x = exact_value(p["value"])
    if p.get("path") == "via-float32":  # what PyTorch's .to() does from float64, through float32
        # (An expression's exact value is rounded once to float32, as the probe does, not to
        # float64 first.)
        f32 = round_once(x, "float32", "default")
        t = torch.tensor(f32, dtype=torch.float32).to(getattr(torch, p["dtype"]))
        return repr(t.to(torch.float64).item())
    policy = p.get("overflow", "default")
    mine = round_once(x, p["dtype"], policy)
    if (theirs := library_cast(x, p["dtype"], policy)) is not None:
        LIBRARY_CASTS.append((f"{p['value']} to {p['dtype']}", p["dtype"], x, mine, theirs))
    return repr(mine)


# ---- integer conversions: NumPy's astype (a C cast on x86-64), or a clamp ---------------------
def int_cast(p):
    to, v = np.dtype(p["to"]), p["value"]
    is_int = v.lstrip("-").isdigit()
    if p.get("mode") == "saturate":
        info = np.iinfo(to)
        x = int(v) if is_int else math.trunc(float(v))
        return str(min(max(x, info.min), info.max))
    src = np.array([int(v)], dtype=np.int64) if is_int else np.array([float(v)], dtype=np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        numpy_answer = str(src.astype(to)[0])
    # PyTorch's .to() from the same float64 or int64 tensor: the checks say both frameworks give
    # the answer, so both are run (a disagreement is an answer no check expects).
    t = torch.tensor([int(v)] if is_int else [float(v)], dtype=torch.int64 if is_int else torch.float64)
    torch_answer = str(t.to(getattr(torch, p["to"]))[0].item())
    return numpy_answer if numpy_answer == torch_answer else f"numpy {numpy_answer}, torch {torch_answer}"


# ---- running sums: PyTorch scalar arithmetic in the format ------------------------------------
def running_sum(p):
    if p.get("rounding", "rne") != "rne":
        return None  # no framework rounds any other way: the scenario must carry a derivation
    t = getattr(torch, p["dtype"])
    x = torch.tensor(float(exact_value(p["value"])), dtype=torch.float64).to(t)
    s = torch.zeros((), dtype=t)
    for _ in range(p["count"]):
        s = s + x
    return repr(s.to(torch.float64).item())


# ---- a modelled adder's sums, exactly (Fractions): the float32 loop and the multi-term adder ----
def to_float32(x, truncate):
    """x (a Fraction) to float32's 24 significant bits, to nearest even or toward zero (the sums
    here stay far inside float32's range)."""
    if not truncate:
        return Fraction(round_once(x, "float32", "default"))
    if x == 0:
        return x
    quantum = Fraction(2) ** (binade(abs(x)) - 23)
    return math.trunc(x / quantum) * quantum


def modelled_sum(p):
    """A `sum` check's terms added as its model says, after Fasi, Higham, Mikaitis and Pranesh
    (2021): f32:sequential rounds after every addition; f32:multiterm:B:E adds B terms and the
    running sum at once, each truncated toward zero to E bits below float32's last place at the
    largest term's exponent, and rounds the exact sum once. None for any other model."""
    terms = [Fraction(float.fromhex(t) if "0x" in t else float(t)) for t in p["terms"].split(",")]
    parts = p["accumulate"].split(":")
    truncate = parts[-1] == "rtz"
    parts = parts[:-1] if parts[-1] in ("rtz", "rne") else parts
    if parts[0] != "f32":
        return None
    s = Fraction(0)
    if parts[1:] == ["sequential"]:
        for t in terms:
            s = to_float32(s + t, truncate)
        return repr(float(s))
    if parts[1] != "multiterm" or len(parts) != 4:
        return None
    block, extra = int(parts[2]), int(parts[3])
    for i in range(0, len(terms), block):
        group = [s] + terms[i:i + block]
        quantum = Fraction(2) ** (binade(max(abs(t) for t in group)) - 23 - extra)
        s = to_float32(sum(math.trunc(t / quantum) * quantum for t in group), truncate)
    return repr(float(s))


# ---- promotion: call the framework and report the dtype or the exception ----------------------
DEFAULT_SCALAR = {"bool": True, "int": 2, "float": 2.5, "complex": 2.5 + 1j}


def category(dtype_name):
    if dtype_name == "bool":
        return "bool"
    if dtype_name.startswith(("int", "uint")):
        return "int"
    if dtype_name.startswith("complex"):
        return "complex"
    return "float"


def torch_operand(p, side, shape):
    name, kind = p[side], p.get(side + "_kind", "tensor")
    value = p.get(side + "_value")
    if kind == "scalar":
        cat = category(name)
        return {"bool": bool, "int": int, "float": float, "complex": complex}[cat](eval(value)) if value else DEFAULT_SCALAR[cat]
    dt = getattr(torch, name)
    return torch.ones((), dtype=dt) if kind == "zerodim" else torch.ones(shape, dtype=dt)


def torch_call(p):
    op = p["op"]
    shapes = {"matmul": ((2, 3), (3, 4)), "linear": ((2, 3), (4, 3)), "conv2d": ((1, 1, 3, 3), (1, 1, 2, 2))}
    sa, sb = shapes.get(op, ((2, 2), (2, 2)))
    a, b = torch_operand(p, "a", sa), torch_operand(p, "b", sb)
    bias = torch.ones(4 if op == "linear" else 1, dtype=getattr(torch, p["bias"])) if "bias" in p else None
    fn = {"add": torch.add, "sub": torch.sub, "mul": torch.mul, "div": torch.div, "matmul": torch.matmul,
          "linear": lambda x, w: F.linear(x, w, bias), "conv2d": lambda x, w: F.conv2d(x, w, bias)}[op]
    return fn(a, b)


def torch_promote(p):
    fw = p.get("framework", "torch")
    try:
        if fw == "torch":
            out = torch_call(p)
        elif fw == "torch-autocast-cpu":
            with torch.autocast("cpu", dtype=torch.bfloat16):
                out = torch_call(p)
        else:
            return None  # no such device here: the scenario must carry a derivation
        return str(out.dtype).removeprefix("torch.")
    except Exception as e:  # noqa: BLE001 -- the exception is the answer
        return f"{type(e).__name__}: {e}"


def numpy_promote(p):
    def operand(side):
        name, kind, value = p[side], p.get(side + "_kind", "tensor"), p.get(side + "_value")
        if kind == "scalar":
            cat = category(name)
            return {"bool": bool, "int": int, "float": float, "complex": complex}[cat](eval(value)) if value else DEFAULT_SCALAR[cat]
        dt = np.dtype(name)
        return np.ones((), dtype=dt) if kind == "zerodim" else np.ones((2, 2), dtype=dt)
    try:
        out = getattr(np, p["op"])(operand("a"), operand("b"))
        return str(np.asarray(out).dtype)
    except Exception as e:  # noqa: BLE001
        return f"{type(e).__name__}: {e}"


def promote(p):
    return numpy_promote(p) if p.get("framework") == "numpy" else torch_promote(p)


def api(p):
    """Runs the snippet in PyTorch on a float32 tensor x (2 x 3) and an nn.Linear(3, 2) m."""
    x = torch.ones(2, 3)  # noqa: F841 -- the snippet reads it
    m = torch.nn.Linear(3, 2)
    w = m.weight
    snippet = p["snippet"]
    assignment = "=" in snippet.split("(")[0]
    try:
        result = None
        if assignment:
            exec(snippet)  # noqa: S102 -- our own scenario files
        else:
            result = eval(snippet)  # noqa: S307
    except Exception as e:  # noqa: BLE001
        return f"{type(e).__name__}: {e}"
    finally:
        torch.set_default_dtype(torch.float32)
    if snippet.startswith("m."):
        same = " (same Parameter objects)" if result is m and m.weight is w else ""
        return "weight " + str(m.weight.dtype).replace("torch.", "") + same
    if isinstance(result, torch.Tensor):
        return str(result.dtype).replace("torch.", "") + (" (x itself)" if result is x else "")
    if isinstance(result, torch.dtype):
        return str(result).replace("torch.", "")
    return "ok"


PROBES = {"promote": promote, "cast": cast, "int_cast": int_cast, "running_sum": running_sum, "api": api}
# Answers their checks' derivations give by hand, recomputed here as well: the hand working
# explains the answer, this computes it (the app still marks them derived: a model's sums).
DERIVED_PROBES = {"sum": modelled_sum}


def main():
    check = "--check" in sys.argv
    if check:
        recorded = json.loads(OUT.read_text())
        for library, module in (("torch", torch), ("numpy", np)):
            if recorded["versions"][library] != module.__version__:
                print(f"SKIP: reference.json was recorded with {library} {recorded['versions'][library]}, "
                      f"this is {module.__version__}", file=sys.stderr)
                return 77
    reference, disagreements, derived_checked = {}, 0, 0
    for path in sorted(SCENARIOS.glob("*.json")):
        s = json.loads(path.read_text())
        answers = {}
        for c in s["checks"]:
            if "derivation" in c:
                kind = next((k for k in DERIVED_PROBES if k in c), None)
                if kind is None:
                    continue
                got = DERIVED_PROBES[kind](c[kind])
                if got is None:
                    print(f"{path.stem}/{c['id']}: the adder model cannot take {c[kind]['accumulate']}",
                          file=sys.stderr)
                    disagreements += 1
                elif float(got) != float(c["expect"]):
                    print(f"{path.stem}/{c['id']}: the derivation gives {c['expect']!r}, the model {got!r}",
                          file=sys.stderr)
                    disagreements += 1
                derived_checked += got is not None
                continue
            kind = next(k for k in PROBES if k in c)
            got = PROBES[kind](c[kind])
            if got is None:
                print(f"{path.stem}/{c['id']}: cannot be computed here; give it a derivation", file=sys.stderr)
                disagreements += 1
                continue
            answers[c["id"]] = got
            same = got == c["expect"]
            try:
                a, b = float(got), float(c["expect"])
                same = same or a == b or (math.isnan(a) and math.isnan(b))
            except ValueError:
                pass
            if not same:
                print(f"{path.stem}/{c['id']}: scenario expects {c['expect']!r}, reference gives {got!r}", file=sys.stderr)
                disagreements += 1
        reference[path.stem] = answers
    # The rounder's answers against the libraries' own casts: its overflow list (float_format) and
    # its arithmetic are hand-written, the libraries' are what users run.
    same = lambda a, b: repr(a) == repr(b) or (math.isnan(a) and math.isnan(b))  # noqa: E731
    old_ml_dtypes = tuple(int(v) for v in ml_dtypes.__version__.split(".")[:2]) < (0, 7)
    differ = [c for c in LIBRARY_CASTS if not same(c[3], c[4])]
    # The one difference allowed: an ml_dtypes type, before 0.7.0, giving the rounding through
    # float32 (NumPy's own float16 and float32 casts round once in every release).
    def known(c):
        return old_ml_dtypes and hasattr(ml_dtypes, c[1]) and same(c[4], through_float32(c[2], c[1]))
    named = [c for c in differ if known(c)]
    for what, _, _, mine, theirs in named:
        print(f"{what}: ml_dtypes {ml_dtypes.__version__} rounds through float32 ({theirs!r}); once: {mine!r}")
    for what, _, _, mine, theirs in differ:
        if all(what != n[0] for n in named):
            print(f"{what}: the rounder gives {mine!r}, NumPy/ml_dtypes {theirs!r}", file=sys.stderr)
            disagreements += 1
    print(f"{len(LIBRARY_CASTS) - len(differ)} of {len(LIBRARY_CASTS)} casts agree with NumPy/ml_dtypes' astype, "
          f"{len(named)} differ as ml_dtypes {ml_dtypes.__version__} is known to")
    versions = {"python": platform.python_version(), "numpy": np.__version__, "ml_dtypes": ml_dtypes.__version__,
                "torch": torch.__version__}
    if check:
        if reference != recorded["answers"]:
            changed = sorted(f"{n}/{i}" for n in set(reference) | set(recorded["answers"])
                             for i in set(reference.get(n, {})) | set(recorded["answers"].get(n, {}))
                             if reference.get(n, {}).get(i) != recorded["answers"].get(n, {}).get(i))
            print(f"reference.json differs from the recomputed answers: {', '.join(changed)}", file=sys.stderr)
            disagreements += 1
        print(f"checked {sum(len(v) for v in reference.values())} answers, {disagreements} problems")
        return 1 if disagreements else 0
    OUT.write_text(json.dumps({"versions": versions, "answers": reference}, indent=1, sort_keys=True) + "\n")
    print(f"{derived_checked} derived sums recomputed by the adder model")
    print(f"wrote {OUT} ({sum(len(v) for v in reference.values())} answers, {disagreements} disagreements)")
    return 1 if disagreements else 0


if __name__ == "__main__":
    sys.exit(main())
