#!/usr/bin/env bash
# Installs the build into a temporary prefix (cmake --install) and runs the installed binary from
# there: the format table, the scenarios read from the prefix (not the source tree), a scenario
# run, and a headless screenshot. The .desktop file and the icon are installed where desktops
# look. Usage: install_test.sh BUILD_DIR
set -u
build=$1
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cmake --install "$build" --prefix "$prefix" >"$prefix.log" 2>&1 || { cat "$prefix.log"; fail "cmake --install"; }
rm -f "$prefix.log"
pl=$prefix/bin/precision-lab
[[ -x $pl ]] || fail "no $pl"
for f in share/applications/precision-lab.desktop share/icons/hicolor/scalable/apps/precision-lab.svg \
         share/precision-lab/scenarios/06-float16-50-over-49.json share/precision-lab/shaders/heatmap.frag; do
  [[ -f $prefix/$f ]] || fail "not installed: $f"
done
grep -q '^Exec=precision-lab$' "$prefix/share/applications/precision-lab.desktop" || fail ".desktop Exec"
cd "$prefix" || exit 1  # not the source tree: the binary must find its data beside itself
export XDG_CONFIG_HOME=$prefix/config
"$pl" formats | grep -q float8_e4m3fn || fail "formats"
src=$("$pl" scenario list --json | python3 -c 'import json, sys; print(json.load(sys.stdin)[0]["source"])')
[[ $src == "$prefix/share/precision-lab/scenarios/"* ]] || fail "scenarios read from $src, not the prefix"
"$pl" scenario run 06 >/dev/null || fail "scenario run 06"
# The Debian package of the same tree (cpack -G DEB), when dpkg's tools are here.
if command -v dpkg-deb >/dev/null && command -v dpkg-shlibdeps >/dev/null; then
  cpack -G DEB --config "$build/CPackConfig.cmake" -B "$prefix/deb" >"$prefix/cpack.log" 2>&1 ||
    { cat "$prefix/cpack.log"; fail "cpack -G DEB"; }
  deb=$(ls "$prefix"/deb/precision-lab_*.deb 2>/dev/null | head -1)
  [[ -n $deb ]] || fail "cpack wrote no .deb"
  dpkg-deb -c "$deb" >"$prefix/deb/contents.txt" || fail "dpkg-deb -c"
  grep -q '\./usr/bin/precision-lab$' "$prefix/deb/contents.txt" || fail "the .deb has no usr/bin/precision-lab"
  dpkg-deb -f "$deb" Depends | grep -q libopenblas || fail "the .deb does not depend on OpenBLAS"
  echo "ok: $(basename "$deb")"
else
  echo "SKIP: no .deb built (dpkg-deb or dpkg-shlibdeps is not installed)"
fi
out=$prefix/shot.png
# (Headless, through EGL, as every screenshot test: a machine without it fails them all.)
said=$(env -u DISPLAY -u WAYLAND_DISPLAY "$pl" --screenshot "$out" --size 640x400 --no-settings 2>&1) ||
  fail "screenshot from the prefix: $said"
[[ $(head -c 8 "$out" | od -An -tx1 | tr -d ' \n') == 89504e470d0a1a0a ]] || fail "screenshot is no PNG"
echo "ok: installed into $prefix and ran formats, scenarios and a screenshot from there"
