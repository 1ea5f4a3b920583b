"""Asking `precision-lab promote --json` about one cell, for the live-framework checkers
(check_numpy_values.py, check_jax_values.py): an array of one dtype and a Python scalar."""
import json
import subprocess


def engine_outcome(pl, engine, op, array, scalar_dtype, literal, scalar_first=False):
    """("ok", result dtype), ("err", "Type: message"), or ("refused", the CLI's error)."""
    args = [pl, "promote", "--framework", engine, "--op", op, "--json"]
    if scalar_first:
        args += ["--a-kind", "scalar", "--a-value", literal, scalar_dtype, array]
    else:
        args += ["--b-kind", "scalar", "--b-value", literal, array, scalar_dtype]
    p = subprocess.run(args, capture_output=True, text=True)
    if p.returncode != 0:
        return ("refused", p.stderr.strip())
    j = json.loads(p.stdout)
    if j.get("error"):
        return ("err", f"{j.get('error_type', '')}: {j['error']}")
    return ("ok", j["result"])
