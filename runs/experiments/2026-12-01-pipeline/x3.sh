#!/usr/bin/env bash
# Experiment 3 (issue 15): rowblock's persistent pipeline (se_k_rowblock_pipe) against the
# cooperative grid and the clusters; validation and sanitizers on the pipeline.
set -o pipefail
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
for f in .dev/debs/*.deb; do dpkg -x "$f" /; done; ldconfig
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DSE_BUILD_TESTS=OFF >/dev/null && cmake --build build -j16 2>&1 | grep -E " error|FAILED" | head
el built
B=./build/softmax-evidence
V() { # name env... -- args: validation only
  local n=$1; shift; local envs=(); while [ "$1" != "--" ]; do envs+=("$1"); shift; done; shift
  env "${envs[@]}" timeout 200 $B run --validate-only --quiet --strategies rowblock --invocations 1 "$@" > $OUT/v-$n.txt 2>&1; echo "-- v $n exit $? $(grep -ciE 'fail' $OUT/v-$n.txt) fail-lines; $(grep -E 'validation' $OUT/v-$n.txt | tail -1)"
}
SHP=64x262144,8x1048576,4x4194304,8x1048573,4x4194301,256x1048576,2x100003,9x100003,6x65536,3x65541,5x99999,67x65541,130x40000,700x40000,64x131076,4096x32772
SMALL=2x100003,9x100003,6x65536,3x65541,5x99999,67x65541,130x40000,8x1048573
V default X=0 -- --shapes $SHP
V pipe33 SE_RB_PATH=pipe SE_RB_PIPE_PARTS=33 -- --shapes $SMALL
V pipe66huge SE_RB_PATH=pipe SE_RB_PIPE_PARTS=66 -- --scale 1e36 --shapes $SMALL
V pipehuge SE_RB_PATH=pipe -- --scale 1e36 --shapes $SMALL,4x4194301
V pipetiny SE_RB_PATH=pipe -- --scale 1e-30 --shapes 9x100003,8x1048573
el validated
for tool in memcheck racecheck synccheck; do
  SE_RB_PATH=pipe SE_RB_PIPE_PARTS=33 timeout 240 compute-sanitizer --tool $tool --error-exitcode 99 --print-limit 10 $B run --validate-only --quiet --strategies rowblock --invocations 1 --shapes 9x100003,6x65536,7x70001 > $OUT/san-$tool.txt 2>&1; echo "-- $tool exit $? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $OUT/san-$tool.txt | tail -1)"
done
python3 - <<'P'
import json
p = json.load(open("tests/gpu/small-protocol.json"))
p["workload"]["shapes"] = ["9x100003", "6x65536"]; p["strategies"] = ["rowblock"]; p["traces"] = True
json.dump(p, open("/tmp/pipe-protocol.json", "w"))
P
SE_RB_PATH=pipe SE_RB_PIPE_PARTS=33 timeout 240 compute-sanitizer --tool memcheck --error-exitcode 99 --print-limit 10 $B run --quiet --no-blocking-kernel --no-peers --runs-dir /tmp/sanruns --protocol /tmp/pipe-protocol.json > $OUT/san-run.txt 2>&1; echo "-- memcheck whole run with traces exit $? $(grep -E 'ERROR SUMMARY' $OUT/san-run.txt | tail -1)"
d=$(ls -d /tmp/sanruns/2* | head -1); $B verify "$d" 2>&1 | tail -3; ls $d/traces 2>/dev/null | head
el sanitized
R() { # name env... -- shapes
  local n=$1; shift; local envs=(); while [ "$1" != "--" ]; do envs+=("$1"); shift; done; shift
  env "${envs[@]}" timeout 300 $B run --quiet --no-peers --strategies rowblock --protocol protocol/repeat.json --shapes $1 --runs-dir /tmp/x-$n > $OUT/x-$n.txt 2>&1 || echo "$n exit $?"
  echo "-- $n"; sed -n '/median_us/,$p' $OUT/x-$n.txt | grep -E "^[0-9]+x[0-9]+ +(rowblock|copy) +[0-9]" | awk '{printf "%s %s %s %s| ", $1, $2, $3, $(NF-1)} END {print ""}'
}
L=64x262144,8x1048576,4x4194304,8x1048573,4x4194301,256x1048576
R default X=0 -- $L
R grid SE_RB_PATH=grid -- 64x262144,8x1048576,4x4194304
R p16 SE_RB_PIPE_PARTS=16 -- 64x262144,256x1048576
R p33 SE_RB_PIPE_PARTS=33 -- 64x262144,8x1048576,256x1048576
R p66 SE_RB_PIPE_PARTS=66 -- 64x262144,8x1048576,256x1048576
R p132 SE_RB_PIPE_PARTS=132 -- 8x1048576
el timed
M=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,dram__bytes_write.sum,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,launch__grid_size,smsp__average_warp_latency_issue_stalled_long_scoreboard.ratio,smsp__average_warp_latency_issue_stalled_barrier.ratio,smsp__average_warp_latency_issue_stalled_membar.ratio,smsp__average_warp_latency_issue_stalled_lg_throttle.ratio
timeout 150 ncu --metrics $M --csv -k regex:rowblock -c 6 $B run --validate-only --quiet --strategies rowblock --shapes $L --invocations 1 > $OUT/ncu-pipe.csv 2>$OUT/ncu-pipe.err; el "ncu $?"
cd $OUT && tar czf x3.tgz --remove-files v-* san-* x-* ncu-*; ls
