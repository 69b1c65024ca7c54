# device call G2 (2026-12-06): early edge loads in the tiled phases (new, working tree) against HEAD's (old),
# same machine, alternating; then ncu counters on the unmet parts of the sweep
set -o pipefail
for d in .carry/deb/*.deb; do dpkg -x "$d" / ; done; ldconfig 2>/dev/null
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
L=/tmp/logs; mkdir -p $L
nvidia-smi --query-gpu=name,uuid,clocks.sm,clocks.max.sm,temperature.gpu --format=csv,noheader | tee $L/gpu.txt
rm -rf /tmp/old && mkdir -p /tmp/old && tar --exclude=./build --exclude=./.carry -cf - . | tar -xf - -C /tmp/old && cp -r .carry/old/src /tmp/old/
( cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DSE_BUILD_TESTS=OFF > $L/cmake-new.log 2>&1 && ninja -j8 -C build softmax-evidence > $L/build-new.log 2>&1 ) &
( cd /tmp/old && cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DSE_BUILD_TESTS=OFF > $L/cmake-old.log 2>&1 && ninja -j8 -C build softmax-evidence > $L/build-old.log 2>&1 ) &
wait; el built; ls -la build/softmax-evidence /tmp/old/build/softmax-evidence || { tail -20 $L/build-*.log; exit 1; }
SH=16380x4097,16368x4100,2047x4097,2046x4100,8x1048573,8x1048576,64x1048573,64x1048576,226719x37,262144x32,5x4097
for i in 1 2; do for v in old new; do
  if [ $v = old ]; then B=/tmp/old/build/softmax-evidence; else B=build/softmax-evidence; fi
  timeout -k 5 100 $B run --protocol protocol/sweep.json --shapes $SH --no-peers --quiet --runs-dir /tmp/r-$v-$i --run-dir-out /tmp/r-$v-$i.path > $L/run-$v-$i.log 2>&1; el run $v $i rc=$?
done; done
B=build/softmax-evidence
for i in 1 2; do $B compare $(cat /tmp/r-old-$i.path) $(cat /tmp/r-new-$i.path) > $L/cmp-old-new-$i.txt 2>&1; done
$B compare $(cat /tmp/r-old-1.path) $(cat /tmp/r-old-2.path) > $L/cmp-old-old.txt 2>&1
for v in old new; do for i in 1 2; do $B table $(cat /tmp/r-$v-$i.path) > $L/table-$v-$i.txt 2>&1; cp $(cat /tmp/r-$v-$i.path)/validation.json $L/validation-$v-$i.json; done; done
el compared
NCU=/usr/local/cuda/bin/ncu
SEC="--section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats --section SchedulerStats --section WarpStateStats --section InstructionStats"
MET="gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,l1tex__throughput.avg.pct_of_peak_sustained_active,sm__throughput.avg.pct_of_peak_sustained_elapsed,smsp__issue_active.avg.per_cycle_active,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,launch__grid_size,launch__block_size,launch__registers_per_thread,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio"
left() { echo $(( $1 - ($(date +%s) - T0) )); }
R1=64x131072,8x1048576,2x4194304,1x16777216,128x65536,83x100003,1x1,1x4096,1x32768,8x8192,8x37,8x1024
t=$(left 420); [ $t -gt 30 ] && { timeout -k 5 $t $NCU --csv --page raw --metrics $MET --kernel-name regex:'se_k_rowblock' $B run --shapes $R1 --strategies rowblock --no-peers --no-blocking-kernel --validate-only --invocations 1 --quiet > $L/ncu-rb-small.csv 2> $L/ncu-rb-small.err; el rb-small rc=$?; }
t=$(left 480); [ $t -gt 30 ] && { timeout -k 5 $t $NCU --csv --page raw --metrics $MET --kernel-name regex:'se_k_phase|se_k_fusion' $B run --shapes 16380x4097,16368x4100,262144x32,16x524288 --strategies stream,fusion --no-peers --no-blocking-kernel --validate-only --invocations 1 --quiet > $L/ncu-tiled.csv 2> $L/ncu-tiled.err; el tiled rc=$?; }
t=$(left 540); [ $t -gt 30 ] && { timeout -k 5 $t $NCU $SEC --kernel-name regex:'se_k_rowblock' $B run --shapes 8x1048576,1x4096,1x32768,8x8192,128x524288 --strategies rowblock --no-peers --no-blocking-kernel --validate-only --invocations 1 --quiet > $L/ncu-rb-sections.txt 2>&1; el sections rc=$?; }
for v in old new; do for i in 1; do tar -cJf $OUT/run-$v-$i.tar.xz -C $(dirname $(cat /tmp/r-$v-$i.path)) $(basename $(cat /tmp/r-$v-$i.path)); done; done
tar -czf $OUT/g2logs.tar.gz -C /tmp logs; ls -la $OUT; el done
