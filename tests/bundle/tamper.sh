#!/usr/bin/env bash
# tamper.sh BINARY RUN_DIR - the committed reference run verifies, and every
# kind of tampering with a copy of it is caught by `verify`, with a message
# that names the file (and, for content, the field). No GPU needed.
set -u
bin=$1 ref=$2
fails=0 passes=0
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT

check() { # check NAME WANT_RC SUBSTRING -- ARGS...
    local name=$1 want_rc=$2 want=$3; shift 4
    local out rc
    out=$("$bin" verify "$@" 2>&1); rc=$?
    if [ "$rc" -ne "$want_rc" ] || ! grep -qF -- "$want" <<<"$out"; then
        echo "FAIL: $name: exit $rc (want $want_rc), want '$want' in:"; echo "$out" | tail -15
        fails=$((fails + 1))
    else
        echo "ok: $name"
        passes=$((passes + 1))
    fi
}

fresh() { rm -rf "$work/run"; cp -r "$ref" "$work/run"; chmod -R u+w "$work/run"; }
# Rewrites the manifest line of one file, so that only the content checks can catch the edit.
. "$(dirname "$0")/rehash.sh"
rehash() { rehash_in "$work/run" "$1"; }

sample=samples/32x4096.stream.csv

check "reference run verifies" 0 "verify: OK" -- "$ref"
check "reference run verifies with --strict" 0 "verify: OK" -- --strict "$ref"

fresh   # one byte flipped: the last byte of the first sample row (throttled 0 -> 1)
off=$(( $(head -2 "$work/run/$sample" | wc -c) - 2 ))
printf '1' | dd of="$work/run/$sample" bs=1 seek="$off" conv=notrunc status=none
check "flipped byte in a sample file" 1 "mismatch: $sample" -- "$work/run"
rehash "$sample"
check "flipped byte, manifest rewritten: summary recomputation" 1 "summary.json: field 'cases[0].scopes.device.throttled' (32x4096.stream)" -- "$work/run"

fresh   # a summary edited
sed -i '0,/"median_ns": [0-9.e+-]*/s//"median_ns": 1234.5/' "$work/run/summary.json"
check "edited summary" 1 "mismatch: summary.json" -- "$work/run"
rehash summary.json
check "edited summary, manifest rewritten" 1 "summary.json: field 'cases[0].scopes.device.median_ns' (32x4096.stream): saved 1234.5" -- "$work/run"

fresh   # a file deleted
rm "$work/run/$sample"
check "deleted sample file" 1 "remote-only: $sample" -- "$work/run"
check "deleted sample file: recomputation names it" 1 "$sample: cannot be read" -- "$work/run"
fresh
arr=$(cd "$work/run" && ls arrays/*.y.f32 | head -1)
rm "$work/run/$arr"
# (counted on top of what a selected bundle already keeps in its archive)
n_remote=0
[ -f "$work/run/remote.json" ] && n_remote=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["files"]))' "$work/run/remote.json")
check "deleted array: remote-only is allowed" 0 "verified, $((n_remote + 1)) remote-only" -- "$work/run"
check "deleted array: --strict fails" 1 "remote-only: $arr" -- --strict "$work/run"

fresh   # a truncated file
truncate -s 100 "$work/run/validation.json"
check "truncated file" 1 "mismatch: validation.json" -- "$work/run"
check "truncated file: content check names it" 1 "validation.json: cannot be read" -- "$work/run"

fresh   # a manifest line removed
sed -i "\|  $sample\$|d" "$work/run/MANIFEST.sha256"
check "manifest line removed" 1 "unlisted: $sample" -- "$work/run"

fresh   # a validation result flipped, manifest rewritten
sed -i '0,/"fails": 0/s//"fails": 3/' "$work/run/validation.json"
rehash validation.json
check "validation record edited" 1 "field 'pass' is inconsistent" -- "$work/run"

fresh   # an output array edited: its hash no longer matches the record
arr=$(cd "$work/run" && ls arrays/*.stream.y.f32 | head -1)
printf '\x7f' | dd of="$work/run/$arr" bs=1 seek=3 conv=notrunc status=none
rehash "$arr"
check "output array edited, manifest rewritten" 1 "field 'output_sha256' does not match $arr" -- "$work/run"

trace=traces/4096x4096.megakernel.csv
fresh   # a trace record moved earlier: a consumer now starts before its producer ended
line=$(grep -n ',B,5,0,' "$work/run/$trace" | head -1 | cut -d: -f1)
IFS=, read -r f1 f2 f3 f4 f5 f6 start end <<<"$(sed -n "${line}p" "$work/run/$trace")"
sed -i "${line}s/.*/$f1,$f2,$f3,$f4,$f5,$f6,$((start - 100000)),$end/" "$work/run/$trace"
check "edited trace" 1 "mismatch: $trace" -- "$work/run"
rehash "$trace"
check "edited trace, manifest rewritten: ordering check" 1 "consumer started before its producer ended" -- "$work/run"
check "edited trace, manifest rewritten: names the trace" 1 "$trace: consumer started before its producer ended: {\"producer\":\"A(5," -- "$work/run"

fresh   # a task removed from a trace
line=$(grep -n ',C,7,0,' "$work/run/$trace" | head -1 | cut -d: -f1)
sed -i "${line}d" "$work/run/$trace"
rehash "$trace"
check "task removed from a trace" 1 "$trace: missing task: \"C(7,0)\"" -- "$work/run"

fresh   # a task duplicated in a fusion trace
ftrace=traces/32x4096.fusion.csv
sed -n 2p "$work/run/$ftrace" >> "$work/run/$ftrace"
rehash "$ftrace"
check "task duplicated in a trace" 1 "$ftrace: duplicated task" -- "$work/run"

# Export: Chrome trace-event JSON with one slice per task.
out=$("$bin" trace "$ref" 4096x4096.megakernel -o "$work/mk.json" 2>&1); rc=$?
slices=$(grep -o '"ph":"X"' "$work/mk.json" | wc -l)
if [ $rc -eq 0 ] && [ "$slices" -eq 20480 ] && grep -q "tasks: 20480 expected, 20480 recorded, 0 missing, 0 duplicated" <<<"$out"; then
    echo "ok: trace export has one slice per task"; passes=$((passes + 1))
else
    echo "FAIL: trace export: exit $rc, $slices slices"; echo "$out"; fails=$((fails + 1))
fi
if command -v python3 >/dev/null && ! python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert len([e for e in d["traceEvents"] if e["ph"]=="X"])==20480' "$work/mk.json"; then
    echo "FAIL: the exported JSON does not parse as JSON with 20480 slices"; fails=$((fails + 1))
fi
out=$("$bin" trace "$ref" 4096x4096.cudnn -o "$work/x.json" 2>&1); rc=$?
if [ $rc -eq 2 ] && grep -q "no traced case '4096x4096.cudnn'" <<<"$out" && [ ! -e "$work/x.json" ]; then
    echo "ok: trace of an untraced case is refused"; passes=$((passes + 1))
else
    echo "FAIL: trace of cudnn: exit $rc: $out"; fails=$((fails + 1))
fi
out=$("$bin" trace "$ref" 4096x4096.fusion 2>&1); rc=$?
if [ $rc -eq 2 ] && grep -q "missing -o FILE.json" <<<"$out"; then
    echo "ok: trace without -o is refused"; passes=$((passes + 1))
else
    echo "FAIL: trace without -o: exit $rc: $out"; fails=$((fails + 1))
fi

# profile without a GPU (or without ncu) fails and leaves the run untouched.
fresh
before=$(cd "$work/run" && find . -type f | sort | xargs sha256sum | sha256sum)
# CUDA_VISIBLE_DEVICES hides a GPU where there is one (the H200).
out=$(CUDA_VISIBLE_DEVICES= "$bin" profile "$work/run" 2>&1); rc=$?
after=$(cd "$work/run" && find . -type f | sort | xargs sha256sum | sha256sum)
if [ $rc -ne 0 ] && [ "$before" = "$after" ] && ! ls -a "$work/run" | grep -q '^\.profile'; then
    echo "ok: profile that cannot run leaves the run untouched (exit $rc)"; passes=$((passes + 1))
else
    echo "FAIL: profile without a GPU: exit $rc: $out"; fails=$((fails + 1))
fi
fresh
printf '1' | dd of="$work/run/$sample" bs=1 seek="$(( $(head -2 "$work/run/$sample" | wc -c) - 2 ))" conv=notrunc status=none
out=$("$bin" profile "$work/run" 2>&1); rc=$?
if [ $rc -eq 1 ] && grep -q "does not verify, so it is not profiled" <<<"$out"; then
    echo "ok: profile refuses a run that does not verify"; passes=$((passes + 1))
else
    echo "FAIL: profile of a tampered run: exit $rc: $out"; fails=$((fails + 1))
fi

# profile --reparse rebuilds the same exports from the saved ncu CSV, with no GPU.
if [ -d "$ref/profile" ]; then
    fresh
    out=$("$bin" profile "$work/run" --reparse 2>&1); rc=$?
    if [ $rc -eq 0 ] && cmp -s "$ref/profile/kernels.csv" "$work/run/profile/kernels.csv" && \
       cmp -s "$ref/MANIFEST.sha256" "$work/run/MANIFEST.sha256"; then
        echo "ok: profile --reparse reproduces kernels.csv and the manifest"; passes=$((passes + 1))
    else
        echo "FAIL: profile --reparse: exit $rc: $out"; fails=$((fails + 1))
    fi
fi

check "a run directory that does not exist" 5 "nonexistent: does not exist" -- "$work/nonexistent"
touch "$work/plainfile"
check "not a run directory" 5 "plainfile: not a directory" -- "$work/plainfile"

# peers.json (docs/PEERS.md). The reference run's peers were measured; these
# replace them with the ones that can be written without a GPU: skipped, and
# every peer in error.
if command -v python3 >/dev/null; then
    # add_peers STATUS: writes peers.json into the copy and lists it in the manifest.
    add_peers() {
        python3 - "$work/run" "$1" <<'PY'
import json, sys
run, status = sys.argv[1], sys.argv[2]
proto = json.load(open(run + "/protocol.json"))
val = json.load(open(run + "/validation.json"))
doc = {"format": "softmax-evidence-peers", "version": 1, "status": status,
       "reason": "--no-peers was given" if status == "skipped" else None,
       "tolerance": proto["tolerance"], "peers": []}
if status == "ok":
    for spec in proto["workload"]["shapes"]:
        c = next(c for c in val["cases"] if c["shape"] == spec)
        for peer in ("torch-eager", "torch-compile", "torch-softmax"):
            doc["peers"].append({"case": "%dx%d.%s" % (c["rows"], c["cols"], peer),
                                 "shape": spec, "rows": c["rows"], "cols": c["cols"],
                                 "peer": peer, "input_sha256": c["input_sha256"],
                                 "operand_sha256": c["input_sha256"], "status": "error",
                                 "error": "OutOfMemoryError: CUDA out of memory"})
json.dump(doc, open(run + "/peers.json", "w"), indent=2)
# summary.json's derived results read peers.json (its best peer): a run whose
# peers were not measured would have recorded other derived results, so this
# copy drops them and reads as a summary from before they were recorded
# (version 1), which the reader derives at load; the peers checks are what
# this tests.
s = json.load(open(run + "/summary.json"))
s["version"] = 1
del s["derived"]["shapes"]
json.dump(s, open(run + "/summary.json", "w"), indent=2)
PY
        # The reference run has measured peers: replace its peers.json line.
        rehash peers.json
        rehash summary.json
    }
    fresh; add_peers skipped
    check "peers skipped, saying why: verifies" 0 "peers: skipped (--no-peers was given): consistent" -- --strict "$work/run"
    out=$("$bin" table "$work/run" 2>&1)
    if grep -qF "peers: skipped: --no-peers was given; vs_best_peer counts cuDNN only" <<<"$out"; then
        echo "ok: table says the peers were skipped"; passes=$((passes + 1))
    else echo "FAIL: table of a run with skipped peers:"; echo "$out" | tail -3; fails=$((fails + 1)); fi
    sed -i 's/"reason": "--no-peers was given"/"reason": ""/' "$work/run/peers.json"
    rehash peers.json
    check "peers skipped without a reason" 1 "peers.json: field 'reason': the peers were skipped and it does not say why" -- "$work/run"
    fresh; add_peers ok
    check "every peer in error: verifies" 0 "peers: 33 (peer, shape) cases: 0 pass, 0 fail validation, 33 errors" -- "$work/run"
    out=$("$bin" table "$work/run" 2>&1)
    if grep -qE "^4096x4096 +torch-compile +error: OutOfMemoryError: CUDA out of memory" <<<"$out"; then
        echo "ok: table shows a peer in error"; passes=$((passes + 1))
    else echo "FAIL: table of a run with peers in error:"; echo "$out" | tail -3; fails=$((fails + 1)); fi
    # A peer's error text with terminal escapes: table prints it escaped.
    cp "$work/run/peers.json" "$work/peers.saved"
    sed -i '0,/"error": "OutOfMemoryError/s//"error": "\\u001b[2J\\u001b[Hverify: OK\\r/' "$work/run/peers.json"
    rehash peers.json
    out=$("$bin" table "$work/run" 2>&1)
    # Terminal sequences (ESC [ ... final) are dropped, any other control
    # byte is escaped: nothing can move the cursor.
    if ! grep -q $'\x1b' <<<"$out" && grep -qF 'error: verify: OK\x0d' <<<"$out"; then
        echo "ok: table prints a peer's error text escaped, its terminal sequences dropped"; passes=$((passes + 1))
    else echo "FAIL: table printed a peer's error text raw:"; echo "$out" | grep -a "error:" | head -3 | cat -v; fails=$((fails + 1)); fi
    cp "$work/peers.saved" "$work/run/peers.json"; rehash peers.json
    sed -i '0,/"error": "OutOfMemoryError/s//"error": "Edited/' "$work/run/peers.json"
    check "peers.json edited: caught by the manifest" 1 "mismatch: peers.json" -- "$work/run"
    python3 - "$work/run/peers.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["peers"][4]["input_sha256"] = "0" * 64
d["peers"][7]["status"] = "ok"
d["peers"][8]["error"] = ""
json.dump(d, open(sys.argv[1], "w"), indent=2)
PY
    rehash peers.json
    check "a peer's input hash is not the run's" 1 "peers.json: field 'peers[4].input_sha256' (4096x4096.torch-compile)" -- "$work/run"
    check "a peer said ok without results" 1 "field 'peers[7].pass' (1024x32768.torch-compile): inconsistent" -- "$work/run"
    check "a peer in error that does not say why" 1 "field 'peers[8].error' (1024x32768.torch-softmax): a peer in error must say why" -- "$work/run"
    fresh; add_peers ok
    python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); del d["peers"][-1]; json.dump(d, open(sys.argv[1], "w"))' "$work/run/peers.json"
    rehash peers.json
    check "a peer missing" 1 "peers.json: field 'peers': 32 entries, the protocol's 11 shapes imply 33" -- "$work/run"
fi

# ---- Hostile input (issue 16): each is a crafted run, and each check
# names the problem; timeouts turn a hang into a failure.
# vcheck NAME WANT_RC SUBSTRING -- ARGS: check, under a time and memory bound
# (2 GB of address space; not under AddressSanitizer, whose shadow memory
# alone reserves terabytes of it: there ASan's own allocator limits catch
# a huge allocation instead).
vmem=2000000 slow=1
# Under AddressSanitizer the same work takes 2 to 3 times the CPU, and a
# loaded 2-core machine doubles the wall time again: the bounds scale by 4
# (a quadratic reading of these inputs took 340 s, still caught).
[ -z "${ASAN_OPTIONS:-}" ] || { vmem=unlimited; slow=4; }
vcheck() {
    local name=$1 want_rc=$2 want=$3; shift 4
    local out rc
    out=$( (ulimit -v "$vmem"; timeout "$(( ${limit:-20} * slow ))" "$bin" verify "$@") 2>&1); rc=$?
    if [ "$rc" -ne "$want_rc" ] || ! grep -qF -- "$want" <<<"$out"; then
        echo "FAIL: $name: exit $rc (want $want_rc), want '$want' in:"; echo "$out" | tail -8
        fails=$((fails + 1))
    else
        echo "ok: $name"; passes=$((passes + 1))
    fi
}
# jedit FILE PYTHON: edits a JSON file of the copy (d is the document), re-hashed.
jedit() { python3 - "$work/run/$1" "$2" <<'PY'
import json, sys
path, code = sys.argv[1], sys.argv[2]
d = json.load(open(path))
exec(code)
json.dump(d, open(path, "w"), indent=2)
PY
    rehash "$1"; }
if command -v python3 >/dev/null; then
    # 1. rows/cols of a record never size the arrays re-check (was a heap overflow).
    # arrays named by the record's shape, sized so that rows*cols*4 wraps to theirs.
    plant() { local f; for f in "$@"; do head -c "$size" /dev/zero > "$work/run/arrays/$f"
        (cd "$work/run" && sha256sum "arrays/$f") >> "$work/run/MANIFEST.sha256"; done; }
    fresh; size=4; plant 1x4611686018427387905.x.f32 1x4611686018427387905.stream.y.f32
    jedit validation.json 'c = next(c for c in d["cases"] if c["case"] == "1x1.stream"); c["rows"] = 1; c["cols"] = 2**62 + 1'
    vcheck "hostile: validation record rows 1, cols 2^62+1: no crash" 1 "validation.json: 1x1.stream: fields 'shape'/'rows'/'cols' differ from the protocol's shape" -- "$work/run"
    fresh; size=0; plant 4294967296x4294967296.x.f32 4294967296x4294967296.stream.y.f32
    jedit validation.json 'c = next(c for c in d["cases"] if c["case"] == "1x1.stream"); c["rows"] = 2**32; c["cols"] = 2**32'
    vcheck "hostile: validation record rows = cols = 2^32: no overflow" 1 "differ from the protocol's shape" -- "$work/run"
    fresh; size=4; plant 1x4611686018427387905.x.f32 1x4611686018427387905.torch-eager.y.f32
    jedit peers.json 'e = next(e for e in d["peers"] if e["case"] == "1x1.torch-eager"); e["rows"] = 1; e["cols"] = 2**62 + 1'
    vcheck "hostile: peers entry rows 1, cols 2^62+1: no crash" 1 "peers.json: field 'peers[" -- "$work/run"
    # 2. FIFOs and links to devices never block.
    for f in MANIFEST.sha256 run.json "$sample" protocol.json; do
        fresh; rm "$work/run/$f"; mkfifo "$work/run/$f"
        want=1; [ "$f" = MANIFEST.sha256 ] && want=5
        vcheck "hostile: $f is a FIFO: refused, no hang" $want "not a regular file" -- "$work/run"
    done
    fresh; rm "$work/run/MANIFEST.sha256"; ln -s /dev/zero "$work/run/MANIFEST.sha256"
    vcheck "hostile: the manifest is a link to /dev/zero: refused, no hang" 5 "a symbolic link" -- "$work/run"
    fresh; rm -r "$work/run/samples"; mkdir "$work/outside"; cp -r "$ref/samples" "$work/outside/"; ln -s "$work/outside/samples" "$work/run/samples"
    vcheck "hostile: samples/ is a link out of the run: not read through" 1 "a path through a symbolic link" -- "$work/run"
    out=$(timeout 20 "$bin" run --protocol <(sleep 30) 2>&1); rc=$?
    if [ $rc -ne 124 ] && grep -q "not a regular file" <<<"$out"; then echo "ok: hostile: run --protocol FIFO is refused at once"; passes=$((passes + 1))
    else echo "FAIL: run --protocol FIFO: exit $rc: $out"; fails=$((fails + 1)); fi
    # 3. Memory and time stay bounded.
    fresh; head -c 20000000 /dev/zero | tr '\0' '\n' >> "$work/run/MANIFEST.sha256"
    vcheck "hostile: 20 MB of newlines in the manifest: first lines named, the rest counted" 1 "more malformed lines" -- "$work/run"
    fresh; head -c 70000000 /dev/zero | tr '\0' 'a' >> "$work/run/MANIFEST.sha256"
    # A run whose manifest is over the bound does not verify: exit 1 (issue 34).
    vcheck "hostile: a 70 MB manifest: refused by the size bound" 1 "more than the" -- "$work/run"
    fresh; head -c 8000000 /dev/zero | tr '\0' 'a' >> "$work/run/MANIFEST.sha256"
    vcheck "hostile: an 8 MB manifest line: one malformed line" 1 "line longer than 4096 bytes" -- "$work/run"
    fresh; truncate -s 1G "$work/run/$sample"
    vcheck "hostile: a 1 GB samples file: refused from its size" 1 "$sample: 1073741824 bytes, more than the" -- "$work/run"
    fresh
    jedit validation.json 'c = d["cases"][0]; d["cases"] = d["cases"] + [dict(c, case="x%d" % i, shape="s%d" % i) for i in range(20000)]'
    limit=10 vcheck "hostile: validation.json with 20,000 records: linear" 1 "validation.json: field 'cases': 20110 records" -- "$work/run"
    # A tile of 1 gives 4096x4096 50 million tasks (16.7 million (row, tile)
    # pairs): past SE_TRACE_MAX_ROW_TILES such a case is not traced, so its
    # trace is never read (was GBs and minutes) and the run's traced entries
    # do not match its protocol's.
    fresh; jedit protocol.json 'd["workload"]["tile"] = 1'
    jedit run.json "d['protocol']['bundle_copy_sha256'] = '$(sha256sum "$work/run/protocol.json" | cut -d' ' -f1)'"
    vcheck "hostile: protocol tile 1: a trace of 50 million tasks is not read, no hang" 1 "traces.json: field 'traces'/'overlap': the entries do not match the protocol's traced cases" -- "$work/run"
    # verify's check_operation: protocol.json naming the table's second
    # workload (LayerNorm) under a run of the RMS-scaled softmax (this run
    # predates strategies.json, so its workload is the RMS-scaled softmax):
    # refused, naming both fields; the same edit naming the softmax itself
    # is no mismatch.
    fresh; jedit protocol.json 'd["workload"]["operation"] = "layernorm"'
    jedit run.json "d['protocol']['bundle_copy_sha256'] = '$(sha256sum "$work/run/protocol.json" | cut -d' ' -f1)'"
    vcheck "protocol.json names LayerNorm, the run measured the RMS-scaled softmax" 1 "strategies.json: field 'workload.name': 'rms-softmax' is not protocol.json's workload.operation 'layernorm'" -- "$work/run"
    fresh; jedit protocol.json 'd["workload"]["operation"] = "rms-softmax"'
    jedit run.json "d['protocol']['bundle_copy_sha256'] = '$(sha256sum "$work/run/protocol.json" | cut -d' ' -f1)'"
    out=$("$bin" verify "$work/run" 2>&1)
    if ! grep -q "is not protocol.json's workload.operation" <<<"$out"; then echo "ok: protocol.json naming the RMS-scaled softmax is no workload mismatch"; passes=$((passes + 1))
    else echo "FAIL: workload mismatch reported for the run's own workload: $out"; fails=$((fails + 1)); fi
    # trace's export of a rows trace whose 262,144 records (the most a traced
    # case has, SE_TRACE_MAX_ROW_TILES) overlap on one SM:
    # one block slot each, assigned in n log n: about 10 s (was quadratic:
    # about 60 s in a Release build, minutes under ASan).
    mkdir -p "$work/tr/traces"; cp "$ref/environment.json" "$ref/run.json" "$work/tr/"
    python3 - "$ref/protocol.json" "$work/tr" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
p["workload"]["shapes"], p["strategies"] = ["262144x1"], ["rowblock"]
json.dump(p, open(sys.argv[2] + "/protocol.json", "w"), indent=2)
with open(sys.argv[2] + "/traces/262144x1.rowblock.csv", "w") as f:
    f.write("task,phase,row,tile,block,sm,start_ns,end_ns\n")
    f.writelines("%d,row,%d,0,%d,0,1000,2000\n" % (r, r, r) for r in range(262144))
PY
    out=$(timeout "$(( 40 * slow ))" "$bin" trace "$work/tr" 262144x1.rowblock -o "$work/tr.json" 2>&1); rc=$?
    if [ $rc -eq 0 ] && grep -q "262144 task slices on 262144 block-slot tracks" <<<"$out"; then
        echo "ok: hostile: trace export of 262,144 overlapping records on one SM: no hang"; passes=$((passes + 1))
    else echo "FAIL: trace export of overlapping records: exit $rc: $(tail -3 <<<"$out")"; fails=$((fails + 1)); fi
    rm -rf "$work/tr" "$work/tr.json"
    # peers.json's script_copy is the run's peers/peers.py, read below the run:
    # never a path of the run's choosing (was: /dev/zero hashed forever, a
    # file outside the run accepted as the script).
    fresh; jedit peers.json 'd["script_copy"] = "../../../../../../../../dev/zero"'
    vcheck "hostile: peers.json script_copy names /dev/zero: refused, no hang" 1 "peers.json: field 'script_copy': expected \"peers/peers.py\", got '../../../../../../../../dev/zero'" -- "$work/run"
    fresh; cp "$work/run/peers/peers.py" "$work/outside-peers.py"; rm -r "$work/run/peers"
    sed -i '\|  peers/peers.py$|d' "$work/run/MANIFEST.sha256"
    jedit peers.json 'd["script_copy"] = "../outside-peers.py"'
    vcheck "hostile: peers.json script_copy names a copy outside the run: refused" 1 "peers.json: field 'script_copy': expected \"peers/peers.py\", got '../outside-peers.py'" -- --strict "$work/run"
    fresh; rm -r "$work/run/peers/peers.py"; sed -i '\|  peers/peers.py$|d' "$work/run/MANIFEST.sha256"
    jedit peers.json 'd["script_copy"] = None'
    vcheck "hostile: peers.json without its script though peers ran: refused" 1 "peers.json: field 'script_copy': missing or null, though 33 peer cases ran" -- "$work/run"
    # 4. Silent passes.
    fresh; jedit validation.json 'd["cases"][0]["fails"] = "12"'
    vcheck "hostile: a count that is a string is an error naming it" 1 "validation.json: 32x4096.stream: field 'fails': expected an integer" -- --strict "$work/run"
    fresh; jedit validation.json 'd["cases"][0]["fails"] = 12.0'
    vcheck "hostile: a count that is a real is an error naming it" 1 "field 'fails': expected an integer from 0 to 9223372036854775807, got a real" -- --strict "$work/run"
    fresh; jedit peers.json 'd["peers"][0]["fails"] = "12"'
    vcheck "hostile: a peer's count that is a string is an error" 1 "peers.json: peers[0] (32x4096.torch-eager): field 'fails': expected an integer" -- --strict "$work/run"
    fresh; jedit validation.json 'c = next(c for c in d["cases"] if c["case"] == "1x7.fusion"); c["max_rel_err"] = c["max_rel_err"] / 2; c["tiny"] = 3'
    vcheck "hostile: recorded max error and tiny count differ from the arrays" 1 "validation.json: 1x7.fusion: field 'max_rel_err': saved" -- "$work/run"
    vcheck "hostile: recorded tiny count differs from the arrays" 1 "validation.json: 1x7.fusion: field 'tiny': saved 3, recomputed from the arrays 0" -- "$work/run"
    fresh; jedit protocol.json 'd["tolerance"]["rtol"] = 0.5'
    jedit validation.json 'd["tolerance"]["rtol"] = 0.5'
    vcheck "hostile: protocol.json edited, bundle_copy_sha256 not" 1 "run.json: field 'protocol.bundle_copy_sha256' is not the SHA-256 of protocol.json" -- "$work/run"
    fresh; python3 -c 'import json,sys; p=sys.argv[1]; j=json.load(open(p)); j["placement"]={"slurm_job_id":7,"slurm_array_job_id":None,"slurm_array_task_id":None,"hostname":"h","cuda_visible_devices":None,"device_ordinal":j["gpu"]["ordinal"]}; open(p,"w").write(json.dumps(j,indent=2)+"\n")' "$work/run/environment.json"; rehash environment.json
    vcheck "hostile: placement slurm_job_id of the wrong type" 1 "environment.json: placement: field 'slurm_job_id': expected a string or null, got an integer" -- "$work/run"
    fresh; rm "$work/run/arrays/1x7.rowblock.y.f32"; sed -i '\|  arrays/1x7.rowblock.y.f32$|d' "$work/run/MANIFEST.sha256"
    vcheck "hostile: arrays_saved true, an array and its line removed" 1 "arrays/1x7.rowblock.y.f32, which the rule saves, is not in the manifest" -- "$work/run"
    fresh; rm "$work/run/arrays/1x1.torch-eager.y.f32"; sed -i '\|  arrays/1x1.torch-eager.y.f32$|d' "$work/run/MANIFEST.sha256"
    vcheck "hostile: arrays_saved true, a peer's array and its line removed" 1 "arrays/1x1.torch-eager.y.f32, which the rule saves, is not in the manifest" -- "$work/run"
    fresh; rm "$work/run/$trace"; sed -i "\|  $trace\$|d" "$work/run/MANIFEST.sha256"
    vcheck "hostile: a traced case's trace and its line removed" 1 "$trace: the traced case's trace is neither here nor listed" -- --strict "$work/run"
    fresh; rm "$work/run/$trace"
    vcheck "hostile: a traced case's trace missing fails --strict" 1 "$trace: the traced case's trace is not here (--strict)" -- --strict "$work/run"
    fresh; sed -i '2s/^\([^,]*,[^,]*,[^,]*,[^,]*,[^,]*,\)[0-9]*,/\1200,/' "$work/run/$ftrace"; rehash "$ftrace"
    vcheck "hostile: a trace record on SM 200 of a 132-SM GPU" 1 "$ftrace: record on an SM the GPU does not have" -- "$work/run"
    out=$("$bin" trace "$work/run" 32x4096.fusion -o "$work/f.json" 2>&1); rc=$?
    if [ $rc -ne 0 ] && grep -q "fails its checks" <<<"$out"; then echo "ok: hostile: trace RUN CASE exits non-zero on a failing trace"; passes=$((passes + 1))
    else echo "FAIL: trace of a failing trace: exit $rc: $out"; fails=$((fails + 1)); fi
    fresh; cp "$work/run/MANIFEST.sha256" "$work/run/SITE_MANIFEST.sha256"
    vcheck "hostile: a planted SITE_MANIFEST.sha256 does not switch verify to site mode" 1 "unlisted: SITE_MANIFEST.sha256" -- --strict "$work/run"
    # 5. site never deletes a folder that is not its own output.
    mkdir -p "$work/notsite"; echo keep > "$work/notsite/mine.txt"; touch "$work/notsite/SITE_MANIFEST.sha256"
    out=$("$bin" site "$ref" "$work/notsite" 2>&1); rc=$?
    if [ $rc -ne 0 ] && grep -q "holds mine.txt, which is not part of" <<<"$out" && [ "$(cat "$work/notsite/mine.txt")" = keep ]; then
        echo "ok: hostile: site refuses a folder that merely holds a SITE_MANIFEST.sha256"; passes=$((passes + 1))
    else echo "FAIL: site over a user's folder: exit $rc: $out"; fails=$((fails + 1)); fi
    # 6. Bytes of a run are never printed raw.
    fresh; sed -i '2s/,device,warm,/,dev\x1b[2K\rverify: OK\x07,warm,/' "$work/run/$sample"; rehash "$sample"
    out=$("$bin" verify "$work/run" 2>&1)
    if grep -qF 'dev\x1b[2K\x0dverify: OK\x07' <<<"$out" && ! grep -q $'\x1b' <<<"$out"; then echo "ok: hostile: a samples file's scope is printed escaped"; passes=$((passes + 1))
    else echo "FAIL: samples scope printed raw: $(cat -v <<<"$out" | grep -i scope)"; fails=$((fails + 1)); fi
    fresh; printf '{"format": "x\x1b[2J\x07' > "$work/run/run.json"; rehash run.json
    out=$("$bin" verify "$work/run" 2>&1)
    if ! grep -q $'\x1b' <<<"$out" && grep -q 'run.json' <<<"$out"; then echo "ok: hostile: jansson's error text is printed escaped"; passes=$((passes + 1))
    else echo "FAIL: jansson text printed raw: $(cat -v <<<"$out" | grep run.json)"; fails=$((fails + 1)); fi
    fresh; jedit peers.json 'd["peers"][0]["status"] = "\u001b[2Kok\u0007"'
    out=$("$bin" verify "$work/run" 2>&1)
    if ! grep -q $'\x1b' <<<"$out" && grep -qF '\x1b[2Kok\x07' <<<"$out"; then echo "ok: hostile: a peers.json string is printed escaped"; passes=$((passes + 1))
    else echo "FAIL: peers string printed raw: $(cat -v <<<"$out" | grep peers)"; fails=$((fails + 1)); fi
fi

echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ]
