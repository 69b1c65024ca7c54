# device call L (2026-12-07, fourth session), asked of an H200 (four starts failed; it ran on an H100): the commit carried in
# .carry/head.bundle made HEAD (git_dirty false); LayerNorm's rowblock kernels of
# ln-thread-and-few-rows.patch (HEAD) validated on odd shapes, and if any case fails, HEAD~1
# (without them) built instead; LayerNorm's protocol with the torch peers, verified --strict and
# packed; the sweep (protocol/sweep.json, every strategy and cuDNN, no PyTorch peers) packed;
# in the time left, memcheck and racecheck of LayerNorm's rowblock on odd shapes.
set -o pipefail
for d in .carry/deb/*.deb; do dpkg -x "$d" / ; done; ldconfig 2>/dev/null
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
LIMIT=${LIMIT:-600}; left() { echo $(( LIMIT - $1 - ($(date +%s) - T0) )); } # seconds left, keeping $1 in hand
L=/tmp/logsL; rm -rf $L /tmp/sweep /tmp/sweep.path /tmp/lnp /tmp/lnp.path; mkdir -p $L
git config --global --add safe.directory "$PWD" 2>/dev/null
git fetch -q .carry/head.bundle HEAD 2>&1 | tail -2; git reset -q FETCH_HEAD 2>&1 | tail -2
nvidia-smi --query-gpu=name,uuid,clocks.max.sm --format=csv,noheader | tee $L/gpu.txt
CM="-G Ninja -DCMAKE_BUILD_TYPE=Release -DSE_BUILD_TESTS=OFF -DCMAKE_CUDA_ARCHITECTURES=90"
build() { cmake -S . -B build $CM > $L/cmake.log 2>&1 && ninja -j16 -C build softmax-evidence > $L/build.log 2>&1 || { tail -30 $L/build.log; exit 1; }; }
build; el built
NEW=build/softmax-evidence; SAN=/usr/local/cuda/bin/compute-sanitizer
ODD=1x1,1x2,3x3,256x8,255x5,257x7,100x6,3x17,5x33,7x65,9x129,2x257,1x300,3x513,4x1000,1x1023,2x1025,3x4097,5x8191,2x8193,33x2000,300x31,1000x700,2x100003,263x300,264x300,1x8,256x1,200x3,1x257,3x1024,263x1024
timeout -k 5 40 $NEW run --protocol protocol/layernorm.json --shapes $ODD --validate-only --no-peers --quiet > $L/ln-validate.log 2>&1; rc=$?; el "layernorm validate rc=$rc"; grep -c PASS $L/ln-validate.log; grep -E "FAIL" $L/ln-validate.log | head; tail -1 $L/ln-validate.log
if [ $rc -ne 0 ]; then
  git checkout -q HEAD~1 -- src && git reset -q HEAD~1 && build; el "fell back to $(git rev-parse --short HEAD)"
fi
{ git rev-parse HEAD; git status --porcelain --untracked-files=no -- src cmake CMakeLists.txt protocol bench | head -5; } 2>&1 | tee $L/git.txt
timeout -k 5 120 $NEW run --protocol protocol/layernorm.json --peers-python "$(command -v python3)" --quiet --runs-dir /tmp/lnp --run-dir-out /tmp/lnp.path > $L/lnrun.log 2>&1; el "ln-run rc=$?"; tail -3 $L/lnrun.log
R=$(cat /tmp/lnp.path 2>/dev/null) && [ -n "$R" ] && { timeout 20 $NEW verify --strict "$R" > $L/verify.log 2>&1; el "verify rc=$?"; tail -1 $L/verify.log; tar -c -C "$(dirname $R)" "$(basename $R)" | xz -T0 -6 > /tmp/lnp.tar.xz && split -b 15M -d -a 1 /tmp/lnp.tar.xz $OUT/lnp.tar.xz.; }
tar -czf $OUT/logsL.tar.gz -C /tmp logsL
timeout -k 5 $(left 25) $NEW run --protocol protocol/sweep.json --no-peers --quiet --runs-dir /tmp/sweep --run-dir-out /tmp/sweep.path > $L/sweep.log 2>&1; el "sweep rc=$?"; grep -c PASS $L/sweep.log; grep FAIL $L/sweep.log | head -5; tail -2 $L/sweep.log
S=$(cat /tmp/sweep.path 2>/dev/null) && [ -n "$S" ] && { tar -c -C "$(dirname $S)" "$(basename $S)" | xz -T0 -6 > /tmp/sweep.tar.xz && split -b 15M -d -a 1 /tmp/sweep.tar.xz $OUT/sweep.tar.xz.; el packed; }
tar -czf $OUT/logsL.tar.gz -C /tmp logsL
if [ $(left 5) -gt 30 ]; then
  for t in memcheck racecheck; do timeout -k 3 $(( $(left 5) / 2 )) $SAN --tool $t --print-limit 4 $NEW run --protocol protocol/layernorm.json --shapes 1x1,3x3,256x8,257x7,7x65,2x257,1x300,3x1024,1x1023,2x1025,3x4097,5x8191 --strategies rowblock --no-peers --validate-only --invocations 1 --quiet > $L/ln-$t.log 2>&1; echo "== $t layernorm rc=$?"; grep -m 6 -E "Invalid|at .*se_k|ERROR SUMMARY|RACECHECK SUMMARY" $L/ln-$t.log; done; el sanitizers-ln
  tar -czf $OUT/logsL.tar.gz -C /tmp logsL
fi
el done
