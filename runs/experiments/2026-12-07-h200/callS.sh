# device call S (2026-12-07, fifth session), on an H100 (seven starts of an H200 found none): the
# commit carried in .carry/head.bundle made HEAD (git_dirty false); LayerNorm validated on 32 odd
# shapes (every strategy: its cases no longer allocate the softmax's xs); bench/launch_probe.cu on
# G3's launch-bound shapes; LayerNorm's protocol with its peers (torch eager and compiled, Liger's
# LayerNorm from .whl: their inputs now carry x alone), verified --strict and packed; memcheck of
# LayerNorm, every strategy, on odd shapes.
set -o pipefail
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
for d in .carry/deb/*.deb; do dpkg -x "$d" / ; done; ldconfig 2>/dev/null
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
LIMIT=${LIMIT:-600}; left() { echo $(( LIMIT - $1 - ($(date +%s) - T0) )); }
L=/tmp/logsS; rm -rf $L /tmp/lnh /tmp/lnh.path; mkdir -p $L
git config --global --add safe.directory "$PWD" 2>/dev/null
git fetch -q .carry/head.bundle HEAD 2>&1 | tail -2; git reset -q FETCH_HEAD 2>&1 | tail -2
{ git rev-parse HEAD; git status --porcelain --untracked-files=no -- src cmake CMakeLists.txt protocol bench | head -5; } 2>&1 | tee $L/git.txt
nvidia-smi --query-gpu=name,uuid,clocks.max.sm --format=csv,noheader | tee $L/gpu.txt
CM="-G Ninja -DCMAKE_BUILD_TYPE=Release -DSE_BUILD_TESTS=OFF -DCMAKE_CUDA_ARCHITECTURES=90"
cmake -S . -B build $CM > $L/cmake.log 2>&1 && ninja -j16 -C build softmax-evidence se_launch_probe > $L/build.log 2>&1 || { tail -30 $L/build.log; exit 1; }
el built; NEW=build/softmax-evidence; SAN=/usr/local/cuda/bin/compute-sanitizer
ODD=1x1,1x2,3x3,256x8,255x5,257x7,100x6,3x17,5x33,7x65,9x129,2x257,1x300,3x513,4x1000,1x1023,2x1025,3x4097,5x8191,2x8193,33x2000,300x31,1000x700,2x100003,263x300,264x300,1x8,256x1,200x3,1x257,3x1024,263x1024,1x1048576,8x1048576,8x1048573,1x524289,3x1000003,64x131075,64x1048573
timeout -k 5 90 $NEW run --protocol protocol/layernorm.json --shapes $ODD --validate-only --no-peers --quiet > $L/ln-validate.log 2>&1; el "layernorm validate rc=$?"; grep -c PASS $L/ln-validate.log; grep FAIL $L/ln-validate.log | head -5
timeout -k 3 90 build/se_launch_probe --samples 400 1x1 1x7 8x1 8x8 1x1024 8x1024 1x4096 8x4096 8x8192 1x32768 > $L/launch-probe.txt 2>&1; el "launch probe rc=$?"; cat $L/launch-probe.txt
tar -czf $OUT/logsS.tar.gz -C /tmp logsS
PYTHONPATH=/tmp/site timeout -k 5 130 $NEW run --protocol protocol/layernorm.json --peers-python "$(command -v python3)" --quiet --runs-dir /tmp/lnh --run-dir-out /tmp/lnh.path > $L/lnrun.log 2>&1; el "ln-run rc=$?"; tail -3 $L/lnrun.log
A=$(cat /tmp/lnh.path 2>/dev/null) && [ -n "$A" ] && { grep -h '"status"' $A/peers.json | sort | uniq -c; timeout 15 $NEW verify --strict "$A" > $L/ln-verify.log 2>&1; el "verify rc=$?"; tail -1 $L/ln-verify.log; tar -c -C "$(dirname $A)" "$(basename $A)" | xz -T0 -6 > /tmp/lnh.tar.xz && split -b 15M -d -a 1 /tmp/lnh.tar.xz $OUT/lnh.tar.xz.; }
tar -czf $OUT/logsS.tar.gz -C /tmp logsS
if [ $(left 10) -gt 40 ]; then
  timeout -k 3 $(left 10) $SAN --tool memcheck --print-limit 4 $NEW run --protocol protocol/layernorm.json --shapes 1x1,3x3,257x7,7x65,2x257,3x1024,3x4097,2x8193,1x524289,64x131075 --no-peers --validate-only --invocations 1 --quiet > $L/ln-memcheck.log 2>&1; echo "== memcheck layernorm rc=$?"; grep -m 6 -E "Invalid|at .*se_k|ERROR SUMMARY" $L/ln-memcheck.log
  [ $(left 10) -gt 20 ] && timeout -k 3 $(left 10) $SAN --tool racecheck --print-limit 4 $NEW run --protocol protocol/layernorm.json --strategies rowblock --shapes 1x524289,1x1048576,64x131075,8x1048573 --no-peers --validate-only --invocations 1 --quiet > $L/ln-racecheck.log 2>&1; echo "== racecheck layernorm rowblock grid rc=$?"; grep -m 6 -E "hazard|ERROR SUMMARY" $L/ln-racecheck.log
  tar -czf $OUT/logsS.tar.gz -C /tmp logsS
fi
el done
