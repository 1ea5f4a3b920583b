#!/usr/bin/env bash
# Fault injection on what the binary ($PL) writes: a full standard output, a full disk, a file or
# a link where a folder is expected, a folder that would mix two runs, and Ctrl-C, SIGTERM or
# SIGHUP at random points of a run. Each case ends with exit 0 (valid), 2 (bad input), 1 (the
# environment failed) or 130/143/129 (signal), and never with a partial result folder.
set -u
fails=0 passes=0 skips=0
tmp=$(mktemp -d)
trap 'umount "$tmp/tiny" 2>/dev/null; rm -rf "$tmp"' EXIT
ok() { echo "ok   $1"; passes=$((passes + 1)); }
bad() { echo "FAIL $1"; fails=$((fails + 1)); }
skip() { echo "SKIP $1"; skips=$((skips + 1)); }
status_is() {  # NAME WANT PATTERN -- COMMAND...: status and a line of stderr
  local name=$1 want=$2 pattern=$3; shift 4
  local err; err=$("$@" 2>&1 >/dev/null); local rc=$?
  if [[ $rc -eq $want ]] && grep -qE -- "$pattern" <<<"$err"; then ok "$name"; else bad "$name: status $rc (want $want): $err"; fi
}
# A result folder is complete: its JSON parses and no figure file is empty.
complete() {
  local d=$1 f
  [[ -s $d/result.json && -s $d/setup.json ]] || return 1
  python3 -c "import json,sys; [json.load(open(p)) for p in sys.argv[1:]]" "$d/result.json" "$d/setup.json" || return 1
  for f in "$d"/*; do [[ -s $f ]] || return 1; done
}
no_leftovers() { ! ls -A "$1" | grep -q '\.tmp-\|\.old-'; }

train=$tmp/train.json
echo '{"experiment": "train", "models": ["float32", "bfloat16"], "steps": 300}' >"$train"
long=$tmp/long.json
echo '{"experiment": "train", "models": ["float32", "bfloat16", "float16"], "steps": 3000, "samples": 512, "features": 32}' >"$long"

# Standard output that cannot be written is an error, not a success.
for cmd in "formats --json" "promote float16 float32" "cast --to float16 0.1" "scenario run 6"; do
  # shellcheck disable=SC2086
  status_is "stdout-full: $cmd" 1 'writing to standard output failed: No space left on device' -- \
    bash -c "\"\$0\" $cmd >/dev/full" "$PL"
done

# Help is standard output too; a closed pipe is a write error said, not a silent SIGPIPE death.
status_is help-to-dev-full 1 'writing to standard output failed' -- bash -c '"$0" --help >/dev/full' "$PL"
status_is cast-help-to-dev-full 1 'writing to standard output failed' -- bash -c '"$0" cast --help >/dev/full' "$PL"
status_is closed-pipe 1 'writing to standard output failed: Broken pipe' -- \
  bash -c '"$0" promote --table --json | head -c 10 >/dev/null; exit "${PIPESTATUS[0]}"' "$PL"

# A single output file: checked, written whole, never renamed over a device.
status_is npy-to-dev-full 1 'cannot write /dev/full: No space left on device' -- \
  "$PL" matmul --m 4 --n 4 --k 4 --out /dev/full
[[ -c /dev/full ]] && ok "dev-full-still-a-device" || bad "dev-full-still-a-device"
# A folder that cannot be made fails the command before its .npy is written: not one output of two.
status_is npy-with-unwritable-folder 1 'error: ' -- \
  "$PL" matmul --m 4 --n 4 --k 4 --save /proc/pl-never-made --out "$tmp/c.npy"
[[ ! -e $tmp/c.npy ]] && ok npy-not-written-without-its-folder || bad npy-not-written-without-its-folder

# Folders that would mix runs, or are not folders.
mkdir -p "$tmp/used" && echo stale >"$tmp/used/framework.json"
status_is run-nonempty 2 'is not empty: give --force' -- "$PL" run "$train" --out "$tmp/used"
[[ -f $tmp/used/framework.json ]] && ok run-nonempty-untouched || bad run-nonempty-untouched
status_is run-force 0 '' -- "$PL" run "$train" --out "$tmp/used" --force
if [[ ! -e $tmp/used/framework.json ]] && complete "$tmp/used"; then ok run-force-replaces-whole; else bad run-force-replaces-whole; fi
# --force never replaces a folder that is or holds an input of the run.
mkdir -p "$tmp/inputs"
cp "$train" "$tmp/inputs/train.json"
status_is run-force-over-its-input 2 'holds .*train.json, an input of this run' -- \
  "$PL" run "$tmp/inputs/train.json" --out "$tmp/inputs" --force
"$PL" matmul --m 4 --n 4 --k 4 --out "$tmp/inputs/a.npy" >/dev/null 2>&1
status_is matmul-force-over-its-operand 2 'an input of this run' -- \
  "$PL" matmul --a "$tmp/inputs/a.npy" --b "$tmp/inputs/a.npy" --save "$tmp/inputs" --force
status_is matmul-force-over-its-operand-parent 2 'an input of this run' -- \
  "$PL" matmul --a "$tmp/inputs/a.npy" --b "$tmp/inputs/a.npy" --save "$tmp" --force
if [[ -f $tmp/inputs/train.json && -f $tmp/inputs/a.npy ]]; then ok inputs-kept; else bad inputs-kept; fi
# --force replaces an earlier run's results, never a folder of other things ("explore 1 --out
# /dev" advised --force, which would have moved /dev aside and removed it).
mkdir -p "$tmp/mine" && echo "my notes" >"$tmp/mine/notes.txt" && echo '{}' >"$tmp/mine/result.json"
status_is force-over-other-files 2 'mine holds notes.txt, which no run writes: --force replaces only' -- \
  "$PL" explore 1 --format float16 --out "$tmp/mine" --force
status_is other-files-no-force-advice 2 'holds notes.txt, which no run writes: write the results to another folder' -- \
  "$PL" explore 1 --format float16 --out "$tmp/mine"
[[ -f $tmp/mine/notes.txt && -f $tmp/mine/result.json ]] && ok other-files-kept || bad other-files-kept
# Only the keys that name files are inputs: a folder named like the experiment's kind is not one.
echo '{"experiment": "train", "models": ["float32"], "steps": 50}' >"$tmp/train-kind.json"
(cd "$tmp" && "$PL" run train-kind.json --out train >/dev/null 2>&1)
status_is run-force-over-a-folder-named-like-a-value 0 '' -- bash -c 'cd "$0" && "$1" run train-kind.json --out train --force' "$tmp" "$PL"
# The folder the command runs in, or one above it, cannot be replaced: "--out . --force" failed
# after the work, "Device or resource busy" (exit 1, as if the machine were at fault).
mkdir -p "$tmp/here/deeper"
status_is out-is-the-working-folder 2 '\. is the folder this command runs in' -- \
  bash -c 'cd "$0" && "$1" explore 1 --format float16 --out . --force' "$tmp/here" "$PL"
status_is out-holds-the-working-folder 2 '\.\. holds the folder this command runs in' -- \
  bash -c 'cd "$0" && "$1" explore 1 --format float16 --out .. --force' "$tmp/here/deeper" "$PL"
[[ -d $tmp/here/deeper && -z $(ls -A "$tmp/here/deeper") ]] && ok working-folder-kept || bad working-folder-kept
# A folder that cannot be made is found before the work, not after it (an hour's scan was thrown
# away): nothing printed, exit 1.
out=$("$PL" explore 1 --format float16 --out /proc/precision-lab-nope/x 2>"$tmp/nope.err"); rc=$?
if [[ $rc -eq 1 && -z $out ]] && grep -q 'cannot create /proc/precision-lab-nope' "$tmp/nope.err"; then
  ok out-cannot-be-made-before-the-work
else
  bad "out-cannot-be-made-before-the-work: status $rc, stdout: ${out:0:80}, stderr: $(cat "$tmp/nope.err")"
fi
echo x >"$tmp/a-file"
status_is run-out-is-file 2 'exists and is not a folder' -- "$PL" run "$train" --out "$tmp/a-file"
status_is run-out-under-a-file 2 'a-file is not a folder: .* cannot be made in it' -- \
  "$PL" run "$train" --out "$tmp/a-file/sub"
status_is npy-out-is-a-folder 2 'is a folder: name the .npy file' -- "$PL" matmul --m 4 --n 4 --k 4 --out "$tmp/used"
# An existing --out file is replaced only with --force (a second run wrote over the first's
# result without a word), and never when the run reads it.
"$PL" matmul --m 4 --n 4 --k 4 --seed 1 --out "$tmp/kept.npy" >/dev/null 2>&1
sum_before=$(cksum <"$tmp/kept.npy")
status_is npy-out-exists 2 'kept.npy exists: give --force to replace it' -- \
  "$PL" matmul --m 4 --n 4 --k 4 --seed 2 --out "$tmp/kept.npy"
[[ $(cksum <"$tmp/kept.npy") == "$sum_before" ]] && ok npy-out-exists-untouched || bad npy-out-exists-untouched
status_is npy-out-force 0 '' -- "$PL" matmul --m 4 --n 4 --k 4 --seed 2 --out "$tmp/kept.npy" --force
[[ $(cksum <"$tmp/kept.npy") != "$sum_before" ]] && ok npy-out-force-replaces || bad npy-out-force-replaces
ln -s "$tmp/nowhere" "$tmp/dangling.npy"
status_is npy-out-dangling-link 2 'dangling.npy exists: give --force to replace it' -- \
  "$PL" matmul --m 4 --n 4 --k 4 --out "$tmp/dangling.npy"
status_is npy-out-is-its-operand 2 'is --b, an input of this run' -- \
  "$PL" matmul --a "$tmp/inputs/a.npy" --b "$tmp/kept.npy" --out "$tmp/kept.npy" --force
status_is npy-out-in-save 2 'lies in the --save folder' -- \
  "$PL" matmul --m 4 --n 4 --k 4 --save "$tmp/s" --out "$tmp/s/c.npy"
[[ ! -e $tmp/s ]] && ok npy-out-in-save-wrote-nothing || bad npy-out-in-save-wrote-nothing
# Bug: a missing folder for --out was found only after the work and the --save folder (exit 1,
# the folder left on disk without its .npy).
status_is npy-out-no-folder 2 'there is no folder .*/nowhere to write it in' -- \
  "$PL" matmul --m 4 --n 4 --k 4 --save "$tmp/s2" --out "$tmp/nowhere/c.npy"
[[ ! -e $tmp/s2 ]] && ok npy-out-no-folder-wrote-nothing || bad npy-out-no-folder-wrote-nothing
# A PNG past cairo's 32767 pixels a side is refused before the work, not after it.
status_is png-too-large 2 'a PNG is at most 32767 a side' -- \
  "$PL" run "$train" --out "$tmp/p1/p2/big" --size 10000x10000 --dpi 400
[[ ! -e $tmp/p1 ]] && ok png-too-large-made-nothing || bad png-too-large-made-nothing
ln -s "$tmp/used" "$tmp/a-link"
status_is run-out-is-link 2 'symbolic link' -- "$PL" run "$train" --out "$tmp/a-link"
status_is scenario-export-nonempty 2 'is not empty' -- "$PL" scenario export 6 --out "$tmp/used"
status_is dot-save-is-file 2 'exists and is not a folder' -- "$PL" dot --k 16 --trials 2 --save "$tmp/a-file"
status_is matmul-save-nonempty 2 'is not empty' -- "$PL" matmul --m 4 --n 4 --k 4 --save "$tmp/used"
no_leftovers "$tmp" && ok no-temporary-folders || bad no-temporary-folders

# An empty option value is an error, not "not given".
for opt in "--out" "--save" "--accumulate" "--backend" "--framework"; do
  status_is "empty-value $opt" 2 "$opt is given an empty value" -- "$PL" matmul --m 4 --n 4 --k 4 "$opt" ""
done
status_is "empty-value --out=" 2 '--out is given an empty value' -- "$PL" run "$train" --out=

# Whole numbers are whole numbers: no wrapping of -1 or 2^64 into an unsigned option.
status_is "seed--1" 2 "--seed: '-1' is not a whole number" -- "$PL" matmul --m 4 --n 4 --k 4 --seed -1
status_is "seed-2^64" 2 "--seed: '18446744073709551616' is not a whole number" -- "$PL" matmul --m 4 --n 4 --k 4 --seed 18446744073709551616
status_is "elements--1" 2 "--elements: '-1' is not a whole number" -- "$PL" bench --elements -1
status_is "elements-1e12" 2 "1e12" -- "$PL" bench --elements 1e12
status_is "elements-0" 2 "--elements must be from 1 to 2\^34" -- "$PL" bench --elements 0

# Work far past interactive scale is announced, not started.
status_is dot-too-long 2 'estimated .* hours here .*give --force' -- "$PL" dot --k 16777216 --trials 1000000
echo '{"experiment": "dot", "lengths": [16777216], "trials": 1000000}' >"$tmp/long-dot.json"
status_is run-dot-too-long 2 'give --force to run it anyway' -- "$PL" run "$tmp/long-dot.json" --out "$tmp/long-dot"
[[ ! -e $tmp/long-dot ]] && ok run-dot-too-long-wrote-nothing || bad run-dot-too-long-wrote-nothing

# A full disk: a tiny file system where the machine lets us mount one (CI runs as root).
mkdir -p "$tmp/tiny"
if mount -t tmpfs -o size=64k tmpfs "$tmp/tiny" 2>/dev/null; then
  status_is tiny-disk-run 1 "cannot write $tmp/tiny/r/" -- "$PL" run "$train" --out "$tmp/tiny/r"
  [[ -z $(ls -A "$tmp/tiny") ]] && ok tiny-disk-nothing-left || bad "tiny-disk-nothing-left: $(ls -A "$tmp/tiny")"
  status_is tiny-disk-npy 1 'No space left on device' -- "$PL" matmul --m 512 --n 512 --k 8 --out "$tmp/tiny/c.npy"
  [[ -z $(ls -A "$tmp/tiny") ]] && ok tiny-disk-no-npy || bad "tiny-disk-no-npy: $(ls -A "$tmp/tiny")"
  umount "$tmp/tiny"
else
  skip "tiny-disk: this machine does not let us mount a tmpfs (not root, or no mount namespace)"
fi

# SIGHUP (a closed terminal, a dropped ssh connection) while the work runs stops the work as
# Ctrl-C does, and says so: by default it would end the process with no word, and one that came
# while the results were written would leave their temporary folder behind.
out=$tmp/hup
"$PL" run "$long" --out "$out" >/dev/null 2>"$tmp/hup.err" &
pid=$!
# Once its handler is in place (SIGHUP, signal 1, is bit 0 of the caught signals' mask; before
# it, the signal kills with no word): the run takes seconds, so the signal comes during the work.
for _ in $(seq 100); do
  mask=$(awk '/^SigCgt:/ {print $2}' "/proc/$pid/status" 2>/dev/null)
  [[ -n $mask ]] && (((16#$mask) & 1)) && break
  sleep 0.05
done
kill -s HUP "$pid"
wait "$pid"; rc=$?
if [[ $rc -eq 129 && ! -e $out ]] && grep -q 'interrupted (Hangup)' "$tmp/hup.err"; then
  ok "sighup-stops-the-work (status 129, no folder, said so)"
else
  left=$(ls -A "$out" 2>/dev/null | tr '\n' ' ')
  bad "sighup-stops-the-work: status $rc, folder: $left, stderr: $(cat "$tmp/hup.err")"
fi

# A SIGHUP the caller ignores (nohup) stays ignored: the work outlives its terminal.
out=$tmp/nohup
bash -c 'trap "" HUP; exec "$0" run "$1" --out "$2"' "$PL" "$long" "$out" >/dev/null 2>&1 &
pid=$!
sleep 0.5  # (the run takes seconds)
kill -s HUP "$pid"
wait "$pid"; rc=$?
if [[ $rc -eq 0 ]] && complete "$out"; then
  ok sighup-under-nohup-is-ignored
else
  bad "sighup-under-nohup-is-ignored: status $rc"
fi

# A second signal ends the process at once, without waiting for the work to see the first: what
# it was writing (the hidden .NAME.tmp-* folder, and the folders made for it) goes with it, not
# left behind. Large figures keep the writing going for seconds; both signals come
# while it is. Where the work saw the first before the second came (it says "interrupted"), the
# second does nothing: tried again, up to five times.
second_signal_cut=false
for attempt in 1 2 3 4 5; do
  out=$tmp/twice/deeper/out
  "$PL" run "$long" --out "$out" --size 3000x2000 --dpi 300 >/dev/null 2>"$tmp/twice.err" &
  pid=$!
  for _ in $(seq 1500); do
    compgen -G "$tmp/twice/deeper/.out.tmp-*" >/dev/null && break
    sleep 0.02
  done
  kill -s TERM "$pid"
  sleep 0.02
  kill -s TERM "$pid" 2>/dev/null
  wait "$pid"; rc=$?
  if [[ $rc -ne 143 || -e $tmp/twice ]]; then
    bad "second-signal-leaves-nothing: status $rc, left: $(find "$tmp/twice" 2>/dev/null | head -5 | tr '\n' ' ')"
    second_signal_cut=true
    break
  fi
  if ! grep -q 'interrupted (' "$tmp/twice.err"; then
    ok "second-signal-leaves-nothing (status 143, no folder, no temporary folder; attempt $attempt)"
    second_signal_cut=true
    break
  fi
done
$second_signal_cut || bad "second-signal-leaves-nothing: in five attempts the work saw the first signal before the second came"

# Ctrl-C, SIGTERM and SIGHUP at random points: the folder is absent (exit 130/143/129) or
# complete (exit 0).
for i in 1 2 3 4 5 6; do
  sig=INT want=130
  ((i % 3 == 2)) && sig=TERM want=143
  ((i % 3 == 0)) && sig=HUP want=129
  out=$tmp/sig-$i
  "$PL" run "$long" --out "$out" >/dev/null 2>&1 &
  pid=$!
  sleep "$((RANDOM % 2)).$((RANDOM % 10))"  # 0 to 1.9 s: before, during and after the writing
  kill -s "$sig" "$pid" 2>/dev/null
  wait "$pid"; rc=$?
  if [[ $rc -eq $want && ! -e $out ]]; then
    ok "signal-$sig-$i (status $rc, no folder)"
  elif [[ $rc -eq 0 || $rc -eq $want ]] && complete "$out"; then
    # The results were in place before the signal came (or it came before the handler was set
    # and was ignored, as a background job's SIGINT is): complete either way.
    ok "signal-$sig-$i (finished first: status $rc, complete folder)"
  else
    bad "signal-$sig-$i: status $rc, folder: $(ls -A "$out" 2>/dev/null | tr '\n' ' ')"
  fi
done
no_leftovers "$tmp" && ok no-temporary-folders-after-signals || bad no-temporary-folders-after-signals

echo "$passes passed, $fails failed, $skips skipped"
((fails == 0))
