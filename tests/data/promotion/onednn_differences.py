#!/usr/bin/env python3
"""How many cells of each recorded PyTorch table the oneDNN path changes: each table recorded
without oneDNN (`gen_torch.py --no-mkldnn`) against its twin recorded with it (`--onednn`),
compared cell by cell (the outcome's dtype, or its error class and text). The counts the docs
and the engine's comments state are this script's output, kept in onednn_differences.txt.

    python3 onednn_differences.py                               # prints the counts
    python3 onednn_differences.py --check onednn_differences.txt  # exits 1 where they differ

Standard library only: CTest runs the check, so a re-recorded table that changes a count fails
until the file (and the docs quoting it) are updated."""
import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PAIRS = [("torch_cpu.json", "torch_cpu_onednn.json"),
         ("torch_autocast_cpu.json", "torch_autocast_cpu_onednn.json"),
         ("torch1.13_cpu.json", "torch1.13_cpu_onednn.json")]


def cells(name):
    """Every cell of a golden file: (table, index...) -> its outcome as canonical JSON."""
    with open(os.path.join(HERE, name)) as f:
        d = json.load(f)
    out = {}

    def walk(key, v):
        if isinstance(v, list):
            for i, x in enumerate(v):
                walk(key + (i,), x)
        else:
            out[key] = json.dumps(d["outcomes"][v], sort_keys=True)

    for table, nested in d["tables"].items():
        walk((table,), nested)
    return d["version"], out


def report():
    lines = []
    for plain, onednn in PAIRS:
        version, a = cells(plain)
        _, b = cells(onednn)
        if a.keys() != b.keys():
            sys.exit(f"{plain} and {onednn} hold different cells")
        changed = sum(a[k] != b[k] for k in a)
        lines.append(f"{plain} against {onednn} (PyTorch {version}): {changed:,} of {len(a):,} cells differ")
    return "\n".join(lines) + "\n"


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--check", metavar="FILE", help="compare with recorded counts; exit 1 where they differ")
    args = p.parse_args()
    text = report()
    if not args.check:
        sys.stdout.write(text)
        return 0
    with open(args.check) as f:
        recorded = f.read()
    if recorded != text:
        sys.stderr.write(f"the recorded counts in {args.check} are stale; now:\n{text}")
        return 1
    print("the recorded counts hold")
    return 0


if __name__ == "__main__":
    sys.exit(main())
