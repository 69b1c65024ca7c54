#!/usr/bin/env bash
# test.sh - the README's test command: installs what is missing, builds,
# and runs every test. Tests that need a GPU skip, saying why, where there
# is none; on a GPU machine they run.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
scripts/build.sh
cd build
ctest --output-on-failure
