#!/usr/bin/env bash
# CTest runs each of cli_test.sh's ~500 checks as its own process, so whatever the script makes at
# its top level is made ~500 times. This runs one check alone with python3 and the binary behind
# wrappers that count their calls: the check's own command is the only one, so the fixtures of
# other checks (python3-written files, a saved matmul) are not made for it.
set -u
here=$(cd "$(dirname "$0")" && pwd)
calls=$(mktemp -d)
trap 'rm -rf "$calls"' EXIT
mkdir "$calls/bin"
printf '#!/bin/sh\necho python3 >> "%s/log"\nexec %s "$@"\n' "$calls" "$(command -v python3)" > "$calls/bin/python3"
printf '#!/bin/sh\necho "precision-lab $*" >> "%s/log"\nexec "%s" "$@"\n' "$calls" "$PL" > "$calls/bin/precision-lab"
chmod +x "$calls/bin/python3" "$calls/bin/precision-lab"
out=$(PATH="$calls/bin:$PATH" PL="$calls/bin/precision-lab" bash "$here/cli_test.sh" tensors-list 2>&1)
echo "$out"
grep -q '^ok   tensors-list$' <<<"$out" || { echo "FAIL: the check itself did not pass"; exit 1; }
echo "calls made:"; cat "$calls/log"
if [[ $(cat "$calls/log") != "precision-lab tensors $PL_DATA/io/model.safetensors" ]]; then
  echo "FAIL: running one check alone made more than its own call (above)"
  exit 1
fi
echo "one check alone makes only its own call"
