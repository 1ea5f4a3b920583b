#!/usr/bin/env bash
# One command: install what is missing, build, run every test (the normal build, then the core
# tests again under AddressSanitizer + UndefinedBehaviorSanitizer). GPU tests skip without a GPU.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
(cd build && ctest --output-on-failure --timeout 600)
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPL_CORE_ONLY=ON -DPL_SANITIZE=ON >/dev/null
cmake --build build-asan --parallel
(cd build-asan && ctest --output-on-failure --timeout 900)
# The file parsers under libFuzzer (clang, ASan + UBSan): replays the kept corpus, then
# fuzzes each parser briefly; any crash fails the run.
FUZZ_SECONDS="${FUZZ_SECONDS:-15}" bash scripts/fuzz.sh
