#!/usr/bin/env bash
# Experiment 2 (not committed): ex2.approx.ftz in rowblock, a lean one-thread kernel,
# the plain register kernel against the staging one; stall reasons against Liger.
set -o pipefail
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
for f in .dev/debs/*.deb; do dpkg -x "$f" /; done; ldconfig
mkdir -p /tmp/pyx && pip install -q --no-deps --target /tmp/pyx .dev/wheels/liger*.whl 2>&1 | grep -v WARN
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DSE_BUILD_TESTS=OFF >/dev/null && cmake --build build -j16 2>&1 | grep -E " error|FAILED" | head
el built
B=./build/softmax-evidence
cuobjdump -sass build/CMakeFiles/se_kernels.dir/src/gpu/rowblock_block.cu.o > $OUT/sass-block.txt
cuobjdump -sass build/CMakeFiles/se_kernels.dir/src/gpu/rowblock.cu.o > $OUT/sass-rb.txt
R() { # name env... -- shapes
  local n=$1; shift; local envs=(); while [ "$1" != "--" ]; do envs+=("$1"); shift; done; shift
  env "${envs[@]}" PYTHONPATH=/tmp/pyx $B run --quiet --strategies ${S:-rowblock} --protocol protocol/repeat.json --shapes $1 --runs-dir /tmp/x-$n ${2:-} > $OUT/x-$n.txt 2>&1 || echo "$n exit $?"
  echo "-- $n"; sed -n '/median_us/,$p' $OUT/x-$n.txt | grep -E "^[0-9]+x[0-9]+ +(rowblock|copy|liger-softmax) +[0-9]" | awk '{printf "%s %s %s %s| ", $1, $2, $3, $(NF-1)} END {print ""}'
}
R base X=0 -- 1x1,1x7,32x4096,3x4097,4096x4096,2048x8192,1024x32768,512x32768,64x262144,8x1048576
R tiny SE_X_TINY=1 -- 1x1,1x7 --no-peers
R nostream SE_X_NOSTREAM=1 -- 1024x32768,512x32768 --no-peers
R base2 X=0 -- 1x1,1x7,1024x32768,512x32768 --no-peers
R tiny2 SE_X_TINY=1 -- 1x1,1x7 --no-peers
R nostream2 SE_X_NOSTREAM=1 -- 1024x32768,512x32768 --no-peers
el variants
M=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,smsp__inst_executed.sum,smsp__average_warp_latency_issue_stalled_long_scoreboard.ratio,smsp__average_warp_latency_issue_stalled_barrier.ratio,smsp__average_warp_latency_issue_stalled_short_scoreboard.ratio,smsp__average_warp_latency_issue_stalled_wait.ratio,smsp__average_warp_latency_issue_stalled_math_pipe_throttle.ratio,smsp__average_warp_latency_issue_stalled_lg_throttle.ratio,smsp__average_warp_latency_issue_stalled_drain.ratio,smsp__average_warp_latency_issue_stalled_membar.ratio,smsp__average_warp_latency_issue_stalled_mio_throttle.ratio,smsp__issue_active.avg.pct_of_peak_sustained_active
PYTHONPATH=/tmp/pyx timeout 100 ncu --metrics $M --csv -k regex:"_softmax_(single|multi)" python3 .dev/x1_liger.py 1x1 32x4096 1024x32768 > $OUT/ncu-liger.csv 2>$OUT/ncu-liger.err; el "ncu liger $?"
timeout 60 ncu --metrics $M --csv -k regex:rowblock -c 6 $B run --validate-only --quiet --strategies rowblock --shapes 1x1,32x4096,1024x32768 --invocations 1 > $OUT/ncu-ours.csv 2>$OUT/ncu-ours.err; el "ncu ours $?"
SE_X_NOSTREAM=1 SE_X_TINY=1 timeout 60 ncu --metrics $M --csv -k regex:rowblock -c 6 $B run --validate-only --quiet --strategies rowblock --shapes 1x1,1024x32768 --invocations 1 > $OUT/ncu-nostream.csv 2>&1; el "ncu nostream $?"
python3 - <<'P'
import csv, glob, os
for f in sorted(glob.glob(os.environ["OUT"] + "/ncu-*.csv")):
    rows = [r for r in csv.reader(open(f)) if len(r) > 10]
    if not rows: print(f, "no rows"); continue
    h = rows[0]; ki = h.index("Kernel Name"); mi = h.index("Metric Name"); vi = h.index("Metric Value"); ii = h.index("ID")
    d = {}
    for r in rows[1:]:
        m = r[mi].replace("smsp__average_warp_latency_issue_stalled_", "st_").replace(".ratio", "")
        d.setdefault((r[ii], r[ki][:30]), {})[m[:26]] = r[vi]
    print("==", os.path.basename(f))
    for k, v in d.items(): print(k, v)
P
cd $OUT && tar czf x2.tgz --remove-files x-*.txt ncu-* sass-*; ls
