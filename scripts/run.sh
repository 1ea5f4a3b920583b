#!/usr/bin/env bash
# One command: install what is missing, build, open the window. Arguments go to precision-lab.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
exec ./build/precision-lab "$@"
