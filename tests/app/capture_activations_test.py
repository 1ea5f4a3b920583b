#!/usr/bin/env python3
"""scripts/capture_activations.py on a tiny model, and `precision-lab scan --activations` on
what it captured, against the output errors PyTorch computes with its own casts.

A two-block MLP with a head (biases included, an outlier input feature) runs three batches;
the captured inputs must be exactly what each nn.Linear saw (the first --max-rows rows). The
scan's output error energy ||X q(W)^T - X W^T||^2 for bfloat16 and float16 weights, and with
the inputs in bfloat16 too, must match float64 products of PyTorch's .to(dtype) copies.

Run: python3 tests/app/capture_activations_test.py PRECISION_LAB (exit 77 without PyTorch).
"""
import json
import os
import subprocess
import sys
import tempfile

try:
    import torch
except ImportError as missing:
    print(f"SKIP: {missing}; install PyTorch (Debian: python3-torch) to test capture_activations.py",
          file=sys.stderr)
    sys.exit(77)

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
from capture_activations import capture, save_safetensors  # noqa: E402

MAX_ROWS = 24


class Block(torch.nn.Module):
    def __init__(self, width, hidden):
        super().__init__()
        self.mlp = torch.nn.ModuleDict({"up_proj": torch.nn.Linear(width, hidden),
                                        "down_proj": torch.nn.Linear(hidden, width)})

    def forward(self, x):
        return x + self.mlp["down_proj"](torch.nn.functional.gelu(self.mlp["up_proj"](x)))


class Tiny(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = torch.nn.ModuleList([Block(16, 48), Block(16, 48)])
        self.lm_head = torch.nn.Linear(16, 10, bias=False)

    def forward(self, x):
        for b in self.layers:
            x = b(x)
        return self.lm_head(x)


def scan(lab, model_file, acts_file, *extra):
    run = subprocess.run([lab, "scan", model_file, "--activations", acts_file, "--candidates", "bfloat16,float16",
                          "--json", *extra], capture_output=True, text=True)
    if run.returncode != 0:
        raise SystemExit(f"FAIL: precision-lab scan exited {run.returncode}: {run.stderr}")
    return {t["name"]: t for t in json.loads(run.stdout)["tensors"]}


def close(got, want, what):
    if abs(got - want) > 1e-9 * abs(want):
        raise SystemExit(f"FAIL: {what}: precision-lab {got!r}, PyTorch {want!r}")


def main():
    lab = sys.argv[1]
    torch.manual_seed(0)
    model = Tiny().eval()
    batches = [torch.randn(2, 5, 16) for _ in range(3)]
    for b in batches:
        b[..., 3] *= 30  # an outlier feature
    inputs = capture(model, batches, max_rows=MAX_ROWS)

    # What each layer saw: the model's input for the first up_proj, recomputed for the others.
    expect = sorted(n + ".input" for n, m in model.named_modules() if isinstance(m, torch.nn.Linear))
    if sorted(inputs) != expect:
        raise SystemExit(f"FAIL: captured {sorted(inputs)}, expected {expect}")
    # Recomputed batch by batch, as the model ran them: a product of all the rows at once may round
    # differently (another GEMM blocking), and the captured inputs are the model's own bits.
    seen = {}
    with torch.no_grad():
        for b in batches:
            xb = b.reshape(-1, 16)
            for i, block in enumerate(model.layers):
                seen.setdefault(f"layers.{i}.mlp.up_proj.input", []).append(xb)
                seen.setdefault(f"layers.{i}.mlp.down_proj.input", []).append(
                    torch.nn.functional.gelu(block.mlp["up_proj"](xb)))
                xb = block(xb)
            seen.setdefault("lm_head.input", []).append(xb)
    for name, parts in sorted(seen.items()):
        if not torch.equal(inputs[name], torch.cat(parts)[:MAX_ROWS]):
            raise SystemExit(f"FAIL: {name[:-len('.input')]}'s inputs are not what it saw")

    # The file gets the umask's permissions (mkstemp's temporary is 0600 until told otherwise).
    with tempfile.TemporaryDirectory() as d:
        before = os.umask(0o022)
        try:
            save_safetensors(inputs, os.path.join(d, "a.safetensors"))
        finally:
            os.umask(before)
        mode = os.stat(os.path.join(d, "a.safetensors")).st_mode & 0o777
        if mode != 0o644:
            raise SystemExit(f"FAIL: the activations file is {oct(mode)}, not 0o644 under umask 022")

    # A write that fails (here the rename, onto a folder) leaves nothing beside the file.
    with tempfile.TemporaryDirectory() as d:
        taken = os.path.join(d, "taken.safetensors")
        os.mkdir(taken)
        try:
            save_safetensors(inputs, taken)
            raise SystemExit("FAIL: a write over a folder succeeded")
        except OSError:
            pass
        if sorted(os.listdir(d)) != ["taken.safetensors"]:
            raise SystemExit(f"FAIL: a failed write left {sorted(os.listdir(d))}")

    with tempfile.TemporaryDirectory() as d:
        model_file, acts_file = os.path.join(d, "model.safetensors"), os.path.join(d, "activations.safetensors")
        save_safetensors(model.state_dict(), model_file)
        save_safetensors(inputs, acts_file)
        plain = scan(lab, model_file, acts_file)
        both = scan(lab, model_file, acts_file, "--activation-format", "bfloat16")
    if sorted(plain) != sorted(n[:-len(".input")] + ".weight" for n in expect):
        raise SystemExit(f"FAIL: the scan scored {sorted(plain)}")
    compared = 0
    for name, t in plain.items():
        w = model.state_dict()[name].double()
        xs = inputs[name[:-len(".weight")] + ".input"].double()
        close(t["output_energy"], float(((xs @ w.T) ** 2).sum()), name + " output energy")
        if t["input_rows"] != MAX_ROWS:
            raise SystemExit(f"FAIL: {name} used {t['input_rows']} rows")
        xq = inputs[name[:-len(".weight")] + ".input"].to(torch.bfloat16).double()
        for i, dtype in enumerate([torch.bfloat16, torch.float16]):
            wq = model.state_dict()[name].to(dtype).double()
            e = xs @ (wq - w).T
            close(t["candidates"][i]["output"]["error_energy"], float((e ** 2).sum()), f"{name} {dtype}")
            e2 = e + (xq - xs) @ wq.T
            close(both[name]["candidates"][i]["output"]["error_energy"], float((e2 ** 2).sum()),
                  f"{name} {dtype} with bfloat16 inputs")
            compared += 2
    print(f"capture_activations: {len(inputs)} layers' inputs as they were seen; {compared} output errors "
          f"match PyTorch {torch.__version__}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
