#!/usr/bin/env bash
# The figures the README and the docs show are the app's current output: every figure listed
# "csv" in assets/figures/gallery/gallery.tsv is made afresh by the command beside it and its CSV
# must equal the committed one (scripts/gen_gallery.sh regenerates them). A stale picture fails
# here. A "blas" figure's numbers come from this machine's float32 sgemm: compared exactly when
# OpenBLAS runs the kernel they were made with (blas-core.txt), else row by row without the
# values, and said so. A figure's "claims" are the numbers the docs state about its run, each
# FILE#POINTER=VALUE (exactly) or FILE#POINTER~VALUE (equal when rounded to VALUE's significant
# digits), read from that file of the fresh run's folder: a doc's number that drifts fails here.
set -u
dir=$1/assets/figures/gallery
cd "$1" || exit 1  # the commands name their files from the repository's root
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0 compared=0
made_on=$(cat "$dir/blas-core.txt" 2>/dev/null)
here=$("$PL" devices | grep -oE 'core [A-Za-z0-9_]+' | head -1 | cut -d' ' -f2)
declare -A made=()  # command -> the folder it wrote
runs=0
check_claims() {  # FOLDER CLAIMS...
  python3 - "$@" <<'PY'
import json, sys
folder, failed = sys.argv[1], 0
for claim in sys.argv[2:]:
    path, _, rest = claim.partition("#")
    exact = "=" in rest
    pointer, _, want = rest.partition("=" if exact else "~")
    node = json.load(open(f"{folder}/{path}"))
    for part in pointer.strip("/").split("/"):
        node = node[int(part)] if isinstance(node, list) else node[part]
    if exact:
        ok = float(node) == float(want)
    else:
        digits = len(want.lower().split("e")[0].replace("-", "").replace(".", "").lstrip("0"))
        ok = float(f"{float(node):.{digits}g}") == float(want)
    if not ok:
        print(f"FAIL: {path}#{pointer} is {node}, the docs say {want}")
        failed = 1
sys.exit(failed)
PY
}

while IFS=$'\t' read -r file command figure compare claims; do
  [[ $file == \#* || -z $file ]] && continue
  [[ -s $dir/$file.png ]] || { echo "FAIL: $dir/$file.png is missing"; failed=1; continue; }
  [[ $compare == csv || $compare == blas ]] || continue
  if [[ -z ${made[$command]:-} ]]; then
    runs=$((runs + 1))
    out=$tmp/$runs
    read -ra args <<<"${command//DIR/$out}"
    if ! "$PL" "${args[@]}" >/dev/null 2>&1; then
      echo "FAIL: precision-lab $command failed"; failed=1; continue
    fi
    made[$command]=$out
  fi
  fresh=${made[$command]}/$figure.csv
  if [[ -n ${claims:-} ]]; then
    read -ra each <<<"$claims"
    check_claims "${made[$command]}" "${each[@]}" || failed=1
  fi
  if [[ $compare == blas && $here != "$made_on" ]]; then
    # Another kernel: the same rows (series kinds and x positions), values not compared.
    if ! python3 - "$fresh" "$dir/$file.csv" <<'PY'; then
import csv, sys
rows = [[(r["kind"], r["x_low"], r["x_high"]) for r in csv.DictReader(open(p))] for p in sys.argv[1:]]
sys.exit(rows[0] != rows[1])
PY
      echo "FAIL: $file.csv has other rows than a fresh $figure from precision-lab $command"
      failed=1
    else
      echo "note: $file made with OpenBLAS core ${made_on:-unknown}, this machine runs core ${here:-unknown}:" \
           "its rows compared, not its sgemm-summed values"
    fi
    compared=$((compared + 1))
    continue
  fi
  if ! cmp -s "$fresh" "$dir/$file.csv"; then
    echo "FAIL: $file.csv differs from a fresh $figure from precision-lab $command (run scripts/gen_gallery.sh)"
    diff <(head -20 "$dir/$file.csv") <(head -20 "$fresh") | head -10
    failed=1
  fi
  compared=$((compared + 1))
done <"$dir/gallery.tsv"
echo "gallery: $compared figures compared"
((compared >= 11)) || { echo "FAIL: fewer gallery figures than expected"; failed=1; }
exit $failed
