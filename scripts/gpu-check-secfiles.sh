#!/usr/bin/env bash
# gpu-check-secfiles.sh - issue 34's file-writing changes where they need a
# GPU: `run` writes a small run (its own temporary folder in the runs
# folder, renamed into place), which verifies --strict; `profile` (where
# Nsight Compute is installed) publishes RUN/profile through its own
# temporary folder and rewrites the manifest skipping only the folder it
# moved the previous profile into; the run verifies again, twice profiled;
# nothing is left but the run in the runs folder and no temporary in the run.
# Run from the repository root after scripts/build.sh; exits non-zero on a
# failure. SE_CHECK_NO_PROFILE=1 leaves profile out (it takes minutes).
set -euo pipefail
bin=build/softmax-evidence
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
"$bin" run --quiet --no-blocking-kernel --no-peers --protocol tests/gpu/small-protocol.json \
    --runs-dir "$work/runs" --run-dir-out "$work/dir"
run=$(cat "$work/dir")
"$bin" verify --strict "$run"
if [ -z "${SE_CHECK_NO_PROFILE:-}" ] && command -v ncu >/dev/null 2>&1; then
    for _ in 1 2; do
        "$bin" profile "$run" --quiet
        "$bin" verify --strict "$run"
    done
else
    echo "gpu-check-secfiles: no ncu here (or SE_CHECK_NO_PROFILE set); profile not checked"
fi
left=$(ls -A "$work/runs" | grep -v -x -F "$(basename "$run")" || true)
[ -z "$left" ] || { echo "gpu-check-secfiles: left in the runs folder: $left"; exit 1; }
if ls -A "$run" | grep -E '^\.(tmp-|profile\.incomplete-)'; then
    echo "gpu-check-secfiles: temporaries left in $run"; exit 1
fi
# A run refused for a bad value leaves no runs folder it created.
if "$bin" run --quiet --protocol tests/gpu/small-protocol.json --shapes 0x0 \
        --runs-dir "$work/new/runs" >/dev/null 2>&1; then
    echo "gpu-check-secfiles: --shapes 0x0 was accepted"; exit 1
fi
[ ! -e "$work/new" ] || { echo "gpu-check-secfiles: a refused run left $work/new"; exit 1; }
echo "gpu-check-secfiles: OK"
