#!/usr/bin/env bash
# gpu-check-tiles.sh - the GPU check of task graph version 2 (packed short
# rows, float4 head/tail path for any row length; docs/STRATEGIES.md, "Row
# groups"). Run on the H200 from the repository root after scripts/build.sh:
#
#   scripts/gpu-check-tiles.sh            (about 3 minutes)
#
# 1. a run of scripts/gpu-check-tiles.json (packed, split and odd shapes, the
#    eight tiled strategies, few samples, traces on, no peers) into a
#    temporary runs folder, then verify of it (the traces checked against
#    run.json's task graph);
# 2. from its validation.json: every case passed, and on every shape the
#    eight tiled outputs have one SHA-256 (matches_tiled); from traces.json:
#    every trace passed; from summary.json: the device medians of each tiled
#    strategy per shape, and goal G5 (a row length that is not a multiple of
#    4 against its aligned neighbour, at most 1.05);
# 3. validation at tile 1000 on odd shapes;
# 4. compute-sanitizer memcheck and racecheck on odd and packed shapes.
# Exits 1 when a check fails (G5 is reported, not a failure); keeps the run
# in $KEEP if set.
set -uo pipefail
cd "$(dirname "$0")/.."
bin=build/softmax-evidence
[ -x "$bin" ] || { echo "FAIL: $bin not built (scripts/build.sh)"; exit 1; }
tiled=stream,graph,stream-pdl,graph-pdl,fusion,fusion-graph,megakernel,megakernel-graph
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
t_start=$SECONDS

echo "== 1. run of scripts/gpu-check-tiles.json"
timeout 170 "$bin" run --protocol scripts/gpu-check-tiles.json --runs-dir "$work/runs" --no-peers \
    --quiet --run-dir-out "$work/dir" >"$work/run.log" 2>&1
rc=$?
run=$(cat "$work/dir" 2>/dev/null)
tail -n 25 "$work/run.log"
[ $rc -eq 0 ] || fail "run exited $rc"
if [ -n "$run" ] && [ -d "$run" ]; then
    [ -n "${KEEP:-}" ] && cp -r "$run" "$KEEP" && echo "run kept in $KEEP"
    "$bin" verify "$run" >"$work/verify.log" 2>&1 || { tail -n 20 "$work/verify.log"; fail "verify of the run"; }
    tail -n 2 "$work/verify.log"
    python3 - "$run" <<'PY' || fails=$((fails + 1))
import json, os, sys
run = sys.argv[1]
load = lambda f: json.load(open(os.path.join(run, f)))
val, summ, tr, rj = load("validation.json"), load("summary.json"), load("traces.json"), load("run.json")
bad = 0
if rj.get("task_graph") != 2:
    print("FAIL: run.json task_graph is", rj.get("task_graph")); bad += 1
strats = ["stream", "graph", "stream-pdl", "graph-pdl", "fusion", "fusion-graph", "megakernel",
          "megakernel-graph"]
shapes, hashes = [], {}
for c in val["cases"]:
    if c["shape"] not in shapes:
        shapes.append(c["shape"])
    if not c["pass"]:
        print("FAIL: %s did not validate (max_rel_err %g, fails %d, repeat %s, matches_tiled %s)"
              % (c["case"], c["max_rel_err"], c["fails"], c["repeat_identical"], c["matches_tiled"]))
        bad += 1
    if c["strategy"] in strats:
        hashes.setdefault(c["shape"], set()).add(c["output_sha256"])
for s in shapes:
    if len(hashes[s]) != 1:
        print("FAIL: %s: the tiled outputs differ (%d hashes)" % (s, len(hashes[s]))); bad += 1
nt = sum(1 for t in tr["traces"] if t["verdict"] != "pass")
for t in tr["traces"]:
    if t["verdict"] != "pass":
        print("FAIL: trace %s: missing %d, duplicated %d, invalid %d, order %d, barrier %d" % (
            t["case"], t["missing_count"], t["duplicated_count"], t["invalid_count"],
            t["order_violations_count"], t["phase_barrier_violations_count"]))
bad += nt
print("validation: %d cases, %d failed; %d shapes, tiled outputs bitwise identical on %d; "
      "traces: %d, %d failed" % (len(val["cases"]), sum(not c["pass"] for c in val["cases"]),
      len(shapes), sum(len(hashes[s]) == 1 for s in shapes), len(tr["traces"]), nt))
med, frac = {}, {}
for c in summ["cases"]:
    d = c.get("scopes", {}).get("device")
    if d and c.get("what") in strats:
        med[(c["shape"], c["what"])] = d["median_ns"] / 1e3
        frac[(c["shape"], c["what"])] = d.get("fraction_of_copy")
short = ["stream", "graph", "s-pdl", "g-pdl", "fusion", "fus-g", "mk", "mk-g"]
print("device median, us, L2 warm (fraction of copy of the best)")
print("%-12s" % "shape" + "".join("%9s" % s for s in short) + "   best")
for s in shapes:
    row = [med.get((s, k)) for k in strats]
    fr = [frac.get((s, k)) or 0 for k in strats]
    best = max(fr) if fr else 0
    print("%-12s" % s + "".join("%9.2f" % v if v is not None else "%9s" % "-" for v in row)
          + "   %.3f" % best)
print("G5: a row length that is not a multiple of 4 over its aligned neighbour (goal <= 1.05)")
worst, pairs = 0, 0
for odd, even in (("17x2000001", "17x2000000"), ("2x100003", "2x100004")):
    if (odd, "stream") not in med or (even, "stream") not in med:
        continue
    pairs += 1
    r = [med[(odd, k)] / med[(even, k)] for k in strats]
    worst = max(worst, max(r))
    print("  %s / %s: " % (odd, even) + " ".join("%s %.3f" % (k, v) for k, v in zip(short, r)))
print("  G5 %s: worst %.3f over %d pairs" % ("met" if pairs and worst <= 1.05 else "NOT met",
                                            worst, pairs))
sys.exit(1 if bad else 0)
PY
else
    fail "no run directory"
fi

echo "== 2. validation at tile 1000 on odd shapes"
timeout 60 "$bin" run --quiet --validate-only --no-peers --tile 1000 --strategies "$tiled" \
    --shapes 7x999,1000x37,3x4097,5x1001,9x333,2x100003 >"$work/t1000.log" 2>&1 ||
    { tail -n 20 "$work/t1000.log"; fail "validation at tile 1000"; }
tail -n 3 "$work/t1000.log"

sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
sanitize() { # TOOL SHAPES [STRATEGIES]
    local tool=$1 shapes=$2 strategies=${3:-$tiled} log="$work/$1.log" summary
    timeout 120 "$sanitizer" --tool "$tool" --error-exitcode 99 --print-limit 20 "$bin" run \
        --quiet --validate-only --no-peers --invocations 1 --strategies "$strategies" \
        --shapes "$shapes" >"$log" 2>&1
    local rc=$?
    summary=$(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$log" | tail -1)
    echo "compute-sanitizer $tool on $shapes: ${summary:-no summary line} (exit $rc)"
    [ $rc -eq 0 ] || { grep -m 20 -E "=========" "$log"; fail "compute-sanitizer $tool"; }
}
if [ -x "$sanitizer" ]; then
    echo "== 3. compute-sanitizer"
    # packed odd rows (300x37: 3 groups of 110; 513x5: groups of 256),
    # segments of several warps (64x1001: 4 rows a tile, 64 threads a row;
    # 8x2048: 128 threads a row), one row a tile (17x2049), split odd rows
    # (3x4097, 2x100003), and the shortest (1x7, 5x13)
    sanitize memcheck 1x7,5x13,3x4097,2x100003,300x37,513x5,64x1001,8x2048,17x2049
    sanitize racecheck 1x7,3x4097,300x37,513x5,64x1001,8x2048,2x100003 stream,fusion,megakernel
else
    fail "compute-sanitizer not found"
fi

echo "== gpu-check-tiles: $fails failed checks, $((SECONDS - t_start)) s"
[ $fails -eq 0 ]
