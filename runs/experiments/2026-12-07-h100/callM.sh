# device call M (2026-12-07, fourth session), on the H100 call L left warm: the peers' parts
# (call L carried .carry/pa into /tmp/pp, this call carries .carry/pb) installed
# (scripts/offline-peers.sh); the default protocol with every peer (the new runs/reference),
# verified --strict and packed; LayerNorm's protocol with every peer (Liger's LayerNorm with the
# torch ones), verified --strict and packed; in the time left, `profile` of the reference run.
set -o pipefail
for d in .carry/deb/*.deb; do dpkg -x "$d" / ; done; ldconfig 2>/dev/null
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
LIMIT=${LIMIT:-600}; left() { echo $(( LIMIT - $1 - ($(date +%s) - T0) )); }
L=/tmp/logsM; rm -rf $L /tmp/ref /tmp/ref.path /tmp/lna /tmp/lna.path; mkdir -p $L /tmp/pp
git config --global --add safe.directory "$PWD" 2>/dev/null
git fetch -q .carry/head.bundle HEAD 2>&1 | tail -2; git reset -q FETCH_HEAD 2>&1 | tail -2
{ git rev-parse HEAD; git status --porcelain --untracked-files=no -- src cmake CMakeLists.txt protocol bench | head -5; } 2>&1 | tee $L/git.txt
nvidia-smi --query-gpu=name,uuid,clocks.max.sm --format=csv,noheader | tee $L/gpu.txt
cp .carry/pb/* /tmp/pp/ && ls /tmp/pp | tr '\n' ' '; echo
scripts/offline-peers.sh install /tmp/pp /tmp/peers-site > $L/peers-install.log 2>&1; rc=$?; el "peers install rc=$rc"; tail -2 $L/peers-install.log
[ $rc -eq 0 ] || { tar -czf $OUT/logsM.tar.gz -C /tmp logsM; exit 3; }
export PYTHONPATH=/tmp/peers-site:/tmp/peers-site/nvidia_cutlass_dsl/dsl_packages
CM="-G Ninja -DCMAKE_BUILD_TYPE=Release -DSE_BUILD_TESTS=OFF -DCMAKE_CUDA_ARCHITECTURES=90"
cmake -S . -B build $CM > $L/cmake.log 2>&1 && ninja -j16 -C build softmax-evidence > $L/build.log 2>&1 || { tail -30 $L/build.log; exit 1; }
el built; NEW=build/softmax-evidence
timeout -k 5 $(left 110) $NEW run --peers-python "$(command -v python3)" --quiet --runs-dir /tmp/ref --run-dir-out /tmp/ref.path > $L/ref.log 2>&1; el "ref rc=$?"; tail -3 $L/ref.log
R=$(cat /tmp/ref.path 2>/dev/null) && [ -n "$R" ] && { grep -h '"status"' $R/peers.json | sort | uniq -c | head -5; timeout 30 $NEW verify --strict "$R" > $L/ref-verify.log 2>&1; el "verify rc=$?"; tail -1 $L/ref-verify.log; tar -c -C "$(dirname $R)" "$(basename $R)" | xz -T0 -6 > /tmp/ref.tar.xz && split -b 15M -d -a 1 /tmp/ref.tar.xz $OUT/ref.tar.xz.; el packed; }
tar -czf $OUT/logsM.tar.gz -C /tmp logsM
if [ $(left 10) -gt 95 ]; then
  timeout -k 5 $(left 15) $NEW run --protocol protocol/layernorm.json --peers-python "$(command -v python3)" --quiet --runs-dir /tmp/lna --run-dir-out /tmp/lna.path > $L/lnrun.log 2>&1; el "ln-run rc=$?"; tail -3 $L/lnrun.log
  A=$(cat /tmp/lna.path 2>/dev/null) && [ -n "$A" ] && { timeout 15 $NEW verify --strict "$A" > $L/ln-verify.log 2>&1; el "verify rc=$?"; tail -1 $L/ln-verify.log; tar -c -C "$(dirname $A)" "$(basename $A)" | xz -T0 -6 > /tmp/lna.tar.xz && split -b 15M -d -a 1 /tmp/lna.tar.xz $OUT/lna.tar.xz.; }
  tar -czf $OUT/logsM.tar.gz -C /tmp logsM
fi
el done
