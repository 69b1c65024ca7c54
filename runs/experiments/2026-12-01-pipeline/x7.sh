#!/usr/bin/env bash
# Experiment 7 (issue 15): rowblock's persistent clusters (se_k_rowblock_pipe: DSMEM exchanges,
# the next row's part by one bulk copy) against the grid, the clusters and the register kernels.
set -o pipefail
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
for f in .dev/debs/*.deb; do dpkg -x "$f" /; done; ldconfig
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DSE_BUILD_TESTS=OFF >/dev/null && cmake --build build -j16 2>&1 | grep -E " error|FAILED" | head
el built
B=./build/softmax-evidence
V() { local n=$1; shift; local envs=(); while [ "$1" != "--" ]; do envs+=("$1"); shift; done; shift
  env "${envs[@]}" timeout 100 $B run --validate-only --quiet --strategies rowblock --invocations 1 "$@" > $OUT/v-$n.txt 2>&1; echo "-- v $n exit $? $(grep -E 'validation' $OUT/v-$n.txt | tail -1)"; }
SM=9x100003,6x65536,7x70001,3x65541,5x99999,130x40000,700x40000,64x131076,48x65540,300x4097
V pipe SE_RB_PATH=pipe -- --shapes $SM,64x262144,1024x32768
V pipe1024 SE_RB_PATH=pipe SE_X_PT=1024 -- --shapes $SM
V pipehuge SE_RB_PATH=pipe -- --scale 1e36 --shapes $SM
V pipetiny SE_RB_PATH=pipe -- --scale 1e-30 --shapes 9x100003,7x70001
for tool in memcheck racecheck synccheck; do
  SE_RB_PATH=pipe timeout 120 compute-sanitizer --tool $tool --error-exitcode 99 --print-limit 10 $B run --validate-only --quiet --strategies rowblock --invocations 1 --shapes 9x100003,7x70001,300x4097 > $OUT/san-$tool.txt 2>&1; echo "-- $tool exit $? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $OUT/san-$tool.txt | tail -1)"
done
el checked
R() { local n=$1; shift; local envs=(); while [ "$1" != "--" ]; do envs+=("$1"); shift; done; shift
  env "${envs[@]}" timeout 200 $B run --quiet --no-peers --strategies rowblock --protocol protocol/repeat.json --shapes $1 --runs-dir /tmp/x-$n > $OUT/x-$n.txt 2>&1 || echo "$n exit $?"
  echo "-- $n $(grep -E 'validation:' $OUT/x-$n.txt | tail -1)"; sed -n '/median_us/,$p' $OUT/x-$n.txt | grep -E "^[0-9]+x[0-9]+ +(rowblock|copy) +[0-9]" | awk '{printf "%s %s %s %s| ", $1, $2, $3, $(NF-1)} END {print ""}' | sed 's/| [0-9x]* rowblock [0-9.]* -| .*//'
}
R base X=0 -- 64x262144,1024x32768,512x32768,4096x4096,128x524288,2048x65536,700x40000
R pipe SE_RB_PATH=pipe -- 64x262144,1024x32768,512x32768,128x524288,2048x65536,700x40000
R p1024 SE_RB_PATH=pipe SE_X_PT=1024 -- 64x262144,1024x32768,512x32768,128x524288,2048x65536
R p512c8 SE_RB_PATH=pipe SE_X_PT=512 SE_X_PC=8 -- 1024x32768,64x262144
R p256 SE_RB_PATH=pipe SE_X_PT=256 -- 4096x4096,1024x32768,64x262144
R p128 SE_RB_PATH=pipe SE_X_PT=128 -- 4096x4096
el timed
cd $OUT && tar czf x7.tgz --remove-files v-* san-* x-*; ls
