#!/usr/bin/env bash
# Experiment 12 (issue 15): the static-schedule megakernel, v2: arrivals batched per block (one
# fence, one add per tile), row tasks by the block that owns the row's tile 0, one round of polls
# for the rows of a block's tiles before each tile phase.
set -o pipefail
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
for f in .dev/debs/*.deb; do dpkg -x "$f" /; done; ldconfig
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DSE_BUILD_TESTS=OFF >/dev/null && cmake --build build -j16 2>&1 | grep -E " error|FAILED" | head
B=./build/softmax-evidence
V() { local n=$1; shift; timeout 100 $B run --validate-only --quiet --strategies megakernel,megakernel-graph "$@" > $OUT/v-$n.txt 2>&1; echo "-- v $n exit $? $(grep -E '^validation' $OUT/v-$n.txt | tail -1)"; }
V small --shapes 1x1,1x7,3x4097,5xT+1,32x4096,2x100003,4096x4096,64x262144,8x1048573
V tile1000 --tile 1000 --shapes 1x1,7x999,2x100003,33x4096
V blocks --blocks 1 --shapes 1x1,3x4097,33x4096,2x100003
V blocks7 --blocks 7 --shapes 3x4097,33x4096,64x262144
V huge --scale 1e30 --shapes 32x4096,3x4097,2x100003
el validated
timeout 60 compute-sanitizer --tool racecheck --error-exitcode 99 $B run --validate-only --quiet --strategies megakernel --invocations 1 --shapes 1x7,3x4097,32x4096,2x100003 > $OUT/san-race.txt 2>&1; echo "-- racecheck exit $? $(grep -E 'RACECHECK SUMMARY' $OUT/san-race.txt | tail -1)"
python3 -c "
import json; p = json.load(open('tests/gpu/small-protocol.json')); p['strategies'] = ['megakernel', 'fusion']; p['traces'] = True
json.dump(p, open('/tmp/mk-protocol.json', 'w'))"
timeout 60 compute-sanitizer --tool memcheck --error-exitcode 99 $B run --quiet --no-blocking-kernel --no-peers --runs-dir /tmp/mkruns --protocol /tmp/mk-protocol.json > $OUT/san-run.txt 2>&1; echo "-- memcheck traced run exit $? $(grep -E 'ERROR SUMMARY' $OUT/san-run.txt | tail -1)"
d=$(ls -d /tmp/mkruns/2* | head -1); $B verify "$d" 2>&1 | grep -E "traces|verify:"
el checked
timeout 120 $B run --quiet --no-peers --strategies fusion,megakernel --protocol protocol/repeat.json --shapes 32x4096,4096x4096,1024x32768,64x262144,8x1048576,4x4194304,8x1048573,4x4194301,256x1048576,1x1,3x4097 --runs-dir /tmp/mk12 > $OUT/perf12.txt 2>&1; echo "perf exit $?"
python3 - <<'P'
import re, os
perf = open(os.environ["OUT"] + "/perf12.txt").read()
perf = perf[perf.index("median_us"):]
rows = {}; order = []
for line in perf.split("\n"):
    m = re.match(r"^(\d+x\d+)\s+(fusion|megakernel|megakernel_init|copy)\s+([0-9.]+)", line)
    if m:
        s, item, v = m.groups()
        if s not in rows: rows[s] = {}; order.append(s)
        rows[s].setdefault(item, v)
print("shape copy fusion megakernel megakernel_init megakernel/fusion")
for s in order:
    r = rows[s]; print(s, r.get('copy'), r.get('fusion'), r.get('megakernel'), r.get('megakernel_init'), "%.3f" % (float(r['megakernel'])/float(r['fusion'])))
P
el timed
cd $OUT && tar czf x12.tgz --remove-files v-* san-* perf12.txt; ls
