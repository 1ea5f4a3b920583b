#!/usr/bin/env bash
# Where the checkpoint scan spends its time (docs/checkpoint-scan.md), recorded in $OUT as
# profile_scan.txt: a perf profile of `scan` with the default candidates over a synthetic
# bfloat16 checkpoint of a quarter of a billion parameters (tests/bench/peer_scan.py's shapes and
# values, written under a temporary folder and removed after), its top symbols with each clone
# named (.arch_x86_64_v3: AVX2, .arch_x86_64_v4: AVX-512).
#   bash scripts/profile_scan.sh        # OUT=cpu-results by default; needs perf, numpy, ml_dtypes
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
OUT=${OUT:-$PWD/cpu-results}
PL=${PL:-build/precision-lab}
PYTHON=${PYTHON:-python3}
command -v perf >/dev/null || { echo "profile_scan: perf is not installed" >&2; exit 1; }
mkdir -p "$OUT"
dir=$(mktemp -d) || { echo "profile_scan: no temporary folder" >&2; exit 1; }
trap 'rm -rf "$dir" "$OUT/profile_scan.txt.tmp"' EXIT
(cd tests/bench && "$PYTHON" -c "import peer_scan, sys; peer_scan.write_checkpoint(sys.argv[1], peer_scan.shapes(2.5e8, 2048))" \
  "$dir/model.safetensors") || { echo "profile_scan: could not write the checkpoint" >&2; exit 1; }
"$PL" scan "$dir/model.safetensors" --json >/dev/null || { echo "profile_scan: the scan failed" >&2; exit 1; }  # (into the page cache)
perf record -q -o "$dir/perf.data" "$PL" scan "$dir/model.safetensors" --json >/dev/null ||
  { echo "profile_scan: perf record failed" >&2; exit 1; }
{
  echo "# perf record $PL scan MODEL --json (default candidates; $(du -m "$dir/model.safetensors" | cut -f1) MiB of bfloat16, in the page cache)"
  echo "# $(grep -m1 '^model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) threads," \
    "vector flags: $(grep -m1 '^flags' /proc/cpuinfo | tr ' ' '\n' | grep -E '^(avx|fma)' | tr '\n' ' ')"
  perf report -i "$dir/perf.data" --stdio --no-demangle --sort symbol --percent-limit 1 2>/dev/null | grep '%' |
    sed 's/[[:space:]]*$//'
} >"$OUT/profile_scan.txt.tmp" || exit 1
mv -f "$OUT/profile_scan.txt.tmp" "$OUT/profile_scan.txt" || exit 1
echo "wrote $OUT/profile_scan.txt"
