#!/usr/bin/env bash
# described_run.sh BINARY RUN_DIR - a run that records its strategies
# (strategies.json, bundle/describe.h) is read through that table, not the
# binary's: a copy of the committed RUN_DIR given a strategies.json (the ten
# strategies it ran, one description and one colour changed, and one
# strategy more that it never ran), listed in its manifest, verifies, and
# its report, site and figures show the recorded description and colour and
# the extra strategy's table row; a strategies.json that is wrong (an
# unknown role), or a table that lacks a strategy the run's protocol
# selects, makes verify fail naming the file and the field. Needs gnuplot.
set -u
bin=$(realpath "$1") ref=$(realpath "$2")
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../bundle/rehash.sh"

run=$work/run
cp -r "$ref" "$run"
# strategies.json: name mechanism launch role coop_group init_control trace colour description
write_strategies() {
    python3 - "$run/strategies.json" "$@" <<'PY'
import json, sys
rows = [
    ("stream", "stream", "stream", "tiled", None, None, "phased", "#08519c", "five ordinary kernel launches"),
    ("graph", "graph", "graph", "tiled", None, None, "phased", "#6baed6", "RECORDED: the graph of this run"),
    ("stream-pdl", "pdl", "stream", "tiled", None, None, "phased", "#762a83", "pdl on a stream"),
    ("graph-pdl", "pdl", "graph", "tiled", None, None, "phased", "#de77ae", "pdl in a graph"),
    ("fusion", "fusion", "stream", "tiled", "fusion", None, "phased", "#123456", "fusion"),
    ("fusion-graph", "fusion", "graph", "tiled", "fusion", None, "phased", "#fd8d3c", "fusion graph"),
    ("megakernel", "megakernel", "stream", "tiled", "megakernel", "megakernel_init", "tasks", "#006d2c", "the toy megakernel"),
    ("megakernel-graph", "megakernel", "graph", "tiled", "megakernel", "megakernel_init", "tasks", "#74c476", "the toy megakernel as a graph node"),
    ("rowblock", "rowblock", "stream", "control", None, None, "rows", "#8c8c00", "control"),
    ("cudnn", "cudnn", "stream", "reference", None, None, "none", "#000000", "reference"),
    ("never-ran", "fusion", "stream", "tiled", "never", None, "phased", "#abcdef", "RECORDED: a strategy this run did not select"),
]
keys = ["name", "mechanism", "launch", "role", "coop_group", "init_control", "trace", "colour", "description"]
edit = sys.argv[2] if len(sys.argv) > 2 else ""
entries = [dict(zip(keys, r)) for r in rows]
if edit == "bad-role":
    entries[3]["role"] = "fastest"
if edit == "no-rowblock":
    entries = [e for e in entries if e["name"] != "rowblock"]
doc = {"format": "softmax-evidence-strategies", "version": 1,
       "workload": {"name": "rms-softmax", "phases": list("ABCDE")}, "strategies": entries}
open(sys.argv[1], "w").write(json.dumps(doc, indent=2) + "\n")
PY
}
list_in_manifest() {
    python3 - "$run/MANIFEST.sha256" <<'PY'
import sys
m = sys.argv[1]
lines = [l for l in open(m).read().splitlines(True) if not l.endswith("  strategies.json\n")]
lines.append("0" * 64 + "  strategies.json\n")
lines.sort(key=lambda l: l[66:].encode())
open(m, "w").write("".join(lines))
PY
    rehash_in "$run" strategies.json
}

write_strategies
list_in_manifest
if "$bin" verify "$run" > "$work/verify.log" 2>&1; then
    ok "a run with its own strategies.json verifies"
else
    bad "verify of the described run failed:"; tail -5 "$work/verify.log"
fi
if "$bin" figures "$run" "$work/fig" > "$work/fig.log" 2>&1; then
    ok "figures of the described run"
    grep -q "RECORDED: the graph of this run" "$work/fig/report.md" &&
        ok "the report shows the recorded description" ||
        bad "the report does not show the recorded description"
    grep -q "RECORDED: a strategy this run did not select" "$work/fig/report.md" &&
        ok "the report's strategy table is the recorded one (its extra row)" ||
        bad "the report's strategy table lacks the recorded extra strategy"
    grep -q "the run's own strategy table (strategies.json)" "$work/fig/report.md" &&
        ok "the report says the table is the run's own" ||
        bad "the report does not say the table is the run's own"
    grep -q "an ordinary kernel launch a phase on a stream" "$work/fig/report.md" &&
        bad "the report shows the binary's description of stream" ||
        ok "the report does not show the binary's description of stream"
    grep -q "#123456" "$work/fig/gnuplot/fig2_speedup.gp" &&
        ok "fig2 draws fusion in the recorded colour" ||
        bad "fig2 does not draw fusion in the recorded colour"
else
    bad "figures of the described run failed:"; tail -5 "$work/fig.log"
fi
if "$bin" site "$run" "$work/site" --quiet > "$work/site.log" 2>&1; then
    grep -rq "RECORDED: the graph of this run" "$work/site" &&
        ok "the site shows the recorded description" ||
        bad "the site does not show the recorded description"
else
    bad "site of the described run failed:"; tail -5 "$work/site.log"
fi

write_strategies bad-role
rehash_in "$run" strategies.json
expect "a wrong strategies.json fails verify naming the field" 1 \
    "strategies.json: cannot be read: field 'strategies[3].role'" -- "$bin" verify "$run"
write_strategies no-rowblock
rehash_in "$run" strategies.json
expect "a table without a strategy the protocol selects fails verify" 1 \
    "protocol.json: field 'strategies[8]': unknown strategy 'rowblock'" -- "$bin" verify "$run"
finish
