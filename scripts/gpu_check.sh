#!/usr/bin/env bash
# The GPU check, run on a machine with an NVIDIA GPU: device info, the CUDA parity suite
# (every format x rounding mode against the CPU codec, bit for bit), and the conversion
# benchmark (CUDA and CPU), each result written to $OUT (or ./gpu-results).
# Usage on the lent machine: bash .gpu/gpu_check.sh   (binaries packed by scripts/gpu_pack.sh)
# On a machine with the full toolchain: bash scripts/gpu_check.sh --build
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/gpu-results}
mkdir -p "$OUT"
if [[ ${1:-} == --build ]]; then
  bash scripts/setup.sh && bash scripts/build.sh || exit 1
  BIN=build; PARITY=build/tests/cuda/cuda_parity_tests; CORE=build/tests/core_tests
else
  export LD_LIBRARY_PATH=$PWD/.gpu/lib:${LD_LIBRARY_PATH:-}
  # The machine's own GL/EGL stack if it has one; Debian's glvnd loader otherwise.
  ldconfig -p | grep -q 'libEGL.so.1 ' || export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:$PWD/.gpu/glfallback
  BIN=.gpu/bin; PARITY=.gpu/bin/cuda_parity_tests; CORE=.gpu/bin/core_tests
fi
{
  echo "date: $(date -u +%FT%TZ)"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv 2>&1
  "$BIN/precision-lab" devices
} 2>&1 | tee "$OUT/device.txt"
"$PARITY" --gtest_output=json:"$OUT/parity.json" 2>&1 | tail -n 5 | tee "$OUT/parity.txt"
echo "parity exit: ${PIPESTATUS[0]}" | tee -a "$OUT/parity.txt"
"$CORE" --gtest_brief=1 2>&1 | tail -n 3 | tee -a "$OUT/parity.txt"
ALL=float16,bfloat16,tf32,float8_e4m3fn,float8_e5m2,float8_e4m3fnuz,float8_e5m2fnuz,float6_e2m3fn,float6_e3m2fn,float4_e2m1fn
"$BIN/precision-lab" bench --backend cuda --formats $ALL --elements 268435456 --reps 20 --json >"$OUT/bench_cuda.json"
"$BIN/precision-lab" bench --backend cuda --formats float16,bfloat16,float8_e4m3fn,float4_e2m1fn --rounding stochastic --elements 268435456 --reps 20 --json >"$OUT/bench_cuda_sr.json"
"$BIN/precision-lab" bench --backend cpu --formats float16,bfloat16,float8_e4m3fn,float4_e2m1fn --elements 67108864 --reps 5 --json >"$OUT/bench_cpu.json"
python3 - "$OUT" <<'PY'
import json, sys
out = sys.argv[1]
for f in ("bench_cuda.json", "bench_cuda_sr.json", "bench_cpu.json"):
    try:
        j = json.load(open(f"{out}/{f}"))
    except Exception as e:
        print(f, "missing:", e); continue
    print(f"{f}: {j['device']} ({j['rounding']})")
    for r in j["results"]:
        print(f"  {r['format']:16s} {r['convert_gbps']:9.1f} GB/s  copy {r['copy_gbps']:9.1f} GB/s  ratio {r['ratio']:.2f}")
PY
