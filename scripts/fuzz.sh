#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (ASan + UBSan; with --tests, the core tests too, run first) -- .npy, .safetensors, experiment and
# scenario files, and the spellings of dtypes, accumulation models and numbers (tests/fuzz/) --
# and runs each over its corpus for FUZZ_SECONDS (default 30). The corpus in tests/fuzz/corpus/ is
# then merged down to the inputs that add coverage (not with --tests: a test run leaves the tracked
# corpus as it found it, its new inputs in build-fuzz/new-TARGET); a crash, or a reader's value
# that does not read back (experiment_fuzz, spelling_fuzz), leaves its input in build-fuzz/ and
# fails the script.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${FUZZ_SECONDS:-30}"
# At -O1 with line tables only: a report still names its files and lines, and the build takes
# less time than at -O2 -g, for a few seconds more of tests.
CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only -DNDEBUG" \
  -DPL_CORE_ONLY=ON -DPL_SANITIZE=ON -DPL_FUZZ=ON -DPL_CUDA=OFF >/dev/null
targets=(npy safetensors experiment spelling)
testing=false
[[ ${1:-} == --tests ]] && testing=true
if $testing; then
  # The same build holds the core tests (clang, ASan + UBSan, with the fuzzers' coverage
  # instrumentation): built and run here, before the fuzzers, so that core is built under
  # AddressSanitizer once, not twice (scripts/test.sh).
  cmake --build build-fuzz --parallel
  # SANITIZED_SKIP: a ctest -E pattern of tests to leave out (scripts/test.sh passes the
  # exhaustive sweeps the main build runs).
  (cd build-fuzz && ctest --output-on-failure --timeout 900 -j"$(nproc)" ${SANITIZED_SKIP:+-E "$SANITIZED_SKIP"})
fi
cmake --build build-fuzz --parallel --target "${targets[@]/%/_fuzz}"
for target in "${targets[@]}"; do
  corpus="tests/fuzz/corpus/$target"
  mkdir -p "$corpus"
  echo "fuzz: $target for ${seconds}s over $(ls "$corpus" | wc -l) corpus files"
  # libFuzzer writes what it finds into the first folder it is given.
  dirs=("../$corpus")
  if $testing; then rm -rf "build-fuzz/new-$target" && mkdir -p "build-fuzz/new-$target" && dirs=("new-$target" "${dirs[@]}"); fi
  (cd build-fuzz && "./tests/fuzz/${target}_fuzz" -max_total_time="$seconds" -max_len=4096 \
     -print_final_stats=1 "${dirs[@]}" 2>&1 | grep -E "^(#[0-9]+ +DONE|stat::number_of_executed_units|stat::new_units_added|==[0-9]+==ERROR)" || true)
  if compgen -G "build-fuzz/crash-*" >/dev/null; then echo "fuzz: $target crashed"; exit 1; fi
  $testing && continue
  # Keep the corpus small: only the inputs that add coverage.
  rm -rf "build-fuzz/min-$target" && mkdir -p "build-fuzz/min-$target"
  (cd build-fuzz && "./tests/fuzz/${target}_fuzz" -merge=1 "min-$target" "../$corpus" >/dev/null 2>&1)
  rm -rf "$corpus" && mv "build-fuzz/min-$target" "$corpus"
  echo "fuzz: $target corpus kept at $(ls "$corpus" | wc -l) files"
done
