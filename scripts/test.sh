#!/usr/bin/env bash
# test.sh - the README's test command: installs what is missing (scripts/deps.sh test), builds,
# and runs every test. Tests that need a GPU skip, saying why, where there
# is none; on a GPU machine they run. Then scripts/ci-extra.sh: the CPU
# tests under ASan and UBSan, and each fuzzer for 20 s.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh test
scripts/build.sh -DSE_BUILD_TESTS=ON
cd build
set +e
ctest --output-on-failure 2>&1 | tee ctest-output.txt
status=${PIPESTATUS[0]}
# Say why each skipped test skipped (ctest itself only prints "Skipped").
grep -h "^SKIP:" Testing/Temporary/LastTest.log 2>/dev/null | sort | uniq -c || true
# Then the sanitizer build's CPU tests and the short fuzz runs
# (docs/FUZZING.md); the last line counts both: "N passed, N failed".
read -r total failed < <(sed -n 's/.*tests passed, \([0-9]*\) tests failed out of \([0-9]*\).*/\2 \1/p' \
                         ctest-output.txt | tail -1)
cd ..
scripts/ci-extra.sh 2>&1 | tee build/ci-extra-output.txt
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1
[ "$status" -eq 0 ] || status=1
read -r xp xf < <(sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p' build/ci-extra-output.txt | tail -1)
total=${total:-0} failed=${failed:-1} xp=${xp:-0} xf=${xf:-1}
echo "$((total - failed + xp)) passed, $((failed + xf)) failed"
exit $status
