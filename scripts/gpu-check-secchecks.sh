#!/usr/bin/env bash
# gpu-check-secchecks.sh - on the H200, after scripts/build.sh: issue 34's
# streamed re-check of saved arrays (src/bundle/verify_arrays.c) on a fresh
# run with 1 GiB arrays. Runs the small protocol on 256x1048576 and 1x7 with
# every array saved and no peers, then checks that verify recomputes every
# saved output (bit for bit the run's counts and max errors: verify OK), with
# its peak RSS far below the arrays' size (the re-check streams: under
# 256 MiB where 9ae71be held 4 GiB for one output), that the archive and
# verify --archive agree (every output recomputed from the archive's
# arrays), and prints the times. Exits non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=build/softmax-evidence
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$bin" run --protocol tests/gpu/small-protocol.json --shapes 256x1048576,1x7 --save-arrays \
    --no-peers --quiet --runs-dir "$tmp/runs" --run-dir-out "$tmp/run-dir.txt"
run=$(head -n 1 "$tmp/run-dir.txt")
echo "run: $run ($(du -sb "$run" | cut -f1) bytes)"
/usr/bin/time -f "verify: %e s, peak RSS %M KB" "$bin" verify --strict "$run" >"$tmp/verify.txt" 2>"$tmp/time.txt" ||
    { tail -5 "$tmp/verify.txt"; exit 1; }
cat "$tmp/time.txt"
grep -E "^validation:|^verify:" "$tmp/verify.txt"
rss=$(sed -n 's/.*peak RSS \([0-9]*\) KB/\1/p' "$tmp/time.txt")
[ "$rss" -lt 262144 ] || { echo "FAIL: verify's peak RSS ${rss} KB is not under 256 MiB"; exit 1; }
n=$(ls "$run"/arrays/*.y.f32 | wc -l)
grep -q "; $n recomputed from saved arrays" "$tmp/verify.txt" ||
    { echo "FAIL: not every one of the $n saved outputs was recomputed"; exit 1; }
"$bin" archive "$run" -o "$tmp/run.tar.gz" --level 1 >/dev/null
/usr/bin/time -f "verify --archive: %e s, peak RSS %M KB" "$bin" verify "$run" --archive "$tmp/run.tar.gz" \
    >"$tmp/va.txt" 2>"$tmp/time.txt" || { tail -5 "$tmp/va.txt"; exit 1; }
cat "$tmp/time.txt"
grep -E "validation cases and|^verify --archive:" "$tmp/va.txt"
grep -q "archive: $n validation cases and 0 peer outputs recomputed" "$tmp/va.txt" ||
    { echo "FAIL: verify --archive did not recompute all $n outputs"; exit 1; }
echo "PASS: saved arrays re-checked streamed, locally and from the archive"
