#!/usr/bin/env bash
# Installs what debug-gym needs from the system on Debian/Ubuntu: Python with pytest (and pandas for
# one benchmark task), git, bubblewrap, Chromium (the trajectory viewer's browser tests), the Docker
# engine, debootstrap (offline base image) and pnpm.
# Idempotent: skips whatever is already present. Usage: scripts/setup-system.sh [--no-docker]
# (--no-docker: only what the demo needs: no Docker engine, debootstrap or Chromium)
set -euo pipefail

want_docker=1
for arg in "$@"; do
  case "$arg" in
    --no-docker) want_docker=0 ;;
    *) echo "unknown option: $arg" >&2; exit 2 ;;
  esac
done

# python3-pip, -setuptools, -wheel, -venv: `pip install --no-build-isolation ./clients/python` offline (the Python client).
# chromium: the viewer's browser tests.
packages=(python3 python3-pytest python3-pandas python3-pip python3-setuptools python3-wheel python3-venv git bubblewrap procps ca-certificates)
# What only the tests need: the Docker engine, debootstrap for the offline image, Chromium for the viewer's tests,
# jinja2 and flask for running the original debug-gym's own trajectory readers on our exports.
if [ "$want_docker" = 1 ]; then packages+=(docker.io debootstrap chromium python3-jinja2 python3-flask); fi

missing=()
for pkg in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done

if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  echo "setup-system: installing ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
else
  echo "setup-system: system packages already present"
fi

if ! command -v pnpm >/dev/null 2>&1; then
  root=$(cd "$(dirname "$0")/.." && pwd)
  version=$(node -p "require(process.argv[1]).packageManager.split('@')[1]" "$root/package.json")
  echo "setup-system: installing pnpm@$version"
  npm install -g "pnpm@$version" >/dev/null
  # A global install lands in npm's prefix, which need not be on PATH (the quick-start scripts add it too).
  command -v pnpm >/dev/null 2>&1 || PATH="$(npm prefix -g)/bin:$PATH"
fi
echo "setup-system: done (python: $(/usr/bin/python3 --version 2>&1), pnpm: $(pnpm --version))"
