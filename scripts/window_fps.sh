#!/usr/bin/env bash
# The window's frame rate while long work runs beside it (docs/user-guide.md), recorded as a file:
# the real window under Xvfb and Mesa's software renderer, driven by synthesised keys (xdotool),
# its --verbose frame reports ("59.8 fps over 2.0 s, slowest frame 21 ms") kept per phase:
#   idle         the Promotion panel, nothing running;
#   experiment   Ctrl+3 runs a 2048x4096x2048 linear layer with float16 accumulation (seconds of
#                work on the experiment's worker threads);
#   throughput   Ctrl+4: the Throughput panel's live sampler (OpenBLAS on every core).
# The loop is capped at 60 frames a second.
#   bash scripts/window_fps.sh [OUT_FILE]     # default: stdout; needs xvfb-run and xdotool
set -uo pipefail
command -v xvfb-run >/dev/null || { echo "window_fps: xvfb-run is not installed" >&2; exit 1; }
command -v xdotool >/dev/null || { echo "window_fps: xdotool is not installed" >&2; exit 1; }
root=$(cd "$(dirname "$0")/.." && pwd)
PL=${PL:-$root/build/precision-lab}
[[ $PL == /* ]] || PL=$root/$PL
if [[ -z "${PL_INSIDE_XVFB:-}" ]]; then
  exec env PL_INSIDE_XVFB=1 PL="$PL" xvfb-run -a -s '-screen 0 1600x1000x24' bash "$0" "$@"
fi
out=${1:-/dev/stdout}
work=$(mktemp -d)
trap 'kill "$pid" 2>/dev/null; [[ -n ${KEEP_LOG:-} ]] && cp "$log" "$KEEP_LOG"; rm -rf "$work"' EXIT
log=$work/window.log
export XDG_CONFIG_HOME=$work/config
pid=""
fail() {
  echo "window_fps: $*" >&2
  exit 1
}
wait_for() {  # wait_for PATTERN SECONDS: until the window's log has a line matching PATTERN
  local t=0
  until grep -qE -- "$1" "$log"; do
    kill -0 "$pid" 2>/dev/null || fail "the window exited while waiting for /$1/"
    sleep 0.1
    t=$((t + 1))
    ((t > $2 * 10)) && fail "no /$1/ in the window's log after $2 s"
  done
}
# Held keys, as a person presses them (the window reads key state once a frame).
press() { xdotool keydown "$1"; sleep 0.5; xdotool keyup "$1"; sleep 0.4; }
frames() { grep -c '^\[frames\]' "$log"; }
# phase NAME FROM: the frame reports since line FROM of the reports, under a heading.
phase() { echo "## $1"; grep '^\[frames\]' "$log" | tail -n +"$(($2 + 1))"; }

cat >"$work/setup.json" <<'JSON'
{"experiment": "linear", "m": 2048, "n": 2048, "k": 4096, "input": "float16", "weight": "float16",
 "output": "float32", "accumulate": "float16:sequential"}
JSON
"$PL" --panel promotion --setup "$work/setup.json" --size 1600x1000 --no-settings --verbose >"$log" 2>&1 &
pid=$!
wait_for '^\[frames\]' 60
start=$(frames)  # the idle phase begins after the first report, which holds the start-up
win=$(xdotool search --sync --onlyvisible --name 'Precision Lab' | head -1)
[[ -n $win ]] || fail "no window named Precision Lab"
xdotool windowfocus --sync "$win" 2>/dev/null || xdotool windowactivate --sync "$win" 2>/dev/null
sleep 6
{
  echo "date: $(date -u +%FT%TZ)"
  echo "cpu: $(grep -m1 '^model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) threads"
  echo "renderer: Xvfb with Mesa's software renderer"
  echo "commit: $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)"
  echo "window: 1600x1000, the loop capped at 60 fps"
} >"$work/report"
phase idle "$start" >>"$work/report"
before=$(frames)
press ctrl+3
wait_for '\] experiment: linear .*, [0-9.]+ s$' 600
phase "experiment (2048x4096x2048, float16 sequential accumulation, on the worker threads)" "$before" >>"$work/report"
grep -E '\] experiment: ' "$log" | tail -1 | cut -c1-200 >>"$work/report"
before=$(frames)
press ctrl+4
wait_for 'throughput: sampling [0-9]+ dtypes' 60
sleep 10
phase "throughput (the live sampler)" "$before" >>"$work/report"
press ctrl+q
for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
cat "$work/report" >"$out" || fail "could not write $out"
