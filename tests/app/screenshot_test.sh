#!/usr/bin/env bash
# Takes a screenshot of the window (headless through EGL surfaceless, or under xvfb-run) and
# checks it is a real picture of a panel (Formats, or Promotion in compare mode,
# across settings or across frameworks): right size, not blank, many colours.
# Exit 77 (ctest: skipped) when the needed tool is missing.
set -u
mode=$1
out=$(mktemp -d)/formats.png
# Screenshots start from the remembered settings, as the window does: never the user's own.
export XDG_CONFIG_HOME=$(dirname "$out")/config
if [[ $mode == settings ]]; then  # the remembered size and panel apply, unless --no-settings
  mkdir -p "$XDG_CONFIG_HOME/precision-lab"
  echo '{"panel": "explorer", "presentation": true, "width": 900, "height": 700}' \
    > "$XDG_CONFIG_HOME/precision-lab/settings.json"
  log=$(env -u DISPLAY -u WAYLAND_DISPLAY "$PL" --screenshot "$out" --verbose 2>&1) || { echo "$log"; exit 1; }
  grep -q "wrote $out (900x700)" <<<"$log" || { echo "remembered size not used:"; echo "$log"; exit 1; }
  grep -q "window: opened 900x700" <<<"$log" || { echo "$log"; exit 1; }
  # The backend is looked for off the UI thread (opening CUDA takes a while): its line comes when
  # found, and the screenshot waits for it.
  grep -q "window: backend: cpu" <<<"$log" || { echo "backend not logged:"; echo "$log"; exit 1; }
  log=$(env -u DISPLAY -u WAYLAND_DISPLAY "$PL" --screenshot "$out" --no-settings 2>&1) || { echo "$log"; exit 1; }
  grep -q "wrote $out (1400x860)" <<<"$log" || { echo "--no-settings read them:"; echo "$log"; exit 1; }
  # A screenshot never writes them back.
  grep -q '"width": 900' "$XDG_CONFIG_HOME/precision-lab/settings.json" || { echo "settings rewritten"; exit 1; }
  echo "ok: settings apply to screenshots; --no-settings leaves them out"
  exit 0
fi
if [[ $mode == promotion ]]; then  # the Promotion panel in compare mode, headless
  env -u DISPLAY -u WAYLAND_DISPLAY "$PL" --screenshot "$out" --size 1280x800 --panel promotion \
    --op add --compare on --select float16,float64 || exit 1
elif [[ $mode == promotion-frameworks ]]; then  # NumPy 2 against NumPy 1 on a Python int value
  env -u DISPLAY -u WAYLAND_DISPLAY "$PL" --screenshot "$out" --size 1280x800 --panel promotion \
    --framework numpy --compare-with numpy1 --op add --b-kind scalar --b-value 300 \
    --select int8,int64 || exit 1
elif [[ $mode == experiment ]]; then  # the Experiment panel on a saved setup, its figure drawn
  setup=$(dirname "$out")/setup.json
  cat > "$setup" <<'JSON'
{"experiment": "linear", "m": 128, "n": 128, "k": 512, "input": "float8_e4m3fn",
 "weight": "float8_e4m3fn", "input_scaling": "per-tensor", "weight_scaling": "per-tensor",
 "accumulate": "f32:sequential", "output": "bfloat16", "input_data": "outlier-channels"}
JSON
  env -u DISPLAY -u WAYLAND_DISPLAY "$PL" --screenshot "$out" --size 1280x800 --setup "$setup" || exit 1
elif [[ $mode == experiment-heatmap ]]; then  # the error heat map, its cells from the shader
  setup=$(dirname "$out")/setup.json
  echo '{"experiment": "linear", "m": 96, "n": 128, "k": 256, "input": "bfloat16", "weight": "bfloat16"}' > "$setup"
  log=$(env -u DISPLAY -u WAYLAND_DISPLAY "$PL" --screenshot "$out" --size 1280x800 --verbose --setup "$setup" \
        --figure error-heatmap 2>&1) || { echo "$log"; exit 1; }
  if grep -q 'heat map shader' <<<"$log"; then echo "$log"; exit 1; fi  # it did not compile or draw
elif [[ $mode == experiment-files ]]; then  # tensors opened as if dropped: shapes from the files
  io=$(dirname "$0")/../data/io
  log=$(env -u DISPLAY -u WAYLAND_DISPLAY "$PL" --screenshot "$out" --size 1280x800 --verbose \
        --open "$io/f64.npy" --open "$io/f16.npy") || { echo "$log"; exit 1; }
  for want in 'experiment: input file: .*/f64\.npy' 'experiment: weight file: .*/f16\.npy' \
              'experiment: linear m=3 k=4 n=3 '; do
    grep -qE -- "$want" <<<"$log" || { echo "no /$want/ in:"; echo "$log"; exit 1; }
  done
elif [[ $mode == experiment-kinds ]]; then  # the MLP, the dot sweep and the round trip from their experiment files
  dir=$(dirname "$out")
  echo '{"experiment": "mlp", "layers": 6, "width": 64, "batch": 16, "input": "bfloat16", "weight": "bfloat16"}' > "$dir/mlp.json"
  echo '{"experiment": "dot", "lengths": [16, 1024], "a": "float16", "b": "float16",
         "accumulate": ["f16:sequential", "f32:sequential"], "trials": 16, "backend": "cuda"}' > "$dir/dot.json"
  log=$(env -u DISPLAY -u WAYLAND_DISPLAY "$PL" --screenshot "$dir/mlp.png" --size 1280x800 --verbose --setup "$dir/mlp.json") ||
    { echo "$log"; exit 1; }
  grep -qE 'experiment: mlp 6 layers, width 64, batch 16, bfloat16 x bfloat16: last layer' <<<"$log" || { echo "$log"; exit 1; }
  log=$(env -u DISPLAY -u WAYLAND_DISPLAY "$PL" --screenshot "$out" --size 1280x800 --verbose --setup "$dir/dot.json") ||
    { echo "$log"; exit 1; }
  grep -qE 'experiment: dot sweep float16 x float16, 4 rows: at K = 1024 \(f32 sequential rne\)' <<<"$log" || { echo "$log"; exit 1; }
  # The sweep asked for CUDA: it ran there, or (no GPU) on the CPU saying why.
  grep -qE 'gamma_K .*, on (cuda \(|cpu \(cuda unavailable: )' <<<"$log" || { echo "$log"; exit 1; }
  echo '{"experiment": "roundtrip", "rows": 64, "cols": 256, "dtype": "float4_e2m1fn", "scaling": "nvfp4",
         "rounding": "stochastic", "data": "heavy-tailed", "backend": "cuda"}' > "$dir/cast.json"
  log=$(env -u DISPLAY -u WAYLAND_DISPLAY "$PL" --screenshot "$dir/cast.png" --size 1280x800 --verbose --setup "$dir/cast.json") ||
    { echo "$log"; exit 1; }
  grep -qE 'experiment: cast 64 x 256 through float4_e2m1fn \(nvfp4, stochastic\): normwise .*, on (cuda \(|cpu \(cuda unavailable: )' <<<"$log" ||
    { echo "$log"; exit 1; }
  # A cast of a tensor file takes the file's shape (3 x 4).
  echo "{\"experiment\": \"cast\", \"dtype\": \"bfloat16\", \"input_file\": \"$PL_DATA/io/f64.npy\"}" > "$dir/castfile.json"
  log=$(env -u DISPLAY -u WAYLAND_DISPLAY "$PL" --screenshot "$dir/castfile.png" --size 1280x800 --verbose --setup "$dir/castfile.json") ||
    { echo "$log"; exit 1; }
  grep -qE 'experiment: cast 3 x 4 through bfloat16 \(none, rne\)' <<<"$log" || { echo "$log"; exit 1; }
elif [[ $mode == explorer ]]; then  # the float explorer on float8's largest value, headless
  env -u DISPLAY -u WAYLAND_DISPLAY "$PL" --screenshot "$out" --size 1280x800 --panel explorer --value 448 || exit 1
elif [[ $mode == xvfb ]]; then
  command -v xvfb-run >/dev/null || { echo "xvfb-run not installed: skipped"; exit 77; }
  xvfb-run -a -s '-screen 0 1600x1000x24' "$PL" --screenshot "$out" --size 1280x800 --value 65520 || exit 1
else
  env -u DISPLAY -u WAYLAND_DISPLAY "$PL" --screenshot "$out" --size 1280x800 --value 0.1 || exit 1
fi
python3 - "$out" "$mode" <<'PY'
import struct, sys, zlib
path = sys.argv[1]
data = open(path, "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
w, h = struct.unpack(">II", data[16:24])
assert (w, h) == (1280, 800), f"size {w}x{h}"
# Decode the IDAT stream (8-bit RGBA, filter bytes per row) and count distinct colours.
idat = b"".join(data[i + 8:i + 8 + struct.unpack(">I", data[i:i + 4])[0]]
                for i in range(8, len(data)) if data[i + 4:i + 8] == b"IDAT")
raw = zlib.decompress(idat)
bpp = {6: 4, 2: 3}[data[25]]  # RGBA or RGB, 8 bits a channel
stride = w * bpp + 1
rows = [raw[y * stride + 1:(y + 1) * stride] for y in range(h)]
colours = {rows[y][x:x + bpp] for y in range(0, h, 3) for x in range(0, w * bpp, 3 * bpp)}
assert len(colours) > 20, f"only {len(colours)} colours: blank picture?"
if len(sys.argv) > 2 and sys.argv[2] == "experiment-heatmap":  # 96 x 128 cells through RdBu
    assert len(colours) > 200, f"only {len(colours)} colours: no heat map?"
if len(sys.argv) > 2 and sys.argv[2] in ("experiment", "explorer"):  # a figure on white
    # The figure is drawn on white: a large white area with coloured bars in it. Count white
    # pixels on the unfiltered image (PNG rows carry a filter: None, Sub, Up, Average, Paeth).
    pix, prev = [], bytearray(w * bpp)
    for y in range(h):
        f, line = raw[y * stride], bytearray(raw[y * stride + 1:(y + 1) * stride])
        for i in range(len(line)):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1: line[i] = (line[i] + a) & 255
            elif f == 2: line[i] = (line[i] + b) & 255
            elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p_ = a + b - c
                pa, pb, pc = abs(p_ - a), abs(p_ - b), abs(p_ - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        pix.append(bytes(line))
        prev = line
    white = sum(1 for y in range(0, h, 3) for x in range(0, w * bpp, 3 * bpp) if pix[y][x:x + 3] == b"\xff\xff\xff")
    total = len(range(0, h, 3)) * len(range(0, w * bpp, 3 * bpp))
    assert white > 0.2 * total, f"figure area missing ({white} of {total} samples white)"
print(f"ok: {w}x{h}, {len(colours)} sampled colours")
PY
