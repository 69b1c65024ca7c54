# device call N (2026-12-07, fourth session), asked of an H200 with the session's last device
# time: the commit carried in .carry/head.bundle made HEAD (git_dirty false); Liger's wheel
# (liger-kernel 0.8.5, carried in .whl) installed; LayerNorm's protocol with the torch peers and
# Liger's LayerNorm, verified --strict and packed.
set -o pipefail
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl && export PYTHONPATH=/tmp/site
for d in .carry/deb/*.deb; do dpkg -x "$d" / ; done; ldconfig 2>/dev/null
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
L=/tmp/logsN; rm -rf $L /tmp/lnh /tmp/lnh.path; mkdir -p $L
git config --global --add safe.directory "$PWD" 2>/dev/null
git fetch -q .carry/head.bundle HEAD 2>&1 | tail -2; git reset -q FETCH_HEAD 2>&1 | tail -2
{ git rev-parse HEAD; git status --porcelain --untracked-files=no -- src cmake CMakeLists.txt protocol bench | head -5; } 2>&1 | tee $L/git.txt
nvidia-smi --query-gpu=name,uuid,clocks.max.sm --format=csv,noheader | tee $L/gpu.txt
CM="-G Ninja -DCMAKE_BUILD_TYPE=Release -DSE_BUILD_TESTS=OFF -DCMAKE_CUDA_ARCHITECTURES=90"
cmake -S . -B build $CM > $L/cmake.log 2>&1 && ninja -j16 -C build softmax-evidence > $L/build.log 2>&1 || { tail -30 $L/build.log; exit 1; }
el built; NEW=build/softmax-evidence
timeout -k 5 ${LN_LIMIT:-100} $NEW run --protocol protocol/layernorm.json --peers-python "$(command -v python3)" --quiet --runs-dir /tmp/lnh --run-dir-out /tmp/lnh.path > $L/lnrun.log 2>&1; el "ln-run rc=$?"; tail -3 $L/lnrun.log
A=$(cat /tmp/lnh.path 2>/dev/null) && [ -n "$A" ] && { grep -h '"status"' $A/peers.json | sort | uniq -c; timeout 15 $NEW verify --strict "$A" > $L/ln-verify.log 2>&1; el "verify rc=$?"; tail -1 $L/ln-verify.log; tar -c -C "$(dirname $A)" "$(basename $A)" | xz -T0 -6 > /tmp/lnh.tar.xz && split -b 15M -d -a 1 /tmp/lnh.tar.xz $OUT/lnh.tar.xz.; }
tar -czf $OUT/logsN.tar.gz -C /tmp logsN; el done
