#!/usr/bin/env bash
# samples_times.sh BIN RESUMMARIZE SOURCE_DIR - hostile: times that cannot
# be (issue 34, L2). Copies of runs/reference whose first stream case's
# device samples are negated, zero, 1e300 times what was measured, or with
# one sample of 1.7e308 or inf, the summaries recomputed to agree where they
# can be (tests/hostile/doctor_samples.py): verify refuses each (exit 1)
# naming the samples file and field 'ns', and answer (which verifies first)
# prints no answer from it.
set -u
bin=$1 resum=$2 src=$3
tmp=$(mktemp -d /tmp/se-hostile-times.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fails=0 passes=0
check() { # check NAME RUN
    local out rc
    out=$("$bin" verify --strict "$2" 2>&1)
    rc=$?
    if [ "$rc" -eq 1 ] && grep -q "samples/.*stream.csv:[0-9]*: field 'ns': .* is not a time a run measures" <<<"$out"; then
        echo "ok: $1: verify refuses it: $(grep -m1 "field 'ns'" <<<"$out" | cut -c1-200)"
        passes=$((passes + 1))
    else
        echo "FAIL: $1: verify exit $rc"
        tail -n 4 <<<"$out"
        fails=$((fails + 1))
    fi
    out=$("$bin" answer "$2" 2>&1)
    rc=$?
    if [ "$rc" -ne 0 ] && ! grep -q "saves\|of stream's time" <<<"$out"; then
        echo "ok: $1: answer gives no answer from it (exit $rc)"
        passes=$((passes + 1))
    else
        echo "FAIL: $1: answer exit $rc: $(grep -m1 "saves\|stream" <<<"$out")"
        fails=$((fails + 1))
    fi
}
doctor() { # doctor NAME MODE: a copy of runs/reference with stream's times changed
    python3 "$src/tests/hostile/doctor_samples.py" "$resum" "$src/runs/reference" "$tmp/$1" stream "$2" \
        >/dev/null 2>"$tmp/$1.err" || { echo "FAIL: could not doctor a copy ($2)"; cat "$tmp/$1.err"; exit 1; }
}
doctor negated scale:-1
check "stream's samples negated, summaries recomputed" "$tmp/negated"
doctor zero scale:0
check "stream's samples all zero (a zero median)" "$tmp/zero"
doctor large scale:1e300
check "stream's samples 1e300 times larger, summaries recomputed" "$tmp/large"
doctor huge first:1.7e308
check "one stream sample of 1.7e308, summaries recomputed" "$tmp/huge"
doctor inf first:inf
check "one stream sample of inf" "$tmp/inf"
echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ]
