#!/usr/bin/env bash
# readme-answer.sh [--check] - regenerates what README.md states from the
# committed run set runs/answer-runs.json (its runs, in its order; the first
# is runs/reference; SE_ANSWER_SET names another), block by block between
# its "NAME:begin" and "NAME:end" markers:
#   summary   the answer in plain sentences (`softmax-evidence answer ...
#             --format summary`) and its figure, docs/figures/fig7_answer.png
#             (`softmax-evidence figures runs/reference --set SET`, fig7_answer:
#             the set's points and intervals, as the sentences)
#   walltime  how long the reference run took (run.json's started_utc and
#             finished_utc) and how many shapes its protocol has
#   answer    `softmax-evidence answer ... --format md`
#   table     `softmax-evidence table runs/reference --format md`
#   layernorm the second workload's answer: the newest committed LayerNorm run
#             (runs/layernorm/RUN_ID), its GPU and commit from its
#             environment.json, then `softmax-evidence answer RUN --format md`
# With --check it changes nothing and exits 1 if a block, or the figure's
# data and script (docs/figures/fig7_answer.tsv and .gp), differ (the test);
# the PNG itself is compared too, but only reported: another gnuplot or
# cairo build may draw other bytes from the same script.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${SE_BIN:-build/softmax-evidence}
check=0
[ "${1:-}" = "--check" ] && check=1
set_file=${SE_ANSWER_SET:-runs/answer-runs.json}
runs=(--set "$set_file")
new=$(mktemp -d); trap 'rm -rf "$new"' EXIT
fail() { echo "readme-answer: $*" >&2; exit 1; }

"$bin" answer "${runs[@]}" --format summary >"$new/summary.txt" 2>/dev/null ||
    fail "softmax-evidence answer ${runs[*]} --format summary failed"
"$bin" answer "${runs[@]}" --format md >"$new/answer" 2>/dev/null ||
    fail "softmax-evidence answer ${runs[*]} failed"
"$bin" table runs/reference --format md >"$new/table" 2>/dev/null ||
    fail "softmax-evidence table runs/reference --format md failed"
"$bin" figures runs/reference "$new/figures" --set "$set_file" >/dev/null 2>&1 ||
    fail "softmax-evidence figures runs/reference --set $set_file failed (is gnuplot installed?)"
[ -f "$new/figures/fig7_answer.png" ] || fail "figures drew no fig7_answer.png"
{
    printf '**The answer.** %s\n\n' "$(cat "$new/summary.txt")"
    printf '<img src="docs/figures/fig7_answer.png" width="80%%" alt="Fig. 7: each mechanism'"'"'s device time over stream'"'"'s per shape, smallest to largest, with the 95%% intervals of one more run over the run set">\n'
} >"$new/summary"
# The reference run's wall time, from its own run.json.
python3 - runs/reference/run.json runs/reference/protocol.json runs/reference/environment.json >"$new/walltime" <<'PY' ||
import json, sys
from datetime import datetime
r = json.load(open(sys.argv[1]))
p = json.load(open(sys.argv[2]))
gpu = json.load(open(sys.argv[3]))["gpu"]["name"]
t = lambda s: datetime.strptime(s, "%Y-%m-%dT%H:%M:%SZ")
s = int((t(r["finished_utc"]) - t(r["started_utc"])).total_seconds())
print("**Your own shapes or protocol:** `scripts/main.sh --shapes 8x4096,64x65536` or "
      "`scripts/main.sh --protocol my.json` (docs/PROTOCOL.md). "
      f"**How long:** the reference run (`runs/reference`, {len(p['workload']['shapes'])} shapes"
      f") took {s // 60} min {s % 60} s on an {gpu} (run.json's `started_utc` to "
      f"`finished_utc`), plus the first build.")
PY
    fail "reading runs/reference/run.json's start and end failed"

# The LayerNorm run: the newest under runs/layernorm.
ln_run=$(find runs/layernorm -mindepth 1 -maxdepth 1 -type d 2>/dev/null | LC_ALL=C sort | tail -n 1)
[ -n "$ln_run" ] || fail "no committed LayerNorm run under runs/layernorm"
{
    python3 - "$ln_run/environment.json" "$ln_run" "$ln_run/peers.json" <<'PY' || exit 1
import json, sys
e = json.load(open(sys.argv[1]))
s = e.get("source", {})
# The peers named are those with at least one case that ran (status ok), as peers.json says.
try:
    pj = json.load(open(sys.argv[3]))
    ran = sorted({c["peer"] for c in pj.get("peers", []) if c.get("status") == "ok"})
except (OSError, ValueError, KeyError, TypeError):
    ran = []
peers = "the peers " + ", ".join(ran) if ran else "no peer"
print(f"From `{sys.argv[2]}` (protocol/layernorm.json, every tiled strategy, rowblock and "
      f"{peers}; an {e['gpu']['name']}, commit {s.get('git_commit', 'unknown')[:9]}"
      f"{'' if s.get('git_dirty') is False else ' (dirty)'}):\n")
PY
    "$bin" answer "$ln_run" --format md 2>/dev/null
} >"$new/layernorm" || fail "softmax-evidence answer $ln_run --format md failed"

for m in summary walltime answer table layernorm; do
    grep -q "^<!-- $m:begin" README.md && grep -q "^<!-- $m:end -->" README.md ||
        fail "README.md has no $m:begin/$m:end markers"
done
declare -A what=(
    [summary]="softmax-evidence answer --set $set_file --format summary, and fig7_answer of softmax-evidence figures runs/reference --set $set_file"
    [walltime]="runs/reference/run.json's started_utc and finished_utc"
    [answer]="softmax-evidence answer --set $set_file --format md"
    [table]="softmax-evidence table runs/reference --format md"
    [layernorm]="softmax-evidence answer on the newest run in runs/layernorm --format md")
# replace NAME FILE < in > out: the block between NAME's markers becomes FILE.
replace() {
    local b="<!-- $1:begin (generated by scripts/readme-answer.sh: ${what[$1]}; do not edit) -->"
    awk -v n="$1" -v b="$b" -v f="$2" '
        $0 ~ "^<!-- " n ":begin" { print b; while ((getline l < f) > 0) print l; skip = 1; next }
        $0 == "<!-- " n ":end -->" { print; skip = 0; next }
        !skip { print }'
}
cp README.md "$new/readme"
for m in summary walltime answer table layernorm; do
    replace "$m" "$new/$m" <"$new/readme" >"$new/readme.next"
    mv "$new/readme.next" "$new/readme"
done
fig=docs/figures
if [ $check -eq 1 ]; then
    status=0
    if ! diff -u README.md "$new/readme"; then
        echo "FAIL: README.md's generated blocks differ from what scripts/readme-answer.sh generates (above); run it" >&2
        status=1
    fi
    for f in fig7_answer.tsv:data/fig7_answer.tsv fig7_answer.gp:gnuplot/fig7_answer.gp; do
        if ! cmp -s "$fig/${f%%:*}" "$new/figures/${f#*:}"; then
            echo "FAIL: $fig/${f%%:*} is not what softmax-evidence figures runs/reference writes; run scripts/readme-answer.sh" >&2
            status=1
        fi
    done
    cmp -s "$fig/fig7_answer.png" "$new/figures/fig7_answer.png" ||
        echo "note: $fig/fig7_answer.png differs in its bytes from this machine's gnuplot drawing of the same script (not a failure)"
    [ $status -eq 0 ] && echo "README.md's summary, wall time, answer, timing table and LayerNorm answer are what the program prints, and its figure's data and script what figures writes"
    exit $status
fi
mkdir -p "$fig"
cp "$new/figures/fig7_answer.png" "$fig/fig7_answer.png"
cp "$new/figures/data/fig7_answer.tsv" "$fig/fig7_answer.tsv"
cp "$new/figures/gnuplot/fig7_answer.gp" "$fig/fig7_answer.gp"
cp "$new/readme" README.md
echo "readme-answer: README.md regenerated from $set_file; its figure in $fig/fig7_answer.png"
