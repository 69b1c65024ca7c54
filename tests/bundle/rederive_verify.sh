#!/usr/bin/env bash
# rederive_verify.sh BINARY ADD_CHECKS SOURCE_DIR - `verify` re-derives every
# case on a CPU from checks/ (docs/VALIDATION.md): the committed reference
# run re-derives all its cases from its own checks/; a run made before
# checks/ says it has none, and a copy of it made into a synthetic bundle
# with checks/ (tests/bundle/add_checks.c; the manifest re-hashed)
# re-derives all its cases; a committed run (runs/perf/20261202T213222Z) whose checks/ are remote-only
# (docs/ARCHIVE.md) says so and counts them; copies of the reference with
# one output value flipped, and with a checks file removed, fail verify
# naming it.
set -u
bin=$1 add=$2 src=$3
old=$src/runs/perf/20261130T192606Z ref=$src/runs/reference rep=$src/runs/perf/20261202T213222Z
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
fails=0
ok() { echo "ok: $1"; }
bad() { echo "FAIL: $1"; fails=$((fails + 1)); }
rehash() { # rehash RUN: the manifest lists every file again, sorted
    python3 - "$1" <<'PY'
import hashlib, os, sys
d = sys.argv[1]
names = {}
for line in open(os.path.join(d, "MANIFEST.sha256")):
    h, name = line.rstrip("\n").split("  ", 1)
    names[name] = h
for root, _, files in os.walk(os.path.join(d, "checks")):
    for f in files:
        names[os.path.relpath(os.path.join(root, f), d)] = None
for name in list(names):
    p = os.path.join(d, name)
    if name in ("run.json",) or name.startswith("checks/"):
        names[name] = hashlib.sha256(open(p, "rb").read()).hexdigest() if os.path.exists(p) else names[name]
open(os.path.join(d, "MANIFEST.sha256"), "w").writelines(
    "%s  %s\n" % (names[n], n) for n in sorted(names))
sig = os.path.join(d, "MANIFEST.sha256.sig")
if os.path.exists(sig):
    os.remove(sig)
PY
}
"$bin" verify "$old" >"$work/plain.txt" 2>&1
grep -q "^rederive: the run saved no checks/" "$work/plain.txt" && ok "a run made before checks/ says it has none" ||
    bad "old run: $(grep rederive "$work/plain.txt")"
cp -r "$old" "$work/old"; chmod -R u+w "$work/old"
"$add" "$work/old" || { echo "FAIL: add_checks"; exit 1; }
rehash "$work/old"
n_old=$(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['cases']))" "$work/old/validation.json")
"$bin" verify "$work/old" >"$work/o.txt" 2>&1 &&
    grep -q "^rederive: $n_old of $n_old cases re-derived on the CPU from checks/ (.* 0 outside the tolerance)$" "$work/o.txt" &&
    ok "the synthetic bundle re-derives all $n_old cases" || bad "synthetic: $(grep rederive "$work/o.txt")"
"$bin" verify "$rep" >"$work/r.txt" 2>&1 &&
    grep -q "^rederive: 0 of 140 cases re-derived .*; 140 cases' checks/ are remote-only (remote.json): not re-derived here, the archive holds them$" "$work/r.txt" &&
    ok "a run with remote-only checks/ says so" || bad "remote-only: $(grep rederive "$work/r.txt")"
cp -r "$ref" "$work/run"; chmod -R u+w "$work/run"
cases=$(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['cases']))" "$work/run/validation.json")
if "$bin" verify "$work/run" >"$work/v.txt" 2>&1; then
    line=$(grep "^rederive: " "$work/v.txt")
    echo "$line"
    grep -q "^rederive: $cases of $cases cases re-derived on the CPU from checks/ (14 shapes, .* 0 outside the tolerance)$" <<<"$line" &&
        ok "all $cases cases of the reference re-derived from its own checks/" || bad "rederive line: $line"
else
    bad "the reference does not verify: $(grep -v '^ *[a-z]*:' "$work/v.txt" | head -5)"
fi
cp -r "$work/run" "$work/flip"
python3 - "$work/flip/checks/8x1048573.megakernel.y.f32" <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
v, = struct.unpack_from("<f", b, 4 * 100)
struct.pack_into("<f", b, 4 * 100, v * 2.0)
open(sys.argv[1], "wb").write(b)
PY
rehash "$work/flip"
if "$bin" verify "$work/flip" >"$work/f.txt" 2>&1; then
    bad "a flipped output value verifies"
else
    grep -q "checks/8x1048573.megakernel.y.f32: row 0 col [0-9]*: output .* outside" "$work/f.txt" &&
        grep -q "^rederive: $cases of $cases cases .* 1 outside the tolerance): PROBLEMS$" "$work/f.txt" &&
        ok "a doubled output value of 8x1048573.megakernel is caught, named, counted" ||
        bad "flip: $(grep -i 'rederive\|checks/' "$work/f.txt" | head -3)"
fi
cp -r "$work/run" "$work/gone"; rm "$work/gone/checks/1x7.graph.y.f32"; rehash "$work/gone"
if "$bin" verify "$work/gone" >"$work/g.txt" 2>&1; then
    bad "a missing checks file verifies"
else
    grep -q "checks/1x7.graph.y.f32" "$work/g.txt" && grep -q "^rederive: $((cases - 1)) of $cases cases" "$work/g.txt" &&
        ok "a missing checks file is named" || bad "missing: $(grep -i 'rederive\|checks/' "$work/g.txt" | head -3)"
fi
[ "$fails" -eq 0 ]
