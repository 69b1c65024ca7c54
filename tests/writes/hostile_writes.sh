#!/usr/bin/env bash
# hostile_writes.sh BINARY SOURCE_DIR CASE - one hostile case of issue 34's
# file-writing half: what a command writes, replaces or deletes when the run
# folder, the output target or a key file was prepared by someone else.
# Each case exits 0 when the program behaves, 1 with the evidence otherwise,
# 77 when the case cannot run here (no libarchive, no gnuplot), saying why.
# The CTest names (tests/writes/CMakeLists.txt) start with "hostile:".
set -u
bin=$1 src=$2 case=$3
small=$src/tests/data/complete-run/20261201T004007Z # a small complete run, every file
ref=$src/runs/reference
work=$(mktemp -d); trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT
fails=0

ok() { echo "ok: $1"; }
bad() { echo "FAIL: $1"; shift; [ $# -gt 0 ] && printf '%s\n' "$@" | tail -20; fails=$((fails + 1)); }
skip() { echo "skipped: $1"; exit 77; }
# expect NAME WANT_RC SUBSTRING -- COMMAND...: exit WANT_RC ("nz": any but 0
# and 124), output holding SUBSTRING; 120 s at most, so a hang fails.
expect() {
    local name=$1 want_rc=$2 want=$3; shift 4
    local out rc
    out=$(timeout 120 "$@" 2>&1); rc=$?
    if { [ "$want_rc" = nz ] && { [ "$rc" -eq 0 ] || [ "$rc" -ge 124 ]; }; } ||
       { [ "$want_rc" != nz ] && [ "$rc" -ne "$want_rc" ]; } || ! grep -qF -- "$want" <<<"$out"; then
        bad "$name: exit $rc (want $want_rc), want '$want' in:" "$out"
    else
        ok "$name"
    fi
}
copy() { rm -rf "$2"; cp -r "$1" "$2"; chmod -R u+w "$2"; }
same() { # same NAME FILE CONTENT: FILE is a regular file (no link) holding CONTENT
    if [ -L "$2" ] || [ ! -f "$2" ] || [ "$(cat "$2")" != "$3" ]; then
        bad "$1: $2 changed: $(ls -l "$2" 2>&1)"
    else
        ok "$1"
    fi
}
need_archive() {
    copy "$small" "$work/probe"
    local out
    out=$("$bin" archive "$work/probe" -o "$work/probe.tar.gz" --no-remote-only 2>&1)
    grep -q "not built in" <<<"$out" && skip "this build has no libarchive: $out"
    rm -rf "$work/probe" "$work/probe.tar.gz" "$work/probe.tar.gz.sha256"
}
need_gnuplot() { command -v gnuplot >/dev/null 2>&1 || skip "gnuplot is not installed"; }
# Leftovers beside an output: names a command made there, other than OUT itself.
leftovers() { (cd "$1" && ls -A | grep -v -x -F -f <(printf '%s\n' "${@:2}") || true); }
# killed_midway DIR KEEP -- COMMAND...: starts COMMAND, and SIGKILLs it once
# a name other than KEEP appeared in DIR (its temporary), as a crash would.
killed_midway() {
    local dir=$1 keep=$2; shift 3
    "$@" >/dev/null 2>&1 &
    local pid=$!
    for _ in $(seq 1 600); do
        [ -n "$(leftovers "$dir" "$keep")" ] && break
        sleep 0.05
    done
    sleep 0.3; kill -9 "$pid"; wait "$pid" 2>/dev/null
    left=$(leftovers "$dir" "$keep")
    [ -n "$left" ] && ok "SIGKILL left a temporary: $left" || bad "nothing to clean up: the kill came too late"
}

case $case in
archive-planted-links) # H1
    need_archive
    copy "$small" "$work/run"
    printf 'precious-a' >"$work/victim-a"; printf 'precious-b' >"$work/victim-b"
    ln -s "$work/victim-a" "$work/run/.tmp-manifest-remote.json"
    ln -s "$work/victim-b" "$work/run/.tmp-manifest-MANIFEST.sha256"
    timeout 300 "$bin" archive "$work/run" -o "$work/out.tar.gz" --remote-min-bytes 0 >"$work/log" 2>&1
    echo "archive exited $?"; tail -3 "$work/log"
    same "the file behind .tmp-manifest-remote.json is untouched" "$work/victim-a" precious-a
    same "the file behind .tmp-manifest-MANIFEST.sha256 is untouched" "$work/victim-b" precious-b
    for f in MANIFEST.sha256 remote.json; do
        if [ -L "$work/run/$f" ]; then bad "$f is left as a symbolic link"; else ok "$f is no link"; fi
    done
    # The run is the one that verified, or the selected bundle that verifies.
    expect "the run still verifies after the archive" 0 "" -- \
        sh -c "rm -f '$work/run/.tmp-manifest-remote.json' '$work/run/.tmp-manifest-MANIFEST.sha256'; '$bin' verify '$work/run'"
    ;;
verify-sees-tmp-names) # M1
    copy "$small" "$work/a"
    printf '#!/bin/sh\necho payload\n' >"$work/a/.tmp-manifest-payload.sh"
    expect "an unlisted .tmp-manifest-payload.sh fails verify --strict" 1 \
        "unlisted: .tmp-manifest-payload.sh" -- "$bin" verify --strict "$work/a"
    if openssl genpkey -algorithm ed25519 -out "$work/key.pem" 2>/dev/null &&
        openssl pkey -in "$work/key.pem" -pubout -out "$work/key.pub" 2>/dev/null; then
        copy "$small" "$work/s"
        "$bin" sign "$work/s" --key "$work/key.pem" >/dev/null 2>&1
        printf '#!/bin/sh\necho payload\n' >"$work/s/.tmp-manifest-payload.sh"
        expect "a signed run with an unlisted .tmp-manifest-payload.sh fails --trusted-key" 1 \
            "unlisted: .tmp-manifest-payload.sh" -- \
            "$bin" verify --strict --trusted-key "$work/key.pub" "$work/s"
    fi
    copy "$small" "$work/b"
    mkdir "$work/b/.tmp-manifestDIR"; echo x >"$work/b/.tmp-manifestDIR/x"
    expect "an unlisted .tmp-manifestDIR/ folder fails verify --strict" 1 \
        "unlisted: .tmp-manifestDIR/x" -- "$bin" verify --strict "$work/b"
    copy "$small" "$work/c"
    ln -s / "$work/c/.tmp-manifest-root"
    expect "a .tmp-manifest-root -> / link fails verify --strict" 1 \
        "unlisted: .tmp-manifest-root" -- "$bin" verify --strict "$work/c"
    copy "$small" "$work/d"
    echo x >"$work/d/.hidden"
    expect "an unlisted dot-file fails verify" 1 "unlisted: .hidden" -- "$bin" verify "$work/d"
    ;;
figures-keeps-user-files) # M1: figures never deletes what it did not write
    need_gnuplot
    expect "figures draws into a new folder" 0 "" -- "$bin" figures "$small" "$work/out"
    echo "my notes" >"$work/out/.tmp-manifest-notes.txt"
    expect "figures refuses to replace an output holding a file it did not write" nz \
        ".tmp-manifest-notes.txt" -- "$bin" figures "$small" "$work/out"
    same "the user's .tmp-manifest-notes.txt is kept" "$work/out/.tmp-manifest-notes.txt" "my notes"
    ;;
figures-keeps-user-edits) # M5
    need_gnuplot
    expect "figures draws into a new folder" 0 "" -- "$bin" figures "$small" "$work/out"
    echo "my edit" >>"$work/out/report.md"
    want=$(cat "$work/out/report.md")
    expect "figures refuses to replace an output whose report.md was edited" nz "report.md" -- \
        "$bin" figures "$small" "$work/out"
    same "the edited report.md is kept" "$work/out/report.md" "$want"
    ;;
site-keeps-user-edits) # M5
    need_gnuplot
    expect "site builds into a new folder" 0 "" -- "$bin" site "$small" "$work/site" --quiet
    echo "<!-- my edit -->" >>"$work/site/index.html"
    want=$(cat "$work/site/index.html")
    expect "site refuses to replace a site whose index.html was edited" nz "index.html" -- \
        "$bin" site "$small" "$work/site" --quiet
    same "the edited index.html is kept" "$work/site/index.html" "$want"
    ;;
archive-sha256-sidecar) # L4
    need_archive
    copy "$small" "$work/run"
    echo "user's own checksum list" >"$work/x.tar.gz.sha256"
    expect "archive refuses to replace a user's FILE.sha256" nz "x.tar.gz.sha256" -- \
        "$bin" archive "$work/run" -o "$work/x.tar.gz" --no-remote-only
    same "the user's FILE.sha256 is kept" "$work/x.tar.gz.sha256" "user's own checksum list"
    [ -e "$work/x.tar.gz" ] && bad "FILE was put in place although FILE.sha256 was refused" ||
        ok "FILE was not put in place"
    mkdir "$work/y.tar.gz.sha256"
    expect "a folder named FILE.sha256 fails the archive" nz "y.tar.gz.sha256" -- \
        "$bin" archive "$work/run" -o "$work/y.tar.gz" --no-remote-only
    [ -e "$work/y.tar.gz" ] && bad "FILE was put in place before FILE.sha256 failed" ||
        ok "FILE was not put in place before FILE.sha256 failed"
    [ -z "$(leftovers "$work" run x.tar.gz.sha256 y.tar.gz.sha256)" ] && ok "no temporary left" ||
        bad "temporaries left: $(leftovers "$work" run x.tar.gz.sha256 y.tar.gz.sha256)"
    ;;
trace-predictable-tmp) # L5
    case_id=$("$bin" table "$ref" --format json 2>/dev/null | python3 -c '
import json, sys
rows = json.load(sys.stdin)
rows = rows.get("rows", rows) if isinstance(rows, dict) else rows
print(next(r["case"] for r in rows if "case" in r))' 2>/dev/null)
    [ -n "$case_id" ] || case_id=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["traces"][0]["case"])' "$ref/traces.json")
    printf 'precious' >"$work/victim"
    # exec keeps the shell's pid, so OUT.tmp-<pid> is the name the command would use.
    sh -c 'ln -s "$1" "$2.tmp-$$"; exec "$3" trace "$4" "$5" -o "$2"' sh "$work/victim" \
        "$work/out.json" "$bin" "$ref" "$case_id" >"$work/log" 2>&1
    echo "trace exited $?"; tail -3 "$work/log"
    same "the file behind a planted OUT.tmp-<pid> link is untouched" "$work/victim" precious
    [ -f "$work/out.json" ] && [ ! -L "$work/out.json" ] && ok "OUT is a regular file" ||
        bad "OUT was not written: $(ls -l "$work" 2>&1)"
    ;;
fifo-output) # L6
    case_id=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["traces"][0]["case"])' "$ref/traces.json")
    mkfifo "$work/fifo-export" "$work/fifo-trace"
    expect "export -o FIFO is refused" nz "fifo-export" -- \
        "$bin" export "$ref" --format gbench -o "$work/fifo-export"
    expect "trace -o FIFO is refused" nz "fifo-trace" -- \
        "$bin" trace "$ref" "$case_id" -o "$work/fifo-trace"
    for f in fifo-export fifo-trace; do
        [ -p "$work/$f" ] && ok "$f is still a FIFO" || bad "$f was replaced: $(ls -l "$work/$f")"
    done
    ;;
fifo-key) # L9
    mkfifo "$work/fifo"
    copy "$small" "$work/run"
    expect "verify --trusted-key FIFO is refused without blocking" nz "not a regular file" -- \
        "$bin" verify "$work/run" --trusted-key "$work/fifo"
    expect "sign --key FIFO is refused without blocking" nz "not a regular file" -- \
        "$bin" sign "$work/run" --key "$work/fifo"
    ;;
figures-stale-temporary) # L10
    need_gnuplot
    mkdir -p "$work/p/.out.incomplete-mine00"; echo mine >"$work/p/.out.incomplete-mine00/keep"
    killed_midway "$work/p" .out.incomplete-mine00 -- "$bin" figures "$ref" "$work/p/out"
    expect "figures runs again" 0 "" -- "$bin" figures "$small" "$work/p/out"
    left=$(leftovers "$work/p" out .out.incomplete-mine00)
    [ -z "$left" ] && ok "the later run removed its stale temporary" || bad "left: $left"
    same "a folder it did not make is kept" "$work/p/.out.incomplete-mine00/keep" mine
    ;;
site-stale-temporary) # L10
    need_gnuplot
    mkdir "$work/p"
    killed_midway "$work/p" "" -- "$bin" site "$small" "$work/p/site" --quiet
    expect "site runs again" 0 "" -- "$bin" site "$small" "$work/p/site" --quiet
    left=$(leftovers "$work/p" site)
    [ -z "$left" ] && ok "the later run removed its stale temporary" || bad "left: $left"
    ;;
archive-stale-temporary) # L10
    need_archive
    copy "$small" "$work/run"
    mkdir -p "$work/p/.x.tar.gz.incomplete-mine00"; echo mine >"$work/p/x.tar.gz.tmp-mine"
    echo mine >"$work/p/.x.tar.gz.incomplete-mine00/.softmax-evidence-temporary"
    # A crash while the archive is written: the file size limit kills it (SIGXFSZ).
    (ulimit -f 64; exec "$bin" archive "$work/run" -o "$work/p/x.tar.gz" --no-remote-only) >/dev/null 2>&1
    rc=$?
    left=$(leftovers "$work/p" x.tar.gz.tmp-mine .x.tar.gz.incomplete-mine00)
    [ "$rc" -gt 128 ] && [ -n "$left" ] && ok "a crash (exit $rc) left a temporary: $left" ||
        bad "no crash left a temporary (exit $rc): $left"
    expect "archive runs again" 0 "" -- "$bin" archive "$work/run" -o "$work/p/x.tar.gz" --no-remote-only
    left=$(leftovers "$work/p" x.tar.gz x.tar.gz.sha256 x.tar.gz.tmp-mine .x.tar.gz.incomplete-mine00)
    [ -z "$left" ] && ok "the later run removed its stale temporary" || bad "left: $left"
    same "a file it did not make is kept" "$work/p/x.tar.gz.tmp-mine" mine
    same "a look-alike folder with another marker is kept" \
        "$work/p/.x.tar.gz.incomplete-mine00/.softmax-evidence-temporary" mine
    ;;
perf-run-figures) # L11: the committed runs/perf run can be drawn
    need_gnuplot
    perf=$(ls -d "$src"/runs/perf/*/ | head -1)
    expect "figures draws the committed perf run (a selected bundle)" 0 "fig4_timelines not drawn: " -- \
        "$bin" figures "$perf" "$work/out"
    [ -s "$work/out/report.md" ] && [ -s "$work/out/fig1_latency.svg" ] && ok "report and figures written" ||
        bad "no report or figure in $work/out"
    ;;
archive-no-null) # L11: no "(null)" in the error for an archive without its gzip trailer
    need_archive
    copy "$small" "$work/run"
    "$bin" archive "$work/run" -o "$work/x.tar.gz" --remote-min-bytes 0 >/dev/null 2>&1
    size=$(stat -c %s "$work/x.tar.gz")
    head -c $((size - 8)) "$work/x.tar.gz" >"$work/t.tar.gz"
    out=$("$bin" verify "$work/run" --archive "$work/t.tar.gz" 2>&1); rc=$?
    if [ "$rc" -ne 0 ] && ! grep -q "(null)" <<<"$out" && grep -q "t.tar.gz" <<<"$out"; then
        ok "a trailer-less archive fails with a reason (exit $rc)"
    else
        bad "exit $rc, output:" "$out"
    fi
    ;;
site-symlink-upfront) # L11: a symlinked OUT_DIR is refused before any work
    copy "$small" "$work/run"
    echo tampered >>"$work/run/run.json" # a run that does not verify: work would fail on it first
    mkdir "$work/real"; ln -s "$work/real" "$work/link"
    expect "site refuses a symbolic link as OUT_DIR before verifying the run" 2 "symbolic link" -- \
        "$bin" site "$work/run" "$work/link" --quiet
    ;;
oversized-manifest) # L11: a run whose manifest is over the bound does not verify: exit 1
    copy "$small" "$work/run"
    truncate -s 70M "$work/run/MANIFEST.sha256"
    expect "an oversized manifest exits 1 (docs/CLI.md: a run that does not verify)" 1 "bytes, more than" -- \
        "$bin" verify "$work/run"
    ;;
world-readable-key) # L11: sign refuses a private key others may read, as ssh does
    openssl genpkey -algorithm ed25519 -out "$work/key.pem" 2>/dev/null || skip "openssl cannot make a key"
    copy "$small" "$work/run"
    chmod 644 "$work/key.pem"
    expect "sign refuses a world-readable private key" 2 "permissions 0644" -- \
        "$bin" sign "$work/run" --key "$work/key.pem"
    [ -e "$work/run/MANIFEST.sha256.sig" ] && bad "a signature was written" || ok "no signature written"
    chmod 600 "$work/key.pem"
    expect "sign takes the same key at mode 600" 0 "" -- "$bin" sign "$work/run" --key "$work/key.pem"
    ;;
manifest-lists-itself) # L11: a manifest that lists itself fails also without --strict
    copy "$small" "$work/run"
    printf '%064d  MANIFEST.sha256\n' 0 >>"$work/run/MANIFEST.sha256"
    expect "a manifest listing itself fails verify (no --strict)" 1 "lists MANIFEST.sha256" -- \
        "$bin" verify "$work/run"
    ;;
json-deep-unknown) # L11: unknown keys nested 2000 deep are refused, naming the field
    copy "$small" "$work/a"
    python3 - "$work/a/run.json" <<'EOF2'
import sys
p = sys.argv[1]; s = open(p).read().rstrip()
open(p, "w").write(s[:-1] + ', "zzz": ' + '{"k": ' * 2000 + '1' + '}' * 2000 + '}\n')
EOF2
    rehash() { local h; h=$(sha256sum "$1/$2" | cut -d' ' -f1); sed -i "s|^[0-9a-f]\{64\}  $2\$|$h  $2|" "$1/MANIFEST.sha256"; }
    rehash "$work/a" run.json
    expect "run.json nested 2000 deep fails verify, naming the field" 1 "field 'zzz.k.k" -- \
        "$bin" verify --strict "$work/a"
    copy "$small" "$work/b"
    python3 - "$work/b/run.json" <<'EOF2'
import sys
p = sys.argv[1]; s = open(p).read().rstrip()
open(p, "w").write(s[:-1] + ', "zzz": 1}\n')
EOF2
    rehash "$work/b" run.json
    expect "an unknown key in run.json fails verify, naming it" 1 "field 'zzz'" -- \
        "$bin" verify --strict "$work/b"
    ;;
run-no-gpu-runs-dir) # L11: run with no GPU creates no --runs-dir
    nvidia-smi -L >/dev/null 2>&1 && skip "this machine has a GPU: run would start"
    expect "run with no GPU fails" 6 "no CUDA device" -- "$bin" run --runs-dir "$work/a/b/runs" --quiet
    [ -e "$work/a" ] && bad "run left $(find "$work/a")" || ok "no folder was created"
    mkdir "$work/keep"
    "$bin" run --runs-dir "$work/keep" --quiet >/dev/null 2>&1
    [ -d "$work/keep" ] && ok "an existing runs folder is kept" || bad "the existing runs folder was removed"
    ;;
*)
    echo "unknown case $case"; exit 2 ;;
esac
[ "$fails" -eq 0 ] || { echo "$fails failed"; exit 1; }
