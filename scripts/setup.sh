#!/usr/bin/env bash
# Installs the Debian packages Precision Lab builds and tests with, when missing.
# Idempotent: a second run installs nothing and touches no network.
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build pkg-config
  libglfw3-dev libimgui-dev python3-glad      # window, widgets, GL loader generator
  libegl-dev libgl-dev libgles-dev             # EGL surfaceless screenshots, GL headers
  libopenblas-dev nlohmann-json3-dev libcli11-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libcairo2-dev fonts-dejavu-core
  libre2-dev                                   # scan --tensors: linear-time regular expressions
  clang                                        # libFuzzer for the file parsers (scripts/fuzz.sh)
  xvfb xauth libgl1-mesa-dri libegl-mesa0      # headless GUI tests on Mesa
  xdotool                                      # synthesised X input for the window-interaction test
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  SUDO=""; [[ $(id -u) -ne 0 ]] && SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
