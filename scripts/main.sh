#!/usr/bin/env bash
# main.sh - the README's main job: installs what is missing, builds, and on
# a machine with an NVIDIA GPU runs the default protocol (validation, timing,
# a new run directory under runs/) and renders its figures and report into
# out/<run id>/. Without a GPU it re-verifies the committed reference run
# instead, re-renders its figures and report into out/reference/, and says
# so. Extra arguments go to `softmax-evidence run`.
set -uo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh || exit 1
scripts/build.sh >build.log 2>&1 || { cat build.log; echo "main: build failed" >&2; exit 1; }
out=$(mktemp)
log=$(mktemp)
trap 'rm -f "$out" "$log"' EXIT

# Figures, report and provenance of a run that verifies, into out/NAME
# (figures verifies the run first and writes nothing if it does not).
render() {
    ./build/softmax-evidence figures "$1" "out/$2" || {
        echo "main: rendering $1 into out/$2 failed" >&2
        return 1
    }
    echo "main: figures and report of $1 in out/$2/ (report.html)"
}

./build/softmax-evidence run "$@" 2> >(tee "$out" >&2) | tee "$log"
rc=${PIPESTATUS[0]}
wait
if [ $rc -eq 3 ] && grep -q "no CUDA device" "$out"; then
    echo "main: no GPU found on this machine: re-verifying and re-rendering the committed"
    echo "main: reference run runs/reference instead (no new measurement is made)."
    ./build/softmax-evidence verify --strict runs/reference || exit $?
    render runs/reference reference
    exit $?
fi
if [ $rc -eq 0 ]; then
    dir=$(sed -n 's/^run directory: //p' "$log" | tail -1)
    if [ -n "$dir" ] && [ -d "$dir" ]; then
        render "$dir" "$(basename "$dir")" || exit $?
    fi
fi
exit $rc
