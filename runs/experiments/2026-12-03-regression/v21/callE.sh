set -o pipefail
source .carry/pre.sh
FINAL=$OUT; mkdir -p /tmp/logs; OUT=/tmp/logs
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
git status --short | head -8; git log --oneline -1 | cut -c1-60; nvidia-smi --query-gpu=uuid,clocks.sm,temperature.gpu --format=csv,noheader
git worktree add -q /tmp/old 1929964 >/dev/null 2>&1
(cmake -S /tmp/old -B /tmp/old/build -G Ninja -DCMAKE_BUILD_TYPE=Release > /dev/null && ninja -j6 -C /tmp/old/build softmax-evidence > $OUT/build-old.log 2>&1; echo old build rc=$?) &
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release > /dev/null && ninja -j12 -C build softmax-evidence > $OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
wait; el built
timeout -k 5 150 build/softmax-evidence run --no-peers --quiet --runs-dir /tmp/new --run-dir-out /tmp/new.path > $OUT/new.log 2>&1; el new rc=$?
timeout -k 5 150 /tmp/old/build/softmax-evidence run --no-peers --quiet --runs-dir /tmp/olddef --run-dir-out /tmp/old.path > $OUT/olddef.log 2>&1; el olddef rc=$?
N=$(cat /tmp/new.path); O=$(cat /tmp/old.path)
build/softmax-evidence compare $O $N > $OUT/cmp-same-machine.txt 2>&1; el cmp rc=$?
grep "^summary" -A3 $OUT/cmp-same-machine.txt
grep -E "^(4096x4096|1024x32768|1x1|32x4096|2x100003|3x4097)\.(stream|graph|fusion|megakernel|rowblock) " $OUT/cmp-same-machine.txt
build/softmax-evidence table $N > $OUT/new-table.txt 2>&1
tar -czf $FINAL/runs.tar.gz -C /tmp new olddef --exclude=traces
timeout -k 5 60 build/softmax-evidence run --shapes 1x1,1x7,1x1000,2x1000,3x4097,100000x37,1000x1000,1000000x1,17x2000001 --no-peers --validate-only --quiet --runs-dir /tmp/val > $OUT/val.log 2>&1; el val rc=$?; tail -4 $OUT/val.log
M=gpu__time_duration.sum,smsp__inst_executed.sum,launch__registers_per_thread,smsp__average_warps_issue_stalled_no_instruction_per_issue_active.ratio,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio
for b in /tmp/old/build build; do for sh in 1x1 4096x4096; do for s in fusion megakernel; do
  echo "== $b $sh $s"; timeout 40 /usr/local/cuda/bin/ncu --metrics $M --kernel-name regex:"se_k_${s}\$" --launch-skip 3 --launch-count 1 $b/softmax-evidence run --shapes $sh --strategies $s --no-peers --validate-only --invocations 6 --quiet 2>&1 | grep -E "^\s+(gpu__|sm__|smsp__|launch__)" ; done; done; done > $OUT/ncu.txt 2>&1
el ncu; cat $OUT/ncu.txt
for t in memcheck racecheck; do
  left=$(( 560 - ($(date +%s) - T0) )); [ $left -lt 60 ] && { el skip $t; continue; }
  timeout -k 5 $((left/2 < 120 ? left/2 : 120)) /usr/local/cuda/bin/compute-sanitizer --tool $t --print-limit 5 build/softmax-evidence run --shapes 1x1,3x4097,2x1000,1000x37,1x8191 --strategies stream,fusion,megakernel --no-peers --no-blocking-kernel --validate-only --quiet > $OUT/san-$t.log 2>&1; el $t rc=$?; grep -E "ERROR SUMMARY|RACECHECK SUMMARY" $OUT/san-$t.log | tail -3; done
tar -czf $FINAL/logs.tar.gz -C /tmp logs; ls -la $FINAL; el done
