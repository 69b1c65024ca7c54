#!/usr/bin/env bash
# gpu-check-layernorm.sh - the GPU check of LayerNorm forward (issue 32,
# item 4; docs/ADDING-A-WORKLOAD.md). Run on the H200 (or an H100) from the
# repository root, with nothing but the CUDA toolkit, CMake, Ninja and
# jansson (installed, or carried: JANSSON_PREFIX=DIR, the folder holding
# include/jansson.h and lib/libjansson.so*):
#
#   scripts/gpu-check-layernorm.sh                 (about 3 to 4 minutes)
#   JANSSON_PREFIX=$PWD/shared/jansson scripts/gpu-check-layernorm.sh
#   SKIP_BUILD=1 scripts/gpu-check-layernorm.sh    (build/ already built)
#   KEEP=DIR scripts/gpu-check-layernorm.sh        (keeps both runs in DIR)
#
# 1. configures and builds build/ (Release, sm_90, no tests);
# 2. runs protocol/layernorm.json (every shape, the eight tiled strategies
#    and rowblock, no peers) into a temporary runs folder, and verifies it;
# 3. runs the softmax's default protocol on a few shapes (--shapes), and
#    verifies it: the softmax must still validate, with one output hash over
#    its eight tiled strategies on each shape, the reference run's
#    (runs/reference) on the shapes it has (32x4096, 3x4097, 1x7);
# 4. prints each run's validation summary and, per shape, the tiled
#    strategies' output hashes (one hash a shape: bitwise identical);
# 5. compute-sanitizer memcheck and racecheck of LayerNorm on small odd
#    shapes (3x4097, 5x37, 7x100003, 1000x101, 1x1) with --validate-only,
#    the two tools at once;
# 6. a short table last: each step, PASS or FAIL, and its seconds.
# Exits 1 when a step fails. Every step has a timeout, so the script ends in
# under 5 minutes on an H200.
set -uo pipefail
cd "$(dirname "$0")/.."
t_start=$SECONDS
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bin=build/softmax-evidence
tiled=stream,graph,stream-pdl,graph-pdl,fusion,fusion-graph,megakernel,megakernel-graph
steps=()
fails=0
# step NAME RESULT SECONDS [DETAIL]: one row of the final table
step() {
    steps+=("$(printf '%-34s %-5s %5ds  %s' "$1" "$2" "$3" "${4:-}")")
    [ "$2" = PASS ] || fails=$((fails + 1))
}
command -v nvcc >/dev/null 2>&1 || export PATH=/usr/local/cuda/bin:$PATH
san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)

# jansson carried rather than installed: CMake looks in JANSSON_PREFIX, the
# binary finds the library there.
if [ -z "${JANSSON_PREFIX:-}" ] && ! pkg-config --exists jansson 2>/dev/null; then
    for d in shared/jansson ../shared/jansson .deps/jansson "$HOME/jansson" /opt/jansson; do
        if [ -f "$d/include/jansson.h" ]; then JANSSON_PREFIX=$(cd "$d" && pwd); break; fi
    done
fi
cmake_extra=()
if [ -n "${JANSSON_PREFIX:-}" ]; then
    echo "jansson from $JANSSON_PREFIX"
    cmake_extra=(-DCMAKE_PREFIX_PATH="$JANSSON_PREFIX")
    export LD_LIBRARY_PATH="$JANSSON_PREFIX/lib:$JANSSON_PREFIX/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    export PKG_CONFIG_PATH="$JANSSON_PREFIX/lib/pkgconfig:$JANSSON_PREFIX/lib64/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
fi

echo "== 1. build (Release, sm_90, no tests)"
t=$SECONDS
if [ -n "${SKIP_BUILD:-}" ] && [ -x "$bin" ]; then
    echo "SKIP_BUILD: using $bin"
    step "build" PASS $((SECONDS - t))
elif timeout 200 cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DSE_BUILD_TESTS=OFF \
        -DCMAKE_CUDA_ARCHITECTURES=90 "${cmake_extra[@]}" >"$work/cmake.log" 2>&1 &&
     timeout 200 cmake --build build -j "$(nproc)" --target softmax-evidence >"$work/build.log" 2>&1; then
    grep -E "warning|spill" "$work/build.log" | grep -v "0 bytes spill" | head -n 5
    step "build" PASS $((SECONDS - t))
else
    tail -n 30 "$work/cmake.log" "$work/build.log" 2>/dev/null
    step "build" FAIL $((SECONDS - t))
    printf '%s\n' "${steps[@]}"
    exit 1
fi
"$bin" --version 2>/dev/null | head -n 1

# summarize RUN LABEL [REFERENCE_RUN]: the validation summary, the tiled
# hashes per shape (and, with a reference run, on the shapes it has, that
# they are its hashes); exits 1 when a case failed or a shape's tiled
# outputs differ (from each other or from the reference's).
summarize() {
    python3 - "$@" <<'PY'
import json, os, sys
run, label = sys.argv[1], sys.argv[2]
ref = {}
if len(sys.argv) > 3:
    for c in json.load(open(os.path.join(sys.argv[3], "validation.json")))["cases"]:
        if c["strategy"] == "stream":
            ref[c["shape"]] = c["output_sha256"][:12]
val = json.load(open(os.path.join(run, "validation.json")))
strats = ["stream", "graph", "stream-pdl", "graph-pdl", "fusion", "fusion-graph", "megakernel",
          "megakernel-graph"]
wl = json.load(open(os.path.join(run, "strategies.json"))).get("workload", {}).get("name", "?")
bad, bad_cases, shapes, hashes, worst, same_ref = 0, 0, [], {}, {}, 0
for c in val["cases"]:
    if c["shape"] not in shapes:
        shapes.append(c["shape"])
    w = worst.setdefault(c["strategy"], [0.0, 0.0])
    w[0] = max(w[0], c["max_abs_err"]); w[1] = max(w[1], c["max_rel_err"])
    if not c["pass"]:
        bad += 1
        bad_cases = bad_cases + 1
        print("FAIL: %s: %s max_abs_err %g max_rel_err %g fails %d repeat %s matches_tiled %s"
              % (label, c["case"], c["max_abs_err"], c["max_rel_err"], c["fails"],
                 c["repeat_identical"], c["matches_tiled"]))
    if c["strategy"] in strats:
        hashes.setdefault(c["shape"], {})[c["strategy"]] = c["output_sha256"][:12]
print("%s (workload %s): %d of %d cases validated against float64 (atol %g, rtol %g)"
      % (label, wl, len(val["cases"]) - bad, len(val["cases"]), val["tolerance"]["atol"],
         val["tolerance"]["rtol"]))
print("  worst error by strategy: " + ", ".join(
    "%s %.2e/%.2e" % (s, w[0], w[1]) for s, w in worst.items()))
print("  tiled output hashes (%d strategies a shape):" % len(strats))
for s in shapes:
    hs = hashes.get(s, {})
    distinct = sorted(set(hs.values()))
    ok = len(distinct) == 1 and len(hs) == len(strats)
    if not ok:
        bad += 1
    same = ""
    if ok and s in ref:
        same = "= %s's" % os.path.basename(os.path.normpath(sys.argv[3]))
        same_ref += ref[s] == distinct[0]
        if ref[s] != distinct[0]:
            same = "NOT %s's %s" % (os.path.basename(os.path.normpath(sys.argv[3])), ref[s])
            bad += 1
    print("    %-12s %s %s" % (s, "identical " + distinct[0] if ok else "DIFFER",
                                same if ok else " ".join("%s=%s" % kv for kv in hs.items())))
ident = sum(1 for s in shapes if len(set(hashes.get(s, {}).values())) == 1
            and len(hashes.get(s, {})) == len(strats))
with open(os.environ["DETAIL"], "w") as f:
    f.write("%d/%d cases validated, tiled bitwise identical on %d/%d shapes%s\n"
            % (len(val["cases"]) - bad_cases, len(val["cases"]), ident, len(shapes),
               ", = %s on %d" % (os.path.basename(os.path.normpath(sys.argv[3])), same_ref)
               if ref else ""))
sys.exit(1 if bad else 0)
PY
}

# run_protocol LABEL TIMEOUT REFERENCE ARGS...: a run into $work/LABEL,
# then verify, then the summary (REFERENCE: a committed run whose hashes
# the tiled outputs must equal on the shapes it has, or "").
run_protocol() {
    local label=$1 limit=$2 reference=$3
    shift 3
    local t=$SECONDS dir rc ok=PASS
    timeout "$limit" "$bin" run "$@" --no-peers --quiet --runs-dir "$work/$label" \
        --run-dir-out "$work/$label.dir" >"$work/$label.log" 2>&1
    rc=$?
    dir=$(cat "$work/$label.dir" 2>/dev/null)
    grep -E "FAIL|validation" "$work/$label.log" | head -n 20
    if [ $rc -ne 0 ]; then
        tail -n 15 "$work/$label.log"
        [ $rc -eq 124 ] && echo "$label: timed out after ${limit}s"
        ok=FAIL
    fi
    step "run $label" $ok $((SECONDS - t))
    [ -n "$dir" ] && [ -d "$dir" ] || return
    [ -n "${KEEP:-}" ] && mkdir -p "$KEEP" && cp -r "$dir" "$KEEP/" && echo "kept in $KEEP/$(basename "$dir")"
    t=$SECONDS
    if timeout 60 "$bin" verify "$dir" >"$work/$label.verify" 2>&1; then
        tail -n 1 "$work/$label.verify"
        step "verify $label" PASS $((SECONDS - t))
    else
        tail -n 15 "$work/$label.verify"
        step "verify $label" FAIL $((SECONDS - t))
    fi
    t=$SECONDS
    if DETAIL="$work/$label.detail" summarize "$dir" "$label" ${reference:+"$reference"}; then
        step "validation + hashes $label" PASS $((SECONDS - t)) "$(cat "$work/$label.detail")"
    else
        step "validation + hashes $label" FAIL $((SECONDS - t)) "$(cat "$work/$label.detail" 2>/dev/null)"
    fi
}

echo "== 2. LayerNorm: protocol/layernorm.json"
run_protocol layernorm 150 "" --protocol protocol/layernorm.json

echo "== 3. the softmax: the default protocol on a few shapes (hashes as runs/reference's)"
run_protocol softmax 60 runs/reference --shapes 32x4096,3x4097,1x7,5x37,1000x101

echo "== 4. compute-sanitizer on LayerNorm, small odd shapes, --validate-only"
ln_shapes=3x4097,5x37,7x100003,1000x101,1x1
# Both tools at once (two processes share the GPU by time slices; nothing
# here is timed), so that the script stays under 5 minutes.
t=$SECONDS
pids=()
for tool in memcheck racecheck; do
    if [ ! -x "$san" ]; then
        echo "compute-sanitizer not found" >"$work/$tool.log"
        echo 127 >"$work/$tool.rc"
        continue
    fi
    ( timeout 110 "$san" --tool "$tool" --error-exitcode 3 "$bin" run \
          --protocol protocol/layernorm.json --shapes "$ln_shapes" --validate-only \
          --invocations 1 --quiet >"$work/$tool.log" 2>&1
      echo $? >"$work/$tool.rc" ) &
    pids+=($!)
done
[ ${#pids[@]} -gt 0 ] && wait "${pids[@]}"
for tool in memcheck racecheck; do
    rc=$(cat "$work/$tool.rc" 2>/dev/null || echo 1)
    echo "-- $tool (rc $rc):"
    grep -E "ERROR SUMMARY|RACECHECK SUMMARY|validation:|not found" "$work/$tool.log" | tail -n 3
    summary=$(grep -hoE "(ERROR|RACECHECK) SUMMARY: .*" "$work/$tool.log" | tail -n 1)
    if [ "$rc" -eq 0 ]; then
        step "$tool layernorm" PASS $((SECONDS - t)) "$summary" 
    else
        grep -E "Error|error|hazard|FAIL" "$work/$tool.log" | head -n 15
        [ "$rc" -eq 124 ] && echo "$tool: timed out after 110s"
        step "$tool layernorm (rc $rc)" FAIL $((SECONDS - t)) "$summary"
    fi
done
echo
echo "== gpu-check-layernorm: $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1), $(git rev-parse --short HEAD 2>/dev/null)$(git diff --quiet 2>/dev/null || echo -dirty)"
printf '%-34s %-5s %6s  %s\n' step result time detail
printf '%s\n' "${steps[@]}"
echo "total $((SECONDS - t_start)) s; $fails step(s) failed"
[ "$fails" -eq 0 ]
