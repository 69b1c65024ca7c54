#!/usr/bin/env bash
# sweep_test.sh BINARY RESUMMARIZE REFERENCE_RUN - fig8 (fraction of copy
# against row length), the report's row-length tables and `softmax-evidence
# goals` on a synthetic run of several row lengths (tests/report/
# make_sweep_run.py: the reference run's samples under other shapes' names,
# so that it verifies), every number checked against a second
# implementation of the rules (check_sweep.py); a run of three row lengths,
# where fig8 is not drawn and says why; goals' refusals (usage, format, a
# missing or tampered run). No GPU needed; gnuplot is.
set -u
bin=$1 resum=$2 ref=$3
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

run=$work/sweep/20000101T000000Z
if python3 "$here/make_sweep_run.py" "$resum" "$ref" "$run" >"$work/map" 2>&1 &&
   "$bin" verify "$run" >"$work/verify" 2>&1; then
    ok "the synthetic run ($(wc -l <"$work/map") shapes) verifies"
else
    bad "the synthetic run cannot be made or does not verify:"; tail -5 "$work/map" "$work/verify"; finish
fi

if "$bin" figures "$run" "$work/fig" >"$work/fig.log" 2>&1; then
    ok "figures of the synthetic run"
else
    bad "figures failed:"; tail -10 "$work/fig.log"; finish
fi
for ext in svg png; do
    [ -s "$work/fig/fig8_rowlength.$ext" ] && ok "fig8_rowlength.$ext drawn" || bad "fig8_rowlength.$ext missing"
done
gp=$work/fig/gnuplot/fig8_rowlength.gp
grep -q 'set logscale x 2' "$gp" && grep -q 'row length (columns, fp32; log axis' "$gp" &&
    ok "fig8: log row-length axis, labelled" || bad "fig8: no labelled log x axis in $gp"
# Two groups have 4 or more row lengths (33.5 MB: 8; 1 row: 4), one has 2:
# two rows of panels, warm and flushed.
panels=$(grep -c 'set title .*row lengths: L2' "$gp")
[ "$panels" -eq 4 ] && ok "fig8: 4 panels (2 groups x warm, flushed)" || bad "fig8: $panels panels, want 4"
grep -q '268 MB' "$gp" && bad "fig8 draws the 268 MB group of two row lengths" ||
    ok "fig8: the group of two row lengths is not drawn"
entries=$(grep -c '^         NaN with linespoints' "$gp")
items=$(python3 -c '
import json, sys
s = json.load(open(sys.argv[1] + "/summary.json"))
p = json.load(open(sys.argv[1] + "/peers.json"))
n = {c["what"] for c in s["cases"]} - {"copy", "megakernel_init"}
n |= {e["peer"] for e in p["peers"] if e.get("summary")}
print(len(n))' "$run")
[ "$entries" -eq "$items" ] && ok "fig8: a legend entry per strategy and peer ($items)" ||
    bad "fig8: $entries legend entries, want $items"

"$bin" goals "$run" --format md >"$work/goals.md" 2>"$work/goals.err" && ok "goals --format md" ||
    { bad "goals --format md failed"; cat "$work/goals.err"; }
if python3 "$here/check_sweep.py" "$run" "$work/fig" "$work/goals.md" >"$work/check" 2>&1; then
    ok "fig8's data, the report's tables and goals agree with check_sweep.py ($(grep -c '^ok' "$work/check") checks)"
else
    bad "check_sweep.py:"; grep -v '^ok' "$work/check" | head -20
fi
grep -q 'from run 20000101T000000Z' "$work/goals.md" && ok "goals names its run" || bad "goals does not name the run"
# G5 pairs rows of as many tiles where the group has one: 4097 columns (two
# tiles of T = 4096) with 4100 (two), not 4096 (one); 8x1048573 with
# 8x1048576 (256 tiles each).
grep -q '^| 16380x4097 | 16368x4100 |' "$work/goals.md" &&
    ! grep -q '^| 16380x4097 | 16384x4096 |' "$work/goals.md" &&
    grep -q '^| 8x1048573 | 8x1048576 |' "$work/goals.md" &&
    ok "G5: 4097 columns pair with 4100 (as many tiles), not 4096" ||
    bad "G5: 16380x4097's neighbour is not 16368x4100: $(grep '^| 16380x4097' "$work/goals.md")"
grep -q '^## Goals per shape (issue 30)' "$work/fig/report.md" && ok "the report carries the goals" ||
    bad "report.md has no goals section"
"$bin" goals "$run" >"$work/goals.txt" 2>/dev/null && grep -q '^-----------' "$work/goals.txt" &&
    ! grep -q '\\>=' "$work/goals.txt" && ok "goals (text): aligned columns, no Markdown escapes" ||
    bad "goals text format"

# A run of three row lengths: fig8 is not drawn, and says why.
small=$work/small/20000101T000000Z
python3 "$here/make_sweep_run.py" "$resum" "$ref" "$small" small >/dev/null 2>&1 &&
    "$bin" figures "$small" "$work/figsmall" >"$work/small.log" 2>&1 || { bad "figures of the small run"; tail -5 "$work/small.log"; }
grep -q 'fig8_rowlength not drawn: no group of shapes' "$work/small.log" && [ ! -e "$work/figsmall/fig8_rowlength.png" ] &&
    ok "small run: fig8 not drawn, saying why" || bad "small run: fig8 drawn or no reason"
python3 - "$work/figsmall/provenance.json" <<'EOF' && ok "small run: provenance says fig8 was not drawn and why" || bad "small run: provenance"
import json, sys
f = [f for f in json.load(open(sys.argv[1]))["figures"] if f["name"] == "fig8_rowlength"]
sys.exit(0 if f and f[0]["drawn"] is False and "row lengths" in f[0]["why_not"] else 1)
EOF
grep -qF 'fig8\_rowlength is not drawn: no group of shapes' "$work/figsmall/report.md" &&
    ok "small run: the report says fig8 is not drawn" || bad "small run: report.md"

# Refusals.
expect "goals without a run" 2 "goals: usage" -- "$bin" goals
expect "goals --format csv" 2 "is not one of text|md" -- "$bin" goals "$run" --format csv
expect "goals with two runs" 2 "unexpected argument" -- "$bin" goals "$run" "$run"
expect "goals of a missing folder" 5 "$work/none" -- "$bin" goals "$work/none"
cp -r "$run" "$work/t"
first=$(ls "$work/t/samples" | head -1)
sed -i '2s/,[0-9.]*,/,1.5,/' "$work/t/samples/$first"
expect "goals of a tampered run: refused, naming the file" 1 "$first" -- "$bin" goals "$work/t"
finish
