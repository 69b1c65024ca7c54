#!/usr/bin/env bash
# peers_script.sh SOURCE_DIR - bench/peers.py without a GPU: bad arguments
# and bad inputs are refused (exit 2 and 4) with a message naming them,
# before torch is imported; without torch, or without CUDA for it, it exits
# 3 saying why and writes nothing; with tests/peers/fake_torch standing in
# for torch its whole flow runs and writes the results the harness reads.
set -u
src=$1
script=$src/bench/peers.py
make_inputs=$src/tests/peers/make_inputs.py
command -v python3 >/dev/null 2>&1 || { echo "SKIP: no python3 on this machine"; exit 77; }
export PYTHONDONTWRITEBYTECODE=1   # no __pycache__ in the source tree
fails=0 passes=0
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
ok() { echo "ok: $*"; passes=$((passes + 1)); }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }

# expect NAME RC SUBSTRING [ENV=VALUE ...] -- ARGS...: runs the script, checks exit code and message.
expect() {
    local name=$1 want_rc=$2 want=$3; shift 3
    local envs=()
    while [ "$1" != "--" ]; do envs+=("$1"); shift; done
    shift
    local out rc
    out=$(env "${envs[@]}" python3 "$script" "$@" 2>&1); rc=$?
    if [ "$rc" -ne "$want_rc" ] || ! grep -qF -- "$want" <<<"$out"; then
        bad "$name: exit $rc (want $want_rc), want '$want' in:"; echo "$out" | tail -6
    else
        ok "$name"
    fi
}

python3 "$make_inputs" "$work/in" 3x7 1x1 2x33 || { echo "FAIL: make_inputs.py"; exit 1; }
mkdir "$work/exists"
no_torch=PYTHONPATH=$src/tests/peers/no_torch
fake=PYTHONPATH=$src/tests/peers/fake_torch

expect "no arguments" 2 "the following arguments are required: IN_DIR, OUT_DIR" --
expect "IN_DIR missing" 2 "IN_DIR: $work/none is not a folder" -- "$work/none" "$work/out"
expect "OUT_DIR exists" 2 "OUT_DIR: $work/exists already exists" -- "$work/in" "$work/exists"
expect "OUT_DIR's parent missing" 2 "OUT_DIR: the parent folder $work/no/such does not exist" -- "$work/in" "$work/no/such/out"
expect "negative device" 2 "--device: must be 0 or more, got -1" -- "$work/in" "$work/out" --device -1
expect "device not a number" 2 "argument --device: invalid int value: 'x'" -- "$work/in" "$work/out" --device x
expect "unknown option" 2 "unrecognized arguments: --fast" -- "$work/in" "$work/out" --fast

mkdir "$work/empty"
expect "no peers-inputs.json" 4 "$work/empty/peers-inputs.json: cannot be read" -- "$work/empty" "$work/out"
cp -r "$work/in" "$work/badjson"; echo '{"format": ' > "$work/badjson/peers-inputs.json"
expect "malformed peers-inputs.json" 4 "peers-inputs.json: not valid JSON" -- "$work/badjson" "$work/out"
cp -r "$work/in" "$work/other"; echo '{"format": "something-else", "version": 1}' > "$work/other/peers-inputs.json"
expect "another JSON file" 4 "field 'format'/'version': expected softmax-evidence-peers-inputs version 1" -- "$work/other" "$work/out"
cp -r "$work/in" "$work/nosamples"
python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); del d["samples"]; json.dump(d, open(sys.argv[1], "w"))' \
    "$work/nosamples/peers-inputs.json"
expect "a field missing" 4 "peers-inputs.json: field 'samples': missing" -- "$work/nosamples" "$work/out"
cp -r "$work/in" "$work/peer"; sed -i 's/"torch-eager"/"torch-jax"/' "$work/peer/peers-inputs.json"
expect "an unknown peer" 4 "field 'peers[0]': unknown peer 'torch-jax'" -- "$work/peer" "$work/out"
# The workload selects the peers: an unknown one is refused, naming the
# field; LayerNorm's input naming a softmax peer is refused, naming LayerNorm's.
cp -r "$work/in" "$work/op"; sed -i 's/"format"/"operation": "group-norm", "format"/' "$work/op/peers-inputs.json"
expect "an unknown workload" 4 "field 'operation': unknown workload 'group-norm'; known: rms-softmax, layernorm" -- "$work/op" "$work/out"
cp -r "$work/in" "$work/lnpeer"; sed -i 's/"format"/"operation": "layernorm", "format"/' "$work/lnpeer/peers-inputs.json"
expect "a softmax peer for LayerNorm" 4 "unknown peer 'torch-eager' of layernorm; known: torch-layernorm-eager, torch-layernorm-compile, liger-layernorm" -- "$work/lnpeer" "$work/out"
# LayerNorm's shapes carry x alone (se_operation.prescaled_input is 0): an xp is refused, and
# none is needed.
python3 "$make_inputs" --layernorm "$work/ln" 3x7 2x33 || { echo "FAIL: make_inputs.py --layernorm"; exit 1; }
if [ ! -e "$work/ln/3x7.xp.f32" ] && ! grep -q '"xp' "$work/ln/peers-inputs.json"; then ok "LayerNorm's inputs have no xp"
else bad "make_inputs.py --layernorm wrote an xp"; fi
cp -r "$work/ln" "$work/lnxp"; cp "$work/in/3x7.xp.f32" "$work/lnxp/"
python3 - "$work/lnxp/peers-inputs.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); d["shapes"][0]["xp"] = "3x7.xp.f32"; json.dump(d, open(sys.argv[1], "w"))
PY
expect "an xp in LayerNorm's inputs" 4 "field 'shapes[0].xp': layernorm has no pre-scaled input" -- "$work/lnxp" "$work/out"
expect "LayerNorm without xp: the whole flow" 0 \
    "[peers] results in $work/outln" "$fake" -- "$work/ln" "$work/outln"
if grep -q '"peer": "torch-layernorm-eager", "status": "ok"' "$work/outln/peers-results.json" &&
   grep -q '"peer": "torch-layernorm-compile", "status": "ok"' "$work/outln/peers-results.json"; then ok "LayerNorm's peers ran on x alone"
else bad "LayerNorm's peers are not in peers-results.json"; fi
cp -r "$work/in" "$work/path"; sed -i 's|"x": "3x7.x.f32"|"x": "../3x7.x.f32"|' "$work/path/peers-inputs.json"
expect "a path instead of a file name" 4 "field 'shapes[0].x': '../3x7.x.f32' is not a plain file name" -- "$work/path" "$work/out"

cp -r "$work/in" "$work/flip"   # one byte of an input changed: its hash no longer matches
printf '\x01' | dd of="$work/flip/2x33.xp.f32" bs=1 seek=5 conv=notrunc status=none
expect "SHA-256 mismatch refused, naming the file and field" 4 \
    "$work/flip/2x33.xp.f32: SHA-256 mismatch: peers-inputs.json field 'shapes[2].xp_sha256' says" -- "$work/flip" "$work/out"
expect "SHA-256 mismatch refused even without torch" 4 "SHA-256 mismatch" "$no_torch" -- "$work/flip" "$work/out"
cp -r "$work/in" "$work/short"; truncate -s 8 "$work/short/3x7.x.f32"
expect "an input of the wrong size" 4 "$work/short/3x7.x.f32: 8 bytes, expected 84 (3x7 float32)" -- "$work/short" "$work/out"
[ -e "$work/out" ] && bad "a refused run left $work/out" || ok "refused runs wrote no OUT_DIR"

expect "no torch: exit 3, saying why" 3 "peers.py: torch cannot be imported (ImportError: No module named 'torch'" "$no_torch" -- "$work/in" "$work/out"
if ! python3 -c 'import torch' >/dev/null 2>&1; then
    expect "this machine's python has no torch: exit 3" 3 "torch cannot be imported (ModuleNotFoundError: No module named 'torch')" -- "$work/in" "$work/out"
fi
expect "no CUDA for torch: exit 3, saying why" 3 "CUDA is not available to torch 0.0+fake" "$fake" FAKE_TORCH_NO_CUDA=1 -- "$work/in" "$work/out"
expect "a device torch does not see: exit 3" 3 "torch 0.0+fake sees 1 CUDA device(s), device 3 was asked for" "$fake" -- "$work/in" "$work/out" --device 3
[ -e "$work/out" ] && bad "exit 3 left $work/out" || ok "exit 3 wrote no OUT_DIR"

expect "fake torch: the whole flow" 0 "[peers] results in $work/out" "$fake" -- "$work/in" "$work/out"
if python3 - "$work/out" <<'PY'
import json, os, sys
out = sys.argv[1]
r = json.load(open(os.path.join(out, "peers-results.json")))
assert r["format"] == "softmax-evidence-peers-results" and r["version"] == 1, r["format"]
assert [s["id"] for s in r["shapes"]] == ["3x7", "1x1", "2x33"]
seqs = []
for s in r["shapes"]:
    rows, cols = (int(v) for v in s["id"].split("x"))
    assert [p["peer"] for p in s["peers"]] == ["torch-eager", "torch-compile", "torch-softmax"]
    for p in s["peers"]:
        assert p["status"] == "ok", p
        assert os.path.getsize(os.path.join(out, p["output"])) == 4 * rows * cols, p["output"]
        assert [x[1] for x in p["samples"]] == list(range(5)), p["samples"]
        assert all(x[3] > 0 for x in p["samples"])
        seqs += [x[0] for x in p["samples"]]
assert sorted(seqs) == list(range(1000, 1000 + len(seqs))), seqs
left = [f for f in os.listdir(os.path.dirname(out)) if ".partial-" in f]
assert not left, left
PY
then ok "results: every peer ok, 5 samples each in round order, outputs of rows*cols floats, one sequence from first_seq"
else bad "the results of the fake-torch run are not as the harness expects"; fi

expect "fake torch, compile failure: recorded, not fatal" 0 "[peers] results in $work/out2" "$fake" FAKE_TORCH_COMPILE_FAILS=1 -- "$work/in" "$work/out2"
if grep -q '"peer": "torch-compile", "status": "error", "error": "RuntimeError: fake compile failure: backend exploded"' "$work/out2/peers-results.json"; then
    ok "the compile error is in the results, without its terminal colour codes"
else bad "the compile error is not in peers-results.json"; fi

echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ]
