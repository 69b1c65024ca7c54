# device call E (2026-12-07): the tree's commit made HEAD there (a bundle of the commits since
# the session's start, .carry/head.bundle), build; LayerNorm under memcheck shape by shape (the
# first errors of each, for callB's 31 errors); rowblock's lane dispatch validated on odd short
# rows, memcheck and racecheck; LayerNorm's protocol run with the torch peers, packed.
set -o pipefail
for d in .carry/deb/*.deb; do dpkg -x "$d" / ; done; ldconfig 2>/dev/null
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
L=/tmp/logsE; rm -rf $L /tmp/lnp /tmp/lnp.path; mkdir -p $L
git config --global --add safe.directory "$PWD" 2>/dev/null
git fetch -q .carry/head.bundle HEAD 2>&1 | tail -2; git reset -q FETCH_HEAD 2>&1 | tail -2
{ git rev-parse HEAD; git status --porcelain --untracked-files=no -- src cmake CMakeLists.txt protocol bench | head -5; } 2>&1 | tee $L/git.txt
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $L/gpu.txt
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DSE_BUILD_TESTS=OFF -DCMAKE_CUDA_ARCHITECTURES=90 > $L/cmake.log 2>&1 && ninja -j16 -C build softmax-evidence > $L/build.log 2>&1 || { tail -30 $L/build.log; exit 1; }
el built
B=build/softmax-evidence; S=/usr/local/cuda/bin/compute-sanitizer
for sh in 1x1 5x37 1000x101 3x4097 7x100003; do
  timeout -k 5 40 $S --tool memcheck --print-limit 4 $B run --protocol protocol/layernorm.json --shapes $sh --validate-only --invocations 1 --quiet > $L/mc-$sh.log 2>&1; echo "== memcheck layernorm $sh rc=$?"; grep -m 14 -E "Invalid|Program hit|at .*se_k|by thread|Address|ERROR SUMMARY|Out of range|misaligned|Barrier|cluster" $L/mc-$sh.log
done; el ln-memcheck
O=3000x37,400000x7,1000x101,5001x3,333x13,777x50,100000x63,2x37,40000x6,70001x13,65536x128,32768x256,300x33
timeout -k 5 40 $B run --shapes $O --strategies rowblock --no-peers --no-blocking-kernel --validate-only --quiet > $L/validate-odd.log 2>&1; el validate rc=$?; grep -E "FAIL|passed" $L/validate-odd.log | tail -4
timeout -k 5 60 $S --tool memcheck --print-limit 5 $B run --shapes 3000x37,400000x7,777x50,100001x63,70001x13,65536x128 --strategies rowblock --no-peers --no-blocking-kernel --validate-only --invocations 1 --quiet > $L/san-mc.log 2>&1; el memcheck-rowblock rc=$?; grep -E "ERROR SUMMARY" $L/san-mc.log | tail -1
timeout -k 5 60 $S --tool racecheck --print-limit 5 $B run --shapes 3000x37,777x50,100001x63,70001x13 --strategies rowblock --no-peers --no-blocking-kernel --validate-only --invocations 1 --quiet > $L/san-rc.log 2>&1; el racecheck-rowblock rc=$?; grep -E "RACECHECK SUMMARY" $L/san-rc.log | tail -1
left=$(( 520 - ($(date +%s) - T0) ))
timeout -k 5 $left $B run --protocol protocol/layernorm.json --peers-python "$(command -v python3)" --quiet --runs-dir /tmp/lnp --run-dir-out /tmp/lnp.path > $L/run.log 2>&1; el ln-run rc=$?; tail -4 $L/run.log
R=$(cat /tmp/lnp.path 2>/dev/null) && [ -n "$R" ] && { timeout 40 $B verify --strict "$R" > $L/verify.log 2>&1; el verify rc=$?; tail -2 $L/verify.log; tar -cJf /tmp/lnp.tar.xz -C "$(dirname $R)" "$(basename $R)" && split -b 15M -d -a 1 /tmp/lnp.tar.xz $OUT/lnp.tar.xz.; }
tar -czf $OUT/logsE.tar.gz -C /tmp logsE; el done
