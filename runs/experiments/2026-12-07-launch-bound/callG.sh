# device call G (2026-12-07, third session): the launch-bound rows of rowblock (softmax: the
# short butterfly over a block's warps; LayerNorm: a compile-time count of values a lane, the
# host's 1/cols and float64 rsqrt), the working tree against HEAD (the session's start, built
# from a worktree), rowblock alone, default protocol's samples; then the new kernels
# validated on odd shapes and under memcheck and racecheck.
set -o pipefail
for d in .carry/deb/*.deb; do dpkg -x "$d" / ; done; ldconfig 2>/dev/null
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
L=/tmp/logsG; rm -rf $L /tmp/rg; mkdir -p $L /tmp/rg
git config --global --add safe.directory "$PWD" 2>/dev/null
{ git rev-parse HEAD; git status --porcelain --untracked-files=no -- src | head -8; } 2>&1 | tee $L/git.txt
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $L/gpu.txt
git worktree add -f --detach /tmp/old HEAD > /dev/null 2>&1
CM="-G Ninja -DCMAKE_BUILD_TYPE=Release -DSE_BUILD_TESTS=OFF -DCMAKE_CUDA_ARCHITECTURES=90"
( cmake -S /tmp/old -B /tmp/old/build $CM > $L/cmake-old.log 2>&1 && ninja -j8 -C /tmp/old/build softmax-evidence > $L/build-old.log 2>&1 ) &
cmake -S . -B build $CM > $L/cmake.log 2>&1 && ninja -j8 -C build softmax-evidence > $L/build.log 2>&1 || { tail -30 $L/build.log; exit 1; }
wait; [ -x /tmp/old/build/softmax-evidence ] || { tail -20 $L/build-old.log; exit 1; }
el built
NEW=build/softmax-evidence; OLD=/tmp/old/build/softmax-evidence
tab() { jq -r '.cases as $c | [$c[] | select(.what=="copy") | {key: .shape, value: .scopes.device.median_ns}] | from_entries as $cp | $c[] | select(.what=="rowblock") | "\(.shape)\t\(.scopes.device.median_ns/1000|.*100|round/100) us\tcopy \($cp[.shape]/1000|.*100|round/100)\t+\((.scopes.device.median_ns-$cp[.shape])/1000|.*100|round/100) us\t\(.scopes.device.fraction_of_copy|.*1000|round/1000)"' "$1/summary.json"; }
SM=1x1,1x7,1x100,1x1024,1x4096,1x32768,8x1,8x37,8x1024,8x4096,8x8192,3x4097,2x1000,5x2500
LN=1x1,1x7,1x100,1x1024,8x1024,1x4096,3x4097,8x8192,32x4096,1x32768,4096x4096,2048x1000
i=0
for b in OLD NEW OLD NEW; do i=$((i+1)); eval B=\$$b
  timeout -k 5 60 $B run --shapes $SM --strategies rowblock --no-peers --quiet --runs-dir /tmp/rg/sm$i --run-dir-out /tmp/rg/sm$i.path > $L/sm$i.log 2>&1; el "softmax $b rc=$?"
  tab "$(cat /tmp/rg/sm$i.path)" | tee $L/sm$i-$b.txt
done
for b in OLD NEW; do i=$((i+1)); eval B=\$$b
  timeout -k 5 60 $B run --protocol protocol/layernorm.json --shapes $LN --strategies rowblock --no-peers --quiet --runs-dir /tmp/rg/ln$i --run-dir-out /tmp/rg/ln$i.path > $L/ln$i.log 2>&1; el "layernorm $b rc=$?"
  grep -E "FAIL|fail" $L/ln$i.log | head -3; tab "$(cat /tmp/rg/ln$i.path)" | tee $L/ln$i-$b.txt
done
ODD=1x1,3x17,5x33,7x65,9x129,2x257,3x513,4x1000,1x1023,2x1025,3x4097,5x8191,2x8193,33x2000,300x31,1000x700,2x100003
timeout -k 5 60 $NEW run --protocol protocol/layernorm.json --shapes $ODD --validate-only --no-peers --quiet > $L/ln-validate.log 2>&1; el "layernorm validate rc=$?"; tail -2 $L/ln-validate.log
timeout -k 5 60 $NEW run --shapes 3x4097,2x1000,5x2500,1x700,7x3001,1x8192,4x1024,6x6000 --validate-only --no-peers --quiet > $L/sm-validate.log 2>&1; el "softmax validate rc=$?"; tail -2 $L/sm-validate.log
S=/usr/local/cuda/bin/compute-sanitizer
for t in memcheck racecheck; do timeout -k 5 70 $S --tool $t --print-limit 4 $NEW run --protocol protocol/layernorm.json --shapes 1x1,3x17,7x65,2x257,1x1023,2x1025,3x4097,5x8191,2x8193 --strategies rowblock --no-peers --validate-only --invocations 1 --quiet > $L/ln-$t.log 2>&1; echo "== $t layernorm rc=$?"; grep -m 6 -E "Invalid|at .*se_k|ERROR SUMMARY|RACECHECK SUMMARY" $L/ln-$t.log; done; el sanitizers-ln
for t in memcheck racecheck; do timeout -k 5 50 $S --tool $t --print-limit 4 $NEW run --shapes 3x4097,2x1000,1x700,5x2500 --strategies rowblock --no-peers --no-blocking-kernel --validate-only --invocations 1 --quiet > $L/sm-$t.log 2>&1; echo "== $t rowblock rc=$?"; grep -m 6 -E "Invalid|at .*se_k|ERROR SUMMARY|RACECHECK SUMMARY" $L/sm-$t.log; done; el sanitizers-sm
tar -czf $OUT/logsG.tar.gz -C /tmp logsG; el done
