#!/usr/bin/env bash
# main.sh - the README's main job: installs what is missing, builds, and on
# a machine with an NVIDIA GPU runs the default protocol (validation, timing,
# a new run directory under runs/). Without a GPU it re-verifies the
# committed reference run instead, and says so. Extra arguments go to
# `softmax-evidence run`.
set -uo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh || exit 1
scripts/build.sh >build.log 2>&1 || { cat build.log; echo "main: build failed" >&2; exit 1; }
out=$(mktemp)
trap 'rm -f "$out"' EXIT
./build/softmax-evidence run "$@" 2> >(tee "$out" >&2)
rc=$?
wait
if [ $rc -eq 3 ] && grep -q "no CUDA device" "$out"; then
    echo "main: no GPU found on this machine: re-verifying the committed reference run"
    echo "main: runs/reference instead (no new measurement is made)."
    ./build/softmax-evidence verify --strict runs/reference
    exit $?
fi
exit $rc
