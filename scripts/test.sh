#!/usr/bin/env bash
# One command: install what is missing, build, run every test -- the normal build (warnings as
# errors), then the core tests under ThreadSanitizer, then under AddressSanitizer +
# UndefinedBehaviorSanitizer in the fuzzers' clang build, then the fuzzers. GPU tests skip
# without a GPU.
set -euo pipefail
cd "$(dirname "$0")/.."
phase() { echo "test.sh: $1 done at $((SECONDS / 60)) min $((SECONDS % 60)) s"; }  # where CI's time goes
bash scripts/setup.sh
bash scripts/build.sh -DPL_WERROR=ON  # warnings are errors in the tested build
phase "main build"
(cd build && ctest --output-on-failure --timeout 600 -j"$(nproc)")
phase "main tests"
# The core tests under ThreadSanitizer: the thread pool, the shared caches and backends, the
# experiments' workers (a race fails the run: TSan exits 66 after a report). Without the two
# exhaustive sweeps of every format and mode, single-threaded, which take most of a sanitized
# run's time and run in the main build, and, in this run only, six more sweeps that start no
# thread (nothing for TSan to see; AddressSanitizer still runs them). The names are checked to
# exist, so a renamed test cannot slip back in unnoticed. At -O1 without debug information, core
# too (core/CMakeLists.txt), which builds in less time for about the same run time.
cmake -S . -B build-tsan -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE="-O1 -DNDEBUG" \
  -DPL_CORE_ONLY=ON -DPL_TSAN=ON >/dev/null
cmake --build build-tsan --parallel
sweeps=(RoundtripF32.ShortPathsAreTheGenericFunctions RoundtripF64.EveryFormatModePolicyFlushAndPathMatchesTheCodec)
threadless=(NarrowLanes.KahansLastDifferenceIsAValueOfTheFormat Gemm.SumsOfTwoNarrowValuesRoundCorrectlyThroughFloat32
  Interval.EveryRoundedEndLiesInsideTheInterval NarrowLanes.SplitOfTwoValuesSumIsTheFormatsRounding
  Small/EveryInterval.CodecAgreesOnBothSidesOfEveryEnd/bfloat16
  Small/EveryInterval.CodecAgreesOnBothSidesOfEveryEnd/float16)
for t in "${sweeps[@]}" "${threadless[@]}"; do
  (cd build-tsan && ctest -N -R "^${t//./\\.}( |\$)" | grep -q "Total Tests: 1") ||
    { echo "test.sh: no test named $t to leave out of the sanitized runs"; exit 1; }
done
# core/promote's tests are not built under ThreadSanitizer (tests/CMakeLists.txt) because the
# module starts no thread of its own; a thread there brings them back. (A thread started inside
# another module's function it calls would not show here.)
promote_sources=(core/promote tests/core/promote tests/core/promotion_golden.h)
for p in "${promote_sources[@]}"; do [[ -e $p ]] || { echo "test.sh: $p is gone: update the ThreadSanitizer exclusion"; exit 1; }; done
if grep -rlE "core/util/parallel\.h|<thread>|<future>|std::async" "${promote_sources[@]}"; then
  echo "test.sh: core/promote starts threads: build its tests under ThreadSanitizer (tests/CMakeLists.txt)"
  exit 1
fi
tests_matching() { local IFS='|'; local names="$*"; echo "^(${names//./\\.})( |\$)"; }
sanitized_skip=$(tests_matching "${sweeps[@]}")
(cd build-tsan && ctest --output-on-failure --timeout 900 -j"$(nproc)" -E "$(tests_matching "${sweeps[@]}" "${threadless[@]}")")
phase "ThreadSanitizer build and tests"
# The core tests under AddressSanitizer + UndefinedBehaviorSanitizer, in the same clang build as
# the libFuzzer targets (core is built under ASan once; the same two sweeps left out: about half its
# test time); then the fuzzers replay the kept corpus and fuzz each parser briefly. Any
# report or crash fails the run.
FUZZ_SECONDS="${FUZZ_SECONDS:-10}" SANITIZED_SKIP="$sanitized_skip" bash scripts/fuzz.sh --tests
phase "AddressSanitizer build, tests and fuzzers"
