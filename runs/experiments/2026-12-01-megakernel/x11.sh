#!/usr/bin/env bash
# Experiment 11 (issue 15): x10's static-schedule megakernel with __launch_bounds__(256, 4), so its
# grid (4 blocks an SM) and on-chip share of x are fusion's.
set -o pipefail
for f in .dev/debs/*.deb; do dpkg -x "$f" /; done; ldconfig
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DSE_BUILD_TESTS=OFF >/dev/null && cmake --build build -j16 2>&1 | grep -E " error|FAILED" | head
B=./build/softmax-evidence
timeout 100 $B run --validate-only --quiet --strategies megakernel,megakernel-graph --shapes 1x1,3x4097,32x4096,4096x4096,64x262144,8x1048573,2x100003 2>&1 | grep -E "^validation|FAIL" | head -3
timeout 200 $B run --quiet --no-peers --strategies fusion,megakernel --protocol protocol/repeat.json --shapes 32x4096,4096x4096,1024x32768,64x262144,8x1048576,4x4194304,8x1048573,256x1048576,1x1 --runs-dir /tmp/mk11 > $OUT/perf11.txt 2>&1; echo "perf exit $?"
python3 - <<'P'
import re, os
perf = open(os.environ["OUT"] + "/perf11.txt").read()
print([l for l in perf.split("\n") if "fusion " in l and "blocks" not in l][:0])
perf = perf[perf.index("median_us"):]
rows = {}; order = []
for line in perf.split("\n"):
    m = re.match(r"^(\d+x\d+)\s+(fusion|megakernel|megakernel_init|copy)\s+([0-9.]+)", line)
    if m:
        s, item, v = m.groups()
        if s not in rows: rows[s] = {}; order.append(s)
        rows[s].setdefault(item, v)
print("shape copy fusion megakernel megakernel/fusion")
for s in order:
    r = rows[s]; print(s, r.get('copy'), r.get('fusion'), r.get('megakernel'), "%.3f" % (float(r['megakernel'])/float(r['fusion'])))
P
grep -E "^[0-9]+x[0-9]+ +megakernel +[0-9]+ " $OUT/perf11.txt | head -3
