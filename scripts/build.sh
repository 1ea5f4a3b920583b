#!/usr/bin/env bash
# Configures and builds into build/ (CUDA backend included when nvcc is found). Arguments go to
# CMake's configure step (scripts/test.sh passes -DPL_WERROR=ON).
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
cmake --build build --parallel
