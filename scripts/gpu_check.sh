#!/usr/bin/env bash
# The GPU check, run on a machine with an NVIDIA GPU: device info, the CUDA parity suite
# (round trips of every format x rounding mode bit for bit; emulated products bit for bit;
# cuBLASLt products within their accumulator's bound), the same suite under compute-sanitizer,
# PyTorch's own promotion tables on CUDA, and the benchmarks: the products (TFLOP/s, % of peak,
# against the same products called bare through PyTorch), experiments with their products on
# CUDA, conversions (CUDA and CPU) against the copy ceiling, the tensor-core probes, the whole
# experiment. Each result is written to $OUT (or ./gpu-results); with SNAPSHOT=file.tgz all of
# them are packed there after every step.
# Usage on the lent machine: tar xzf .gpu.tgz && bash .gpu/gpu_check.sh   (packed by scripts/gpu_pack.sh)
# On a machine with the full toolchain: bash scripts/gpu_check.sh --build
# A part of it: STEPS=products,tables (of parity, tables, products, candidates, experiments,
# conversions, models, whole; all but models by default). TORCH_TABLES picks the tables (of plain, float16, bfloat16: the
# autocast ones), TORCH_WORKERS their CUDA workers per table (4), TORCH_SPARES the spare ones made
# ready for a worker a device-side assert ends (4), TORCH_TIMEOUT their limit (300 s),
# TORCH_CELLS_FROM a folder of cell logs (NAME.cells or NAME.cells.gz) of a run cut off before,
# to resume.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/gpu-results}
mkdir -p "$OUT"
if [[ ${1:-} == --build ]]; then
  bash scripts/setup.sh && bash scripts/build.sh || exit 1
  BIN=build; PARITY=build/tests/cuda/cuda_parity_tests
else
  export LD_LIBRARY_PATH=$PWD/.gpu/lib:${LD_LIBRARY_PATH:-}
  # The machine's own GL/EGL stack if it has one; Debian's glvnd loader otherwise.
  ldconfig -p | grep -q 'libEGL.so.1 ' || export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:$PWD/.gpu/glfallback
  BIN=.gpu/bin; PARITY=.gpu/bin/cuda_parity_tests
fi
# cuBLASLt is loaded at run time (kernels/cublaslt_api.h): the machine's own, from the toolkit
# or from the nvidia-cublas wheel PyTorch brings.
lt=$(ldconfig -p | awk '/libcublasLt\.so\.13 /{print $NF; exit}')
[[ -n $lt ]] || lt=$(find /usr/local /opt /usr/lib -name 'libcublasLt.so.13' 2>/dev/null | head -n 1)
if [[ -n $lt ]]; then export LD_LIBRARY_PATH=${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}$(dirname "$lt"); fi
echo "cuBLASLt: ${lt:-not found (library products will report it and fall back to the CPU)}"
# Each step has its own time limit, and every step's results are packed into $SNAPSHOT (if set)
# as soon as it ends: the lent machine gives back only what is under its $OUT when a call runs
# out of time, at most 8 files.
snap() {
  if [[ -n ${SNAPSHOT:-} ]]; then tar czf "$SNAPSHOT.tmp" -C "$OUT" . && mv -f "$SNAPSHOT.tmp" "$SNAPSHOT"; fi
}
step() { local limit=$1; shift; timeout --kill-after=5 "$limit" "$@"; local rc=$?; ((rc == 124)) && echo "timed out after ${limit}s: $*"; snap; return $rc; }
STEPS=,${STEPS:-parity,tables,products,candidates,experiments,conversions,whole},
want() { [[ $STEPS == *,$1,* ]]; }
T0=$SECONDS
{
  echo "date: $(date -u +%FT%TZ)"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv 2>&1
  "$BIN/precision-lab" devices
  echo "cpu vector flags: $(grep -m1 '^flags' /proc/cpuinfo | tr ' ' '\n' | grep -E '^(avx|fma|sse4)' | tr '\n' ' ')"
} 2>&1 | tee "$OUT/device.txt"
# PyTorch's promotion and error texts on CUDA, recorded from the machine's own PyTorch
# (the torch-cuda engines are modelled until these tables are checked in). In the background,
# while the parity suite runs: neither is timed.
# PyTorch runs with the machine's own libraries (env -u), not the Debian libstdc++ packed for ours.
torch_tables() {
  export OMP_NUM_THREADS=2
  local g="tests/data/promotion/gen_torch.py --device cuda --workers ${TORCH_WORKERS:-4} --spares ${TORCH_SPARES:-4}" v name args
  for v in ${TORCH_TABLES:-plain float16 bfloat16}; do
    case $v in
      plain) name=torch_cuda args= ;;
      float16) name=torch_autocast_cuda args="--autocast-cuda float16" ;;
      bfloat16) name=torch_autocast_cuda_bf16 args="--autocast-cuda bfloat16" ;;
      *) echo "no PyTorch table $v"; continue ;;
    esac
    # Each outcome is logged as it comes (NAME.cells); a table cut off by its time limit is
    # resumed from the log in TORCH_CELLS_FROM (a folder holding NAME.cells[.gz]) by a later run.
    if [[ -f ${TORCH_CELLS_FROM:-/nonexistent}/$name.cells.gz ]]; then
      gzip -dc "$TORCH_CELLS_FROM/$name.cells.gz" >"$OUT/$name.cells"
    elif [[ -f ${TORCH_CELLS_FROM:-/nonexistent}/$name.cells ]]; then
      cp "$TORCH_CELLS_FROM/$name.cells" "$OUT/"
    fi
    timeout ${TORCH_TIMEOUT:-300} env -u LD_LIBRARY_PATH python3 $g $args --cells-log "$OUT/$name.cells" \
      >"$OUT/$name.json" 2>"$OUT/$name.err" &
  done
  # Operands on different devices: the texts the torch engines are to model.
  timeout ${TORCH_TIMEOUT:-300} env -u LD_LIBRARY_PATH python3 tests/data/promotion/gen_torch_devices.py \
    >"$OUT/torch_devices_cuda.json" 2>"$OUT/torch_devices_cuda.err" &
  # Convolutions over a grid of shapes: cuDNN or PyTorch's own kernels, and their error texts.
  timeout ${TORCH_TIMEOUT:-300} env -u LD_LIBRARY_PATH python3 tests/data/promotion/gen_torch_conv_shapes.py \
    --device cuda >"$OUT/torch_cuda_conv_shapes.json" 2>"$OUT/torch_cuda_conv_shapes.err" &
  wait
  local f
  for f in "$OUT"/torch_*.json; do
    echo "$(basename "$f"): $(wc -c <"$f") bytes, $(wc -l <"${f%.json}.cells" 2>/dev/null || echo 0) cells logged; $(tail -n 1 "${f%.json}.err")"
  done
  snap
}
# With the parity suite, in the background while it runs (neither is timed); alone, after the
# timed steps.
TABLES=
if want tables && want parity; then
  torch_tables &
  TABLES=$!
fi
if want parity; then
step 180 "$PARITY" --gtest_output=json:"$OUT/parity.json" >"$OUT/parity_log.txt" 2>&1
echo "parity exit: $?" | tee "$OUT/parity.txt"
grep -E '^\[  (FAILED|PASSED|SKIPPED) ' "$OUT/parity_log.txt" | sort | uniq -c | sort -rn | head -n 40 | tee -a "$OUT/parity.txt"
if command -v compute-sanitizer >/dev/null; then
  step 180 compute-sanitizer --tool memcheck --error-exitcode 9 "$PARITY" --gtest_brief=1 \
    --gtest_filter='*Product*:CudaBackend*:CudaResidency*:ErrorStatsParity.Float64*:ErrorStatsParity.Declines*:StagedCopy*:*RoundtripParity*/float16_*:*RoundtripF64Parity*/float16_*' >"$OUT/sanitizer.txt" 2>&1
  echo "compute-sanitizer memcheck exit: $?" | tee -a "$OUT/parity.txt"
  tail -n 3 "$OUT/sanitizer.txt"
fi
fi
[[ -z $TABLES ]] || wait $TABLES
echo "[$((SECONDS - T0))s] timed runs from here"
if want products; then
# The bare products (cuBLASLt, own kernels): TFLOP/s and % of the device's published peak, and
# the same products called bare through PyTorch in the same run (the goal: within 5% of a bare call).
step 150 "$BIN/precision-lab" bench --op product --backend cuda --dtypes float64,float32,tf32,float16,bfloat16,float8_e4m3fn,int8 \
  --sizes 4096,8192 --reps 20 --json >"$OUT/bench_product.json"
step 40 "$BIN/precision-lab" bench --op product --backend cuda --dtypes float8_e4m3fn --fast-accum --sizes 8192 --reps 20 --json \
  >"$OUT/bench_product_fp8_fast.json"
step 120 env -u LD_LIBRARY_PATH python3 scripts/gpu_bare_products.py --sizes 4096,8192 --reps 20 >"$OUT/bare_product.json"
step 40 env -u LD_LIBRARY_PATH python3 scripts/gpu_bare_products.py --dtypes float8_e4m3fn --fast-accum --sizes 8192 --reps 20 >"$OUT/bare_product_fp8_fast.json"
# The same through PyTorch's cuBLASLt path (a "bare cuBLASLt call"): float64 runs several percent
# behind the default (cuBLAS) call there, and none of cuBLASLt's own candidates is faster.
step 60 env -u LD_LIBRARY_PATH python3 scripts/gpu_bare_products.py --blas cublaslt --dtypes float64,float32,bfloat16 --sizes 4096,8192 --reps 20 \
  >"$OUT/bare_product_cublaslt.json"
# Our products again through the cuBLASLt that PyTorch brings (its nvidia-cublas wheel), when it is
# another file than the one above: float64 through the machine's cuBLASLt (13.1 on an H200) can
# trail the bare call by several percent with every candidate it offers, and this run tells
# whether the library's build or our call is the cause.
torch_lt=$(env -u LD_LIBRARY_PATH python3 -c 'import os, torch; print(os.path.dirname(os.path.dirname(torch.__file__)))' 2>/dev/null)
[[ -z $torch_lt ]] || torch_lt=$(find "$torch_lt" -name 'libcublasLt.so.13*' 2>/dev/null | head -n 1)
if [[ -n $torch_lt && $(readlink -f "$torch_lt") != $(readlink -f "${lt:-/nonexistent}") ]]; then
  echo "PyTorch's cuBLASLt: $torch_lt"
  step 90 env LD_LIBRARY_PATH="$(dirname "$torch_lt"):$LD_LIBRARY_PATH" "$BIN/precision-lab" bench --op product --backend cuda \
    --dtypes float64,bfloat16 --sizes 4096,8192 --reps 20 --json >"$OUT/bench_product_torch_cublaslt.json"
fi
step 60 "$BIN/precision-lab" bench --op product --backend cuda --dtypes bfloat16 --accumulate f32:sequential --sizes 2048 --reps 5 --json \
  >"$OUT/bench_product_emulated.json"
step 60 "$BIN/precision-lab" bench --op product --backend cuda --dtypes bfloat16 --accumulate f32:multiterm:16:2:rtz --sizes 2048 --reps 5 --json \
  >"$OUT/bench_product_multiterm.json"
echo "[$((SECONDS - T0))s] products done"
fi
if want candidates; then
# cuBLASLt's other candidates for the shapes that ran behind a bare call (float64 6-9% behind
# cuBLAS's own choice): each one timed alone (PL_LT_ALGO_INDEX, kernels/lt_gemm.cpp), to see
# whether a fixed rule could pick a faster one. A diagnostic: the app runs the first.
for i in 0 1 2 3 4 5; do
  step 60 env PL_LT_ALGO_INDEX=$i "$BIN/precision-lab" bench --op product --backend cuda --dtypes float64,bfloat16 \
    --sizes 4096,8192 --reps 20 --json >"$OUT/lt_candidate_$i.json" 2>>"$OUT/lt_candidates.err"
done
echo "[$((SECONDS - T0))s] candidates done"
fi
if want experiments; then
# Experiments as a user starts them from the command line, products on CUDA (the result says
# where each product ran, and why not when it fell back).
step 90 "$BIN/precision-lab" matmul --linear --m 4096 --n 4096 --k 4096 --input-dtype float8_e4m3fn --weight-dtype float8_e4m3fn \
  --input-scaling per-tensor --weight-scaling per-tensor --output-dtype bfloat16 --backend cuda --fast-accum --json \
  >"$OUT/matmul_fp8_fast_cuda.json" 2>&1
step 60 "$BIN/precision-lab" mlp --layers 8 --width 1024 --batch 256 --backend cuda --json >"$OUT/mlp_cuda.json" 2>&1
# The cast experiment's rounding on CUDA (ran_on says where; its bits are the CPU's: RoundtripF64Parity).
step 60 "$BIN/precision-lab" roundtrip --rows 4096 --cols 4096 --dtype float8_e4m3fn --scaling mx --rounding stochastic \
  --backend cuda --json >"$OUT/roundtrip_cuda.json" 2>&1
echo "[$((SECONDS - T0))s] experiments done"
fi
if want conversions; then
# Conversions against the copy ceiling (the goal: 80% of the measured copy bandwidth).
ALL=float16,bfloat16,tf32,float8_e4m3fn,float8_e5m2,float8_e4m3fnuz,float8_e5m2fnuz,float8_e8m0fnu,float6_e2m3fn,float6_e3m2fn,float4_e2m1fn
step 120 "$BIN/precision-lab" bench --backend cuda --formats $ALL --elements 268435456 --reps 20 --json >"$OUT/bench_cuda.json"
step 60 "$BIN/precision-lab" bench --backend cuda --formats float16,bfloat16,float8_e4m3fn,float4_e2m1fn --rounding stochastic --elements 268435456 --reps 20 --json >"$OUT/bench_cuda_sr.json"
# A directed mode through the same short path (roundtrip_f32_short_first).
step 60 "$BIN/precision-lab" bench --backend cuda --formats float16,bfloat16,float8_e4m3fn,float4_e2m1fn --rounding rtz --elements 268435456 --reps 20 --json >"$OUT/bench_cuda_rtz.json"
# How the tensor cores add (after Fasi et al. 2021): one table per input dtype.
for t in float16 bfloat16 tf32 float8_e4m3fn; do
  step 30 "$BIN/precision-lab" accumulation-probe --backend cuda --dtype $t --json >"$OUT/probe_$t.json"
done
step 30 "$BIN/precision-lab" accumulation-probe --backend cuda --dtype float8_e4m3fn --fast-accum --json >"$OUT/probe_float8_e4m3fn_fast.json"
step 30 "$BIN/precision-lab" accumulation-probe --backend cuda --dtype float16 --accumulate f16:blas --json >"$OUT/probe_float16_f16acc.json"
echo "[$((SECONDS - T0))s] conversions and probes done"
fi
if want models; then
# Candidate models of each tensor-core adder checked against the device on random inputs
# (accumulation-probe --check-model): multi-term blocks of 4-32 products, 0-3 extra bits. The
# probe reads one model, and on an H200 tf32's matched 1.5% of the elements and float16
# accumulation's 5.1% (bfloat16's 99.7%, float16's 94.5%).
for t in bfloat16 float16 tf32; do
  ms=()
  for b in 4 8 16 32; do for x in 0 1 2 3; do ms+=(--check-model "f32:multiterm:$b:$x:rtz"); done; done
  step 60 "$BIN/precision-lab" accumulation-probe --backend cuda --dtype $t "${ms[@]}" --json >"$OUT/models_$t.json"
done
ms=()
for f in f16 tf32; do for b in 4 8 16 32; do for x in 0 1 2 3; do ms+=(--check-model "$f:multiterm:$b:$x:rne"); done; done; done
step 60 "$BIN/precision-lab" accumulation-probe --backend cuda --dtype float16 --accumulate f16:blas "${ms[@]}" --json \
  >"$OUT/models_float16_f16acc.json"
echo "[$((SECONDS - T0))s] models done"
fi
if want whole; then
# The whole experiment on CUDA: products, float64 references, |A||B|, the epilogue, the output
# rounding, the error statistics' passes and the heat map there, the arrays kept on the device
# between them (core/backend/held_values.h); quantising on the CPU. stages_ms says which took how
# long; cached_stages_ms is a re-run of the same setup, the best case of a window update.
step 120 "$BIN/precision-lab" bench --op matmul --backend cuda --dtypes bfloat16 --sizes 1024,4096 --reps 3 --json >"$OUT/bench_matmul_cuda.json"
# Where a GPU call's wall time goes (kernels/phase_trace.h: products and error statistics), with
# the staged copies (staged_copy.h); PL_CUDA_PAGEABLE=1 would time the driver's pageable ones
# (464 against 612 ms a 4096^3 update on an H100, docs/gpu-results/).
step 60 env PL_CUDA_TRACE=1 "$BIN/precision-lab" bench --op matmul --backend cuda --dtypes bfloat16 --sizes 4096 --reps 1 --json \
  >"$OUT/bench_matmul_trace.json" 2>"$OUT/cuda_trace.txt"
# The error statistics' pass 1 with one copy of its counters (error_stats.cuh: kCountReplicas),
# for the A/B against the default; traced, to see the passes' own times.
step 60 env PL_CUDA_COUNT_REPLICAS=1 "$BIN/precision-lab" bench --op matmul --backend cuda --dtypes bfloat16 --sizes 4096 --reps 3 --json \
  >"$OUT/bench_matmul_one_copy.json"
step 60 env PL_CUDA_TRACE=1 PL_CUDA_COUNT_REPLICAS=1 "$BIN/precision-lab" bench --op matmul --backend cuda --dtypes bfloat16 --sizes 4096 --reps 1 --json \
  >/dev/null 2>"$OUT/cuda_trace_one_copy.txt"
step 60 "$BIN/precision-lab" bench --backend cpu --formats float16,bfloat16,float8_e4m3fn,float4_e2m1fn --elements 67108864 --reps 5 --json >"$OUT/bench_cpu.json"
echo "[$((SECONDS - T0))s] whole-experiment bench done"
fi
if want tables && ! want parity; then torch_tables; fi
python3 - "$OUT" <<'PY'
import json, sys
out = sys.argv[1]
for f in ("bench_product.json", "bench_product_fp8_fast.json", "bench_product_emulated.json",
          "bench_product_torch_cublaslt.json"):
    try:
        j = json.load(open(f"{out}/{f}"))
    except Exception as e:
        print(f, "missing:", e); continue
    print(f"{f}: {j['device']} ({j['runtime']})")
    for r in j["results"]:
        if "tflops" in r:
            share = r['percent_of_peak']  # null: no published peak for the dtype
            share = f"{share:5.0f}%" if share is not None else "    -"
            print(f"  {r['dtype']:14s} {r['n']:6d} {r['tflops']:9.1f} TFLOP/s {share} of peak  {r['method']}")
        else:
            print(f"  {r['dtype']:14s} {r['n']:6d} {r.get('unsupported', r.get('error'))}")
# Each library path against the same product called bare through PyTorch in this run.
for ours_f, bare_f in (("bench_product.json", "bare_product.json"),
                       ("bench_product_fp8_fast.json", "bare_product_fp8_fast.json"),
                       ("bench_product.json", "bare_product_cublaslt.json"),
                       ("bench_product_torch_cublaslt.json", "bare_product_cublaslt.json")):
    try:
        ours = json.load(open(f"{out}/{ours_f}"))
        bare = json.load(open(f"{out}/{bare_f}"))
    except Exception as e:
        print(f"{ours_f} or {bare_f} unreadable:", e); continue
    print(f"{ours_f} against {bare_f} (torch {bare['torch']}, {bare.get('cublaslt') or 'default'} library): ours / bare")
    bare_rows = {(r["dtype"], r["n"]): r for r in bare["results"]}
    for r in ours["results"]:
        b = bare_rows.get((r["dtype"], r["n"]))
        if b is None and bare_f == "bare_product_cublaslt.json":
            continue  # timed for a few dtypes only
        if "tflops" not in r or not b or "tflops" not in b:
            print(f"  {r['dtype']:14s} {r['n']:6d} no pair: {(b or {}).get('error', 'no bare row')}"); continue
        print(f"  {r['dtype']:14s} {r['n']:6d} {r['tflops']:9.1f} vs {b['tflops']:9.1f} TFLOP/s  {r['tflops'] / b['tflops']:.3f}  {b['call']}")
import glob, os
for f in sorted(glob.glob(f"{out}/probe_*.json")):
    try:
        j = json.load(open(f))
    except Exception as e:
        print(f, "unreadable:", e); continue
    print(f"{os.path.basename(f)}: {j['input']} {j['accumulate']}{' fast' if j['fast_accumulation'] else ''}: "
          f"{j['accumulator_bits']} bits, promotion every {j['promotion_interval'] or '-'}; model {j['model'] or '-'}")
    for x in j["findings"]:
        print(f"  {x['question']:58s} {x['answer']}")
# Candidate adder models against the device, the best first.
for f in sorted(glob.glob(f"{out}/models_*.json")):
    try:
        j = json.load(open(f))
    except Exception as e:
        print(os.path.basename(f), "unreadable:", e); continue
    share = lambda c: int(c["answer"].split(" of ")[0]) if c["answer"][0].isdigit() else -1
    best = sorted(j["checks"], key=share, reverse=True)
    print(f"{os.path.basename(f)}: {j['input']} {j['accumulate']}: " +
          ", ".join(f"{c['model']} {share(c)}" for c in best[:6]) + f" (of 4096; {len(best)} models)")
# cuBLASLt's candidates, one by one.
for f in sorted(glob.glob(f"{out}/lt_candidate_*.json")):
    try:
        j = json.load(open(f))
    except Exception as e:
        print(os.path.basename(f), "unreadable:", e); continue
    for r in j["results"]:
        what = f"{r['tflops']:9.1f} TFLOP/s  {r['method']}" if "tflops" in r else r.get("unsupported", r.get("error"))
        print(f"{os.path.basename(f)}: {r['dtype']:10s} {r['n']:6d} {what}")
# The whole experiment: where a run and a re-run of the same setup (the cached run: the best case
# of a window update, everything the window may reuse kept) spend their time.
for f in ("bench_matmul_cuda.json", "bench_matmul_one_copy.json"):
    try:
        j = json.load(open(f"{out}/{f}"))
    except Exception as e:
        print(f, "missing:", e); continue
    for r in j["results"]:
        print(f"{f}: {r['dtype']} {r['n']}^3: run {r['experiment_ms']:.1f} ms, re-run {r['cached_reference_ms']:.1f} ms")
        for what in ("stages_ms", "cached_stages_ms"):
            if what in r:
                parts = r[what].get("analysis_parts", {})
                print(f"  {what:17s} " + ", ".join(f"{k} {v:.1f}" for k, v in r[what].items() if k != "analysis_parts")
                      + (" (of the analysis: " + ", ".join(f"{k} {v:.1f}" for k, v in parts.items()) + ")" if parts else ""))
# The error statistics' phases of the last two calls (a re-run's), with 16 and with 1 copy of
# pass 1's counters.
for f in ("cuda_trace.txt", "cuda_trace_one_copy.txt"):
    try:
        lines = [l.strip() for l in open(f"{out}/{f}") if "error statistics" in l]
    except Exception as e:
        print(f, "missing:", e); continue
    for l in lines[-2:]:
        print(f"{f}: {l}")
for f in ("bench_cuda.json", "bench_cuda_sr.json", "bench_cuda_rtz.json", "bench_cpu.json"):
    try:
        j = json.load(open(f"{out}/{f}"))
    except Exception as e:
        print(f, "missing:", e); continue
    print(f"{f}: {j['device']} ({j['rounding']})")
    for r in j["results"]:
        print(f"  {r['format']:16s} {r['convert_gbps']:9.1f} GB/s  copy {r['copy_gbps']:9.1f} GB/s  ratio {r['ratio']:.2f}")
PY
