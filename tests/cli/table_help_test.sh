#!/usr/bin/env bash
# table_help_test.sh BINARY SOURCE_DIR - `table --format text|md|csv|json`
# and the command line's shape names and help (docs/CLI.md): every format
# holds the same rows, derived from the run's own summary.json and
# peers.json; every shape printed is the run's own RxC, and each traced case
# id taken from the table is one `trace` accepts; an unknown case lists the
# run's shapes; `CMD --help` and `help CMD` print that command's help, not
# the global one; a missing run is exit 5 in every command that reads one.
set -u
bin=$1 src=$2
ref=$src/runs/reference
fails=0 passes=0
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
ok() { echo "ok: $1"; passes=$((passes + 1)); }
bad() { echo "FAIL: $1"; fails=$((fails + 1)); }

for f in text md csv json; do
    "$bin" table "$ref" --format $f >"$work/t.$f" 2>"$work/err" || { bad "table --format $f: $(cat "$work/err")"; }
done
python3 - "$work" "$ref" <<'PY' && ok "table: md, csv and json hold the run's rows; shapes are RxC" || bad "table formats"
import csv, json, os, sys
w, ref = sys.argv[1], sys.argv[2]
s = json.load(open(os.path.join(ref, "summary.json")))
peers = json.load(open(os.path.join(ref, "peers.json")))["peers"] if os.path.exists(os.path.join(ref, "peers.json")) else []
want = [("%dx%d" % (c["rows"], c["cols"]), c["what"]) for c in s["cases"]]
rows = list(csv.DictReader(open(w + "/t.csv")))
got = [(r["shape"], r["what"]) for r in rows if r["kind"] != "peer" and r["shape"]]
assert got == want, (got[:5], want[:5])
assert len([r for r in rows if r["kind"] == "peer"]) == len(peers)
assert [r["what"] for r in rows if not r["shape"]] == [c["what"] for c in s["controls"]]
for r, c in zip([r for r in rows if r["kind"] != "peer" and r["shape"]], s["cases"]):
    assert float(r["median_ns"]) == c["scopes"]["device"]["median_ns"], (r, c["case"])
doc = json.load(open(w + "/t.json"))
assert doc["format"] == "softmax-evidence-table" and len(doc["rows"]) == len(rows)
for a, b in zip(doc["rows"], rows):
    assert (a["shape"], a["what"], a["kind"]) == (b["shape"], b["what"], b["kind"])
md = [l for l in open(w + "/t.md") if l.startswith("| ") and not l.startswith("| shape")]
assert len(md) == len([r for r in rows if r["shape"]]), (len(md), len(rows))
shapes = {"%dx%d" % (c["rows"], c["cols"]) for c in s["cases"]}
specs = {c["shape"] for c in s["cases"]} - shapes
for name in ("t.text", "t.md"):
    text = open(os.path.join(w, name)).read()
    for spec in specs:   # the protocol's spelling (e.g. 5xT+1) is never printed
        assert spec + " " not in text and "| " + spec + " |" not in text, (name, spec)
PY

# Every traced case, named as the table names it, is one trace accepts.
python3 - "$ref" >"$work/traced" <<'PY'
import json, sys
import os
t = json.load(open(sys.argv[1] + "/traces.json"))
remote = set()
if os.path.exists(sys.argv[1] + "/remote.json"):  # a selected bundle: some traces are archived
    remote = set(json.load(open(sys.argv[1] + "/remote.json"))["files"])
for c in t["traces"]:
    if c["file"] not in remote:
        print(c["case"])
PY
n=0
while read -r id; do
    shape=${id%%.*}
    grep -q "^$shape,${id#*.}," "$work/t.csv" || { bad "traced case $id is not a row of the table"; continue; }
    "$bin" trace "$ref" "$id" -o "$work/trace.json" >/dev/null 2>"$work/err" || { bad "trace $id: $(cat "$work/err")"; continue; }
    n=$((n + 1))
done <"$work/traced"
[ "$n" -gt 0 ] && [ "$n" -eq "$(wc -l <"$work/traced")" ] && ok "trace accepts all $n traced cases by the table's names"
"$bin" trace "$ref" 9x9.nope -o "$work/x.json" >/dev/null 2>"$work/err"; rc=$?
first=$(head -1 "$work/traced"); first=${first%%.*}
[ $rc -eq 2 ] && grep -q "with the shapes $first, " "$work/err" && ok "unknown case: exit 2, lists the run's shapes" || bad "unknown case: exit $rc: $(cat "$work/err")"

# Per-command help: its own usage, shorter than the global help.
"$bin" --help >"$work/global"
cmds=$(awk '/^  [a-z]/ {print $1}' "$work/global")
[ -n "$cmds" ] || bad "no commands in the global help"
for c in $cmds; do
    "$bin" "$c" --help >"$work/h" 2>&1; rc=$?
    "$bin" help "$c" >"$work/h2" 2>&1
    if [ $rc -eq 0 ] && head -1 "$work/h" | grep -q "^usage: softmax-evidence $c" && ! cmp -s "$work/h" "$work/global" && cmp -s "$work/h" "$work/h2"; then
        ok "$c --help: its own ($(wc -l <"$work/h") lines)"
    else
        bad "$c --help (exit $rc): $(head -2 "$work/h")"
    fi
done
"$bin" verify --help | grep -q -- "--trusted-key" && ! "$bin" verify --help | grep -q -- "--shapes" && ok "verify --help: verify's options, not run's" || bad "verify --help content"
"$bin" help frob >/dev/null 2>&1; [ $? -eq 2 ] && ok "help frob: exit 2" || bad "help frob"

# One exit code per kind of failure: a missing run is 5 everywhere.
for c in "verify X" "table X" "site X $work/site" "figures X $work/fig" "answer X" "compare X X" "export X --format gbench -o $work/g.json" "trace X 1x1.fusion -o $work/t.json" "profile X --reparse" "sign X --key $work/k"; do
    "$bin" ${c//X/$work/none} >/dev/null 2>&1; rc=$?
    [ $rc -eq 5 ] && passes=$((passes + 1)) || bad "softmax-evidence ${c%% *} on a missing run: exit $rc (want 5)"
done

# Through a pipe, a command's details (stdout) come before its error
# summary (stderr): stdout is line-buffered.
cp -r "$ref" "$work/broken"; chmod -R u+w "$work/broken"; echo " " >>"$work/broken/summary.json"
"$bin" verify "$work/broken" 2>&1 | cat >"$work/piped"
tail -1 "$work/piped" | grep -q "^softmax-evidence: validation failed" && grep -q "mismatch: summary.json" "$work/piped" &&
    ok "verify through a pipe: the details, then the error" || { bad "order through a pipe"; tail -3 "$work/piped"; }

echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ]
