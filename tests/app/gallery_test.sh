#!/usr/bin/env bash
# The README's scenario gallery is the app's current output: every figure listed "csv" in
# assets/figures/scenarios/gallery.tsv is exported afresh and its CSV must equal the committed
# one (scripts/gen_gallery.sh regenerates them). A stale picture fails here. A "blas" figure's
# numbers come from this machine's float32 sgemm: compared exactly when OpenBLAS runs the kernel
# they were made with (blas-core.txt), else row by row without the values, and said so.
set -u
dir=$1/assets/figures/scenarios
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0 compared=0
made_on=$(cat "$dir/blas-core.txt" 2>/dev/null)
here=$("$PL" devices | grep -oE 'core [A-Za-z0-9_]+' | head -1 | cut -d' ' -f2)
while IFS=$'\t' read -r file scenario figure compare; do
  [[ $file == \#* || -z $file ]] && continue
  [[ -s $dir/$file.png ]] || { echo "FAIL: $dir/$file.png is missing"; failed=1; continue; }
  [[ $compare == csv || $compare == blas ]] || continue
  if [[ ! -d $tmp/$scenario ]] && ! "$PL" scenario export "$scenario" --out "$tmp/$scenario" >/dev/null 2>&1; then
    echo "FAIL: scenario $scenario does not export"; failed=1; continue
  fi
  if [[ $compare == blas && $here != "$made_on" ]]; then
    # Another kernel: the same rows (series kinds and x positions), values not compared.
    if ! python3 - "$tmp/$scenario/$figure.csv" "$dir/$file.csv" <<'PY'; then
import csv, sys
rows = [[(r["kind"], r["x_low"], r["x_high"]) for r in csv.DictReader(open(p))] for p in sys.argv[1:]]
sys.exit(rows[0] != rows[1])
PY
      echo "FAIL: $file.csv has other rows than a fresh export of scenario $scenario's $figure"
      failed=1
    else
      echo "note: $file made with OpenBLAS core ${made_on:-unknown}, this machine runs core ${here:-unknown}:" \
           "its rows compared, not its sgemm-summed values"
    fi
    compared=$((compared + 1))
    continue
  fi
  if ! cmp -s "$tmp/$scenario/$figure.csv" "$dir/$file.csv"; then
    echo "FAIL: $file.csv differs from a fresh export of scenario $scenario's $figure (run scripts/gen_gallery.sh)"
    diff <(head -20 "$dir/$file.csv") <(head -20 "$tmp/$scenario/$figure.csv") | head -10
    failed=1
  fi
  compared=$((compared + 1))
done <"$dir/gallery.tsv"
echo "gallery: $compared figures compared"
((compared >= 8)) || { echo "FAIL: fewer gallery figures than expected"; failed=1; }
exit $failed
