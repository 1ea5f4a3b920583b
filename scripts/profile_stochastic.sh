#!/usr/bin/env bash
# Where a CPU's stochastic rounding spends its time (docs/performance.md), recorded as files in
# $OUT: a perf profile of the round-trip benchmark's top symbols, each clone named
# (.arch_x86_64_v3: AVX2, .arch_x86_64_v4: AVX-512), and the 64-bit lane multiplies of the
# stochastic loop's clones as objdump reads them (AVX2 has no 64-bit lane multiply, vpmullq;
# SplitMix64's multiplies are built from 32-bit vpmuludq there).
#   bash scripts/profile_stochastic.sh            # OUT=cpu-results by default; needs perf, objdump
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
OUT=${OUT:-$PWD/cpu-results}
PL=${PL:-build/precision-lab}
command -v perf >/dev/null || { echo "profile_stochastic: perf is not installed" >&2; exit 1; }
command -v objdump >/dev/null || { echo "profile_stochastic: objdump is not installed" >&2; exit 1; }
mkdir -p "$OUT"
data=$(mktemp)
trap 'rm -f "$data" "$OUT"/*.tmp' EXIT
perf record -q -o "$data" "$PL" bench --backend cpu --elements 16777216 --reps 3 --rounding stochastic >/dev/null ||
  { echo "profile_stochastic: perf record failed" >&2; exit 1; }
{
  echo "# perf record $PL bench --backend cpu --elements 16777216 --reps 3 --rounding stochastic"
  echo "# $(grep -m1 '^model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) threads," \
    "vector flags: $(grep -m1 '^flags' /proc/cpuinfo | tr ' ' '\n' | grep -E '^(avx|fma)' | tr '\n' ' ')"
  perf report -i "$data" --stdio --no-demangle --sort symbol --percent-limit 1 2>/dev/null | grep '%' |
    sed 's/[[:space:]]*$//'
} >"$OUT/profile_stochastic.txt.tmp" || exit 1
# The stochastic loop (Rounding 5, no flush) in each clone, and its 64-bit multiplies.
loop=_ZN2pl12_GLOBAL__N_110short_spanILNS_8RoundingE5ELb0EEEvPKfPfmmRKNS_18RoundtripF32ParamsEb
{
  echo "# objdump -d $PL: the 64-bit lane multiplies of short_span<Stochastic, false>'s clones"
  for clone in arch_x86_64_v4 arch_x86_64_v3 default; do
    listing=$(objdump -d --no-show-raw-insn "--disassemble=$loop.$clone" "$PL")
    count=$(grep -cE '^\s+[0-9a-f]+:' <<<"$listing")
    # A renamed loop would disassemble to nothing, which is no count of zero multiplies.
    ((count > 0)) || { echo "profile_stochastic: no $loop.$clone in $PL" >&2; exit 1; }
    echo "$clone: $(grep -c vpmullq <<<"$listing") vpmullq, $(grep -c vpmuludq <<<"$listing") vpmuludq," \
      "$count instructions"
  done
} >"$OUT/stochastic_clone_instructions.txt.tmp" || exit 1
mv -f "$OUT/profile_stochastic.txt.tmp" "$OUT/profile_stochastic.txt" &&
  mv -f "$OUT/stochastic_clone_instructions.txt.tmp" "$OUT/stochastic_clone_instructions.txt" || exit 1
echo "wrote $OUT/profile_stochastic.txt and stochastic_clone_instructions.txt"
