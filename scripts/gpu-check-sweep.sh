#!/usr/bin/env bash
# gpu-check-sweep.sh [RUN_DIR] - on the H200, from the repository root after
# scripts/build.sh: runs protocol/sweep.json (issue 30) into runs/sweep/,
# checks that it finished within the issue's 10 minutes and verifies, draws
# its figures (fig8 with a row of panels for each of the sweep's two
# families and its 1-row and 8-row shapes) and prints its goals. Given a
# RUN_DIR, skips the run and checks that one (no GPU needed). Exits non-zero
# on the first failure. Then, to commit: scripts/select-bundle.sh RUN_DIR,
# scripts/perf-goals.sh (docs/PERFORMANCE.md's block from runs/sweep/).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${SE_BIN:-build/softmax-evidence}
fail() { echo "gpu-check-sweep: FAIL: $*" >&2; exit 1; }
run=${1:-}
if [ -z "$run" ]; then
    mkdir -p runs/sweep
    out=$(mktemp)
    start=$(date +%s)
    "$bin" run --protocol protocol/sweep.json --runs-dir runs/sweep --run-dir-out "$out" ||
        fail "the sweep run failed (exit $?)"
    took=$(( $(date +%s) - start ))
    run=$(cat "$out"); rm -f "$out"
    echo "gpu-check-sweep: $run took $took s"
    [ "$took" -le 600 ] || fail "the sweep took $took s, over the issue's 10 minutes"
fi
"$bin" verify "$run" >/dev/null || fail "$run does not verify"
figs=$(mktemp -d); trap 'rm -rf "$figs"' EXIT
"$bin" figures "$run" "$figs/out" >/dev/null || fail "figures of $run failed"
[ -s "$figs/out/fig8_rowlength.png" ] || fail "fig8_rowlength was not drawn"
rows=$(grep -c 'row lengths: L2 warm' "$figs/out/gnuplot/fig8_rowlength.gp")
[ "$rows" -eq 4 ] || fail "fig8 has $rows rows of panels, want 4 (two families, 1 row, 8 rows)"
"$bin" goals "$run" || fail "goals of $run failed"
echo "gpu-check-sweep: OK: $run verifies, fig8 has its 4 rows of panels, goals printed"
