#!/usr/bin/env bash
# Experiment 10 (issue 15): the megakernel on a static schedule (tiles owned as in fusion, x kept
# on chip, row tasks run by the block that completes the row, per-row counters with backoff).
set -o pipefail
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
for f in .dev/debs/*.deb; do dpkg -x "$f" /; done; ldconfig
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DSE_BUILD_TESTS=OFF >/dev/null && cmake --build build -j16 2>&1 | grep -E " error|FAILED" | head
el built
B=./build/softmax-evidence
V() { local n=$1; shift; timeout 200 $B run --validate-only --quiet --strategies megakernel,megakernel-graph,fusion "$@" > $OUT/v-$n.txt 2>&1; echo "-- v $n exit $? $(grep -E '^validation' $OUT/v-$n.txt | tail -1)"; grep -E "FAIL" $OUT/v-$n.txt | head -5; }
V default
V tile1000 --tile 1000 --shapes 1x1,1x7,3x4097,5xT+1,7x999,2x100003,33x4096
V blocks1 --blocks 1 --shapes 1x1,3x4097,33x4096,2x100003
V blocks7 --blocks 7 --shapes 1x1,3x4097,33x4096,2x100003,64x262144
V huge --scale 1e30 --shapes 32x4096,4096x4096,64x262144,3x4097,2x100003
el validated
for tool in memcheck racecheck synccheck; do
  timeout 150 compute-sanitizer --tool $tool --error-exitcode 99 --print-limit 10 $B run --validate-only --quiet --strategies megakernel --invocations 1 --shapes 1x1,1x7,3x4097,5xT+1,32x4096,2x100003 > $OUT/san-$tool.txt 2>&1; echo "-- $tool exit $? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $OUT/san-$tool.txt | tail -1)"
done
python3 - <<'P'
import json
p = json.load(open("tests/gpu/small-protocol.json")); p["strategies"] = ["megakernel", "megakernel-graph", "fusion", "stream"]; p["traces"] = True
json.dump(p, open("/tmp/mk-protocol.json", "w"))
P
timeout 150 compute-sanitizer --tool memcheck --error-exitcode 99 $B run --quiet --no-blocking-kernel --no-peers --runs-dir /tmp/mkruns --protocol /tmp/mk-protocol.json > $OUT/san-run.txt 2>&1; echo "-- memcheck whole traced run exit $? $(grep -E 'ERROR SUMMARY' $OUT/san-run.txt | tail -1)"
d=$(ls -d /tmp/mkruns/2* | head -1); $B verify "$d" 2>&1 | tail -4
el sanitized
timeout 280 $B run --quiet --no-peers --strategies fusion,megakernel,graph-pdl --protocol protocol/repeat.json --runs-dir /tmp/mkperf > $OUT/perf.txt 2>&1; echo "perf exit $?"
sed -n '/median_us/,$p' $OUT/perf.txt | grep -E "^[0-9]+x[0-9]+ +(fusion|megakernel|graph-pdl|megakernel_init|copy) +[0-9]" | awk '{printf "%s %s %s\n", $1, $2, $3}' | paste - - - - - | column -t
el timed
cd $OUT && tar czf x10.tgz --remove-files v-* san-* perf.txt; ls
