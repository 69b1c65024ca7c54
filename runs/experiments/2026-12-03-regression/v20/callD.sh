set -o pipefail
source .carry/pre.sh
FINAL=$OUT; mkdir -p /tmp/logs; OUT=/tmp/logs
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
git status --short | head -3; git log --oneline -1 | cut -c1-60; nvidia-smi --query-gpu=uuid,clocks.sm,temperature.gpu --format=csv,noheader
git worktree add -q /tmp/old 1929964 >/dev/null 2>&1
(cmake -S /tmp/old -B /tmp/old/build -G Ninja -DCMAKE_BUILD_TYPE=Release > /dev/null && ninja -j6 -C /tmp/old/build softmax-evidence > $OUT/build-old.log 2>&1; echo old build rc=$?) &
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release > /dev/null && ninja -j12 -C build softmax-evidence > $OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
wait; el built
timeout -k 5 140 build/softmax-evidence run --no-peers --quiet --runs-dir /tmp/new --run-dir-out /tmp/new.path > $OUT/new.log 2>&1; el new rc=$?
timeout -k 5 140 /tmp/old/build/softmax-evidence run --no-peers --quiet --runs-dir /tmp/olddef --run-dir-out /tmp/old.path > $OUT/olddef.log 2>&1; el olddef rc=$?
N=$(cat /tmp/new.path); O=$(cat /tmp/old.path)
build/softmax-evidence compare $O $N > $OUT/cmp-same-machine.txt 2>&1; el cmp rc=$?
grep "^summary" $OUT/cmp-same-machine.txt
grep -E "^(4096x4096|1024x32768|1x1|32x4096|2x100003)\.(stream|fusion|megakernel|rowblock) " $OUT/cmp-same-machine.txt
left=$(( 235 - ($(date +%s) - T0) )); el left $left
[ $left -gt 40 ] && { timeout -k 5 $((left - 20)) build/softmax-evidence profile $N > $OUT/profile.log 2>&1; el profile rc=$?; tail -n 2 $OUT/profile.log; }
tar -czf /tmp/logs/olddef.tar.gz -C $(dirname $O) $(basename $O) --exclude=traces --exclude=checks
OUT=$FINAL pack $N new
tar -czf $FINAL/logs.tar.gz -C /tmp logs; ls -la $FINAL; el done
