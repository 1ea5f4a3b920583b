#!/usr/bin/env bash
# The README's scenario gallery is the app's current output: every figure listed "csv" in
# assets/figures/scenarios/gallery.tsv is exported afresh and its CSV must equal the committed
# one (scripts/gen_gallery.sh regenerates them). A stale picture fails here.
set -u
dir=$1/assets/figures/scenarios
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0 compared=0
while IFS=$'\t' read -r file scenario figure compare; do
  [[ $file == \#* || -z $file ]] && continue
  [[ -s $dir/$file.png ]] || { echo "FAIL: $dir/$file.png is missing"; failed=1; continue; }
  [[ $compare == csv ]] || continue
  if [[ ! -d $tmp/$scenario ]] && ! "$PL" scenario export "$scenario" --out "$tmp/$scenario" >/dev/null 2>&1; then
    echo "FAIL: scenario $scenario does not export"; failed=1; continue
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
