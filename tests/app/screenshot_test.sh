#!/usr/bin/env bash
# Takes a screenshot of the window (headless through EGL surfaceless, or under xvfb-run) and
# checks it is a real picture of a panel (Formats, or Promotion in compare mode,
# across settings or across frameworks): right size, not blank, many colours.
# Exit 77 (ctest: skipped) when the needed tool is missing.
set -u
mode=$1
out=$(mktemp -d)/formats.png
if [[ $mode == promotion ]]; then  # the Promotion panel in compare mode, headless
  env -u DISPLAY -u WAYLAND_DISPLAY "$PL" --screenshot "$out" --size 1280x800 --panel promotion \
    --op add --compare on --select float16,float64 || exit 1
elif [[ $mode == promotion-frameworks ]]; then  # NumPy 2 against NumPy 1 on a Python int value
  env -u DISPLAY -u WAYLAND_DISPLAY "$PL" --screenshot "$out" --size 1280x800 --panel promotion \
    --framework numpy --compare-with numpy1 --op add --b-kind scalar --b-value 300 \
    --select int8,int64 || exit 1
elif [[ $mode == xvfb ]]; then
  command -v xvfb-run >/dev/null || { echo "xvfb-run not installed: skipped"; exit 77; }
  xvfb-run -a -s '-screen 0 1600x1000x24' "$PL" --screenshot "$out" --size 1280x800 --value 65520 || exit 1
else
  env -u DISPLAY -u WAYLAND_DISPLAY "$PL" --screenshot "$out" --size 1280x800 --value 0.1 || exit 1
fi
python3 - "$out" <<'PY'
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
stride = w * 4 + 1
rows = [raw[y * stride + 1:(y + 1) * stride] for y in range(h)]
colours = {rows[y][x:x + 4] for y in range(0, h, 3) for x in range(0, w * 4, 12)}
assert len(colours) > 20, f"only {len(colours)} colours: blank picture?"
print(f"ok: {w}x{h}, {len(colours)} sampled colours")
PY
