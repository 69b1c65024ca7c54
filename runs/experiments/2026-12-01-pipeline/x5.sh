#!/usr/bin/env bash
# Experiment 5 (issue 15): rowblock's pipeline with the next row's part fetched by one bulk copy
# (TMA) instead of cp.async per thread; against the grid and the cluster in the same call.
set -o pipefail
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
for f in .dev/debs/*.deb; do dpkg -x "$f" /; done; ldconfig
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DSE_BUILD_TESTS=OFF >/dev/null && cmake --build build -j16 2>&1 | grep -E " error|FAILED" | head
el built
B=./build/softmax-evidence
R() { # name env... -- shapes
  local n=$1; shift; local envs=(); while [ "$1" != "--" ]; do envs+=("$1"); shift; done; shift
  env "${envs[@]}" timeout 200 $B run --quiet --no-peers --strategies rowblock --protocol protocol/repeat.json --shapes $1 --runs-dir /tmp/x-$n > $OUT/x-$n.txt 2>&1 || echo "$n exit $?"
  echo "-- $n $(grep -E 'validation:' $OUT/x-$n.txt | tail -1)"; sed -n '/median_us/,$p' $OUT/x-$n.txt | grep -E "^[0-9]+x[0-9]+ +(rowblock|copy) +[0-9]" | awk '{printf "%s %s %s %s| ", $1, $2, $3, $(NF-1)} END {print ""}' | sed 's/| [0-9x]* rowblock [0-9.]* -| .*//'
}
L=64x262144,8x1048576,4x4194304,8x1048573,256x1048576
R m4 SE_RB_PATH=pipe SE_X_LATE=4 -- $L
R m5 SE_RB_PATH=pipe SE_X_LATE=5 -- $L
R m1 SE_RB_PATH=pipe SE_X_LATE=1 -- $L
R grid SE_RB_PATH=grid -- 64x262144,8x1048576,4x4194304
R cluster SE_RB_PATH=cluster -- 256x1048576
R m4p16 SE_RB_PATH=pipe SE_X_LATE=4 SE_RB_PIPE_PARTS=16 -- 64x262144
R m4p66 SE_RB_PATH=pipe SE_X_LATE=4 SE_RB_PIPE_PARTS=66 -- 8x1048576,256x1048576
el timed
for tool in memcheck racecheck synccheck; do
  SE_RB_PATH=pipe SE_RB_PIPE_PARTS=33 SE_X_LATE=4 timeout 100 compute-sanitizer --tool $tool --error-exitcode 99 --print-limit 10 $B run --validate-only --quiet --strategies rowblock --invocations 1 --shapes 9x100003,6x65536,7x70001 > $OUT/san-$tool.txt 2>&1; echo "-- $tool exit $? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $OUT/san-$tool.txt | tail -1)"
done
SE_RB_PATH=pipe SE_X_LATE=4 timeout 100 $B run --validate-only --quiet --strategies rowblock --invocations 1 --scale 1e36 --shapes 9x100003,6x65536,7x70001,8x1048573,700x40000 2>&1 | tail -2
el sanitized
M=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,dram__bytes_write.sum,launch__grid_size,smsp__average_warp_latency_issue_stalled_long_scoreboard.ratio,smsp__average_warp_latency_issue_stalled_barrier.ratio,smsp__average_warp_latency_issue_stalled_lg_throttle.ratio
SE_X_LATE=4 timeout 100 ncu --metrics $M --csv -k regex:rowblock -c 5 $B run --validate-only --quiet --strategies rowblock --shapes $L --invocations 1 > $OUT/ncu-m4.csv 2>&1; el "ncu $?"
cd $OUT && tar czf x5.tgz --remove-files x-* san-* ncu-*; ls
