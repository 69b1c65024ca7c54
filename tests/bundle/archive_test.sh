#!/usr/bin/env bash
# archive_test.sh BINARY RUN_DIR - the complete run and the selected bundle
# (docs/ARCHIVE.md) on a copy of a complete run: `archive` writes the same
# bytes twice, its .sha256 checks with sha256sum, the selected bundle
# verifies with --strict, `verify --archive` re-checks every remote-only
# file and recomputes the validation from the archive's arrays; a doctored
# archive, hostile archives (path traversal, a symbolic link, a duplicate
# entry, a huge entry, an entry not in the manifest, a truncated gzip) and a
# hostile remote.json each fail with a message that names the problem.
# Expectations come from the run's own files, never from its numbers.
# Exits 77 (skipped) where the build has no libarchive.
set -u
bin=$1 ref=$2
fails=0 passes=0
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT

expect() { # expect NAME WANT_RC SUBSTRING -- COMMAND...
    local name=$1 want_rc=$2 want=$3; shift 4
    local out rc
    out=$("$@" 2>&1); rc=$?
    if [ "$rc" -ne "$want_rc" ] || ! grep -qF -- "$want" <<<"$out"; then
        echo "FAIL: $name: exit $rc (want $want_rc), want '$want' in:"; echo "$out" | tail -15
        fails=$((fails + 1))
    else
        echo "ok: $name"
        passes=$((passes + 1))
    fi
}
copy() { rm -rf "$work/$1"; cp -r "$ref" "$work/$1"; chmod -R u+w "$work/$1"; }

copy probe
out=$("$bin" archive "$work/probe" -o "$work/probe.tar.gz" --no-remote-only 2>&1); rc=$?
if [ $rc -eq 2 ] && grep -q "not built in" <<<"$out"; then
    echo "skipped: this build has no libarchive: $out"; exit 77
fi
[ -f "$ref/remote.json" ] && { echo "skipped: $ref is already a selected bundle"; exit 77; }

# Deterministic: two copies, archived separately, give the same bytes.
copy run
# The default selection (arrays and traces but those the figures draw), of
# every size: the fixture is a small complete run (tests/data/complete-run).
expect "archive of the complete run, default selection" 0 "verifies with --strict" -- \
    "$bin" archive "$work/run" -o "$work/run.tar.gz" --remote-min-bytes 0
if cmp -s "$work/run.tar.gz" "$work/probe.tar.gz"; then
    echo "ok: the same run archived twice gives the same bytes"; passes=$((passes + 1))
else
    echo "FAIL: the same run archived twice differs"; fails=$((fails + 1))
fi
expect "sha256sum checks FILE.sha256" 0 "run.tar.gz: OK" -- sh -c "cd '$work' && sha256sum -c run.tar.gz.sha256"
# gzip header: no name flag (byte 3 bit 3) and no time (bytes 4-7 zero)
hdr=$(od -An -tx1 -N8 "$work/run.tar.gz" | tr -d ' \n')
if [ "${hdr:0:6}" = "1f8b08" ] && [ $((0x${hdr:6:2} & 8)) -eq 0 ] && [ "${hdr:8:8}" = "00000000" ]; then
    echo "ok: gzip header without name or time"; passes=$((passes + 1))
else
    echo "FAIL: gzip header $hdr"; fails=$((fails + 1))
fi
# Entries sorted, owner 0, mtime the run's start, below <run_id>/.
run_id=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["run_id"])' "$ref/run.json")
expect "entries: regular files of uid/gid 0 below the run id, mtime the run's start" 0 "entries ok" -- \
    python3 - "$work/run.tar.gz" "$ref/run.json" <<'EOF'
import calendar, json, sys, tarfile, time
run = json.load(open(sys.argv[2]))
start = calendar.timegm(time.strptime(run["started_utc"], "%Y-%m-%dT%H:%M:%SZ"))
names = []
with tarfile.open(sys.argv[1]) as t:
    for m in t:
        assert m.isfile() and m.uid == 0 and m.gid == 0 and m.mtime == start, m.name
        assert m.name.startswith(run["run_id"] + "/"), m.name
        names.append(m.name)
key = lambda n: n[:-5] + "\x01" if n.split("/", 1)[1].startswith("arrays/") and n.endswith(".x.f32") else n
assert names == sorted(names, key=key), "entries out of order"
print("entries ok", len(names))
EOF

n_remote=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["files"]))' "$work/run/remote.json")
first_remote=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["files"][0])' "$work/run/remote.json")
[ "$n_remote" -gt 0 ] && [ ! -e "$work/run/$first_remote" ] && { echo "ok: $n_remote remote-only files removed"; passes=$((passes + 1)); } ||
    { echo "FAIL: remote-only files: $n_remote, $first_remote still here?"; fails=$((fails + 1)); }
expect "selected bundle verifies with --strict" 0 "archive: $n_remote of the remote-only files live in run.tar.gz" -- \
    "$bin" verify --strict "$work/run"
expect "verify --archive re-checks every remote-only file" 0 "$n_remote of $n_remote remote-only files checked" -- \
    "$bin" verify "$work/run" --archive "$work/run.tar.gz"
n_arrays=$(tar tzf "$work/run.tar.gz" | grep -c '\.y\.f32$')
expect "verify --archive recomputes every saved output" 0 "verify --archive: OK" -- \
    sh -c "'$bin' verify '$work/run' --archive '$work/run.tar.gz' | grep -E 'archive: [0-9]+ validation cases and [0-9]+ peer outputs' | awk '{ if (\$2 + \$6 == $n_arrays) print \"verify --archive: OK\" }'"
if [ -f "$work/run/profile/ncu_raw.csv" ]; then
    cp -r "$work/run" "$work/rp"
    "$bin" profile "$work/rp" --reparse >/dev/null 2>&1
    expect "profile --reparse on a selected bundle keeps the remote-only lines" 0 "archive: $n_remote of the remote-only files live in" -- \
        "$bin" verify --strict "$work/rp"
fi
copy stored
expect "archive --level 0 (gzip's stored blocks) writes an archive verify reads" 0 "verifies with --strict" -- \
    "$bin" archive "$work/stored" -o "$work/stored.tar.gz" --level 0 --remote-min-bytes 0
[ "$(wc -c <"$work/stored.tar.gz")" -gt "$(wc -c <"$work/run.tar.gz")" ] &&
    { echo "ok: --level 0 stores (a larger archive than --level 6)"; passes=$((passes + 1)); } ||
    { echo "FAIL: --level 0 is not larger than the default level"; fails=$((fails + 1)); }
expect "verify --archive on the stored archive" 0 "$n_remote of $n_remote remote-only files checked" -- \
    "$bin" verify "$work/stored" --archive "$work/stored.tar.gz"
expect "archive refuses --level 10" 2 "--level" -- "$bin" archive "$work/probe" -o "$work/l10.tar.gz" --level 10
expect "archive refuses an existing output" 2 "exists" -- "$bin" archive "$work/probe" -o "$work/run.tar.gz"
expect "archive refuses an output inside the run" 2 "inside the run" -- "$bin" archive "$work/probe" -o "$work/probe/x.tar.gz"
expect "archive refuses a selected bundle" 2 "already a selected bundle" -- "$bin" archive "$work/run" -o "$work/again.tar.gz"
copy sel
expect "archive refuses a --remote-only that selects what verify needs" 2 "which verify needs locally" -- \
    "$bin" archive "$work/sel" -o "$work/sel.tar.gz" --remote-only 'arrays/*' --remote-only summary.json
[ ! -e "$work/sel.tar.gz" ] && [ ! -e "$work/sel/remote.json" ] && { echo "ok: nothing left behind by the refusal"; passes=$((passes + 1)); } ||
    { echo "FAIL: a refused archive left files"; fails=$((fails + 1)); }

# A doctored archive: one remote-only file changed (the archive's hash and that entry's fail).
mkdir -p "$work/x" && tar xzf "$work/run.tar.gz" -C "$work/x"
printf 'X' | dd of="$work/x/$run_id/$first_remote" bs=1 seek=10 conv=notrunc status=none
(cd "$work/x" && tar cf - --sort=name --owner=0 --group=0 --numeric-owner "$run_id" | gzip -n > "$work/doctored-tar.tar.gz")
# the same change in the archive's own order (so only that entry differs)
python3 - "$work/run.tar.gz" "$work/doctored.tar.gz" "$run_id/$first_remote" <<'EOF'
import gzip, io, sys, tarfile
src, dst, name = sys.argv[1:4]
with tarfile.open(src) as t, gzip.open(dst, "wb") as g, tarfile.open(fileobj=g, mode="w|", format=tarfile.PAX_FORMAT) as o:
    for m in t:
        data = t.extractfile(m).read()
        if m.name == name:
            data = data[:10] + (b"Y" if data[10:11] != b"Y" else b"Z") + data[11:]
        o.addfile(m, io.BytesIO(data))
EOF
expect "doctored archive: its SHA-256 is not remote.json's" 1 "remote.json records" -- \
    "$bin" verify "$work/run" --archive "$work/doctored.tar.gz"
expect "doctored archive: the changed entry is named" 1 "entry $first_remote: SHA-256" -- \
    "$bin" verify "$work/run" --archive "$work/doctored.tar.gz"
expect "doctored archive made by GNU tar (folders, its order): the changed entry is named" 1 "entry $first_remote: SHA-256" -- \
    "$bin" verify "$work/run" --archive "$work/doctored-tar.tar.gz"
expect "truncated gzip" 5 "truncated or corrupt" -- sh -c \
    "head -c \$(( \$(wc -c < '$work/run.tar.gz') / 2 )) '$work/run.tar.gz' > '$work/trunc.tar.gz' && '$bin' verify '$work/run' --archive '$work/trunc.tar.gz'"

# Hostile archives: the run's archive plus one crafted entry.
hostile() { # hostile NAME KIND SUBSTRING
    python3 - "$work/run.tar.gz" "$work/h.tar.gz" "$run_id" "$2" "$first_remote" <<'EOF'
import gzip, io, sys, tarfile
src, dst, rid, kind, remote = sys.argv[1:6]
class Zeros(io.RawIOBase):
    def __init__(self, n): self.n = n
    def readable(self): return True
    def readinto(self, b):
        k = min(len(b), self.n); b[:k] = bytes(k); self.n -= k; return k
with tarfile.open(src) as t, gzip.open(dst, "wb") as g, tarfile.open(fileobj=g, mode="w|", format=tarfile.PAX_FORMAT) as o:
    if kind == "traversal":
        i = tarfile.TarInfo(rid + "/../../evil"); i.size = 4; o.addfile(i, io.BytesIO(b"evil"))
    if kind == "symlink":
        i = tarfile.TarInfo(rid + "/" + remote); i.type = tarfile.SYMTYPE; i.linkname = "/etc/passwd"; o.addfile(i)
    if kind == "huge":
        i = tarfile.TarInfo(rid + "/" + remote); i.size = 300 << 20; o.addfile(i, Zeros(i.size))
    if kind == "unlisted":
        i = tarfile.TarInfo(rid + "/arrays/planted.f32"); i.size = 4; o.addfile(i, io.BytesIO(b"\0\0\0\0"))
    for m in t:
        data = t.extractfile(m)
        o.addfile(m, data)
        if kind == "duplicate" and m.name == rid + "/" + remote:
            o.addfile(m, t.extractfile(m))
EOF
    expect "hostile: archive with $1" 1 "$3" -- "$bin" verify "$work/run" --archive "$work/h.tar.gz"
}
hostile "a path-traversal entry" traversal "not a path below $run_id/"
hostile "a symbolic link" symlink "entry $first_remote: not a regular file"
hostile "a duplicate entry" duplicate "entry $first_remote: a second entry"
hostile "a huge entry" huge "over the 268435456 bytes"
hostile "an entry not in the manifest" unlisted "entry arrays/planted.f32: not in the run's manifest"

# Hostile remote.json: a file verify needs claimed remote-only (manifest line re-hashed).
cp -r "$work/run" "$work/r2"
sed -i "s|\"files\": \[|\"files\": [\n    \"samples/x.csv\",|" "$work/r2/remote.json"
h=$(sha256sum "$work/r2/remote.json" | cut -d' ' -f1)
sed -i "s|^[0-9a-f]\{64\}  remote.json\$|$h  remote.json|" "$work/r2/MANIFEST.sha256"
expect "hostile: remote.json claims a samples file" 1 "may not be remote-only" -- "$bin" verify "$work/r2"
# A remote-only file deleted from the manifest too: remote.json names it.
cp -r "$work/run" "$work/r3"
sed -i "\|  $first_remote\$|d" "$work/r3/MANIFEST.sha256"
expect "remote.json names a file the manifest does not list" 1 "remote.json: field 'files': $first_remote is not in the manifest" -- \
    "$bin" verify "$work/r3"

echo "archive: $passes passed, $fails failed"
[ "$fails" -eq 0 ]
