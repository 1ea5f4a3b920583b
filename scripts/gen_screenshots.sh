#!/usr/bin/env bash
# Regenerates the screenshots the README and docs show (assets/screenshots/), each from the
# command line written beside it here, headless, without remembered settings -- so a picture is
# always the app's own current window. Run: bash scripts/gen_screenshots.sh [build/precision-lab]
set -euo pipefail
cd "$(dirname "$0")/.."
PL=${1:-build/precision-lab}
out=assets/screenshots
setups=$out/setups
export XDG_CONFIG_HOME=$(mktemp -d)  # never the user's own settings
trap 'rm -rf "$XDG_CONFIG_HOME"' EXIT
shot() {  # NAME SIZE ARGS...
  local name=$1 size=$2; shift 2
  env -u DISPLAY -u WAYLAND_DISPLAY "$PL" --screenshot "$out/$name.png" --size "$size" --no-settings --check-layout \
    "$@" >/dev/null
  echo "$out/$name.png  <- precision-lab --size $size $*"
}
shot start 1600x1000 --panel start
shot experiment-framework 1600x1000 --setup "$setups/f16-into-f32.json"
shot presentation 1280x800 --setup "$setups/f16-into-f32.json" --presentation on
shot formats 1600x1000 --panel formats --value 0.1
shot promotion-compare 1600x1000 --panel promotion --op add --compare on --select float16,float64
shot promotion-frameworks 1600x1000 --panel promotion --framework numpy --compare-with numpy1 --op add \
  --b-kind scalar --b-value 300 --select int8,int64
shot promotion-cpu-vs-cuda 1600x1000 --panel promotion --framework torch --compare-with torch-cuda --op conv2d
shot promotion-cuda-recorded 1600x1000 --panel promotion --framework torch2.11-cuda --op add --b-kind zerodim \
  --select float16,float4_e2m1fn
shot experiment 1600x1000 --setup "$setups/fp8-outliers.json"
shot experiment-heatmap 1600x1000 --setup "$setups/heatmap.json" --figure error-heatmap
shot experiment-cast 1600x1000 --setup "$setups/roundtrip-mx.json"
shot throughput 1600x1000 --panel throughput
shot checkpoint 1600x1000 --checkpoint tests/data/checkpoint/sharded
shot checkpoint-frontier 1280x800 --checkpoint tests/data/checkpoint/sharded --figure plan-frontier
shot explorer 1600x1000 --panel explorer --value 448
shot scenario-tour 1280x800 --scenario 10 --presentation on
shot scenario-live-panel 1600x1000 --scenario 23
