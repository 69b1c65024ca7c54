set -o pipefail
source .carry/pre.sh
FINAL=$OUT; mkdir -p /tmp/logs; OUT=/tmp/logs
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release > /dev/null && ninja -C build softmax-evidence > $OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
git log --oneline -1
mkdir -p /tmp/oldref && git archive 1929964 runs/reference | tar -x -C /tmp/oldref
timeout 150 build/softmax-evidence run --shapes 1x524288,1x393216,1x786432,1x1048576,3x1000004,2x100003,1x100003 --strategies rowblock --no-peers --quiet --runs-dir /tmp/rb --run-dir-out /tmp/rb.path > $OUT/rb.log 2>&1; echo rb rc=$?
build/softmax-evidence table $(cat /tmp/rb.path) > $OUT/rb-table.txt 2>&1; grep -E " (rowblock|copy) " $OUT/rb-table.txt | head -20
timeout 300 build/softmax-evidence run --no-peers --quiet --runs-dir /tmp/def --run-dir-out /tmp/def.path > $OUT/def.log 2>&1; echo def rc=$?
d=$(cat /tmp/def.path)
build/softmax-evidence table $d > $OUT/def-table.txt 2>&1
build/softmax-evidence compare runs/reference $d > $OUT/cmp-932c.txt 2>&1; echo cmp932 rc=$?
build/softmax-evidence compare /tmp/oldref/runs/reference $d > $OUT/cmp-1929.txt 2>&1; echo cmp1929 rc=$?
grep "^summary" -A5 $OUT/cmp-932c.txt $OUT/cmp-1929.txt
grep -E "^(4096x4096|1024x32768|2x100003)\.(stream|fusion|megakernel|rowblock)" $OUT/cmp-1929.txt
OUT=$FINAL pack $d def
for t in memcheck racecheck; do timeout 100 /usr/local/cuda/bin/compute-sanitizer --tool $t --print-limit 5 build/softmax-evidence run --shapes 3x4097,2x4099,1x8191 --strategies stream,fusion,megakernel --no-peers --no-blocking-kernel --validate-only --quiet > $OUT/san-$t.log 2>&1; echo $t rc=$?; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|passed" $OUT/san-$t.log | tail -3; done
tar -czf $FINAL/logs.tar.gz -C /tmp logs; ls -la $FINAL
