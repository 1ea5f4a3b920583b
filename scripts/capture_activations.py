#!/usr/bin/env python3
"""Captures the inputs every nn.Linear of a PyTorch model sees, for `precision-lab scan
--activations`: with them the scan scores each weight by its layer's output error
||X q(W)^T - X W^T|| rather than by the weight's own error.

The file is safetensors: NAME.input, a (rows x in_features) matrix, for the layer whose weight
the model's state_dict calls NAME.weight -- the names `save_pretrained` and `save_file(model.
state_dict())` write, so the checkpoint and the activations pair up by name. Each layer keeps
its first --max-rows rows (every leading dimension of an input is a row: batch x sequence
positions are tokens). Inputs are stored as float32, which holds float16 and bfloat16 inputs
exactly (float64 ones stay float64).

As a library (PyTorch only):
    from capture_activations import capture, save_safetensors
    inputs = capture(model, batches, max_rows=2048)  # model(batch) for each batch, no gradients
    save_safetensors(inputs, "activations.safetensors")

From the command line, for a Hugging Face transformers model (needs transformers too):
    python3 scripts/capture_activations.py MODEL_DIR --text corpus.txt --out activations.safetensors
        [--max-rows 2048] [--seq-len 128] [--batches 8] [--prefix NAME.]
Nothing is downloaded: MODEL_DIR is a folder on disk, read with local_files_only.
"""
import argparse
import ctypes
import json
import os
import sys
import tempfile

try:
    import torch
except ModuleNotFoundError:  # an environment's failure, said in a line, not a traceback
    if __name__ == "__main__":
        sys.exit("capture_activations: PyTorch is not installed here (apt install python3-torch, "
                 "or pip install torch); it runs the model whose layers' inputs it records")
    raise

STORED = {torch.float32: "F32", torch.float64: "F64"}


def capture(model, batches, max_rows=2048, prefix=""):
    """Runs model(batch) for each batch (a tensor, a tuple of positional arguments or a dict of
    keyword arguments) with a forward pre-hook on every nn.Linear; returns {NAME.input: tensor}."""
    kept = {}
    hooks = []

    def hook_for(name):
        def hook(module, args):
            x = args[0].detach()
            rows = x.reshape(-1, x.shape[-1])
            have = kept.get(name)
            room = max_rows - (0 if have is None else have.shape[0])
            if room <= 0:
                return
            rows = rows[:room].to(torch.float64 if x.dtype == torch.float64 else torch.float32).cpu()
            kept[name] = rows if have is None else torch.cat([have, rows])
        return hook

    for name, module in model.named_modules():
        if isinstance(module, torch.nn.Linear):
            hooks.append(module.register_forward_pre_hook(hook_for(prefix + name + ".input")))
    try:
        with torch.no_grad():
            for batch in batches:
                if isinstance(batch, dict):
                    model(**batch)
                elif isinstance(batch, (tuple, list)):
                    model(*batch)
                else:
                    model(batch)
    finally:
        for h in hooks:
            h.remove()
    return kept


def save_safetensors(tensors, path, metadata=None):
    """Writes {name: tensor} as safetensors (little-endian; header padded to 8 bytes), through a
    temporary file renamed into place, so that a failure leaves no partial file."""
    header, blobs, offset = {}, [], 0
    for name in sorted(tensors):
        t = tensors[name].detach().contiguous().cpu()
        if t.dtype not in STORED:
            t = t.to(torch.float32)
        size = t.numel() * t.element_size()
        header[name] = {"dtype": STORED[t.dtype], "shape": list(t.shape), "data_offsets": [offset, offset + size]}
        blobs.append(ctypes.string_at(t.data_ptr(), size) if size else b"")
        offset += size
    if metadata:
        header["__metadata__"] = {str(k): str(v) for k, v in metadata.items()}
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    # A temporary of its own beside the file (two runs writing one path do not share one).
    fd, temp = tempfile.mkstemp(dir=os.path.dirname(os.path.abspath(path)),
                                prefix="." + os.path.basename(path) + ".", suffix=".partial")
    mask = os.umask(0)  # (read by setting it: the file gets what open() would give, not mkstemp's 0600)
    os.umask(mask)
    os.fchmod(fd, 0o666 & ~mask)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(len(text).to_bytes(8, "little"))
            f.write(text)
            for b in blobs:
                f.write(b)
            f.flush()
            os.fsync(f.fileno())
        os.replace(temp, path)
    except BaseException:
        if os.path.exists(temp):
            os.remove(temp)
        raise


def text_batches(tokenizer, text, seq_len, batches):
    """The text cut into `batches` batches of one sequence of seq_len tokens each."""
    tokenizer.model_max_length = len(text) + 2  # (the whole text at once; it is cut into sequences below)
    ids = tokenizer(text, return_tensors="pt")["input_ids"][0]
    out = []
    for b in range(batches):
        chunk = ids[b * seq_len:(b + 1) * seq_len]
        if chunk.numel() == 0:
            break
        out.append({"input_ids": chunk.unsqueeze(0)})
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("model", help="a transformers model folder (config.json and safetensors)")
    p.add_argument("--text", required=True, help="a text file to run through the model")
    p.add_argument("--out", required=True, help="the activations file to write")
    p.add_argument("--max-rows", type=int, default=2048, help="rows kept per layer (default 2048)")
    p.add_argument("--seq-len", type=int, default=128, help="tokens per batch (default 128)")
    p.add_argument("--batches", type=int, default=8, help="batches to run (default 8)")
    p.add_argument("--prefix", default="", help="put before every module name, to match the checkpoint's names")
    a = p.parse_args()
    if a.max_rows <= 0 or a.seq_len <= 0 or a.batches <= 0:
        p.error("--max-rows, --seq-len and --batches must be positive")
    try:
        from transformers import AutoModel, AutoTokenizer
    except ImportError:
        print("capture_activations: the command line needs transformers (pip install transformers); "
              "capture() needs PyTorch only", file=sys.stderr)
        return 1
    try:
        with open(a.text, encoding="utf-8") as f:
            text = f.read()
        tokenizer = AutoTokenizer.from_pretrained(a.model, local_files_only=True)
        model = AutoModel.from_pretrained(a.model, local_files_only=True).eval()
    except (OSError, ValueError) as e:
        print(f"capture_activations: {e}", file=sys.stderr)
        return 2
    batches = text_batches(tokenizer, text, a.seq_len, a.batches)
    if not batches:
        print(f"capture_activations: {a.text} holds no tokens", file=sys.stderr)
        return 2
    inputs = capture(model, batches, a.max_rows, a.prefix)
    try:
        save_safetensors(inputs, a.out, {"model": os.path.abspath(a.model), "torch": torch.__version__})
    except OSError as e:  # (the machine's failure, not the input's: exit 1, said without a traceback)
        print(f"capture_activations: cannot write {a.out}: {e.strerror or e}", file=sys.stderr)
        return 1
    rows = max((t.shape[0] for t in inputs.values()), default=0)
    print(f"wrote {a.out}: the inputs of {len(inputs)} linear layers, up to {rows} rows each")
    return 0


if __name__ == "__main__":
    sys.exit(main())
