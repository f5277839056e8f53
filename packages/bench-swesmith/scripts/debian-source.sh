#!/usr/bin/env bash
# Fetch and unpack a Debian source package (a real Python project with its real test suite) and print
# the folder it is in. Used to build the offline SWE-smith / R2E-Gym / SWE-Gym instances.
#
#   debian-source.sh [PACKAGE]      (default python-xmltodict)
#
# Needs root (or sudo) the first time: adds a deb-src entry for the mirror apt already uses when none is
# configured, installs dpkg-dev when missing, then `apt-get source`. Cached under
# $DEBUG_GYM_CACHE_DIR/debian-src (default /var/cache/debug-gym/debian-src); a second run prints at once.
set -euo pipefail
PKG="${1:-python-xmltodict}"
CACHE="${DEBUG_GYM_CACHE_DIR:-/var/cache/debug-gym}/debian-src"
DEST="$CACHE/$PKG"
if [ -f "$DEST/.complete" ]; then cat "$DEST/.complete"; exit 0; fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
if ! grep -rqsE '^(Types: *deb-src|deb-src )' /etc/apt/sources.list /etc/apt/sources.list.d/ 2>/dev/null; then
  SOURCES=/etc/apt/sources.list.d/debian.sources
  if [ -f "$SOURCES" ]; then
    # The first stanza's mirror and suites, with Types: deb-src.
    awk 'BEGIN{RS="";ORS="\n\n"} NR==1{sub(/Types: *deb/,"Types: deb-src"); print}' "$SOURCES" | $SUDO tee /etc/apt/sources.list.d/debug-gym-deb-src.sources >/dev/null
  else
    grep -E '^deb ' /etc/apt/sources.list | head -1 | sed 's/^deb /deb-src /' | $SUDO tee /etc/apt/sources.list.d/debug-gym-deb-src.list >/dev/null
  fi
  $SUDO apt-get update -q >/dev/null
fi
command -v dpkg-source >/dev/null 2>&1 || $SUDO apt-get install -y -q dpkg-dev >/dev/null
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
(cd "$WORK" && apt-get source -q "$PKG" >/dev/null 2>"$WORK/err") || {
  # Some indexes lack the source lists until refreshed.
  $SUDO apt-get update -q >/dev/null
  (cd "$WORK" && apt-get source -q "$PKG" >/dev/null) || { cat "$WORK/err" >&2; echo "apt-get source $PKG failed" >&2; exit 1; }
}
DIR="$(find "$WORK" -mindepth 1 -maxdepth 1 -type d | head -1)"
$SUDO mkdir -p "$CACHE"
$SUDO rm -rf "$DEST"
$SUDO mkdir -p "$DEST"
$SUDO cp -a "$DIR/." "$DEST/src/"
echo "$DEST/src" | $SUDO tee "$DEST/.complete" >/dev/null
echo "$DEST/src"
