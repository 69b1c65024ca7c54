#!/usr/bin/env bash
# test.sh - the README's test command: installs what is missing, builds,
# and runs every test. Tests that need a GPU skip, saying why, where there
# is none; on a GPU machine they run.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
scripts/build.sh
cd build
status=0
ctest --output-on-failure || status=$?
# Say why each skipped test skipped (ctest itself only prints "Skipped").
grep -h "^SKIP:" Testing/Temporary/LastTest.log 2>/dev/null | sort | uniq -c || true
exit $status
