#!/usr/bin/env bash
# A sweep of hostile invocations of the binary ($PL): bad values for the options of every
# command, and broken or hostile files. Each must end with exit 2 (bad input) and a message on
# standard error -- never a crash, a hang, exit 0 or a result folder left behind.
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
fails=0 passes=0
expect2() {  # ARGS...: exit 2, something on stderr, nothing new in the folder
  local before after err rc
  before=$(ls -A | sort)
  err=$(timeout 60 "$PL" "$@" 2>&1 >/dev/null); rc=$?
  after=$(ls -A | sort)
  if [[ $rc -eq 2 && -n $err && $before == "$after" ]]; then
    passes=$((passes + 1))
  else
    echo "FAIL (status $rc): precision-lab $*"; echo "  $err" | head -3
    [[ $before != "$after" ]] && echo "  left behind: $(comm -13 <(echo "$before") <(echo "$after") | tr '\n' ' ')"
    fails=$((fails + 1))
  fi
}

# Values no option should take.
bad_numbers=(-1 abc 1e12 18446744073709551616 "" 0x10 " 3")
bad_names=("" "float17" "$(printf 'x%.0s' {1..300})" "$(printf 'a\033]0;t\007')" "bfloat16:" "::")

for v in "${bad_numbers[@]}"; do
  for opt in --seed --m --n --threads; do expect2 matmul --k 4 "$opt" "$v"; done
  for opt in --trials --seed; do expect2 dot --k 16 "$opt" "$v"; done
  for opt in --steps --features --samples --seed; do expect2 train "$opt" "$v"; done
  for opt in --rows --cols --seed; do expect2 roundtrip --dtype float16 "$opt" "$v"; done
  expect2 bench --elements "$v"
done
for v in "${bad_names[@]}"; do
  expect2 matmul --m 4 --n 4 --k 4 --input-dtype "$v"
  expect2 matmul --m 4 --n 4 --k 4 --accumulate "$v"
  expect2 dot --k 16 --trials 2 --accumulate "$v"
  expect2 train --models "$v"
  expect2 cast --to "$v" 1.5
  expect2 promote "$v" float32
  expect2 promote float32 float64 --framework "$v"
  expect2 promote float32 float64 --op "$v"
  expect2 roundtrip --dtype "$v"
  expect2 scenario run "$v"
done
for v in "1,2" "1,x,3,3" "0,1,3,3" "-1,1,3,3" "1,1,3,3,3" "1,2,3,3" "" "99999999999,1,1,1"; do
  expect2 promote float32 float64 --op conv2d --a-shape "$v"
done
expect2 promote float32 float64 --op add --a-shape 1,1,3,3
expect2 promote float32 float64 --op conv2d --groups 0
expect2 cast --to float16 "1.5.5"
expect2 cast --to int8 nan --int-overflow maybe
expect2 formats --no-such-option
expect2 no-such-command

# Hostile files.
printf '{"experiment": "matmul", "m": 8, "m": 4096}' >dup.json
python3 -c "print('[' * 200000 + ']' * 200000)" >deep.json
printf '{"experiment": "matmul", "framework": ""}' >empty.json
printf '{"experiment": "train", "steps": 0}' >zero.json
printf '{"experiment": "dot", "lengths": [-1]}' >neg.json
printf '{"experiment": "nope"}' >kind.json
printf 'not json' >text.json
for f in dup deep empty zero neg kind text; do
  expect2 run "$f.json" --out "out-$f"
done
expect2 run missing.json --out out-missing
mkdir -p adir && expect2 run adir --out out-dir
python3 - <<'EOF'
import json, struct
def st(header, data):
    h = json.dumps(header).encode() if not isinstance(header, bytes) else header
    return struct.pack("<Q", len(h)) + h + bytes(data)
t = {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}
files = {
    "gap": st({"a": {"dtype": "F32", "shape": [2], "data_offsets": [4, 12]}}, 12),
    "overlap": st({"a": t, "b": {"dtype": "F32", "shape": [2], "data_offsets": [4, 12]}}, 12),
    "trailing": st({"a": t}, 12),
    "twice": struct.pack("<Q", 2 * len(json.dumps({"a": t})) + 1) + ("{" + json.dumps({"a": t})[1:-1] + "," + json.dumps({"a": t})[1:-1] + "}").encode().ljust(2 * len(json.dumps({"a": t})) + 1) + bytes(8),
    "meta": st({"a": t, "__metadata__": {"x": 1}}, 8),
    "escape": st({"\x1b]0;pwned\x07": t}, 8),
    "huge": struct.pack("<Q", 1 << 40) + b"{}",
    "short": b"\x01\x02",
    "dtype": st({"a": {"dtype": "C64", "shape": [1], "data_offsets": [0, 8]}}, 8),
    "escdtype": st({"a": {"dtype": "F\x1b[2J32", "shape": [2], "data_offsets": [0, 8]}}, 8),
    "array": st(b'[{"dtype":"F32","dtype":"F16"}]', 8),
}
for name, b in files.items():
    open(name + ".safetensors", "wb").write(b)
# A 2 x 2 float32 .npy as np.save writes it (without NumPy, which the test machine may lack):
# magic, version 1.0, the header padded with spaces to a multiple of 64 bytes, the data.
h = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }"
h = h + " " * (63 - (10 + len(h)) % 64) + "\n"
open("good.npy", "wb").write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(h)) + h.encode() + bytes(16))
raw = open("good.npy", "rb").read()
hdr_len = struct.unpack("<H", raw[8:10])[0]
hdr = raw[10:10 + hdr_len].decode()
def npy(h):
    h = h.ljust(hdr_len - 1) + "\n"
    return raw[:8] + struct.pack("<H", len(h)) + h.encode() + raw[10 + hdr_len:]
open("dupkey.npy", "wb").write(npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), 'shape': (4,), }"))
open("zeros.npy", "wb").write(npy("{'descr': '<f4', 'fortran_order': False, 'shape': (02, 2), }"))
open("truncated.npy", "wb").write(raw[:-3])
open("escdescr.npy", "wb").write(npy("{'descr': '<f\x1b[2J4', 'fortran_order': False, 'shape': (2, 2), }"))
json.dump({"weight_map": {"a.weight": "x\x1b[2Jy.safetensors"}}, open("esc.safetensors.index.json", "w"))
json.dump({"experiment": "matmul", "colo\x1b[2Jur": 1}, open("esckey.json", "w"))
EOF
for f in gap overlap trailing twice meta huge short dtype array; do
  expect2 tensors "$f.safetensors"
  expect2 matmul --a "$f.safetensors:a" --b "$f.safetensors:a"
done
for f in dupkey zeros truncated; do
  expect2 tensors "$f.npy"
  expect2 matmul --a "$f.npy" --b good.npy
done
expect2 matmul --a models.safetensors.d/x.npy --b good.npy
expect2 matmul --a good.npy --b good.npy --m 4
expect2 matmul --m 4 --n 4 --k 4 --raw
# An escape sequence in a name never reaches the terminal raw (the file itself is valid).
expect2 matmul --a "escape.safetensors:a" --b "escape.safetensors:a"
if "$PL" tensors escape.safetensors 2>&1 | grep -q $'\033'; then echo "FAIL: an escape sequence reached the terminal"; fails=$((fails + 1)); else passes=$((passes + 1)); fi
# Nor in a dtype, a shard's name or a key of an experiment file: each was printed raw.
for cmd in "tensors escdtype.safetensors" "tensors escdescr.npy" "matmul --a escdescr.npy --b good.npy" \
  "scan esc.safetensors.index.json" "run esckey.json --out out-esckey"; do
  # shellcheck disable=SC2086
  expect2 $cmd
  # shellcheck disable=SC2086
  if "$PL" $cmd 2>&1 | grep -q $'\033'; then echo "FAIL: an escape sequence reached the terminal: $cmd"; fails=$((fails + 1)); else passes=$((passes + 1)); fi
done

echo "hostile sweep: $passes passed, $fails failed"
((passes >= 150)) || { echo "FAIL: fewer than 150 hostile invocations ran"; exit 1; }
((fails == 0))
