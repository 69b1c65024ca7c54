# device call B (2026-12-07, main at f846f97: version 25's lane kernel and LayerNorm's GPU half):
# build; scripts/gpu-check-layernorm.sh (LayerNorm's protocol run, kept and packed; the softmax
# on five shapes against runs/reference; the sanitizers); bench/rows_probe.cu; rowblock on odd
# short rows, validated
set -o pipefail
for d in .carry/deb/*.deb; do dpkg -x "$d" / ; done; ldconfig 2>/dev/null
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
L=/tmp/logs; rm -rf $L /tmp/keep; mkdir -p $L
git config --global --add safe.directory "$PWD" 2>/dev/null
{ git rev-parse HEAD; git status --porcelain --untracked-files=no -- src cmake CMakeLists.txt protocol bench | head -5; } 2>&1 | tee $L/git.txt
nvidia-smi --query-gpu=name,uuid,clocks.sm,clocks.max.sm,temperature.gpu --format=csv,noheader | tee $L/gpu.txt
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DSE_BUILD_TESTS=OFF -DCMAKE_CUDA_ARCHITECTURES=90 > $L/cmake.log 2>&1 && ninja -j16 -C build softmax-evidence se_rows_probe > $L/build.log 2>&1 || { tail -30 $L/build.log; exit 1; }
el built
timeout -k 5 50 build/se_rows_probe --samples 15 65536x128 524288x128 32768x256 262144x256 131072x512 226719x37 1813753x37 1198372x7 9586980x7 300000x13 160000x50 > $L/probe.txt 2>&1; el probe rc=$?; cat $L/probe.txt
SKIP_BUILD=1 KEEP=/tmp/keep timeout -k 5 330 scripts/gpu-check-layernorm.sh > $L/gpu-check-layernorm.log 2>&1; el layernorm-check rc=$?
LN=$(dirname $(grep -l '"layernorm"' /tmp/keep/*/strategies.json | head -1)) && tar -cJf /tmp/ln.tar.xz -C /tmp/keep $(basename $LN) && split -b 15M -d -a 1 /tmp/ln.tar.xz $OUT/ln-run.tar.xz.; ls -la $OUT; el packed
B=build/softmax-evidence
timeout -k 5 25 $B run --shapes 3000x37,400000x7,1000x101,5001x3,333x13,777x50,100000x63,2x37,40000x6 --strategies rowblock --no-peers --no-blocking-kernel --validate-only --quiet > $L/validate-odd.log 2>&1; el validate rc=$?
tar -czf $OUT/logsB.tar.gz -C /tmp logs; tail -25 $L/gpu-check-layernorm.log; tail -12 $L/validate-odd.log; el done
