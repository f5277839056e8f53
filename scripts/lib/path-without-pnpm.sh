#!/usr/bin/env bash
# Prints $PATH with pnpm and pnpx hidden (CI proves the quick start on a machine "without pnpm"):
# every directory holding them is replaced by a folder of symlinks to everything else in it.
set -euo pipefail
shim=$(mktemp -d /tmp/debug-gym-nopnpm-XXXXXX)
IFS=: read -ra dirs <<< "$PATH"
out=""
for dir in "${dirs[@]}"; do
  [ -d "$dir" ] || continue
  if [ -e "$dir/pnpm" ] || [ -e "$dir/pnpx" ]; then
    # A directory listed twice on PATH is mirrored once.
    if [ -d "$shim$dir" ]; then out="$out:$shim$dir"; continue; fi
    mkdir -p "$shim$dir"
    for f in "$dir"/*; do case "$(basename "$f")" in pnpm|pnpx) ;; *) ln -s "$f" "$shim$dir/$(basename "$f")" ;; esac; done
    out="$out:$shim$dir"
  else
    out="$out:$dir"
  fi
done
echo "${out#:}"
