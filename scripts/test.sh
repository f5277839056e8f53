#!/usr/bin/env bash
# Quick start 2: on a fresh Debian/Ubuntu machine with only Node, set up everything the tests use
# (Python with pytest, bubblewrap, the Docker engine started and the offline image built, pnpm),
# install the workspace and run `pnpm test` with them (the same pins as CI). Idempotent; CI runs it too.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-system.sh
source scripts/lib/ensure-pnpm.sh
bash scripts/start-docker.sh
bash scripts/build-offline-image.sh
pnpm install --frozen-lockfile
# The interpreter, image and sandbox rule CI uses (scripts/lib/test-env.sh); already-set values win.
source scripts/lib/test-env.sh
echo "test.sh: DEBUG_GYM_PYTHON=$DEBUG_GYM_PYTHON DEBUG_GYM_DOCKER_IMAGE=$DEBUG_GYM_DOCKER_IMAGE DEBUG_GYM_REQUIRE_SANDBOXES=$DEBUG_GYM_REQUIRE_SANDBOXES"
exec pnpm test "$@"
