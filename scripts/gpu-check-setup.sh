#!/usr/bin/env bash
# gpu-check-setup.sh - on a GPU machine, from the repository root: the main
# job as the README gives it still measures. Runs scripts/main.sh on two small
# shapes (SE_MAIN_FIGURES=0 where gnuplot is missing, as on the H200 image),
# then checks that it exited 0, made a run directory that verifies, and drew
# the figures where gnuplot is present. Exits non-zero on any failure.
set -uo pipefail
cd "$(dirname "$0")/.."
figs=1
command -v gnuplot >/dev/null 2>&1 || { figs=0; echo "gpu-check: no gnuplot here: SE_MAIN_FIGURES=0"; }
before=$(ls -d runs/2*/ 2>/dev/null | sort | tail -1)
SE_MAIN_FIGURES=$figs scripts/main.sh --shapes 1x1,32x4096 --no-peers --quiet
rc=$?
[ $rc -eq 0 ] || { echo "gpu-check: FAIL: scripts/main.sh exited $rc"; exit 1; }
run=$(ls -d runs/2*/ 2>/dev/null | sort | tail -1)
[ -n "$run" ] && [ "$run" != "$before" ] || { echo "gpu-check: FAIL: no new run directory under runs/"; exit 1; }
build/softmax-evidence verify --strict "$run" | tail -1 || { echo "gpu-check: FAIL: $run does not verify"; exit 1; }
id=$(basename "$run")
if [ $figs -eq 1 ]; then
    [ -f "out/$id/report.html" ] && [ -f "out/$id/fig7_answer.png" ] ||
        { echo "gpu-check: FAIL: out/$id lacks report.html or fig7_answer.png"; exit 1; }
fi
echo "gpu-check: PASS: scripts/main.sh measured $run$([ $figs -eq 1 ] && echo ", figures in out/$id")"
