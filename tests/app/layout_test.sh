#!/usr/bin/env bash
# Every panel at 1280x800 (a common projector), 1600x1000 and 1920x1080, in normal and
# presentation mode, through the window's layout check (--check-layout): no control off the
# window without a scrollbar to reach it, every figure at least 320x180 and inside its pane.
# The Experiment panel shows a run with its figures; the Scenarios panel scenario 10's figures
# (once only title and legend at 1280x800); the Promotion panel a convolution's shape fields; the
# Checkpoint panel the synthetic checkpoint's scan.
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export XDG_CONFIG_HOME=$tmp/config  # never the user's remembered settings
cat > "$tmp/setup.json" <<'JSON'
{"experiment": "linear", "m": 64, "n": 64, "k": 256, "input": "float16", "weight": "float32"}
JSON
declare -A extra=(
  [promotion]="--op conv2d"
  [experiment]="--setup $tmp/setup.json"
  [scenarios]="--scenario 10"
  [explorer]="--value 448"
  [checkpoint]="--checkpoint $(dirname "$0")/../data/checkpoint/sharded"
)
failed=0 checked=0
# check WHAT SIZE ARGS...: one view through the layout check, its problems printed when it fails.
check() {
  local what=$1 size=$2
  shift 2
  local log rc
  log=$(env -u DISPLAY -u WAYLAND_DISPLAY "$PL" --screenshot "$tmp/shot.png" --size "$size" --no-settings \
        --check-layout "$@" 2>&1)
  rc=$?
  checked=$((checked + 1))
  if ((rc != 0)); then
    echo "FAIL $what at $size (exit $rc):"
    grep -E '^(layout|error)' <<<"$log" | head -10
    failed=$((failed + 1))
  else
    echo "ok   $what at $size"
  fi
}
for size in 1280x800 1600x1000 1920x1080; do
  for presentation in off on; do
    for panel in ${PANELS:-formats promotion experiment throughput log scenarios explorer checkpoint}; do
      # shellcheck disable=SC2086
      check "$panel, presentation $presentation" "$size" --panel "$panel" --presentation "$presentation" \
        ${extra[$panel]:-}
    done
  done
done
# Sizes between and the scenarios' live panels: a table a row short of its rows hid its last row
# with no scrollbar to reach it (the Promotion grid at 1400x650, scenario 02's live grid and
# scenario 19's Formats panel at 1600x1000).
check "promotion, mul" 1400x650 --panel promotion --op mul
# A float32 matmul under PyTorch lists what each set_float32_matmul_precision setting runs in; the
# line of its flags ran 1324 px past 1280 px with no scrollbar.
for presentation in off on; do
  check "promotion, float32 matmul, presentation $presentation" 1280x800 --panel promotion --op matmul \
    --framework torch --select float32,float32 --presentation "$presentation"
done
# Bug: a scan scored by the layers' outputs has a line more above the table (the plan by the
# weights alone): at 1280x800 in presentation mode it left the table one row.
for presentation in off on; do
  check "checkpoint with activations, presentation $presentation" 1280x800 --presentation "$presentation" \
    --checkpoint "$(dirname "$0")/../data/checkpoint/sharded" \
    --activations "$(dirname "$0")/../data/checkpoint/activations.safetensors"
done
for scenario in 2 19; do check "scenario $scenario" 1600x1000 --scenario "$scenario"; done
check "scenario 5" 1280x800 --scenario 5
# The Explorer's table fits a projector's width with 0.1, the value it opens on (float32's
# neighbours "0.09999999403... 0.1000000089... >" scrolled sideways at 1280x800).
check "explorer, 0.1" 1280x800 --panel explorer --value 0.1
check "explorer, 0.1, presentation on" 1280x800 --panel explorer --value 0.1 --presentation on
# Values whose neighbours and interval ends carry exponents and signs: float32's 32 bit boxes on
# one line ran the table 69 px past 1280 px for 1e-40, and bfloat16's neighbours of -3e38 19 px.
for value in 1e-40 -3e38; do
  for presentation in off on; do
    check "explorer, $value, presentation $presentation" 1280x800 --panel explorer --value "$value" \
      --presentation "$presentation"
  done
done
# The Experiment panel's lines and cells under long counts: the fp8 run's recipe line ran 48 px
# past 1280 px, and the roundtrip table's "82 (to the largest finite)" was cut mid-word.
setups=$(dirname "$0")/../../assets/screenshots/setups
check "experiment, fp8 outliers" 1280x800 --setup "$setups/fp8-outliers.json"
for presentation in off on; do
  check "experiment, mx roundtrip, presentation $presentation" 1280x800 --setup "$setups/roundtrip-mx.json" \
    --presentation "$presentation"
done
# The dot sweep's table: in equal shares its accumulation column cut "f32 sequential rne" (126 px
# in 113) at 1280x800.
cat > "$tmp/dot.json" <<'JSON'
{"experiment": "dot", "lengths": [16, 256], "trials": 8,
 "accumulate": ["f32:sequential", "f16:chunked:128", "bf16:pairwise:32:rtz"]}
JSON
check "experiment, dot sweep" 1280x800 --setup "$tmp/dot.json"
# In presentation mode a longer estimate header left "f16 chunked(128) -> f32 rne" 296 px in 293.
check "experiment, dot sweep, presentation on" 1280x800 --setup "$tmp/dot.json" --presentation on
# At 1920x1080 in presentation mode the Explorer's columns stand side by side (stacked, two lines
# a row, they left five formats in view): they fit the width with every value's neighbours.
# Just past where they start to stand side by side, -3e38's neighbours ran 2 px past 1850 px.
for value in 0.1 1e-40 -3e38; do
  for size in 1920x1080 1850x1000; do
    check "explorer, $value, presentation on" "$size" --panel explorer --value "$value" --presentation on
  done
done
# A long story beside figures in presentation mode shows six lines at least and keeps its look-at
# in view (stacked above the figures at 1280x800, two lines of it stood above them, and ten
# scenarios scrolled the look-at below their pane); a link wider than its column wraps (scenario
# 13's ran past the column's edge).
for scenario in 18 29 13; do check "scenario $scenario, presentation on" 1280x800 --scenario "$scenario" --presentation on; done
check "scenario 5, presentation on" 1600x1000 --scenario 5 --presentation on
# A projector's presentation mode: the figures alone (F), and the checks in their tab.
check "scenario 22, figure only, presentation on" 1280x800 --scenario 22 --figure-only --presentation on
check "scenario 10, checks tab, presentation on" 1280x800 --scenario 10 --figure checks --presentation on
check "scenario 30, panel only, presentation on" 1280x800 --scenario 30 --figure-only --presentation on
echo "layout: $checked views checked, $failed failed"
((failed == 0))
