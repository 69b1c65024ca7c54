#!/usr/bin/env bash
# Experiment 8 (issue 15): rows too long for a cluster to hold, read three times (DRAM once,
# then twice from L2) by a cluster per row (se_k_rowblock_l2), against the present paths.
set -o pipefail
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
for f in .dev/debs/*.deb; do dpkg -x "$f" /; done; ldconfig
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DSE_BUILD_TESTS=OFF >/dev/null && cmake --build build -j16 2>&1 | grep -E " error|FAILED" | head
el built
B=./build/softmax-evidence
SE_RB_PATH=l2 timeout 100 $B run --validate-only --quiet --strategies rowblock --invocations 1 --shapes 9x100004,6x65536,3x131072,2x600000 --scale 1e36 2>&1 | tail -1
SE_RB_PATH=l2 timeout 100 compute-sanitizer --tool memcheck --error-exitcode 99 $B run --validate-only --quiet --strategies rowblock --invocations 1 --shapes 9x100004,3x131072 2>&1 | grep -E "SUMMARY|validation"
R() { local n=$1; shift; local envs=(); while [ "$1" != "--" ]; do envs+=("$1"); shift; done; shift
  env "${envs[@]}" timeout 200 $B run --quiet --no-peers --strategies rowblock --protocol protocol/repeat.json --shapes $1 --runs-dir /tmp/x-$n > $OUT/x-$n.txt 2>&1 || echo "$n exit $?"
  echo "-- $n $(grep -E 'validation:' $OUT/x-$n.txt | tail -1)"; sed -n '/median_us/,$p' $OUT/x-$n.txt | grep -E "^[0-9]+x[0-9]+ +(rowblock|copy) +[0-9]" | awk '{printf "%s %s %s %s| ", $1, $2, $3, $(NF-1)} END {print ""}' | sed 's/| [0-9x]* rowblock [0-9.]* -| .*//'
}
L=256x1048576,512x1048576,128x524288,64x262144,8x1048576,4x4194304
R base X=0 -- $L
R l2c16 SE_RB_PATH=l2 -- $L
R l2c8 SE_RB_PATH=l2 SE_X_L2C=8 -- 256x1048576,128x524288,64x262144
R l2c4 SE_RB_PATH=l2 SE_X_L2C=4 -- 256x1048576,64x262144
el timed
M=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread
SE_RB_PATH=l2 timeout 100 ncu --metrics $M --csv -k regex:rowblock -c 4 $B run --validate-only --quiet --strategies rowblock --shapes 256x1048576,128x524288,64x262144,8x1048576 --invocations 1 > $OUT/ncu-l2.csv 2>&1; el "ncu $?"
python3 - <<'P'
import csv, os
rows = [r for r in csv.reader(open(os.environ["OUT"] + "/ncu-l2.csv")) if len(r) > 10]
h = rows[0]; ki = h.index("Kernel Name"); mi = h.index("Metric Name"); vi = h.index("Metric Value"); ii = h.index("ID")
d = {}
for r in rows[1:]:
    d.setdefault((r[ii], r[ki][:20]), {})[r[mi].split("__",1)[1][:30]] = r[vi]
for k, v in d.items(): print(k, v)
P
cd $OUT && tar czf x8.tgz --remove-files x-* ncu-*; ls
