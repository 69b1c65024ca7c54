# device call Q (2026-12-07, fifth session), on the H200 call P left warm: the commit carried in
# .carry/head.bundle made HEAD (git_dirty false); the peers' parts (call P carried .carry/pa into
# /tmp/pp, this call carries .carry/pb) installed (scripts/offline-peers.sh); the default protocol
# with every peer (the new runs/reference), verified --strict and packed; in the time left,
# `profile` of it (Nsight Compute over every kernel), verified --strict and packed again.
set -o pipefail
for d in .carry/deb/*.deb; do dpkg -x "$d" / ; done; ldconfig 2>/dev/null
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
LIMIT=${LIMIT:-600}; left() { echo $(( LIMIT - $1 - ($(date +%s) - T0) )); }
L=/tmp/logsQ; rm -rf $L /tmp/ref /tmp/ref.path; mkdir -p $L /tmp/pp
git config --global --add safe.directory "$PWD" 2>/dev/null
git fetch -q .carry/head.bundle HEAD 2>&1 | tail -2; git reset -q FETCH_HEAD 2>&1 | tail -2
{ git rev-parse HEAD; git status --porcelain --untracked-files=no -- src cmake CMakeLists.txt protocol bench | head -5; } 2>&1 | tee $L/git.txt
nvidia-smi --query-gpu=name,uuid,clocks.max.sm --format=csv,noheader | tee $L/gpu.txt
cp .carry/pb/* /tmp/pp/ && ls /tmp/pp | tr '\n' ' '; echo
scripts/offline-peers.sh install /tmp/pp /tmp/peers-site > $L/peers-install.log 2>&1; rc=$?; el "peers install rc=$rc"; tail -2 $L/peers-install.log
[ $rc -eq 0 ] || { tar -czf $OUT/logsQ.tar.gz -C /tmp logsQ; exit 3; }
export PYTHONPATH=/tmp/peers-site:/tmp/peers-site/nvidia_cutlass_dsl/dsl_packages
CM="-G Ninja -DCMAKE_BUILD_TYPE=Release -DSE_BUILD_TESTS=OFF -DCMAKE_CUDA_ARCHITECTURES=90"
cmake -S . -B build $CM > $L/cmake.log 2>&1 && ninja -j16 -C build softmax-evidence > $L/build.log 2>&1 || { tail -30 $L/build.log; exit 1; }
el built; NEW=build/softmax-evidence
timeout -k 5 $(left 40) $NEW run --peers-python "$(command -v python3)" --quiet --runs-dir /tmp/ref --run-dir-out /tmp/ref.path > $L/ref.log 2>&1; el "ref rc=$?"; tail -3 $L/ref.log
pack() { timeout 30 $NEW verify --strict "$R" > $L/ref-verify.log 2>&1; el "verify rc=$?"; tail -1 $L/ref-verify.log; rm -f $OUT/ref.tar.xz.*; tar -c -C "$(dirname $R)" "$(basename $R)" | xz -T0 -6 > /tmp/ref.tar.xz && split -b 15M -d -a 1 /tmp/ref.tar.xz $OUT/ref.tar.xz.; el packed; }
R=$(cat /tmp/ref.path 2>/dev/null) && [ -n "$R" ] && { grep -h '"status"' $R/peers.json | sort | uniq -c | head -5; pack; }
tar -czf $OUT/logsQ.tar.gz -C /tmp logsQ
if [ -n "$R" ] && [ $(left 40) -gt 130 ]; then
  timeout -k 5 $(left 40) $NEW profile "$R" --quiet > $L/profile.log 2>&1; el "profile rc=$?"; tail -3 $L/profile.log
  [ -d "$R/profile" ] && pack
  tar -czf $OUT/logsQ.tar.gz -C /tmp logsQ
fi
el done
