#!/usr/bin/env bash
# Regenerates the README's scenario gallery (assets/figures/scenarios/gallery.tsv): exports each
# listed scenario and copies the figure's PNG and CSV into place, so the pictures are always the
# app's own current output. tests/app/gallery_test.sh fails when a committed CSV is stale.
# Run: bash scripts/gen_gallery.sh [build/precision-lab]
set -euo pipefail
cd "$(dirname "$0")/.."
PL=${1:-build/precision-lab}
dir=assets/figures/scenarios
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The OpenBLAS kernel the "blas" figures' float32 products ran in (gallery_test.sh reads it).
"$PL" devices | grep -oE 'core [A-Za-z0-9_]+' | head -1 | cut -d' ' -f2 > "$dir/blas-core.txt"
grep -v '^#' "$dir/gallery.tsv" | while IFS=$'\t' read -r file scenario figure compare; do
  [[ -d $tmp/$scenario ]] || "$PL" scenario export "$scenario" --out "$tmp/$scenario" >/dev/null
  for ext in png csv; do
    cp "$tmp/$scenario/$figure.$ext" "$dir/$file.$ext"
  done
  echo "$dir/$file.png <- scenario $scenario, $figure ($compare)"
done
