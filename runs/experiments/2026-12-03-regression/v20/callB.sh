set -o pipefail
source .carry/pre.sh
FINAL=$OUT; mkdir -p /tmp/logs; OUT=/tmp/logs
git diff --stat | tail -1
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release > /dev/null && ninja -C build softmax-evidence > $OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
grep -E "spill" $OUT/build.log | sort | uniq -c | head
mkdir -p /tmp/oldref && git archive 1929964 runs/reference | tar -x -C /tmp/oldref
timeout 200 build/softmax-evidence run --no-peers --quiet --runs-dir /tmp/def --run-dir-out /tmp/def.path > $OUT/def.log 2>&1; echo def rc=$?
d=$(cat /tmp/def.path)
build/softmax-evidence table $d > $OUT/def-table.txt 2>&1
build/softmax-evidence compare /tmp/oldref/runs/reference $d > $OUT/cmp-1929.txt 2>&1; echo cmp1929 rc=$?
build/softmax-evidence compare runs/experiments/2026-12-03-regression/20261203T080149Z $d > $OUT/cmp-v19.txt 2>&1; echo cmpv19 rc=$?
grep "^summary" $OUT/cmp-1929.txt $OUT/cmp-v19.txt
grep -E "^(4096x4096|1024x32768|1x1|32x4096|2x100003)\.(stream|fusion|megakernel|rowblock) " $OUT/cmp-1929.txt | head -40
OUT=$FINAL pack $d def
M=gpu__time_duration.sum,smsp__inst_executed.sum,smsp__average_warps_issue_stalled_no_instruction_per_issue_active.ratio,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio
for sh in 1x1 32x4096 4096x4096; do for s in fusion megakernel; do
  echo "== $sh $s"; timeout 60 /usr/local/cuda/bin/ncu --metrics $M --kernel-name regex:"se_k_${s}\$" --launch-skip 3 --launch-count 1 build/softmax-evidence run --shapes $sh --strategies $s --no-peers --validate-only --invocations 6 2>&1 | grep -E "^\s+(gpu__|smsp__)" ; done; done > $OUT/ncu.txt 2>&1
cat $OUT/ncu.txt
tar -czf $FINAL/logs.tar.gz -C /tmp logs; ls -la $FINAL
