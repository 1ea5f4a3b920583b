#!/usr/bin/env bash
# Writes the command-line reference (docs/cli-reference.md) from the binary's own --help, so the
# reference is what the program says. CTest cli_reference_current fails when the committed file
# differs from what this prints.
#   bash scripts/gen_cli_reference.sh [BINARY] > docs/cli-reference.md
set -euo pipefail
pl=${1:-build/precision-lab}
section() {  # "$@": the command words
  local title="precision-lab${*:+ $*}"
  printf '\n## `%s`\n\n```\n' "$title"
  "$pl" "$@" --help | sed "s#^Usage: [^ ]*precision-lab#Usage: precision-lab#"
  printf '```\n'
}
cat <<'HEAD'
# Command-line reference

Generated from `precision-lab --help` by `scripts/gen_cli_reference.sh`; the test
`cli_reference_current` fails when it is out of date. Examples: [command-line.md](command-line.md).
Exit status: 0 done, 1 the work or the environment failed, 2 bad input, 128 + N after signal N.
HEAD
section
for cmd in $("$pl" --help | awk '/^Subcommands:/{on=1; next} on && NF {print $1}'); do
  section "$cmd"
  for sub in $("$pl" "$cmd" --help | awk '/^Subcommands:/{on=1; next} on && NF {print $1}'); do
    section "$cmd" "$sub"
  done
done
