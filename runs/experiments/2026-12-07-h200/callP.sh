# device call P (2026-12-07, fifth session), asked with needs_h200: the commit carried in
# .carry/head.bundle made HEAD (git_dirty false); LayerNorm validated on 32 odd shapes (every
# strategy: its cases no longer allocate the softmax's xs); LayerNorm's protocol with its peers
# (torch eager and compiled, Liger's LayerNorm from the wheel carried in .whl), verified --strict
# and packed; the sweep (protocol/sweep.json, every strategy and cuDNN, no PyTorch peers),
# verified and packed; the peers' first parts (.carry/pa) copied to /tmp/pp for call Q.
set -o pipefail
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
for d in .carry/deb/*.deb; do dpkg -x "$d" / ; done; ldconfig 2>/dev/null
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
LIMIT=${LIMIT:-600}; left() { echo $(( LIMIT - $1 - ($(date +%s) - T0) )); }
L=/tmp/logsP; rm -rf $L /tmp/sweep /tmp/sweep.path /tmp/lnh /tmp/lnh.path /tmp/pp; mkdir -p $L /tmp/pp
cp .carry/pa/* /tmp/pp/ 2>/dev/null; ls /tmp/pp | tr '\n' ' '; echo
git config --global --add safe.directory "$PWD" 2>/dev/null
git fetch -q .carry/head.bundle HEAD 2>&1 | tail -2; git reset -q FETCH_HEAD 2>&1 | tail -2
{ git rev-parse HEAD; git status --porcelain --untracked-files=no -- src cmake CMakeLists.txt protocol bench | head -5; } 2>&1 | tee $L/git.txt
nvidia-smi --query-gpu=name,uuid,clocks.max.sm --format=csv,noheader | tee $L/gpu.txt
CM="-G Ninja -DCMAKE_BUILD_TYPE=Release -DSE_BUILD_TESTS=OFF -DCMAKE_CUDA_ARCHITECTURES=90"
cmake -S . -B build $CM > $L/cmake.log 2>&1 && ninja -j16 -C build softmax-evidence > $L/build.log 2>&1 || { tail -30 $L/build.log; exit 1; }
el built; NEW=build/softmax-evidence
ODD=1x1,1x2,3x3,256x8,255x5,257x7,100x6,3x17,5x33,7x65,9x129,2x257,1x300,3x513,4x1000,1x1023,2x1025,3x4097,5x8191,2x8193,33x2000,300x31,1000x700,2x100003,263x300,264x300,1x8,256x1,200x3,1x257,3x1024,263x1024,1x1048576,8x1048576,8x1048573,1x524289,3x1000003,64x131075,64x1048573
timeout -k 5 90 $NEW run --protocol protocol/layernorm.json --shapes $ODD --validate-only --no-peers --quiet > $L/ln-validate.log 2>&1; el "layernorm validate rc=$?"; grep -c PASS $L/ln-validate.log; grep FAIL $L/ln-validate.log | head -5
PYTHONPATH=/tmp/site timeout -k 5 130 $NEW run --protocol protocol/layernorm.json --peers-python "$(command -v python3)" --quiet --runs-dir /tmp/lnh --run-dir-out /tmp/lnh.path > $L/lnrun.log 2>&1; el "ln-run rc=$?"; tail -3 $L/lnrun.log
A=$(cat /tmp/lnh.path 2>/dev/null) && [ -n "$A" ] && { grep -h '"status"' $A/peers.json | sort | uniq -c; timeout 15 $NEW verify --strict "$A" > $L/ln-verify.log 2>&1; el "verify rc=$?"; tail -1 $L/ln-verify.log; tar -c -C "$(dirname $A)" "$(basename $A)" | xz -T0 -6 > /tmp/lnh.tar.xz && split -b 15M -d -a 1 /tmp/lnh.tar.xz $OUT/lnh.tar.xz.; }
tar -czf $OUT/logsP.tar.gz -C /tmp logsP
[ $(left 25) -lt 300 ] && { el "no time left for the sweep"; exit 0; }
timeout -k 5 $(left 25) $NEW run --protocol protocol/sweep.json --no-peers --quiet --runs-dir /tmp/sweep --run-dir-out /tmp/sweep.path > $L/sweep.log 2>&1; el "sweep rc=$?"; grep -c PASS $L/sweep.log; grep FAIL $L/sweep.log | head -5; tail -2 $L/sweep.log
S=$(cat /tmp/sweep.path 2>/dev/null) && [ -n "$S" ] && { timeout 15 $NEW verify "$S" > $L/sweep-verify.log 2>&1; el "verify rc=$?"; tail -1 $L/sweep-verify.log; tar -c -C "$(dirname $S)" "$(basename $S)" | xz -T0 -6 > /tmp/sweep.tar.xz && split -b 15M -d -a 1 /tmp/sweep.tar.xz $OUT/sweep.tar.xz.; el packed; }
tar -czf $OUT/logsP.tar.gz -C /tmp logsP
el done
