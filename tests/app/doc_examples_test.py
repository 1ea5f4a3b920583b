#!/usr/bin/env python3
"""The command-line examples the README and the docs show are the binary's own output.

Every `$ precision-lab ...` line of an indented block (with its `\\` continuations) is run, in a
scratch folder that sees the repository's tests/ and assets/ (so what the command writes lands
there), and every line shown under it, blank lines within the block included, but `...` and `#`
comments, must be a line of what it printed (stdout and stderr together), in the order shown.
Figures in a column headed `seconds` are timings: that column is not compared, down to the
next blank line.

Run: python3 doc_examples_test.py PRECISION_LAB ROOT [FILE.md...]
(the files relative to ROOT; default: README.md and docs/*.md)
"""
import glob
import os
import re
import shlex
import subprocess
import sys
import tempfile

PROMPT = re.compile(r"^    \$ precision-lab (.*)$")
COMMENT = re.compile(r"\s{2,}#.*$")  # a shell comment after the command, two spaces or more before it


def examples(path):
    """(line number, argument list, shown lines) for each example of the markdown file."""
    lines = open(path, encoding="utf-8").read().split("\n")
    i = 0
    while i < len(lines):
        m = PROMPT.match(lines[i])
        if not m:
            i += 1
            continue
        start, command = i + 1, m.group(1)
        while command.endswith("\\") and i + 1 < len(lines):
            i += 1
            command = command[:-1] + " " + lines[i].strip()
        command = COMMENT.sub("", command)
        shown = []  # "" marks a blank line within the block
        i += 1
        while i < len(lines) and not PROMPT.match(lines[i]):
            if not lines[i].strip():  # the block goes on past a blank line to its next indented one
                ahead = next((line for line in lines[i:] if line.strip()), "")
                if not ahead.startswith("    ") or PROMPT.match(ahead):
                    break
                shown.append("")
            elif not lines[i].startswith("    "):
                break
            else:
                text = lines[i][4:].rstrip()
                if text.strip() != "..." and not text.lstrip().startswith("#"):
                    shown.append(text)
            i += 1
        yield start, shlex.split(command), shown


def same(shown, printed, timed):
    if not timed:
        return shown == printed
    a, b = shown.rsplit(None, 1), printed.rsplit(None, 1)
    return len(a) == 2 and len(b) == 2 and a[0] == b[0] and re.fullmatch(r"[0-9.]+", b[1]) is not None


def missing_lines(shown, printed):
    """The first shown line not found, in order, among the printed lines; None when all are."""
    at, timed = 0, False
    for want in shown:
        if not want:
            timed = False
            continue
        timed = timed or want.split()[-1:] == ["seconds"]
        while at < len(printed) and not same(want, printed[at], timed and want.split()[-1:] != ["seconds"]):
            at += 1
        if at == len(printed):
            return want
        at += 1
    return None


def main():
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    binary, root = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    docs = sys.argv[3:] or ["README.md"] + sorted(
        os.path.relpath(p, root) for p in glob.glob(os.path.join(root, "docs", "*.md")))
    failed = ran = 0
    with tempfile.TemporaryDirectory(prefix="pl-doc-examples-") as scratch:
        for name in ("tests", "assets"):
            os.symlink(os.path.join(root, name), os.path.join(scratch, name))
        env = dict(os.environ, XDG_CONFIG_HOME=scratch)
        for doc in docs:
            where = os.path.relpath(os.path.join(root, doc), root)
            for line, argv, shown in examples(os.path.join(root, doc)):
                ran += 1
                run = subprocess.run([binary] + argv, cwd=scratch, env=env, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, text=True, timeout=300)
                printed = [p.rstrip() for p in run.stdout.split("\n")]
                gone = missing_lines(shown, printed)
                label = f"{where}:{line}: precision-lab {shlex.join(argv)}"
                if gone is None and run.returncode == 0:
                    print(f"ok    {label}")
                    continue
                failed += 1
                print(f"FAIL  {label}")
                if run.returncode != 0:
                    print(f"      exit status {run.returncode}")
                if gone is not None:
                    print(f"      the doc shows, and the output lacks (in order):\n        {gone}")
                print("      the output:\n" + "\n".join("        " + p for p in printed))
    print(f"{ran - failed} of {ran} examples print what the docs show")
    return 1 if failed or ran == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
