#!/usr/bin/env bash
# gpu-check-rederive.sh - on a machine with a CUDA GPU (the H200), from the
# repository root after scripts/build.sh: (1) the host regenerates the
# device's input within SE_CHECK_INPUT_TOL of the scale (cuRAND's host
# generator is not the device's to the bit; build/tests/inputs_host_device
# prints how many values differ and by how much: whole arrays
# and rows from their offsets, 1 GB input included); (2) a run of the small
# protocol writes checks/ and `verify` re-derives every one of its cases on
# the CPU; (3) a copy with one output value flipped (manifest re-hashed) is
# caught, naming the case; (4) where libarchive is built in, the selected
# bundle (archive) still re-derives every case. Exits non-zero on any
# failure. Prints the counts for the note.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=build/softmax-evidence
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

echo "== 1. host vs device input (within the tolerance)"
build/tests/inputs_host_device || fail "the host generator does not reproduce the device input"

echo "== 2. a run of tests/gpu/small-protocol.json, then verify"
"$bin" run --protocol tests/gpu/small-protocol.json --runs-dir "$work/runs" --run-dir-out "$work/dir" \
    --no-peers --quiet >"$work/run.log" 2>&1 || { tail -20 "$work/run.log"; fail "the run failed"; }
run=$(head -1 "$work/dir")
"$bin" verify "$run" >"$work/verify.txt" 2>&1 || { cat "$work/verify.txt"; fail "the run does not verify"; }
line=$(grep '^rederive: ' "$work/verify.txt") || fail "verify printed no rederive line"
echo "$line"
n_cases=$(python3 -c "import json,sys; v=json.load(open(sys.argv[1]+'/validation.json')); print(len(v['cases']))" "$run")
grep -q "^rederive: $n_cases of $n_cases cases re-derived on the CPU from checks/ .* 0 outside the tolerance)$" <<<"$line" ||
    fail "not every one of the $n_cases validated cases was re-derived: $line"
du -sh "$run/checks" | sed 's/^/checks size: /'

echo "== 3. one output value flipped"
cp -r "$run" "$work/flipped"; chmod -R u+w "$work/flipped"
python3 - "$work/flipped" <<'PY'
import hashlib, os, struct, sys
d = sys.argv[1]
rel = "checks/3x4097.graph.y.f32"
b = bytearray(open(os.path.join(d, rel), "rb").read())
k = (len(b) // 8) * 4
v, = struct.unpack_from("<f", b, k)
struct.pack_into("<f", b, k, -v if v else 1.0)
open(os.path.join(d, rel), "wb").write(b)
lines = []
for line in open(os.path.join(d, "MANIFEST.sha256")):
    h, name = line.rstrip("\n").split("  ", 1)
    if name == rel:
        h = hashlib.sha256(bytes(b)).hexdigest()
    lines.append("%s  %s\n" % (h, name))
open(os.path.join(d, "MANIFEST.sha256"), "w").writelines(lines)
sig = os.path.join(d, "MANIFEST.sha256.sig")
if os.path.exists(sig):
    os.remove(sig)
PY
if "$bin" verify "$work/flipped" >"$work/flipped.txt" 2>&1; then fail "a flipped output value verifies"; fi
grep -q "checks/3x4097.graph.y.f32: row .* col .*: output .* outside" "$work/flipped.txt" ||
    { cat "$work/flipped.txt"; fail "the flipped value is not named"; }
grep "checks/3x4097.graph.y.f32" "$work/flipped.txt" | head -1

echo "== 4. the selected bundle"
if "$bin" archive "$run" -o "$work/run.tar.gz" >"$work/archive.txt" 2>&1; then
    "$bin" verify "$run" >"$work/selected.txt" 2>&1 || { cat "$work/selected.txt"; fail "the selected bundle does not verify"; }
    grep '^rederive: ' "$work/selected.txt"
    grep -q "^rederive: $n_cases of $n_cases cases" "$work/selected.txt" || fail "the selected bundle does not re-derive every case"
else
    echo "archive unavailable here ($(tail -1 "$work/archive.txt")); skipped"
fi
echo "gpu-check-rederive: OK"
