#!/usr/bin/env bash
# The CPU figures the docs quote, recorded as files: the round trip against a copy, the whole
# 1024^3 experiment against the bare OpenBLAS calls it makes, the engine's Google Benchmark suite
# (emulated accumulation in GFLOP/s, the bare BLAS calls, the statistics, quantising), the
# checkpoint scan's candidate passes (tests/bench/scan_bench.cpp), the Throughput panel's
# sampler, profiles of stochastic rounding and of the scan (scripts/profile_stochastic.sh,
# scripts/profile_scan.sh), the window's frame rate while work runs beside it
# (scripts/window_fps.sh, docs/user-guide.md), the NumPy/PyTorch peer of the experiment
# (docs/performance.md), and the checkpoint scan's 1B-parameter speed against NumPy + ml_dtypes
# (docs/checkpoint-scan.md).
# Run it with nothing else on the machine; every result goes into $OUT (default cpu-results/)
# with the machine's description.
#   bash scripts/cpu_check.sh                 # after scripts/build.sh
#   SCAN_RUNS=0 bash scripts/cpu_check.sh     # without the checkpoint scan (it needs numpy,
#                                             # ml_dtypes and safetensors, and 2 GB of disk)
# PYTHON picks the interpreter for the peers (default python3); a peer whose libraries are
# missing is skipped and said.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
OUT=${OUT:-$PWD/cpu-results}
PL=${PL:-build/precision-lab}
PYTHON=${PYTHON:-python3}
SCAN_RUNS=${SCAN_RUNS:-4}
mkdir -p "$OUT"
fails=0
run() {  # run FILE COMMAND...: the command's stdout into $OUT/FILE, a failure counted and said
  local file=$1; shift
  if ! "$@" >"$OUT/$file.tmp"; then
    echo "failed: $*" >&2
    fails=$((fails + 1))
    rm -f "$OUT/$file.tmp"
    return
  fi
  mv -f "$OUT/$file.tmp" "$OUT/$file"
}
{
  echo "date: $(date -u +%FT%TZ)"
  echo "cpu: $(grep -m1 '^model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) threads"
  echo "cpu vector flags: $(grep -m1 '^flags' /proc/cpuinfo | tr ' ' '\n' | grep -E '^(avx|fma|amx)' | tr '\n' ' ')"
  echo "memory: $(awk '/MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo)"
  echo "commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
  "$PL" devices
} >"$OUT/device.txt" 2>&1
for mode in rne rtz stochastic; do
  run "bench_cpu_$mode.json" "$PL" bench --backend cpu --elements 67108864 --reps 7 --rounding "$mode" --json
done
run bench_matmul_cpu.json "$PL" bench --op matmul --backend cpu --dtypes bfloat16 --sizes 1024 --reps 7 --json
run bench_throughput_cpu.json "$PL" bench --op throughput --backend cpu --sizes 1024 --seconds 8 --json
bench_binary=$(dirname "$PL")/tests/bench/experiment_bench  # the build that made $PL
if [[ -x $bench_binary ]]; then
  run experiment_bench.json "$bench_binary" --benchmark_repetitions=3 \
    --benchmark_report_aggregates_only=true --benchmark_format=json
else
  echo "skipped: $bench_binary is not built" >&2
fi
scan_bench=$(dirname "$PL")/tests/bench/scan_bench
if [[ -x $scan_bench ]]; then
  run scan_bench.json "$scan_bench" --benchmark_repetitions=3 --benchmark_report_aggregates_only=true \
    --benchmark_format=json
else
  echo "skipped: $scan_bench is not built" >&2
fi
if command -v perf >/dev/null; then
  OUT=$OUT PL=$PL bash scripts/profile_stochastic.sh >/dev/null || { echo "failed: the stochastic profile" >&2; fails=$((fails + 1)); }
else
  echo "skipped: perf is not installed (the stochastic rounding profile)" >&2
fi
if command -v perf >/dev/null && "$PYTHON" -c "import numpy, ml_dtypes" 2>/dev/null; then
  OUT=$OUT PL=$PL PYTHON=$PYTHON bash scripts/profile_scan.sh >/dev/null || { echo "failed: the scan's profile" >&2; fails=$((fails + 1)); }
else
  echo "skipped: the scan's profile needs perf, and numpy and ml_dtypes under $PYTHON" >&2
fi
if command -v xvfb-run >/dev/null && command -v xdotool >/dev/null; then
  PL=$PL bash scripts/window_fps.sh "$OUT/window_fps.txt" || { echo "failed: the window's frame rate" >&2; fails=$((fails + 1)); }
else
  echo "skipped: xvfb-run or xdotool is not installed (the window's frame rate)" >&2
fi
if "$PYTHON" -c "import numpy, ml_dtypes" 2>/dev/null; then
  run peer_matmul.json "$PYTHON" tests/bench/peer_matmul.py --n 1024 --reps 5
else
  echo "skipped: the matmul peer needs numpy and ml_dtypes under $PYTHON" >&2
fi
if ((SCAN_RUNS > 0)); then
  dir=$(mktemp -d)
  trap 'rm -rf "$dir"' EXIT
  for i in $(seq 1 "$SCAN_RUNS"); do
    run "peer_scan_1b_run$i.json" "$PYTHON" tests/bench/peer_scan.py --params 1e9 --dir "$dir" --pl "$PL"
  done
fi
echo "wrote $OUT ($fails failed)"
((fails == 0))
