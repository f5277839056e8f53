# Sourced by scripts/test.sh (the README's test command) and .ci/run, so both run the tests the same way:
# with the interpreter scripts/setup-system.sh installs pytest for (Debian's /usr/bin/python3, not
# whatever `python3` comes first on PATH, e.g. a pyenv one in the home directory), the Docker image
# scripts/build-offline-image.sh builds, and every sandbox required (both scripts set them all up, so a
# skipped backend means the set-up failed: an error, not a warning). A value already set wins, e.g.
# `DEBUG_GYM_PYTHON=python3 bash scripts/test.sh` or `DEBUG_GYM_REQUIRE_SANDBOXES=0` to skip instead.
export DEBUG_GYM_PYTHON="${DEBUG_GYM_PYTHON:-/usr/bin/python3}"
export DEBUG_GYM_DOCKER_IMAGE="${DEBUG_GYM_DOCKER_IMAGE:-debug-gym/python-offline:bookworm}"
export DEBUG_GYM_REQUIRE_SANDBOXES="${DEBUG_GYM_REQUIRE_SANDBOXES:-1}"
# The original debug-gym's own code (its trajectory readers, run on our exports when a copy of it is at
# DEBUG_GYM_ORIGINAL_SOURCE) needs jinja2 and flask, which setup-system.sh installs for that interpreter.
export DEBUG_GYM_ORIGINAL_PYTHON="${DEBUG_GYM_ORIGINAL_PYTHON:-$DEBUG_GYM_PYTHON}"
