#!/usr/bin/env bash
# Measures the CPU numbers the README reports, on this machine: the experiment engine's Google
# Benchmark suite (emulated accumulation in GFLOP/s, the bare OpenBLAS calls, the whole 1024^3
# experiment) and the checkpoint scan's (its candidate passes), then the peer scripts (the same
# jobs in NumPy and PyTorch, when installed: the matrix product, and the checkpoint scan against
# NumPy + ml_dtypes).
# Results go to stdout and to bench-results/ (JSON).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
mkdir -p bench-results
./build/tests/bench/experiment_bench --benchmark_repetitions="${REPS:-3}" \
  --benchmark_report_aggregates_only=true --benchmark_out=bench-results/experiment_bench.json \
  --benchmark_out_format=json
./build/tests/bench/scan_bench --benchmark_repetitions="${REPS:-3}" \
  --benchmark_report_aggregates_only=true --benchmark_out=bench-results/scan_bench.json \
  --benchmark_out_format=json
echo "OpenBLAS: $(./build/precision-lab devices | grep -i openblas || true)"
if python3 -c "import numpy, ml_dtypes" 2>/dev/null; then
  python3 tests/bench/peer_matmul.py --n 1024 --reps 5 | tee bench-results/peer_matmul.json
  # The checkpoint scan against its NumPy peer (writes a ~2 GB checkpoint under /tmp, removed after).
  scan_dir=$(mktemp -d)
  python3 tests/bench/peer_scan.py --params "${SCAN_PARAMS:-1e9}" --dir "$scan_dir" | tee bench-results/peer_scan.json
  rm -rf "$scan_dir"
else
  echo "peer: numpy/ml_dtypes not installed; skipped"
fi
