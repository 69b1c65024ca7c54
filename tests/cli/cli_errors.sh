#!/usr/bin/env bash
# cli_errors.sh BINARY - bad input to the command line is refused before any
# GPU work: a non-zero exit code of the documented kind, and a message that
# names the argument and the value. Runs the same with or without a GPU.
set -u
bin=$1
fails=0 passes=0

expect() { # expect RC SUBSTRING ARGS...
    local want_rc=$1 want_msg=$2; shift 2
    local out rc
    out=$("$bin" "$@" 2>&1); rc=$?
    if [ "$rc" -ne "$want_rc" ] || ! grep -qF -- "$want_msg" <<<"$out"; then
        echo "FAIL: softmax-evidence $*: exit $rc (want $want_rc), output: $out (want '$want_msg')"
        fails=$((fails + 1))
    else
        passes=$((passes + 1))
    fi
}

expect 2 "missing command"
expect 2 "unknown command 'frob'" frob
expect 2 "unknown argument '--frobnicate'" run --frobnicate
expect 2 "--tile: 0 is out of range" run --tile 0
expect 2 "--tile: -4 is out of range" run --tile -4
expect 2 "--tile: expected an integer, got '4k'" run --tile 4k
expect 2 "--tile: missing value" run --tile
expect 2 "shape '0x4096': rows must be between 1 and 2147483647, got 0" run --shapes 0x4096
expect 2 "shape '4x0': columns must be between 1 and 2147483647, got 0" run --shapes 4x0
expect 2 "shape '-3x8': rows must be between 1 and 2147483647, got -3" run --shapes -3x8
expect 2 "shape '3x99999999999999999999': columns: 99999999999999999999 is out of range" run --shapes 3x99999999999999999999
expect 2 "shape '2147483648x2': rows must be between 1 and 2147483647, got 2147483648" run --shapes 2147483648x2
expect 2 "elements overflow the limit" run --shapes 2147483647x2147483647
expect 2 "--shapes: empty entry at position 2" run --shapes 32x4096,,1x1
expect 2 "--strategies: unknown strategy 'warp'" run --strategies stream,warp
expect 2 "--blocks: 0 is out of range" run --blocks 0
expect 2 "--scale: nan is out of range" run --scale nan
expect 3 "tasks; the megakernel and the traces number tasks in 32 bits" run --shapes 1000x1000000 --tile 1
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
printf '{\n  "format": "softmax-evidence-protocol",\n  "version": 1,\n' > "$tmp/bad.json"
printf '{"format": "softmax-evidence-protocol", "version": 1, "name": "x"}\n' > "$tmp/missing.json"
expect 2 "$tmp/bad.json:4:" run --protocol "$tmp/bad.json"
expect 2 "$tmp/missing.json: field 'workload': missing" run --protocol "$tmp/missing.json"
expect 5 "$tmp/nope.json" run --protocol "$tmp/nope.json"
# LayerNorm has no cuDNN reference (cuDNN's legacy API has no layer
# norm): a run of it that lists strategy cudnn is refused before any GPU
# work, naming the strategy and the workload.
ln="$(dirname "$0")/../../protocol/layernorm.json"
expect 2 "strategy 'cudnn' cannot run workload 'layernorm'" run --protocol "$ln" --strategies stream,cudnn
expect 2 "strategy 'cudnn' cannot run workload 'layernorm'" run --protocol "$ln" --strategies cudnn --validate-only
expect 5 "runs folder /proc/se-forbidden cannot be created" run --runs-dir /proc/se-forbidden
touch "$tmp/file"
expect 5 "runs folder $tmp/file/runs cannot be created" run --runs-dir "$tmp/file/runs"
expect 2 "verify: missing RUN_DIR" verify
expect 2 "verify: unknown argument '--fast'" verify --fast x
expect 5 "$tmp/none: does not exist" verify "$tmp/none"
touch "$tmp/plainfile"
expect 5 "$tmp/plainfile: not a directory" verify "$tmp/plainfile"
expect 2 "--peers-script: $tmp/nope.py cannot be read" run --peers-script "$tmp/nope.py"
expect 2 "--peers-script: empty path" run --peers-script ""
expect 2 "--peers-python: empty path" run --peers-python=
expect 2 "--no-peers: cannot be combined with --peers-python" run --no-peers --peers-python python3
expect 2 "table: usage: softmax-evidence table RUN_DIR" table
expect 2 "table: usage: softmax-evidence table RUN_DIR [--format text|md|csv|json] [--set FILE] (unexpected argument 'b')" table a b
expect 2 "table: usage: softmax-evidence table RUN_DIR [--format text|md|csv|json] [--set FILE] (unknown argument '--all')" table --all x
expect 2 "table: usage: softmax-evidence table RUN_DIR [--format text|md|csv|json] [--set FILE] (--set needs a run set file)" table x --set=
expect 2 "answer: usage: softmax-evidence answer RUN_DIR [RUN_DIR...] | --set FILE" answer x --set y.json
expect 2 "answer: --set needs a run set file" answer --set
expect 2 "(--a-set and --b-set go together, without run directories)" compare --a-set a.json
expect 2 "(--a-set and --b-set go together, without run directories)" compare a b --a-set a.json --b-set b.json
expect 2 "(--record-floor: two runs or more, or --a-set FILE alone)" compare --record-floor f.json a
expect 2 "compare: --record-floor takes runs (or --a-set) and --scope only" compare --record-floor f.json a b --fail-if-slower 3
expect 2 "compare: an option's value is empty" compare a b --floor=
expect 2 "site: usage: softmax-evidence site RUN_DIR OUT_DIR [--quiet] [--set FILE] (--set needs a run set file)" site a b --set
expect 2 "table: --format: 'xml' is not one of text|md|csv|json" table x --format xml
expect 2 "export: usage: softmax-evidence export RUN_DIR --format nvbench|gbench -o FILE (missing -o FILE)" export x --format nvbench
expect 2 "export: --format: 'csv' is not one of nvbench|gbench" export x --format csv -o y
expect 5 "table: $tmp/none: does not exist" table "$tmp/none"
out=$("$bin" table "$tmp/none" 2>&1)
if grep -q "not a directory" <<<"$out"; then
    echo "FAIL: 'not a directory' printed for a path that does not exist: $out"; fails=$((fails + 1))
else passes=$((passes + 1)); fi
mkdir "$tmp/notarun"
expect 5 "table: cannot read manifest $tmp/notarun/MANIFEST.sha256" table "$tmp/notarun"
ref=$(cd "$(dirname "$0")/../../runs/reference" && pwd)
cp -r "$ref" "$tmp/run"; chmod -R u+w "$tmp/run"
sed -i '0,/"median_ns": [0-9.e+-]*/s//"median_ns": 1234.5/' "$tmp/run/summary.json"
expect 1 "table: the run does not verify, so no table is printed from it" table "$tmp/run"
expect 1 "first problems: mismatch: summary.json" table "$tmp/run"
out=$("$bin" table "$tmp/run" 2>/dev/null)
if [ -n "$out" ]; then
    echo "FAIL: table printed from a run that does not verify: $out" | head -3; fails=$((fails + 1))
else
    passes=$((passes + 1))
fi
expect 0 "vs_best_peer" table "$ref"
expect 0 "intervals have zero width (e.g. " table "$ref" --format md
expect 0 "That is the timer's resolution" table "$ref" --format md
expect 0 "device times come in steps of 32 ns" table "$ref" --format md
# The reference run's peers.json may hold Quack's coloured error text (made
# before bench/peers.py dropped such sequences): the table shows it plain.
expect 0 "quack-softmax     error: " table "$ref"
out=$("$bin" table "$ref" 2>&1)
if grep -qF '\x1b' <<<"$out" || grep -q $'\x1b' <<<"$out"; then
    echo "FAIL: the peers table shows terminal escapes"; fails=$((fails + 1))
else passes=$((passes + 1)); fi
# The table's figures are the run's own: every measured case's device
# median (summary.json) and the peers' pass/fail/error counts (peers.json),
# read here independently of the binary; the mechanism sentences have
# their documented form.
printf '%s\n' "$out" >"$tmp/table.txt"
if python3 - "$ref" "$tmp/table.txt" <<'PY'
import json, re, sys
run = sys.argv[1]
table = open(sys.argv[2]).read()
lines = table.splitlines()
summary = json.load(open(run + "/summary.json"))
checked = 0
for c in summary["cases"]:
    dev = c.get("scopes", {}).get("device")
    if not dev or "median_ns" not in dev:
        continue
    want = re.compile(r"^%s +%s +%.2f +\[" % (re.escape("%dx%d" % (c["rows"], c["cols"])), re.escape(c["what"]),
                                              dev["median_ns"] / 1000.0))
    if not any(want.match(l) for l in lines):
        sys.exit("no table row %s %s %.2f" % (c["shape"], c["what"], dev["median_ns"] / 1000.0))
    checked += 1
assert checked >= 100, checked
peers = json.load(open(run + "/peers.json"))["peers"]
st = [r.get("status") for r in peers]
ok, bad, err = st.count("ok"), st.count("failed"), st.count("error")
want = "%d of %d (peer, shape) cases passed validation, %d failed, %d errors" % (ok, len(st), bad, err)
assert want in table, want
m = re.search(r"graph-pdl against graph: graph-pdl is faster on (\d+) of (\d+) shapes", table)
assert m and int(m.group(1)) <= int(m.group(2)) == 14, "graph-pdl sentence"
PY
then passes=$((passes + 1)); else echo "FAIL: the table's rows are not the run's own figures"; fails=$((fails + 1)); fi
# profile without Nsight Compute: its own exit code (8), not "no GPU" (6).
if ! command -v ncu >/dev/null 2>&1 && [ ! -x /usr/local/cuda/bin/ncu ]; then
    cp -r "$ref" "$tmp/prof"; chmod -R u+w "$tmp/prof"
    expect 8 "Nsight Compute (ncu) was not found" profile "$tmp/prof"
    rm -rf "$tmp/prof"
fi
# verify --strict as its help says: a listed file that is absent fails it,
# unless remote.json says the file lives in the run's archive.
expect 0 "also fail on a file the manifest lists that is not present" verify --help
expect 0 "unless remote.json says it lives in the run's archive" verify --help
expect 0 "verify: OK" verify --strict "$ref"
cp -r "$ref" "$tmp/gone"; chmod -R u+w "$tmp/gone"; rm "$tmp/gone/traces/5x4097.megakernel.csv"
expect 0 "verify: OK" verify "$tmp/gone"
expect 1 "counted with --strict" verify --strict "$tmp/gone"
rm -rf "$tmp/gone"
# answer --format json: every ratio of the grid, as the md grid shows it;
# --format summary: three to five sentences, numbers from the same answer.
expect 2 "answer: --format: 'xml' is not one of text|md|json|summary" answer "$ref" --format xml
"$bin" answer "$ref" --format json >"$tmp/answer.json" 2>/dev/null &&
"$bin" answer "$ref" --format md >"$tmp/answer.md" 2>/dev/null &&
"$bin" answer "$ref" --format summary >"$tmp/summary.txt" 2>/dev/null &&
python3 - "$tmp/answer.json" "$tmp/answer.md" "$tmp/summary.txt" <<'PY'
import json, re, sys
a = json.load(open(sys.argv[1]))
md = open(sys.argv[2]).read()
summary = open(sys.argv[3]).read().strip()
assert a["format"] == "softmax-evidence-answer" and a["n_runs"] == 1, a.get("format")
assert len(a["shapes"]) == 14 and len(a["mechanisms"]) == 7
for s in a["shapes"]:
    for m, r in s["ratio_to_stream"].items():
        cell = "%.3f (%.3f-%.3f)" % (r["ratio"], r["ci95"][0], r["ci95"][1])
        assert cell in md, (s["shape"], m, cell)
n = len(re.findall(r"[.!?](?:\s|$)", summary))
assert 3 <= n <= 5, (n, summary)
assert summary == a["summary"], "the JSON's summary is not --format summary's"
g = a["shapes"][[s["shape"] for s in a["shapes"]].index("1x1")]["ratio_to_stream"]["graph-pdl"]
assert "%.2f of stream's time on 1x1" % g["ratio"] in summary, summary
PY
if [ $? -eq 0 ]; then passes=$((passes + 1)); else echo "FAIL: answer --format json/summary"; fails=$((fails + 1)); fi
# trace: a remote-only trace says so and names the archive; a run without
# traces says so instead of listing no strategies; 5xT+1 names a case.
expect 5 "traces/4096x4096.stream.csv is remote-only" trace "$ref" 4096x4096.stream -o "$tmp/t.json"
expect 5 "complete archive 20261204T165545Z.tar.gz" trace "$ref" 4096x4096.stream -o "$tmp/t.json"
rep=$(ls -d "$(dirname "$0")"/../../runs/repeat/*/ | head -1)
expect 2 "this run traced no case at all" trace "$rep" 4096x4096.stream -o "$tmp/t.json"
out=$("$bin" trace "$rep" 4096x4096.stream -o "$tmp/t.json" 2>&1)
if grep -qE "strategies *$" <<<"$out"; then
    echo "FAIL: trace's list of cases ends in an empty strategy list: $out"; fails=$((fails + 1))
else passes=$((passes + 1)); fi
expect 0 "trace 5x4097.megakernel: pass" trace "$ref" 5xT+1.megakernel -o "$tmp/t.json"
expect 0 "trace 5x4097.megakernel: pass" trace "$ref" 5x4097.megakernel -o "$tmp/t.json"
# archive and verify --archive (docs/ARCHIVE.md): refused before anything is written.
expect 2 "archive: usage: softmax-evidence archive RUN_DIR -o FILE.tar.gz" archive "$ref"
expect 2 "archive: -o needs a value" archive "$ref" -o
expect 2 "archive: unknown argument '--frob'" archive "$ref" -o "$tmp/a.tar.gz" --frob
expect 2 "archive: --no-remote-only cannot be combined with" archive "$ref" -o "$tmp/a.tar.gz" --no-remote-only --keep 'x'
expect 2 "--remote-min-bytes: expected an integer, got '1k'" archive "$ref" -o "$tmp/a.tar.gz" --remote-min-bytes 1k
expect 2 "verify: --archive needs the run's .tar.gz" verify "$ref" --archive
expect 0 "usage: softmax-evidence archive RUN_DIR -o FILE.tar.gz" archive --help
expect 0 "usage: softmax-evidence COMMAND" --help
expect 0 "usage: softmax-evidence run [options]" run --help
expect 0 "softmax-evidence 0." --version

echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ]
