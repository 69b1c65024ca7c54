# device call F (2026-12-07): callE's fixes checked (LayerNorm's one-CTA rows exchange without
# st.async; the lane kernel's last chunk of x by plain loads): the commit made HEAD there; build;
# memcheck and racecheck of LayerNorm and of rowblock's short rows; rowblock validated on the
# default protocol; the probe again; LayerNorm's protocol run with the torch peers, packed.
set -o pipefail
for d in .carry/deb/*.deb; do dpkg -x "$d" / ; done; ldconfig 2>/dev/null
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
L=/tmp/logsF; rm -rf $L /tmp/lnp /tmp/lnp.path; mkdir -p $L
git config --global --add safe.directory "$PWD" 2>/dev/null
git fetch -q .carry/head.bundle HEAD 2>&1 | tail -2; git reset -q FETCH_HEAD 2>&1 | tail -2
{ git rev-parse HEAD; git status --porcelain --untracked-files=no -- src cmake CMakeLists.txt protocol bench | head -5; } 2>&1 | tee $L/git.txt
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $L/gpu.txt
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DSE_BUILD_TESTS=OFF -DCMAKE_CUDA_ARCHITECTURES=90 > $L/cmake.log 2>&1 && ninja -j16 -C build softmax-evidence se_rows_probe > $L/build.log 2>&1 || { tail -30 $L/build.log; exit 1; }
el built
B=build/softmax-evidence; S=/usr/local/cuda/bin/compute-sanitizer
LN=3x4097,7x100003,4x40000,2x262144,33x2000,1x1
for t in memcheck racecheck; do timeout -k 5 60 $S --tool $t --print-limit 4 $B run --protocol protocol/layernorm.json --shapes $LN --validate-only --invocations 1 --quiet > $L/ln-$t.log 2>&1; echo "== $t layernorm rc=$?"; grep -m 8 -E "Invalid|at .*se_k|needs|passed|ERROR SUMMARY|RACECHECK SUMMARY" $L/ln-$t.log; done; el ln-sanitizers
SR=3000x37,400000x7,777x50,100001x63,70001x13,65536x128,32768x256,5001x3
for t in memcheck racecheck; do timeout -k 5 60 $S --tool $t --print-limit 4 $B run --shapes $SR --strategies rowblock --no-peers --no-blocking-kernel --validate-only --invocations 1 --quiet > $L/sm-$t.log 2>&1; echo "== $t rowblock rc=$?"; grep -m 8 -E "Invalid|at .*se_k|passed|ERROR SUMMARY|RACECHECK SUMMARY" $L/sm-$t.log; done; el sm-sanitizers
timeout -k 5 40 $B run --strategies rowblock --no-peers --no-blocking-kernel --validate-only --quiet > $L/validate-default.log 2>&1; el validate-default rc=$?; grep -E "FAIL|passed" $L/validate-default.log | tail -3
timeout -k 5 40 build/se_rows_probe --samples 15 226719x37 1198372x7 300000x13 65536x128 32768x256 131072x64 > $L/probe.txt 2>&1; el probe rc=$?; cat $L/probe.txt
left=$(( 540 - ($(date +%s) - T0) ))
timeout -k 5 $left $B run --protocol protocol/layernorm.json --peers-python "$(command -v python3)" --quiet --runs-dir /tmp/lnp --run-dir-out /tmp/lnp.path > $L/run.log 2>&1; el ln-run rc=$?; tail -3 $L/run.log
R=$(cat /tmp/lnp.path 2>/dev/null) && [ -n "$R" ] && { timeout 40 $B verify --strict "$R" > $L/verify.log 2>&1; el verify rc=$?; tail -1 $L/verify.log; tar -cJf /tmp/lnp.tar.xz -C "$(dirname $R)" "$(basename $R)" && split -b 15M -d -a 1 /tmp/lnp.tar.xz $OUT/lnp.tar.xz.; }
tar -czf $OUT/logsF.tar.gz -C /tmp logsF; el done
