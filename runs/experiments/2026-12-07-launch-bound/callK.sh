# device call K (written 2026-12-07, third session; not run: no machine could be started):
# the commit carried in .carry/head.bundle made HEAD (git_dirty false; commit
# ln-thread-and-few-rows.patch first, so that the run records that commit); LayerNorm's
# rowblock kernels validated on odd shapes and under memcheck and racecheck; LayerNorm's
# protocol with the torch peers, verified --strict and packed for runs/layernorm; in the time
# left, LayerNorm's rowblock against the session's start (4968640, from a worktree).
set -o pipefail
for d in .carry/deb/*.deb; do dpkg -x "$d" / ; done; ldconfig 2>/dev/null
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
LIMIT=${LIMIT:-600}; left() { echo $(( LIMIT - $1 - ($(date +%s) - T0) )); } # seconds left, keeping $1 in hand
L=/tmp/logsK; rm -rf $L /tmp/rh /tmp/lnp /tmp/lnp.path; mkdir -p $L /tmp/rh
git config --global --add safe.directory "$PWD" 2>/dev/null
git fetch -q .carry/head.bundle HEAD 2>&1 | tail -2; git reset -q FETCH_HEAD 2>&1 | tail -2
{ git rev-parse HEAD; git status --porcelain --untracked-files=no -- src cmake CMakeLists.txt protocol bench | head -5; } 2>&1 | tee $L/git.txt
nvidia-smi --query-gpu=name,uuid,clocks.max.sm --format=csv,noheader | tee $L/gpu.txt
CM="-G Ninja -DCMAKE_BUILD_TYPE=Release -DSE_BUILD_TESTS=OFF -DCMAKE_CUDA_ARCHITECTURES=90"
cmake -S . -B build $CM > $L/cmake.log 2>&1 && ninja -j16 -C build softmax-evidence > $L/build.log 2>&1 || { tail -30 $L/build.log; exit 1; }
el built
NEW=build/softmax-evidence; SAN=/usr/local/cuda/bin/compute-sanitizer
ODD=1x1,1x2,3x3,256x8,255x5,257x7,100x6,3x17,5x33,7x65,9x129,2x257,1x300,3x513,4x1000,1x1023,2x1025,3x4097,5x8191,2x8193,33x2000,300x31,1000x700,2x100003,263x300,264x300
timeout -k 5 30 $NEW run --protocol protocol/layernorm.json --shapes $ODD --validate-only --no-peers --quiet > $L/ln-validate.log 2>&1; el "layernorm validate rc=$?"; grep -c PASS $L/ln-validate.log; grep -E "FAIL" $L/ln-validate.log | head; tail -1 $L/ln-validate.log
for t in memcheck racecheck; do timeout -k 5 25 $SAN --tool $t --print-limit 4 $NEW run --protocol protocol/layernorm.json --shapes 1x1,3x3,256x8,257x7,7x65,2x257,1x300,1x1023,2x1025,3x4097,5x8191 --strategies rowblock --no-peers --validate-only --invocations 1 --quiet > $L/ln-$t.log 2>&1; echo "== $t layernorm rc=$?"; grep -m 6 -E "Invalid|at .*se_k|ERROR SUMMARY|RACECHECK SUMMARY" $L/ln-$t.log; done; el sanitizers-ln
timeout -k 5 $(left 25) $NEW run --protocol protocol/layernorm.json --peers-python "$(command -v python3)" --quiet --runs-dir /tmp/lnp --run-dir-out /tmp/lnp.path > $L/lnrun.log 2>&1; el "ln-run rc=$?"; tail -3 $L/lnrun.log
R=$(cat /tmp/lnp.path 2>/dev/null) && [ -n "$R" ] && { timeout 20 $NEW verify --strict "$R" > $L/verify.log 2>&1; el "verify rc=$?"; tail -1 $L/verify.log; tar -c -C "$(dirname $R)" "$(basename $R)" | xz -T0 -6 > /tmp/lnp.tar.xz && split -b 15M -d -a 1 /tmp/lnp.tar.xz $OUT/lnp.tar.xz.; el packed; }
tar -czf $OUT/logsK.tar.gz -C /tmp logsK
tab() { jq -r '.cases as $c | [$c[] | select(.what=="copy") | {key: .shape, value: .scopes.device.median_ns}] | from_entries as $cp | $c[] | select(.what=="rowblock") | "\(.shape)\t\(.scopes.device.median_ns/1000|.*100|round/100) us\tcopy \($cp[.shape]/1000|.*100|round/100)\t+\((.scopes.device.median_ns-$cp[.shape])/1000|.*100|round/100) us\t\(.scopes.device.fraction_of_copy|.*1000|round/1000)"' "$1/summary.json"; }
if [ $(left 10) -gt 50 ]; then
  ( git worktree add -f --detach /tmp/old 4968640 > /dev/null 2>&1; cmake -S /tmp/old -B /tmp/old/build $CM > $L/cmake-old.log 2>&1 && ninja -j16 -C /tmp/old/build softmax-evidence > $L/build-old.log 2>&1 ); el "old built rc=$?"
  OLD=/tmp/old/build/softmax-evidence; LN=1x1,1x7,8x1,64x8,1x100,1x300,1x1024,8x1024,1x4096,3x4097,8x8192,32x4096,1x32768,4096x4096,2048x1000,65536x64
  i=0; for b in OLD NEW OLD NEW; do i=$((i+1)); eval B=\$$b; [ $(left 8) -gt 10 ] || break
    timeout -k 2 $(left 6) $B run --protocol protocol/layernorm.json --shapes $LN --strategies rowblock --no-peers --quiet --runs-dir /tmp/rh/ln$i --run-dir-out /tmp/rh/ln$i.path > $L/ln$i.log 2>&1; el "layernorm $b rc=$?"
    tab "$(cat /tmp/rh/ln$i.path)" | tee $L/ln$i-$b.txt; done
  tar -czf $OUT/logsK.tar.gz -C /tmp logsK
fi
el done
