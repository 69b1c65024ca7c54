#!/usr/bin/env bash
# Experiment 18 (issue 15, goal 3): the row-major megakernel as landed
# (single form only: x17 measured the double-buffered one slower on every
# large shape), with whole rows grouped: where a row fits in a block's
# shared memory and there are more rows than blocks, a unit is
# min(k / n, rows / G) consecutive rows, their row tasks one warp a row.
# One device call on the H200 from the repository's root, .dev/debs
# carried (jansson). Validation (default shapes, tile 1000, 1 and 7
# blocks, --scale 1e30), racecheck, a traced run under memcheck verified
# for coverage and order, then fusion against the megakernel in one run.
set -o pipefail
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
for f in .dev/debs/*.deb; do dpkg -x "$f" /; done; ldconfig
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DSE_BUILD_TESTS=OFF >/dev/null &&
    cmake --build build -j16 2>&1 | grep -E " error|FAILED|spill" | head
el built
B=./build/softmax-evidence
LARGE=32x4096,4096x4096,1024x32768,64x262144,8x1048576,4x4194304,8x1048573,4x4194301,256x1048576
V() { local n=$1; shift; timeout 100 $B run --validate-only --quiet --strategies megakernel,megakernel-graph,fusion "$@" > $OUT/v-$n.txt 2>&1; echo "-- v $n exit $? $(grep -E '^validation' $OUT/v-$n.txt | tail -1)"; }
V default --shapes $LARGE,1x1,1x7,3x4097,5xT+1,2x100003
V tile1000 --tile 1000 --shapes 1x1,7x999,2x100003,33x4096,3x4097
V blocks1 --blocks 1 --shapes 1x1,3x4097,33x4096,2x100003
V blocks7 --blocks 7 --shapes 3x4097,33x4096,64x262144,2x100003
V huge --scale 1e30 --shapes 32x4096,3x4097,2x100003
# Few blocks, each with several units of a row: small tiles, partial
# last tiles and the scalar path.
V blocks7-tile1000 --blocks 7 --tile 1000 --shapes 33x4096,7x999,2x100003,64x262144
el validated
timeout 60 compute-sanitizer --tool racecheck --error-exitcode 99 $B run --validate-only --quiet --strategies megakernel --invocations 1 --shapes 1x7,3x4097,32x4096,2x100003 > $OUT/san-race.txt 2>&1; echo "-- racecheck exit $? $(grep -E 'RACECHECK SUMMARY' $OUT/san-race.txt | tail -1)"
python3 -c "
import json; p = json.load(open('tests/gpu/small-protocol.json')); p['strategies'] = ['megakernel', 'fusion']; p['traces'] = True
json.dump(p, open('/tmp/mk-protocol.json', 'w'))"
timeout 60 compute-sanitizer --tool memcheck --error-exitcode 99 $B run --quiet --no-blocking-kernel --no-peers --runs-dir /tmp/mkruns --protocol /tmp/mk-protocol.json > $OUT/san-run.txt 2>&1; echo "-- memcheck traced run exit $? $(grep -E 'ERROR SUMMARY' $OUT/san-run.txt | tail -1)"
d=$(ls -d /tmp/mkruns/2* | head -1); $B verify "$d" 2>&1 | grep -E "traces|verify:"
# Grouped whole rows in a traced run: 7 blocks, so 33 and 64 rows of one
# tile make units of 4 and 9 rows (k = 5 and 10 tiles).
timeout 90 compute-sanitizer --tool memcheck --error-exitcode 99 $B run --quiet --no-blocking-kernel --no-peers --blocks 7 --shapes 33x4096,64x4096,5x9000 --runs-dir /tmp/mkruns7 --protocol /tmp/mk-protocol.json > $OUT/san-run7.txt 2>&1; echo "-- memcheck traced run, 7 blocks, exit $? $(grep -E 'ERROR SUMMARY' $OUT/san-run7.txt | tail -1)"
d=$(ls -d /tmp/mkruns7/2* | head -1); $B verify "$d" 2>&1 | grep -E "traces|verify:"
el checked
# T NAME: fusion and the megakernel in one run (protocol/repeat.json: device
# time, L2 warm), then megakernel / fusion and copy / megakernel per shape.
T() {
    timeout 170 $B run --quiet --no-peers --strategies fusion,megakernel --protocol protocol/repeat.json --shapes $LARGE,1x1,3x4097 --runs-dir /tmp/mk18-$1 > $OUT/perf18-$1.txt 2>&1; echo "perf $1 exit $?"
    python3 - "$OUT/perf18-$1.txt" <<'P'
import re, sys
perf = open(sys.argv[1]).read()
perf = perf[perf.index("median_us"):]
rows = {}; order = []
for line in perf.split("\n"):
    m = re.match(r"^(\d+x\d+)\s+(fusion|megakernel|megakernel_init|copy)\s+([0-9.]+)", line)
    if m:
        s, item, v = m.groups()
        if s not in rows: rows[s] = {}; order.append(s)
        rows[s].setdefault(item, v)
print("shape copy fusion megakernel megakernel_init megakernel/fusion copy/megakernel")
for s in order:
    r = rows[s]
    print(s, r.get('copy'), r.get('fusion'), r.get('megakernel'), r.get('megakernel_init'),
          "%.3f %.3f" % (float(r['megakernel']) / float(r['fusion']), float(r['copy']) / float(r['megakernel'])))
P
}
T grouped
el timed
cd $OUT && tar czf x18.tgz --remove-files v-* san-* perf18-*.txt; ls
