# device call D (2026-12-07): LayerNorm's protocol run with the torch peers, for runs/layernorm
# (issue 32: a committed run of the second workload), verified --strict, packed; run on a warm
# machine after callB (its build/ kept), else it builds.
set -o pipefail
for d in .carry/deb/*.deb; do dpkg -x "$d" / ; done; ldconfig 2>/dev/null
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
L=/tmp/logsD; rm -rf $L /tmp/lnp /tmp/lnp.path; mkdir -p $L
git config --global --add safe.directory "$PWD" 2>/dev/null
{ git rev-parse HEAD; git status --porcelain --untracked-files=no -- src cmake CMakeLists.txt protocol bench | head -5; } 2>&1 | tee $L/git.txt
nvidia-smi --query-gpu=name,uuid,clocks.sm,clocks.max.sm,temperature.gpu --format=csv,noheader | tee $L/gpu.txt
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DSE_BUILD_TESTS=OFF -DCMAKE_CUDA_ARCHITECTURES=90 > $L/cmake.log 2>&1 && ninja -j16 -C build softmax-evidence > $L/build.log 2>&1 || { tail -30 $L/build.log; exit 1; }
el built
B=build/softmax-evidence
left=$(( 540 - ($(date +%s) - T0) ))
timeout -k 5 $left $B run --protocol protocol/layernorm.json --peers-python "$(command -v python3)" --quiet --runs-dir /tmp/lnp --run-dir-out /tmp/lnp.path > $L/run.log 2>&1; el run rc=$?; tail -5 $L/run.log
R=$(cat /tmp/lnp.path) && { timeout 40 $B verify --strict "$R" > $L/verify.log 2>&1; el verify rc=$?; tail -3 $L/verify.log; }
[ -n "$R" ] && tar -cJf /tmp/lnp.tar.xz -C "$(dirname $R)" "$(basename $R)" && split -b 15M -d -a 1 /tmp/lnp.tar.xz $OUT/lnp.tar.xz.; el packed
tar -czf $OUT/logsD.tar.gz -C /tmp logsD; ls -la $OUT; el done
