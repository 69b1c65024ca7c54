set -o pipefail
source .carry/pre.sh
FINAL=$OUT; mkdir -p /tmp/logs; OUT=/tmp/logs
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
git status --short | head -5; git log --oneline -1 | cut -c1-70; nvidia-smi --query-gpu=uuid,clocks.sm,temperature.gpu --format=csv,noheader
mkdir -p /tmp/peerparts; cp .pp/* /tmp/peerparts/ && ls /tmp/peerparts | tr '\n' ' '
scripts/offline-peers.sh install /tmp/peerparts /tmp/peers-site > $OUT/peers-install.log 2>&1; el install rc=$?; tail -2 $OUT/peers-install.log
export PYTHONPATH=/tmp/peers-site:/tmp/peers-site/nvidia_cutlass_dsl/dsl_packages
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release > /dev/null && ninja -j14 -C build softmax-evidence > $OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
el built
timeout -k 5 $(( 580 - ($(date +%s) - T0) )) build/softmax-evidence run --quiet --runs-dir /tmp/ref --run-dir-out /tmp/ref.path > $OUT/ref.log 2>&1; el ref rc=$?
R=$(cat /tmp/ref.path); tail -3 $OUT/ref.log; grep -h '"status"' $R/peers.json | sort | uniq -c | head -5
OUT=$FINAL pack $R ref
tar -czf $FINAL/logs.tar.gz -C /tmp logs; ls -la $FINAL; el done
