set -o pipefail
source .carry/pre.sh
FINAL=$OUT; mkdir -p /tmp/logs; OUT=/tmp/logs
git diff --stat | tail -1
git worktree add -q /tmp/old 1929964 >/dev/null 2>&1
(cmake -S /tmp/old -B /tmp/old/build -G Ninja -DCMAKE_BUILD_TYPE=Release > /dev/null && ninja -j8 -C /tmp/old/build softmax-evidence > $OUT/build-old.log 2>&1; echo old build rc=$?) &
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release > /dev/null && ninja -j10 -C build softmax-evidence > $OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
wait
mkdir -p /tmp/oldref && git archive 1929964 runs/reference | tar -x -C /tmp/oldref
timeout 200 build/softmax-evidence run --no-peers --quiet --runs-dir /tmp/def --run-dir-out /tmp/def.path > $OUT/def.log 2>&1; echo def rc=$?
d=$(cat /tmp/def.path)
build/softmax-evidence table $d > $OUT/def-table.txt 2>&1
build/softmax-evidence compare /tmp/oldref/runs/reference $d > $OUT/cmp-1929.txt 2>&1; echo cmp1929 rc=$?
build/softmax-evidence compare runs/experiments/2026-12-03-regression/20261203T080149Z $d > $OUT/cmp-v19.txt 2>&1; echo cmpv19 rc=$?
grep "^summary" -A5 $OUT/cmp-1929.txt $OUT/cmp-v19.txt
grep -E "^(4096x4096|1024x32768|1x1|32x4096|2x100003)\.(stream|fusion|megakernel|rowblock) " $OUT/cmp-1929.txt | head -40
OUT=$FINAL pack $d def
M=gpu__time_duration.sum,sm__cycles_active.max,smsp__inst_executed.sum,launch__grid_size,launch__shared_mem_per_block_dynamic,launch__registers_per_thread,smsp__average_warps_issue_stalled_no_instruction_per_issue_active.ratio,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warp_latency_per_inst_issued.ratio
for b in /tmp/old/build build; do for sh in 1x1 32x4096 4096x4096; do for s in fusion megakernel; do
  echo "== $b $sh $s"; timeout 60 /usr/local/cuda/bin/ncu --metrics $M --kernel-name regex:"se_k_${s}\$" --launch-skip 3 --launch-count 1 $b/softmax-evidence run --shapes $sh --strategies $s --no-peers --validate-only --invocations 6 --quiet 2>&1 | grep -E "^\s+(gpu__|sm__|smsp__|launch__)" ; done; done; done > $OUT/ncu.txt 2>&1
cat $OUT/ncu.txt | head -150
for t in memcheck racecheck; do timeout 100 /usr/local/cuda/bin/compute-sanitizer --tool $t --print-limit 5 build/softmax-evidence run --shapes 3x4097,2x4099,1x8191,4x4096,1000x37 --strategies fusion,megakernel --no-peers --no-blocking-kernel --validate-only --quiet > $OUT/san-$t.log 2>&1; echo $t rc=$?; grep -E "ERROR SUMMARY|RACECHECK SUMMARY" $OUT/san-$t.log | tail -3; done
tar -czf $FINAL/logs.tar.gz -C /tmp logs; ls -la $FINAL
