#!/usr/bin/env bash
# compare_test.sh BINARY RESUMMARIZE SOURCE_DIR - `softmax-evidence compare`
# (docs/COMPARE.md): a run against itself changes nothing; against a
# doctored copy of it (one case's samples x1.5, still verifying) exactly that
# case is slower, with the interval excluding 1; --fail-if-slower exits 7
# naming it when the gate is below the slowdown and 0 when above; a run that
# does not verify is refused; every format holds the same cases; and the
# reference run against the newest runs/perf run prints the environment
# difference first. Expectations come from the runs' own files.
set -u
bin=$1 resum=$2 src=$3
ref=$src/runs/reference
perf=$(ls -d "$src"/runs/perf/*/ | sort | tail -1); perf=${perf%/}
fails=0 passes=0
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
ok() { echo "ok: $1"; passes=$((passes + 1)); }
bad() { echo "FAIL: $1"; fails=$((fails + 1)); }
run() { # run NAME WANT_RC ARGS... : output in $work/out, stderr in $work/err
    local name=$1 want=$2; shift 2
    "$bin" "$@" >"$work/out" 2>"$work/err"; local rc=$?
    if [ "$rc" -ne "$want" ]; then bad "$name: exit $rc (want $want)"; tail -5 "$work/err"; return 1; fi
    return 0
}

slow_case=$(python3 "$(dirname "$0")/make_slower_run.py" "$resum" "$ref" "$work/slow" 1.5) ||
    { echo "FAIL: the doctored run cannot be made"; exit 1; }
"$bin" verify "$work/slow" >/dev/null || { echo "FAIL: the doctored run does not verify"; exit 1; }
echo "doctored case: $slow_case (device samples x1.5)"
ncommon=$(python3 - "$ref" <<'PY'
import json, sys
s = json.load(open(sys.argv[1] + "/summary.json"))
print(len(s["cases"]) + len(s["controls"]))
PY
)

if run "the run against itself" 0 compare "$ref" "$ref"; then
    grep -q "^summary: B against A, device scope: 0 faster, 0 slower, $ncommon unchanged of $ncommon cases" "$work/out" &&
        grep -q "^environment: the same" "$work/out" && ok "the run against itself: $ncommon cases unchanged" ||
        { bad "the run against itself"; tail -3 "$work/out"; }
fi

if run "doctored copy" 0 compare "$ref" "$work/slow"; then
    line=$(grep "^$slow_case " "$work/out")
    read -r _ _ _ ratio lo hi _ <<<"$(tr -d '[],' <<<"$line")"
    if grep -q "slower \*$" <<<"$line" && python3 -c "import sys; r,l,h=map(float,sys.argv[1:]); sys.exit(not(abs(r-1.5)<1e-9 and 1<l<=r<=h))" "$ratio" "$lo" "$hi"; then
        ok "doctored case slower: $line"
    else
        bad "doctored case line: '$line'"
    fi
    grep -q "^summary: B against A, device scope: 0 faster, 1 slower, $((ncommon - 1)) unchanged of $ncommon cases" "$work/out" &&
        ok "doctored copy: 1 slower, the rest unchanged" || { bad "doctored summary"; grep summary "$work/out"; }
fi

if run "--fail-if-slower 20 on a 50% slowdown" 7 compare "$ref" "$work/slow" --fail-if-slower 20; then
    grep -q "1 case slower by more than 20% with the 95% interval excluding that: $slow_case +50.0%" "$work/err" &&
        grep -q "^$slow_case .*slower \* GATE$" "$work/out" && ok "--fail-if-slower 20: exit 7, names $slow_case" ||
        { bad "--fail-if-slower 20 message"; cat "$work/err"; }
fi
run "--fail-if-slower 60 on a 50% slowdown" 0 compare "$ref" "$work/slow" --fail-if-slower 60 && ok "--fail-if-slower 60: exit 0"
run "--fail-if-slower on the run itself" 0 compare "$ref" "$ref" --fail-if-slower 0 && ok "--fail-if-slower 0 on the run itself: exit 0"
run "faster: the doctored copy as A" 0 compare "$work/slow" "$ref" && grep -q "^$slow_case .*faster \*$" "$work/out" &&
    ok "reversed: $slow_case faster" || bad "reversed: $slow_case not faster"

# A run that does not verify is refused, naming it.
cp -r "$work/slow" "$work/broken"; echo x >> "$work/broken/summary.json"
run "a run that does not verify" 1 compare "$ref" "$work/broken" &&
    grep -q "compare: the run does not verify, so it is not compared" "$work/err" && ok "unverified run refused (exit 1)" ||
    bad "unverified run: $(cat "$work/err")"
run "a missing run" 5 compare "$ref" "$work/none" && ok "missing run: exit 5"
run "one run only" 2 compare "$ref" && ok "one run: exit 2"
run "bad --fail-if-slower" 2 compare "$ref" "$ref" --fail-if-slower -3 && ok "negative gate: exit 2"
run "bad --format" 2 compare "$ref" "$ref" --format xml && grep -q "'xml' is not one of text|md|csv|json" "$work/err" && ok "bad format: exit 2"

# Every format holds the same cases and numbers.
"$bin" compare "$ref" "$work/slow" --format json >"$work/c.json" 2>/dev/null &&
"$bin" compare "$ref" "$work/slow" --format csv >"$work/c.csv" 2>/dev/null &&
"$bin" compare "$ref" "$work/slow" --format md >"$work/c.md" 2>/dev/null &&
python3 - "$work" "$slow_case" "$ncommon" <<'PY' && ok "json, csv and md agree" || bad "formats disagree"
import csv, json, sys
w, slow, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
doc = json.load(open(w + "/c.json"))
assert doc["format"] == "softmax-evidence-compare" and doc["version"] == 1
cases = doc["comparisons"][0]["cases"]
assert len(cases) == n, len(cases)
rows = list(csv.DictReader(open(w + "/c.csv")))
assert [r["case"] for r in rows] == [c["case"] for c in cases]
for r, c in zip(rows, cases):
    assert float(r["ratio"]) == c["ratio"] and r["verdict"] == c["verdict"], r
md = [l for l in open(w + "/c.md") if l.startswith("| ") and not l.startswith("| case")]
assert len(md) == n, len(md)
assert [c["case"] for c in cases if c["verdict"] != "unchanged"] == [slow]
PY

# The reference run against the newest runs/perf run: the environment first.
if run "reference against $(basename "$perf")" 0 compare "$ref" "$perf"; then
    cat "$work/out"
    head -2 "$work/out" | tail -1 | grep -q "^environment: " && grep -q "^summary: B against A" "$work/out" &&
        ok "reference against $(basename "$perf"): environment first, summary last" || bad "reference against perf layout"
fi

echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ]
