#!/usr/bin/env bash
# Regenerates the figures the README and the docs show (assets/figures/gallery/gallery.tsv): runs
# each listed command into a fresh folder (DIR in the command) and copies the figure's PNG and CSV
# into place, so the pictures are always the app's own current output. tests/app/gallery_test.sh
# fails when a committed CSV is stale.
# Run: bash scripts/gen_gallery.sh [build/precision-lab]
set -euo pipefail
cd "$(dirname "$0")/.."
PL=${1:-build/precision-lab}
dir=assets/figures/gallery
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Everything is made in $tmp/stage first and moved into place only when every command has run:
# a failure leaves the gallery as it was, not half of it new.
stage=$tmp/stage
mkdir -p "$stage"
# The OpenBLAS kernel the "blas" figures' float32 products ran in (gallery_test.sh reads it).
core=$("$PL" devices | { grep -oE 'core [A-Za-z0-9_]+' || true; } | head -1 | cut -d' ' -f2)
[[ -n $core ]] || { echo "gen_gallery: $PL devices names no OpenBLAS core" >&2; exit 1; }
echo "$core" > "$stage/blas-core.txt"
declare -A made=()  # command -> the folder it wrote
runs=0
grep -v '^#' "$dir/gallery.tsv" | while IFS=$'\t' read -r file command figure compare claims; do
  if [[ -z ${made[$command]:-} ]]; then
    runs=$((runs + 1))
    out=$tmp/$runs
    read -ra args <<<"${command//DIR/$out}"
    "$PL" "${args[@]}" >/dev/null
    made[$command]=$out
  fi
  for ext in png csv; do
    cp "${made[$command]}/$figure.$ext" "$stage/$file.$ext"
  done
  echo "$dir/$file.png <- precision-lab $command: $figure ($compare)"
done
mv -f "$stage"/* "$dir"/
