#!/usr/bin/env bash
# Experiment 17 (issue 15, goal 3): the megakernel with row-major static
# ownership (rows.patch): a block takes its units of a row through A, C and
# E with the row's x in shared memory, then its next row. One device call on
# the H200, from the repository's root with rows.patch applied and the
# Debian packages the build lacks there (jansson) in .dev/debs, carried:
#   git apply runs/experiments/2026-12-01-megakernel-rows/rows.patch
#   mkdir -p .dev/debs && (cd .dev/debs && apt-get download libjansson4 libjansson-dev)
# Validation (every default shape, tile 1000, 1 and 7 blocks, --scale 1e30),
# racecheck, a traced run under memcheck verified for coverage and order,
# fusion against the megakernel timed in one run, and both traced on the
# large shapes for their phase spans.
set -o pipefail
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
for f in .dev/debs/*.deb; do dpkg -x "$f" /; done; ldconfig
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DSE_BUILD_TESTS=OFF >/dev/null &&
    cmake --build build -j16 2>&1 | grep -E " error|FAILED|spill" | head
B=./build/softmax-evidence
V() { local n=$1; shift; timeout 100 $B run --validate-only --quiet --strategies megakernel,megakernel-graph,fusion "$@" > $OUT/v-$n.txt 2>&1; echo "-- v $n exit $? $(grep -E '^validation' $OUT/v-$n.txt | tail -1)"; }
V default --shapes 32x4096,4096x4096,1024x32768,64x262144,8x1048576,4x4194304,1x1,1x7,3x4097,5xT+1,2x100003,8x1048573,4x4194301,256x1048576
V tile1000 --tile 1000 --shapes 1x1,7x999,2x100003,33x4096,3x4097
V blocks1 --blocks 1 --shapes 1x1,3x4097,33x4096,2x100003
V blocks7 --blocks 7 --shapes 3x4097,33x4096,64x262144,2x100003
V huge --scale 1e30 --shapes 32x4096,3x4097,2x100003
el validated
timeout 60 compute-sanitizer --tool racecheck --error-exitcode 99 $B run --validate-only --quiet --strategies megakernel --invocations 1 --shapes 1x7,3x4097,32x4096,2x100003 > $OUT/san-race.txt 2>&1; echo "-- racecheck exit $? $(grep -E 'RACECHECK SUMMARY' $OUT/san-race.txt | tail -1)"
python3 -c "
import json; p = json.load(open('tests/gpu/small-protocol.json')); p['strategies'] = ['megakernel', 'fusion']; p['traces'] = True
json.dump(p, open('/tmp/mk-protocol.json', 'w'))"
timeout 60 compute-sanitizer --tool memcheck --error-exitcode 99 $B run --quiet --no-blocking-kernel --no-peers --runs-dir /tmp/mkruns --protocol /tmp/mk-protocol.json > $OUT/san-run.txt 2>&1; echo "-- memcheck traced run exit $? $(grep -E 'ERROR SUMMARY' $OUT/san-run.txt | tail -1)"
d=$(ls -d /tmp/mkruns/2* | head -1); $B verify "$d" 2>&1 | grep -E "traces|verify:"
el checked
timeout 150 $B run --quiet --no-peers --strategies fusion,megakernel --protocol protocol/repeat.json --shapes 32x4096,4096x4096,1024x32768,64x262144,8x1048576,4x4194304,8x1048573,4x4194301,256x1048576,1x1,3x4097 --runs-dir /tmp/mk17 > $OUT/perf17.txt 2>&1; echo "perf exit $?"
python3 - <<'P'
import re, os
perf = open(os.environ["OUT"] + "/perf17.txt").read()
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
python3 -c "
import json; p = json.load(open('protocol/repeat.json')); p['traces'] = True; p['strategies'] = ['fusion', 'megakernel']
p['workload']['shapes'] = ['4096x4096', '64x262144', '8x1048576', '256x1048576']
json.dump(p, open('/tmp/mk-traced.json', 'w'))"
timeout 150 $B run --quiet --no-peers --no-blocking-kernel --protocol /tmp/mk-traced.json --runs-dir /tmp/mk17t > $OUT/traced17.txt 2>&1; echo "traced exit $?"
d=$(ls -d /tmp/mk17t/2* | head -1)
python3 - "$d" <<'P'
import json, sys
t = json.load(open(sys.argv[1] + "/traces.json"))
for tr in t["traces"]:
    p = tr.get("phases", {})
    print(tr["case"], " ".join("%s %.1f-%.1f" % (k, v["start_ns"] / 1e3, v["end_ns"] / 1e3) for k, v in p.items()), "span %.1f" % (tr["span_ns"] / 1e3))
P
el traced
cd $OUT && tar czf x17.tgz --remove-files v-* san-* perf17.txt traced17.txt; ls
