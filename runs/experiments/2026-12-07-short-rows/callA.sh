# device call A (2026-12-07, commit 7a37f61 and its successors on main): rowblock's short-row
# kernels against copy and cuDNN (bench/rows_probe.cu), rowblock validated on odd short rows,
# then the sweep of the committed code (protocol/sweep.json, no peers), packed for runs/sweep
set -o pipefail
for d in .carry/deb/*.deb; do dpkg -x "$d" / ; done; ldconfig 2>/dev/null
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
L=/tmp/logs; rm -rf $L; mkdir -p $L
git config --global --add safe.directory "$PWD" 2>/dev/null
{ git rev-parse HEAD; git status --porcelain --untracked-files=no -- src cmake CMakeLists.txt protocol bench | head -5; } 2>&1 | tee $L/git.txt
nvidia-smi --query-gpu=name,uuid,clocks.sm,clocks.max.sm,temperature.gpu --format=csv,noheader | tee $L/gpu.txt
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DSE_BUILD_TESTS=OFF -DCMAKE_CUDA_ARCHITECTURES=90 > $L/cmake.log 2>&1 && ninja -j16 -C build softmax-evidence se_rows_probe > $L/build.log 2>&1 || { tail -30 $L/build.log; exit 1; }
el built
timeout -k 5 75 build/se_rows_probe --samples 20 262144x32 131072x64 65536x128 524288x128 32768x256 262144x256 16384x512 131072x512 226719x37 1813753x37 1198372x7 9586980x7 100000x37 300000x13 160000x50 2000000x3 > $L/probe.txt 2>&1; el probe rc=$?
B=build/softmax-evidence
timeout -k 5 45 $B run --shapes 3000x37,400000x7,1000x101,5001x3,333x13,777x50,100000x63,2x37,40000x6 --strategies rowblock --no-peers --no-blocking-kernel --validate-only --quiet > $L/validate-odd.log 2>&1; el validate rc=$?; tail -3 $L/validate-odd.log
if ! grep -q H200 $L/gpu.txt; then # not the H200: no sweep to commit; the sanitizers instead
  timeout -k 5 90 /usr/local/cuda/bin/compute-sanitizer --tool memcheck --print-limit 5 $B run --shapes 3000x37,400000x7,5001x3,777x50,100001x63 --strategies rowblock --no-peers --no-blocking-kernel --validate-only --quiet > $L/san-memcheck.log 2>&1; el memcheck rc=$?; grep -E "ERROR SUMMARY" $L/san-memcheck.log | tail -1
  timeout -k 5 90 /usr/local/cuda/bin/compute-sanitizer --tool racecheck --print-limit 5 $B run --shapes 3000x37,5001x3,777x50,100001x63 --strategies rowblock --no-peers --no-blocking-kernel --validate-only --quiet > $L/san-racecheck.log 2>&1; el racecheck rc=$?; grep -E "RACECHECK SUMMARY|ERROR SUMMARY" $L/san-racecheck.log | tail -1
  tar -czf $OUT/logsA.tar.gz -C /tmp logs; cat $L/probe.txt; el done; exit 0
fi
left=$(( 575 - ($(date +%s) - T0) ))
timeout -k 5 $left $B run --protocol protocol/sweep.json --no-peers --quiet --runs-dir /tmp/sweep --run-dir-out /tmp/sweep.path > $L/sweep.log 2>&1; el sweep rc=$?; tail -3 $L/sweep.log
S=$(cat /tmp/sweep.path) && tar -cJf /tmp/sweep.tar.xz -C "$(dirname $S)" "$(basename $S)" && split -b 15M -d -a 1 /tmp/sweep.tar.xz $OUT/sweep.tar.xz.; el packed
tar -czf $OUT/logsA.tar.gz -C /tmp logs; cat $L/probe.txt; el done
