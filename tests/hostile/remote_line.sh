#!/usr/bin/env bash
# remote_line.sh BIN SELECTED COMPLETE - hostile: a changed hash on a
# remote-only manifest line (issue 34, M4); that file is not here to hash.
# (1) COMPLETE archived now (`archive`, which records remote_lines_sha256):
# one hex digit of a remote-only line changed, verify and verify --strict
# fail naming remote_lines_sha256. (2) SELECTED, a committed selected bundle
# whose remote.json predates that field: the same change fails verify
# --strict, by complete_manifest_sha256. The unchanged copies verify.
set -u
bin=$1 selected=$2 complete=$3
tmp=$(mktemp -d /tmp/se-hostile-remote.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fails=0 passes=0
ok() { echo "ok: $*"; passes=$((passes + 1)); }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
# flip RUN: changes the first hex digit of a remote-only file's line; prints its path.
flip() {
    python3 - "$1" <<'PY'
import json, os, sys
run = sys.argv[1]
files = json.load(open(os.path.join(run, "remote.json")))["files"]
rel = next(f for f in files if not os.path.exists(os.path.join(run, f)))
lines = open(os.path.join(run, "MANIFEST.sha256")).read().split("\n")
for i, l in enumerate(lines):
    if l.endswith("  " + rel):
        lines[i] = ("0" if l[0] != "0" else "1") + l[1:]
open(os.path.join(run, "MANIFEST.sha256"), "w").write("\n".join(lines))
print(rel)
PY
}
# fails_with NAME WORD ARGS...: verify ARGS exits 1 naming WORD.
fails_with() {
    local name=$1 word=$2 out rc
    shift 2
    out=$("$bin" verify "$@" 2>&1)
    rc=$?
    if [ "$rc" -eq 1 ] && grep -q "$word" <<<"$out"; then
        ok "$name: $(grep -m1 "$word" <<<"$out" | cut -c1-220)"
    else
        bad "$name: verify $* exit $rc"
        tail -n 3 <<<"$out"
    fi
}

if "$bin" archive --help 2>&1 | grep -q "not built in"; then
    echo "(no libarchive in this build: part 1 skipped)"
else
    cp -R "$complete" "$tmp/c"
    chmod -R u+w "$tmp/c"
    if "$bin" archive "$tmp/c" -o "$tmp/c.tar.gz" --remote-min-bytes 0 >"$tmp/archive.out" 2>&1 &&
        "$bin" verify "$tmp/c" >/dev/null 2>&1; then
        ok "a freshly selected bundle verifies"
    else
        bad "archive or verify of the fresh selected bundle"
        tail -3 "$tmp/archive.out"
    fi
    rel=$(flip "$tmp/c") || { bad "could not change a remote-only line"; rel=; }
    echo "changed the first hex digit of $rel's manifest line in the fresh selected bundle"
    fails_with "fresh bundle, verify" remote_lines_sha256 "$tmp/c"
    fails_with "fresh bundle, verify --strict" remote_lines_sha256 --strict "$tmp/c"
fi

cp -R "$selected" "$tmp/s"
chmod -R u+w "$tmp/s"
"$bin" verify --strict "$tmp/s" >"$tmp/out" 2>&1 && ok "the committed selected bundle verifies with --strict" ||
    { bad "the unchanged copy does not verify"; tail -3 "$tmp/out"; }
rel=$(flip "$tmp/s") || bad "could not change a remote-only line"
echo "changed the first hex digit of $rel's manifest line in the committed bundle"
fails_with "committed bundle (no remote_lines_sha256), verify --strict" complete_manifest_sha256 --strict "$tmp/s"
echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ]
