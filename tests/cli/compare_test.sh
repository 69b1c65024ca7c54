#!/usr/bin/env bash
# compare_test.sh BINARY RESUMMARIZE SOURCE_DIR - `softmax-evidence compare`
# (docs/COMPARE.md): the noise floor (the committed repeat passes a 5% gate
# with runs/noise-floor.json and a x1.10 copy of it fails naming its case;
# several runs a side from run sets; --record-floor's refusals); a run
# against itself changes nothing; against a
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

# Runs of two workloads: refused, naming both runs and both workloads.
ln=$(ls -d "$src"/runs/layernorm/*/ 2>/dev/null | sort | tail -1); ln=${ln%/}
if [ -n "$ln" ] && run "the softmax against LayerNorm" 2 compare "$ref" "$ln"; then
    grep -q "$ref measures rms-softmax (strategies.json's workload), $ln measures layernorm: compare takes runs of one workload" "$work/err" &&
        ok "the softmax against LayerNorm: refused, exit 2, naming both" ||
        { bad "the softmax against LayerNorm: message"; cat "$work/err"; }
fi
if [ -n "$ln" ] && run "a set of the softmax and LayerNorm" 2 answer "$ref" "$ln"; then
    grep -q "$ln measures layernorm (strategies.json's workload), $ref measures rms-softmax" "$work/err" &&
        ok "answer over the softmax and LayerNorm: refused, exit 2, naming both" ||
        { bad "answer over two workloads: message"; cat "$work/err"; }
fi

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
    grep -q "1 case slower by more than 20% and more than the noise between runs, with the 95% interval excluding both: $slow_case +50.0% (noise 0.0%)" "$work/err" &&
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

# The noise between runs (docs/COMPARE.md): a committed repeat of the
# reference run, same commit, fails a 2% gate on its own noise (3x4097.copy
# +7.1% the largest: one run's medians, with no spread between runs to compare with); with the
# committed floor (runs/noise-floor.json, which --record-floor over
# runs/answer-runs.json reproduces) it passes, and a copy of the repeat with
# one case's samples x1.10 fails it, naming that case.
rep=$src/runs/repeat/20261204T171032Z floor=$src/runs/noise-floor.json
if run "the repeat without a floor" 7 compare "$ref" "$rep" --fail-if-slower 2; then
    ok "the repeat of the same commit fails --fail-if-slower 2 without a floor: $(grep -o '[0-9]* cases slower' "$work/err")"
fi
if run "record the floor" 0 compare --record-floor "$work/floor.json" --a-set "$src/runs/answer-runs.json"; then
    cmp -s "$work/floor.json" "$floor" && ok "runs/noise-floor.json is what --record-floor writes from runs/answer-runs.json" ||
        bad "runs/noise-floor.json differs from a fresh --record-floor (regenerate it)"
fi
run "the repeat with the floor" 0 compare "$ref" "$rep" --fail-if-slower 2 --floor "$floor" &&
    grep -q "; 0 slower by more than 2% and than the noise (GATE)" "$work/out" && ok "the repeat with the floor passes --fail-if-slower 2"
slow10=$(python3 "$(dirname "$0")/make_slower_run.py" "$resum" "$rep" "$work/slow10" 1.10) ||
    { bad "the x1.10 copy of the repeat cannot be made"; slow10=none; }
if run "x1.10 copy with the floor" 7 compare "$ref" "$work/slow10" --fail-if-slower 5 --floor "$floor"; then
    grep -q "^softmax-evidence: slower than the gate: compare: 1 case slower by more than 5% and more than the noise between runs, with the 95% interval excluding both: $slow10 +" "$work/err" &&
        grep -q "^$slow10 .* floor .*slower \* GATE$" "$work/out" && ok "x1.10 copy of the repeat: exit 7 naming $slow10 only" ||
        { bad "x1.10 message"; cat "$work/err"; }
fi
# Several runs a side, from run sets (entries relative to the set's folder).
mkdir -p "$work/sets"; ln -s "$ref" "$work/sets/ref"; ln -s "$rep" "$work/sets/rep"
ln -s "$work/slow10" "$work/sets/slowA"; ln -s "$work/slow10" "$work/sets/slowB"
printf '{"format":"softmax-evidence-runset","version":1,"runs":["ref","rep"]}' >"$work/sets/a.json"
printf '{"format":"softmax-evidence-runset","version":1,"runs":["rep","slowA"]}' >"$work/sets/mixed.json"
printf '{"format":"softmax-evidence-runset","version":1,"runs":["slowA","slowB"]}' >"$work/sets/slow.json"
if run "sets: the slowdown in both B runs" 7 compare --a-set "$work/sets/a.json" --b-set "$work/sets/slow.json" --fail-if-slower 5; then
    grep -q "^A: 2 runs: " "$work/out" && grep -q "excluding both: $slow10 +" "$work/err" &&
        ok "sets: A 2 runs, B 2 slowed runs: exit 7 naming $slow10" || { bad "sets message"; cat "$work/err"; }
fi
run "sets: the slowdown in one B run of two" 0 compare --a-set "$work/sets/a.json" --b-set "$work/sets/mixed.json" --fail-if-slower 5 &&
    grep -q "^$slow10 .* runs " "$work/out" && ok "sets: a slowdown in one of B's two runs is within B's own noise: exit 0"
run "sets without --b-set" 2 compare --a-set "$work/sets/a.json" && ok "--a-set alone: exit 2"
run "floor of one run" 2 compare --record-floor "$work/f1.json" "$ref" && ok "--record-floor of one run: exit 2"
# runs/perf/20261130T192606Z: a run of another commit than the reference
old=$src/runs/perf/20261130T192606Z
if run "floor of two commits" 2 compare --record-floor "$work/f2.json" "$ref" "$old"; then
    grep -q "source.git_commit differs from" "$work/err" && [ ! -e "$work/f2.json" ] &&
        ok "--record-floor over two commits refused, nothing written" || bad "two commits: $(cat "$work/err")"
fi
echo '{"format":"softmax-evidence-noise-floor","version":1,"scope":"host","cases":{}}' >"$work/hostfloor.json"
run "a floor of another scope" 2 compare "$ref" "$rep" --floor "$work/hostfloor.json" &&
    grep -q "the floor is of scope 'host'" "$work/err" && ok "a floor of another scope refused"
echo '{"format":"softmax-evidence-noise-floor","version":1,"scope":"device","cases":{"x":{"noise_pct":-1}}}' >"$work/badfloor.json"
run "a floor with a negative noise" 1 compare "$ref" "$rep" --floor "$work/badfloor.json" &&
    grep -q "cases.x: field 'noise_pct'" "$work/err" && ok "a negative noise_pct refused, naming it"

# The reference run against the newest runs/perf run: the environment first.
if run "reference against $(basename "$perf")" 0 compare "$ref" "$perf"; then
    cat "$work/out"
    head -2 "$work/out" | tail -1 | grep -q "^environment: " && grep -q "^summary: B against A" "$work/out" &&
        ok "reference against $(basename "$perf"): environment first, summary last" || bad "reference against perf layout"
fi

echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ]
