#!/usr/bin/env bash
# multirun_test.sh SOURCE_DIR BINARY - scripts/multirun.sh with a stand-in
# for `softmax-evidence run` (no GPU needed): K separate processes, each on
# the next GPU of CUDA_VISIBLE_DEVICES, their folders listed in runset.json
# (which the real binary's run-set reader accepts); a failing run leaves no
# runset.json; bad K and --gap are refused; `table --set` over the
# committed set.
set -u
src=$1 bin=$2
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
fails=0
ok() { echo "ok: $1"; }
bad() { echo "FAIL: $1"; fails=$((fails + 1)); }
cat >"$work/fake" <<'SH'
#!/usr/bin/env bash
# fake run: --runs-dir D --run-dir-out F ...; fails when FAKE_FAIL_AT is this run's number
[ "$1" = run ] || exit 9
shift; dir= outf=
while [ $# -gt 0 ]; do case "$1" in --runs-dir) dir=$2; shift 2;; --run-dir-out) outf=$2; shift 2;; *) shift;; esac; done
n=$(ls "$dir" | grep -c '^r' || true); n=$((n + 1))
[ "${FAKE_FAIL_AT:-0}" = "$n" ] && exit 4
mkdir -p "$dir/r$n"; echo "$CUDA_VISIBLE_DEVICES" >"$dir/r$n/gpu"
echo "$dir/r$n" >"$outf"
SH
chmod +x "$work/fake"
if SE_BIN=$work/fake CUDA_VISIBLE_DEVICES=3,5 "$src/scripts/multirun.sh" 3 --gap 0 --out "$work/set" --protocol x.json >"$work/out" 2>"$work/err"; then
    python3 - "$work/set" <<'PY' && ok "3 runs, GPUs 3,5,3, listed in runset.json" || bad "runset.json content"
import json, sys
d = sys.argv[1]
s = json.load(open(d + "/runset.json"))
assert s["format"] == "softmax-evidence-runset" and s["version"] == 1, s
assert s["runs"] == ["r1", "r2", "r3"], s["runs"]
assert s["devices"] == ["3", "5", "3"], s["devices"]
assert [open("%s/%s/gpu" % (d, r)).read().strip() for r in s["runs"]] == ["3", "5", "3"]
assert "--protocol x.json" in s["command"], s["command"]
PY
    "$bin" answer --set "$work/set/runset.json" 2>"$work/aerr" >/dev/null
    grep -q "r1" "$work/aerr" && ok "the binary reads the set (and refuses the stand-in runs, naming r1)" ||
        bad "answer --set: $(cat "$work/aerr")"
else
    bad "multirun.sh 3 failed: $(cat "$work/err")"
fi
SE_BIN=$work/fake FAKE_FAIL_AT=2 "$src/scripts/multirun.sh" 3 --gap 0 --out "$work/set2" >/dev/null 2>"$work/err"
rc=$?
[ "$rc" -ne 0 ] && [ ! -e "$work/set2/runset.json" ] && grep -q "run 2 of 3 failed" "$work/err" &&
    ok "a failing run: exit $rc, no runset.json" || bad "failing run: rc $rc, $(cat "$work/err")"
SE_BIN=$work/fake "$src/scripts/multirun.sh" 0 >/dev/null 2>"$work/err"
[ $? -eq 2 ] && grep -q "K: '0'" "$work/err" && ok "K = 0 refused" || bad "K = 0"
SE_BIN=$work/fake "$src/scripts/multirun.sh" 2 --gap -5 >/dev/null 2>"$work/err"
[ $? -eq 2 ] && grep -q "\-\-gap: '-5'" "$work/err" && ok "--gap -5 refused" || bad "--gap -5"
SE_BIN=$work/fake "$src/scripts/multirun.sh" 2 --runs-dir x >/dev/null 2>"$work/err"
[ $? -eq 2 ] && ok "--runs-dir refused" || bad "--runs-dir"
# The committed set's consumers: table --set closes with the answer over
# its runs; a run outside the set is told so.
"$bin" table "$src/runs/reference" --set "$src/runs/answer-runs.json" >"$work/t.txt" 2>/dev/null
# The count of runs is the set file's own (read here, not by the binary).
nset=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["runs"]))' "$src/runs/answer-runs.json")
grep -qE "This answer rests on $nset separate runs of the same protocol, made over [0-9]+ minutes \\(20" "$work/t.txt" &&
    grep -q "^Calibration, measured by leaving one run out: " "$work/t.txt" &&
    ok "table --set: the answer over the set's $nset runs, with its calibration" || bad "table --set ($nset runs): $(grep -i 'rests on' "$work/t.txt")"
perf=$src/runs/perf/20261130T192606Z # a run outside the set
"$bin" table "$perf" --set "$src/runs/answer-runs.json" >"$work/t2.txt" 2>/dev/null
grep -q "is not one of its runs" "$work/t2.txt" && ok "table --set of a run outside the set says so" ||
    bad "table --set outside: $(tail -1 "$work/t2.txt")"
[ "$fails" -eq 0 ]
