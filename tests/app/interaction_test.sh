#!/usr/bin/env bash
# Drives the real window under Xvfb with synthesised X input (xdotool, through XTEST) and
# checks what the window did -- from its run log (--verbose) and the files it writes:
#   arrow key in the Promotion grid -> the selected pair and PyTorch's message change;
#   the Scenarios tour steps with Right / PageDown and exports a story's slide set;
#   the Explorer steps through float32's values with Left / Right and exports its number lines;
#   F12 -> the whole window saved as a PNG of the window's size;
#   Ctrl+3 -> the Experiment panel runs its setup: float16 input, float32 weights under torch
#            raises "expected m1 and m2 to have the same dtype" and the fixes run;
#   Ctrl+E -> setup.json, framework.json and each fix's figures (PNG/SVG/PDF/CSV) exported, and
#            the exported setup re-runs from the command line to the same message;
#   wheel + Ctrl+S over a plot -> zoomed, and written as shown (PNG at its on-screen size);
#   Ctrl+4 -> the Throughput panel samples live; Ctrl+E exports its figures;
#   the accumulation probe's "Use in the Experiment panel" -> that panel runs the probed model;
#   F11    -> presentation mode on and off;
#   Ctrl+Q -> the window closes cleanly, logging the throughput medians on the way out, and
#            remembers its panel, mode and setup (XDG config): a second launch with no options
#            opens on the Throughput panel with the experiment's setup restored;
#   --setup alone -> the Experiment panel, over the remembered panel;
#   Scan pressed again in the Checkpoint panel -> a second scan, the window alive; Ctrl+E there
#            -> the folder scan --out writes;
#   SIGINT (Ctrl-C in the terminal) -> the window closes on its own way out, status 130;
#   settings that cannot be saved on the way out -> exit 1, said on stderr.
# Exit 77 (ctest: skipped) when xvfb-run or xdotool is missing.
set -u
command -v xvfb-run >/dev/null || { echo "xvfb-run not installed: skipped"; exit 77; }
command -v xdotool >/dev/null || { echo "xdotool not installed: skipped"; exit 77; }
if [[ -z "${PL_INSIDE_XVFB:-}" ]]; then
  exec env PL_INSIDE_XVFB=1 xvfb-run -a -s '-screen 0 1400x900x24' bash "$0" "$@"
fi
data=$(cd "$(dirname "$0")/../data" && pwd)  # (before the cd below: $0 may be relative)
work=$(mktemp -d)
cd "$work" || exit 1
log=$work/window.log
export XDG_CONFIG_HOME=$work/config  # never the user's own settings
pid=""
fail() {
  echo "FAIL: $*"
  echo "--- window log ---"; cat "$log"
  [[ -n $pid ]] && kill "$pid" 2>/dev/null
  exit 1
}
# wait_for PATTERN [SECONDS]: until the window log has a line matching PATTERN (ERE).
wait_for() {
  local pattern=$1 limit=${2:-60} t=0
  until grep -qE -- "$pattern" "$log"; do
    kill -0 "$pid" 2>/dev/null || fail "the window exited while waiting for /$pattern/"
    sleep 0.1
    t=$((t + 1))
    ((t > limit * 10)) && fail "no /$pattern/ in the log after ${limit}s"
  done
  echo "ok   log: $(grep -E -- "$pattern" "$log" | tail -1 | cut -c1-160)"
}
# press KEYS [SECONDS]: held, as a person presses a key. Dear ImGui 1.86 reads key state once a
# frame, so a press and release within one frame -- xdotool key's default -- is never seen; on a
# loaded machine a frame can take 400 ms, so keys are held 0.5 s (below X's 660 ms autorepeat).
# After the release it waits as long again: a release and the next press of the same key within
# one frame would read as no press at all (F11 twice, Left twice).
press() { xdotool keydown "$1"; sleep "${2:-0.5}"; xdotool keyup "$1"; sleep 0.4; }
# quit WHICH [STATUS]: Ctrl+Q; the window must be gone within 10 s, with exit status STATUS (0).
quit() {
  press ctrl+q
  for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -0 "$pid" 2>/dev/null && fail "Ctrl+Q did not close the $1 window"
  wait "$pid"
  local status=$?
  ((status == ${2:-0})) || fail "the $1 window exited with status $status, not ${2:-0}"
}
png_size() { python3 -c 'import struct,sys; d=open(sys.argv[1],"rb").read(24); assert d[:8]==b"\x89PNG\r\n\x1a\n"; print("%dx%d" % struct.unpack(">II", d[16:24]))' "$1"; }

cat > setup.json <<'JSON'
{"experiment": "linear", "m": 96, "n": 96, "k": 256, "input": "float16", "weight": "float32",
 "output": "float32", "framework": "torch"}
JSON
"$PL" --panel promotion --op linear --select float16,float16 --setup setup.json --size 1400x860 --verbose >"$log" 2>&1 &
pid=$!
wait_for 'promotion: torch 2\.15\.0 \(cpu\): linear\(torch\.float16, torch\.float16\) -> torch\.float16'
win=$(xdotool search --sync --onlyvisible --name 'Precision Lab' | head -1)
[[ -n $win ]] || fail "no window named Precision Lab"
xdotool windowfocus --sync "$win" 2>/dev/null || xdotool windowactivate --sync "$win" 2>/dev/null
sleep 1

# 1. Promotion: one step right in the grid changes the weight dtype and the answer.
# (Held briefly: ImGui repeats a held arrow key, and any other weight dtype raises alike.)
press Right 0.2
wait_for 'promotion: torch 2\.15\.0 \(cpu\): linear\(torch\.float16, torch\.[a-z0-9_]+\) RuntimeError: expected m1 and m2 to have the same dtype'

# 2. F12: the window as a PNG.
press F12
wait_for 'window: saved the window to .*\.png'
shot=$(grep -oE 'saved the window to [^ ]+\.png' "$log" | tail -1 | sed 's/saved the window to //')
[[ -f $shot ]] || fail "no file $shot"
[[ $(png_size "$shot") == 1400x860 ]] || fail "window PNG is $(png_size "$shot"), not 1400x860"
(($(stat -c %s "$shot") > 20000)) || fail "window PNG is suspiciously small"
echo "ok   window PNG $shot $(png_size "$shot")"

# 3. Experiment panel: the framework raises, the fixes run.
press ctrl+3
wait_for 'experiment: torch 2\.15\.0 \(cpu\): linear\(x: torch\.float16, w: torch\.float32\) raises RuntimeError: expected m1 and m2 to have the same dtype, but got: c10::Half != float; 3 of 3 fixes run'

# 4. Export all, then re-run the exported setup from the command line.
press ctrl+e
wait_for 'experiment: exported to '
# One press, one export (a held Ctrl+E once repeated and two exports shared a folder).
sleep 1
(($(grep -c 'experiment: exported to ' "$log") == 1)) || fail "one Ctrl+E exported more than once"
dir=$(grep -oE 'experiment: exported to [^ ]+' "$log" | tail -1 | sed 's/experiment: exported to //')
for f in setup.json framework.json fix-1/setup.json fix-1/result.json fix-1/error-attribution.png \
         fix-1/error-attribution.svg fix-1/error-attribution.pdf fix-1/error-attribution.csv fix-2/error-heatmap.png; do
  [[ -s $dir/$f ]] || fail "export lacks $f"
done
grep -q '"framework": "torch"' "$dir/setup.json" || fail "setup.json lacks the framework"
grep -q 'expected m1 and m2 to have the same dtype' "$dir/framework.json" || fail "framework.json lacks the message"
rerun=$("$PL" run "$dir/setup.json" --out "$work/rerun" 2>&1) || fail "re-running the exported setup failed: $rerun"
grep -q 'raises RuntimeError: expected m1 and m2 to have the same dtype' <<<"$rerun" || fail "re-run says: $rerun"
echo "ok   export $dir re-runs from the command line"

# 4b. A plot answers the mouse: over it, the wheel zooms about the pointer and Ctrl+S writes the
# plot as shown (PNG at the size on screen, SVG, PDF, CSV). The plot's place depends on the
# layout, so the pointer tries a few heights down the figure column until one is over it.
for y in 700 620 540 760 460; do
  xdotool mousemove --window "$win" 900 "$y"; sleep 0.3
  xdotool click 4; sleep 0.5  # wheel up: zoom in
  xdotool keydown ctrl keydown s; sleep 0.5; xdotool keyup s keyup ctrl; sleep 0.8
  grep -q 'experiment: wrote ' "$log" && break
done
wait_for 'experiment: wrote [^ ]+\.png [^ ]+\.svg [^ ]+\.pdf [^ ]+\.csv \([0-9]+x[0-9]+, zoomed\)'
line=$(grep -E 'experiment: wrote ' "$log" | tail -1)
plot=$(grep -oE '[^ ]+\.png' <<<"$line")
shown=$(grep -oE '\([0-9]+x[0-9]+' <<<"$line" | tr -d '(')
[[ $(png_size "$plot") == "$shown" ]] || fail "the plot PNG is $(png_size "$plot"), the plot on screen $shown"
echo "ok   zoomed plot written as shown ($shown)"

# 5. Throughput panel: live samples, exported figures.
press ctrl+4
wait_for 'throughput: sampling [0-9]+ dtypes'
sleep 3
press ctrl+e
wait_for 'throughput: exported to '
sleep 1
(($(grep -c 'throughput: exported to ' "$log") == 1)) || fail "one Ctrl+E exported the throughput figures more than once"
tdir=$(grep -oE 'throughput: exported to [^ ]+' "$log" | tail -1 | sed 's/throughput: exported to //')
for f in throughput-over-time.png throughput-over-time.svg throughput-by-dtype.pdf throughput-by-dtype.csv; do
  [[ -s $tdir/$f ]] || fail "throughput export lacks $f"
done
grep -q 'float32.*,bar,' "$tdir/throughput-by-dtype.csv" || fail "no float32 bar in the CSV"

# 5b. The guided tour: Ctrl+6 opens the Scenarios panel, Right and PageDown step forward, the
# third story exports its slide set; then back to Throughput (which the later checks expect).
press ctrl+6
wait_for 'scenario: 01-numpy-float64-into-float32-model: 8 of 8 checks pass'
press Right 0.3
wait_for 'scenario: 02-float32-times-float64: 8 of 8 checks pass'
press Next 0.3
wait_for 'scenario: 03-model-double-data-float32: 4 of 4 checks pass'
press ctrl+e
wait_for 'scenario: exported to '
sdir=$(grep -oE 'scenario: exported to [^ ]+' "$log" | tail -1 | sed 's/scenario: exported to //')
ev=evidence-0-nn-linear-x-float32-after-model-double-of-a  # the folder named after its label
for f in story.md checks.csv checks.json $ev/framework-fixes.png $ev/setup.json; do
  [[ -s $sdir/$f ]] || fail "scenario export lacks $f"
done
grep -qF 'Input type (float) and bias type (double) should be the same' "$sdir/story.md" || fail "story.md lacks the conv2d error"
echo "ok   tour stepped 1 -> 2 -> 3 and exported $sdir"

# 5c. The float explorer: Ctrl+7, Right steps to float32's next value above 0.1, Left twice to
# the one below; Ctrl+E writes the number lines and explore.json.
press ctrl+7
sleep 1
press Right 0.3
wait_for 'explorer: next above in float32: 0\.1 -> 0\.10000000894069672'
press Left 0.3
wait_for 'explorer: next below in float32: 0\.10000000894069672 -> 0\.10000000149011612'
press Left 0.3
wait_for 'explorer: next below in float32: 0\.10000000149011612 -> 0\.09999999403953552'
press ctrl+e
wait_for 'explorer: exported to '
edir=$(grep -oE 'explorer: exported to [^ ]+' "$log" | tail -1 | sed 's/explorer: exported to //')
for f in explore.json number-line-float32.png number-line-float8_e4m3fn.svg number-line-float16.csv; do
  [[ -s $edir/$f ]] || fail "explorer export lacks $f"
done
grep -q '"x": "0.09999999403953552"' "$edir/explore.json" || fail "explore.json has another x"
echo "ok   explorer stepped through float32 and exported $edir"

# 5d. Back in the Promotion panel, Enter runs the selected pair (float16 and the dtype step 1
# chose) in the Experiment panel under torch's rules: it raises there too, and the fixes run.
press ctrl+2
press Return
wait_for 'experiment: from the Promotion grid: float16 x [a-z0-9_]+ under torch \(linear\)'
wait_for 'experiment: torch 2\.15\.0 \(cpu\): linear\(x: torch\.float16, w: torch\.[a-z0-9_]+\) raises RuntimeError: expected m1 and m2 to have the same dtype.*fixes run'
grep -qE 'experiment: torch .*linear\(x: torch\.float16, w: torch\.float32\)' <(tail -1 <(grep 'experiment: torch' "$log")) &&
  fail "Enter did not change the experiment's weight dtype"
echo "ok   the Promotion grid's pair ran in the Experiment panel"
press ctrl+4


# 6. F11 twice: presentation mode on, then off.
press F11
wait_for 'window: presentation mode on'
press F11
wait_for 'window: presentation mode off'

# 7. Ctrl+Q: a clean exit.
quit first
grep -qE 'throughput: medians: .*float32 [0-9.]+ GFLOP/s' "$log" || fail "no throughput medians logged"
echo "ok   closed with status 0"
grep -q '"panel": "throughput"' "$XDG_CONFIG_HOME/precision-lab/settings.json" || fail "settings.json: $(cat "$XDG_CONFIG_HOME/precision-lab/settings.json")"
grep -q '"framework": "torch"' "$XDG_CONFIG_HOME/precision-lab/last-setup.json" || fail "last-setup.json lacks the framework"
echo "ok   settings and setup remembered in $XDG_CONFIG_HOME/precision-lab"

# 8. A second launch, no options: the remembered panel, and the setup when Experiment is shown.
log=$work/window2.log
"$PL" --verbose >"$log" 2>&1 &
pid=$!
wait_for 'throughput: sampling [0-9]+ dtypes'
win=$(xdotool search --sync --onlyvisible --name 'Precision Lab' | head -1)
xdotool windowfocus --sync "$win" 2>/dev/null
sleep 1
press ctrl+3
wait_for 'experiment: torch 2\.15\.0 \(cpu\): linear\(x: torch\.float16, w: torch\.[a-z0-9_]+\) raises RuntimeError'
quit second
echo "ok   second launch restored the panel and the setup"

# 9. --setup alone opens on the Experiment panel and runs the file, though the remembered panel
# is Throughput (on the remembered panel the setup would never run).
log=$work/window3.log
"$PL" --setup setup.json --verbose >"$log" 2>&1 &
pid=$!
wait_for 'experiment: torch 2\.15\.0 \(cpu\): linear\(x: torch\.float16, w: torch\.float32\) raises RuntimeError'
win=$(xdotool search --sync --onlyvisible --name 'Precision Lab' | head -1)
xdotool windowfocus --sync "$win" 2>/dev/null
quit third
echo "ok   --setup opened on the Experiment panel"
# 10. The accumulation probe's model in the Experiment panel: open "How this device adds", probe
# float16, press "Use in the Experiment panel": the window switches to the Experiment panel and
# runs float16 x float16 with the model. (The Experiment tab is drawn before the Throughput tab,
# so a switch asked for while drawing must outlive that frame, or nothing runs.) The
# clicks are places in the 1400x860 layout: the header under the six dtypes' table, the Probe
# button, and the model's line, which comes first so that the device's description cannot move it.
# The table has a row for every chosen dtype from the first frame, so the clicks need not wait
# for samples. (When it grew a row with each dtype's first sample, a click a second after the
# sampling began missed the header on a loaded machine.)
log=$work/window4.log
"$PL" --panel throughput --size 1400x860 --verbose >"$log" 2>&1 &
pid=$!
wait_for 'throughput: sampling [0-9]+ dtypes'
win=$(xdotool search --sync --onlyvisible --name 'Precision Lab' | head -1)
xdotool windowfocus --sync "$win" 2>/dev/null
sleep 1
xdotool mousemove --window "$win" 200 341 click 1; sleep 1
xdotool mousemove --window "$win" 484 367 click 1
wait_for 'throughput: probed float16 on .*: model f32:sequential'
sleep 1  # the result's line is drawn a frame or two after the log says so (a loaded machine: more)
xdotool mousemove --window "$win" 405 390 click 1
wait_for 'experiment: from the accumulation probe: float16 x float16, accumulate f32:sequential'
wait_for 'experiment: linear m=[0-9]+ k=[0-9]+ n=[0-9]+ float16 x float16 -> float32'
quit fourth
echo "ok   the probe's model ran in the Experiment panel"

# 10. The first start (no settings yet) opens on the start screen; its first way in, key 1, runs
# the PyTorch story in the Experiment panel.
export XDG_CONFIG_HOME=$work/fresh-config
log=$work/window5.log
"$PL" --size 1400x860 --verbose >"$log" 2>&1 &
pid=$!
wait_for 'window: start screen shown'
win=$(xdotool search --sync --onlyvisible --name 'Precision Lab' | head -1)
xdotool windowfocus --sync "$win" 2>/dev/null
sleep 1
press 1
wait_for 'window: start: PyTorch: float16 input into a float32 layer'
wait_for 'experiment: torch 2\.15\.0 \(cpu\): linear\(x: torch\.float16, w: torch\.float32\) raises RuntimeError'
quit fifth
echo "ok   the start screen's first way in ran the PyTorch story"
# 11. The Checkpoint panel, its first scan from --checkpoint done: Scan again starts a second one.
# Bug: the button started it mid-frame, emptying the result the table went on to draw (the
# window died of std::bad_alloc or std::length_error).
log=$work/window-checkpoint.log
"$PL" --panel checkpoint --checkpoint "$data/checkpoint/sharded" --size 1400x860 --presentation off --verbose \
  >"$log" 2>&1 &
pid=$!
wait_for 'checkpoint: scanned 16 tensors'
win=$(xdotool search --sync --onlyvisible --name 'Precision Lab' | head -1)
xdotool windowfocus --sync "$win" 2>/dev/null
sleep 1
for _ in 1 2; do
  xdotool mousemove --window "$win" 1197 65 click 1  # Scan, after the path field, before Export plan
  sleep 1.5
done
for _ in $(seq 300); do  # the second scan's result, within 30 s
  (($(grep -c 'checkpoint: scanned 16 tensors' "$log") >= 2)) && break
  kill -0 "$pid" 2>/dev/null || fail "the window died after Scan was pressed again"
  sleep 0.1
done
(($(grep -c 'checkpoint: scanned 16 tensors' "$log") >= 2)) || fail "Scan pressed again scanned nothing"
sleep 1
kill -0 "$pid" 2>/dev/null || fail "the window died after Scan was pressed again"
grep -q 'checkpoint: exported' "$log" && fail "the click meant for Scan exported the plan"
# Ctrl+E writes the folder scan --out writes, the plan in it.
press ctrl+e
wait_for 'checkpoint: exported to precision-lab-export/[0-9-]+-checkpoint \(result\.json, plan\.csv'
folder=$(grep -oE 'exported to precision-lab-export/[0-9-]+-checkpoint' "$log" | tail -1 | cut -d' ' -f3)
for f in result.json tensors.csv frontier.csv plan.csv sqnr-heatmap.png plan-frontier.pdf; do
  [[ -s "$folder/$f" ]] || fail "the Checkpoint panel's export has no $f in $folder"
done
quit sixth
echo "ok   Scan pressed again in the Checkpoint panel scanned again; Ctrl+E exported the plan"
# 12. Ctrl-C in the terminal (SIGINT) a second after the Experiment panel starts a product of
# several seconds: the window closes on its own way out (its run cancelled and joined), exits
# 130 and says so, and leaves no temporary file (the settings it remembers on the way out are
# written whole).
log=$work/window6.log
cat > big.json <<'JSON'
{"experiment": "matmul", "m": 2048, "n": 2048, "k": 8192, "input": "float16", "weight": "float16",
 "output": "float32", "framework": "torch"}
JSON
"$PL" --setup big.json --verbose >"$log" 2>&1 &
pid=$!
wait_for 'window: opened'
sleep 1  # (the product takes several seconds: it is still running)
kill -INT "$pid"
for _ in $(seq 150); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
kill -0 "$pid" 2>/dev/null && fail "SIGINT did not close the window within 15 s"
wait "$pid"
status=$?
((status == 130)) || fail "the interrupted window exited with status $status, not 130"
wait_for 'error: interrupted \(Interrupt\): the window closed; nothing half-written was left behind' 1
leftovers=$(find "$work" -name '*.tmp-*')
[[ -z $leftovers ]] || fail "temporary files left behind: $leftovers"
echo "ok   SIGINT closed the window (status 130)"
# 13. Settings that cannot be written on the way out (the config folder's place taken by a file)
# are an environment failure: exit 1, said as every command says an error (Bug: it exited 0).
log=$work/window7.log
mkdir -p "$work/config-blocked" && : >"$work/config-blocked/precision-lab"
XDG_CONFIG_HOME=$work/config-blocked "$PL" --panel formats --size 800x600 --verbose >"$log" 2>&1 &
pid=$!
wait_for 'window: opened'
win=$(xdotool search --sync --onlyvisible --name 'Precision Lab' | head -1)
xdotool windowfocus --sync "$win" 2>/dev/null || xdotool windowactivate --sync "$win" 2>/dev/null
sleep 0.5
quit seventh 1
wait_for '^error: settings not saved: cannot create .*config-blocked/precision-lab' 1
echo "ok   settings that could not be saved: exit 1"
grep -h '^\[frames\]' "$work"/window*.log | sed 's/^/     /'
[[ -n "${PL_KEEP:-}" ]] && echo "kept $work" || rm -rf "$work"
