set -o pipefail
source .carry/pre.sh
FINAL=$OUT; mkdir -p /tmp/logs; OUT=/tmp/logs
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
git status --short | head -5; git log --oneline -1 | cut -c1-70; nvidia-smi --query-gpu=uuid,clocks.sm,temperature.gpu --format=csv,noheader
git worktree add -q /tmp/old se-head~1 >/dev/null 2>&1; git worktree add -q /tmp/v1 se-head >/dev/null 2>&1; git worktree add -q /tmp/v3 se-head >/dev/null 2>&1
sed -i 's/^#define SE_RB_SPAN_BLOCKS_SM 3$/#define SE_RB_SPAN_BLOCKS_SM 1/' /tmp/v1/src/gpu/rowblock_rows.cu; sed -i 's/^#define SE_RB_SPAN_MIN_BLOCKS 2$/#define SE_RB_SPAN_MIN_BLOCKS 3/' /tmp/v3/src/gpu/rowblock_rows.cu
(cd /tmp/v1 && git diff --stat | tail -1); (cd /tmp/v3 && git diff --stat | tail -1)
for d in /tmp/old /tmp/v1 /tmp/v3; do (cmake -S $d -B $d/build -G Ninja -DCMAKE_BUILD_TYPE=Release > /dev/null && ninja -j4 -C $d/build softmax-evidence > $OUT/build-$(basename $d).log 2>&1; echo $d rc=$?) & done
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release > /dev/null && ninja -j5 -C build softmax-evidence > $OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
wait; el built
timeout -k 5 330 build/softmax-evidence run --protocol protocol/sweep.json --no-peers --quiet --runs-dir /tmp/sweep --run-dir-out /tmp/sweep.path > $OUT/sweep.log 2>&1; el sweep rc=$?; tail -3 $OUT/sweep.log
S=$(cat /tmp/sweep.path); OUT=$FINAL pack $S sweep; el packed
SH=226719x37,1198372x7,1813753x37,9586980x7,100000x37,65536x63,262144x5,3000x37,60000x37,400000x7,1000x101,300x511,83886x100
for b in build /tmp/v1/build /tmp/v3/build /tmp/old/build; do n=$(echo $b | tr / _)
  left=$(( 540 - ($(date +%s) - T0) )); [ $left -lt 30 ] && { el skip $b; continue; }
  timeout -k 5 60 $b/softmax-evidence run --shapes $SH --strategies rowblock --no-peers --quiet --runs-dir /tmp/r$n --run-dir-out /tmp/r$n.path > $OUT/run$n.log 2>&1; el $b rc=$?
  $b/softmax-evidence table $(cat /tmp/r$n.path) > $OUT/table$n.txt 2>&1; done
for f in $OUT/table*.txt; do echo "== $f"; grep -iE "rowblock|copy" $f | head -40; done
for t in memcheck racecheck; do
  left=$(( 570 - ($(date +%s) - T0) )); [ $left -lt 20 ] && { el skip $t; continue; }
  timeout -k 5 $((left/2 < 90 ? left/2 : 90)) /usr/local/cuda/bin/compute-sanitizer --tool $t --print-limit 5 build/softmax-evidence run --shapes 3000x37,60000x37,400000x7,1000x101,300x511,2000x5,5001x3 --strategies rowblock --no-peers --no-blocking-kernel --validate-only --quiet > $OUT/san-$t.log 2>&1; el $t rc=$?; grep -E "ERROR SUMMARY|RACECHECK SUMMARY" $OUT/san-$t.log | tail -3; done
tar -czf $FINAL/runs.tar.gz -C /tmp $(cd /tmp && ls -d r_*build) --exclude=traces
tar -czf $FINAL/logs.tar.gz -C /tmp logs; ls -la $FINAL; el done
