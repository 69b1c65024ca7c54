set -o pipefail
source .carry/pre.sh
FINAL=$OUT; mkdir -p /tmp/logs; OUT=/tmp/logs
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
git status --short | head -5; git log --oneline -1
cp .pp/* /tmp/peerparts/ && ls /tmp/peerparts
scripts/offline-peers.sh install /tmp/peerparts /tmp/peers-site > $OUT/peers-install.log 2>&1; el install rc=$?
export PYTHONPATH=/tmp/peers-site:/tmp/peers-site/nvidia_cutlass_dsl/dsl_packages
git worktree add -q /tmp/old 1929964 >/dev/null 2>&1
(cmake -S /tmp/old -B /tmp/old/build -G Ninja -DCMAKE_BUILD_TYPE=Release > /dev/null && ninja -j6 -C /tmp/old/build softmax-evidence > $OUT/build-old.log 2>&1; echo old build rc=$?) &
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release > /dev/null && ninja -j12 -C build softmax-evidence > $OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
el built
timeout 300 build/softmax-evidence run --quiet --runs-dir /tmp/ref --run-dir-out /tmp/ref.path > $OUT/ref.log 2>&1; el ref rc=$?
R=$(cat /tmp/ref.path); tail -3 $OUT/ref.log; grep -h '"status"' $R/peers.json | head -3
timeout 150 build/softmax-evidence profile $R > $OUT/profile.log 2>&1; el profile rc=$?; tail -2 $OUT/profile.log
build/softmax-evidence verify --strict $R 2>&1 | tail -1
wait
timeout 110 /tmp/old/build/softmax-evidence run --no-peers --quiet --runs-dir /tmp/olddef --run-dir-out /tmp/old.path > $OUT/olddef.log 2>&1; el olddef rc=$?
O=$(cat /tmp/old.path)
build/softmax-evidence compare $O $R > $OUT/cmp-same-machine-1929964-vs-ref.txt 2>&1; el cmp rc=$?
grep "^summary" $OUT/cmp-same-machine-1929964-vs-ref.txt
grep -E "^(4096x4096|1024x32768|1x1|32x4096|2x100003)\.(stream|fusion|megakernel|rowblock) " $OUT/cmp-same-machine-1929964-vs-ref.txt
mkdir -p /tmp/oldref && git archive 1929964 runs/reference | tar -x -C /tmp/oldref
build/softmax-evidence compare /tmp/oldref/runs/reference $R > $OUT/cmp-1929964-ref-vs-ref.txt 2>&1
build/softmax-evidence compare runs/reference $R > $OUT/cmp-932c83b-ref-vs-ref.txt 2>&1
grep "^summary" $OUT/cmp-1929964-ref-vs-ref.txt $OUT/cmp-932c83b-ref-vs-ref.txt
left=$(( 560 - ($(date +%s) - T0) )); el left $left
if [ $left -gt 100 ]; then
  timeout $((left - 25)) build/softmax-evidence run --no-peers --quiet --runs-dir /tmp/rep --run-dir-out /tmp/rep.path > $OUT/rep.log 2>&1; el rep rc=$?
  P=$(cat /tmp/rep.path); SE_BIN=build/softmax-evidence scripts/select-bundle.sh $P /tmp/arch > $OUT/rep-select.log 2>&1; el select rc=$?
  OUT=$FINAL pack $P rep
fi
tar -czf /tmp/logs/olddef-summary.tar.gz -C $O summary.json run.json environment.json
OUT=$FINAL pack $R ref
tar -czf $FINAL/logs.tar.gz -C /tmp logs; ls -la $FINAL; el done
