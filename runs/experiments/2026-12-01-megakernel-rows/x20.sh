#!/usr/bin/env bash
# Experiment 20 (issue 15, goal 3; prepared, not yet run): wide units for the
# few long rows (wide.patch, against 3b36f07). Where ceil(n / k) units a row
# leave a block more than one visit and there are fewer rows than blocks,
# SE_MK_WIDE=1 gives each row G / rows units, so every block makes one visit
# (one wait for B, one for D) and re-reads the tiles past its shared memory,
# as fusion does. One device call on the H200 from the repository's root:
#   git apply runs/experiments/2026-12-01-megakernel-rows/wide.patch
#   mkdir -p .dev/debs && (cd .dev/debs && apt-get download libjansson4 libjansson-dev)
# then `bash runs/experiments/2026-12-01-megakernel-rows/x20.sh`, .dev/debs carried.
set -o pipefail
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
for f in .dev/debs/libjansson*.deb; do dpkg -x "$f" /; done; ldconfig
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DSE_BUILD_TESTS=OFF >/dev/null &&
    cmake --build build -j16 2>&1 | grep -E " error|FAILED" | head
el built
B=./build/softmax-evidence
LARGE=32x4096,4096x4096,1024x32768,64x262144,8x1048576,4x4194304,8x1048573,4x4194301,256x1048576
V() { local n=$1; shift; timeout 100 $B run --validate-only --quiet --strategies megakernel,megakernel-graph,fusion "$@" > $OUT/v-$n.txt 2>&1; echo "-- v $n (SE_MK_WIDE=${SE_MK_WIDE:-0}) exit $? $(grep -E '^validation' $OUT/v-$n.txt | tail -1)"; }
export SE_MK_WIDE=1
V default --shapes $LARGE,1x1,1x7,3x4097,5xT+1,2x100003
V tile1000 --tile 1000 --shapes 1x1,7x999,2x100003,33x4096,3x4097
# 7 blocks: 4x262144 and 5x100003 take wide units (rows < G < rows q),
# with most of each unit's tiles past the shared memory.
V blocks7 --blocks 7 --shapes 3x4097,33x4096,64x262144,2x100003,4x262144,5x100003
V blocks7-tile1000 --blocks 7 --tile 1000 --shapes 4x262144,5x100003,7x999
el validated
python3 -c "
import json; p = json.load(open('tests/gpu/small-protocol.json')); p['strategies'] = ['megakernel', 'fusion']; p['traces'] = True
json.dump(p, open('/tmp/mk-protocol.json', 'w'))"
timeout 120 compute-sanitizer --tool racecheck --error-exitcode 99 $B run --validate-only --quiet --strategies megakernel --invocations 1 --blocks 7 --shapes 3x4097,2x100003,4x262144 > $OUT/san-race.txt 2>&1; echo "-- racecheck exit $? $(grep -E 'RACECHECK SUMMARY' $OUT/san-race.txt | tail -1)"
timeout 120 compute-sanitizer --tool memcheck --error-exitcode 99 $B run --quiet --no-blocking-kernel --no-peers --blocks 7 --shapes 4x262144,5x100003,3x4097 --runs-dir /tmp/mkruns --protocol /tmp/mk-protocol.json > $OUT/san-run.txt 2>&1; echo "-- memcheck traced run exit $? $(grep -E 'ERROR SUMMARY' $OUT/san-run.txt | tail -1)"
d=$(ls -d /tmp/mkruns/2* | head -1); $B verify "$d" 2>&1 | grep -E "traces|verify:"
el checked
# T NAME: fusion and the megakernel in one run (protocol/repeat.json: device
# time, L2 warm), then megakernel / fusion per shape.
T() {
    timeout 200 $B run --quiet --no-peers --strategies fusion,megakernel --protocol protocol/repeat.json --shapes $LARGE --runs-dir /tmp/mk20-$1 > $OUT/perf20-$1.txt 2>&1; echo "perf $1 exit $?"
    python3 - "$OUT/perf20-$1.txt" <<'P'
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
SE_MK_WIDE=0 T rows
SE_MK_WIDE=1 T wide
el timed
cd $OUT && tar czf x20.tgz --remove-files v-* san-* perf20-*.txt; ls
