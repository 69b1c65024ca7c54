#!/usr/bin/env bash
# Experiment 4 (issue 15): rowblock's cluster kernel with 256/512/1024-thread CTAs and forced
# cluster sizes; the pipeline with its next row's loads issued later.
set -o pipefail
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
for f in .dev/debs/*.deb; do dpkg -x "$f" /; done; ldconfig
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DSE_BUILD_TESTS=OFF >/dev/null && cmake --build build -j16 2>&1 | grep -E " error|FAILED" | head
el built
B=./build/softmax-evidence
R() { # name env... -- shapes
  local n=$1; shift; local envs=(); while [ "$1" != "--" ]; do envs+=("$1"); shift; done; shift
  env "${envs[@]}" timeout 200 $B run --quiet --no-peers --strategies rowblock --protocol protocol/repeat.json --shapes $1 --runs-dir /tmp/x-$n > $OUT/x-$n.txt 2>&1 || echo "$n exit $?"
  echo "-- $n $(grep -E 'validation:' $OUT/x-$n.txt | tail -1)"; sed -n '/median_us/,$p' $OUT/x-$n.txt | grep -E "^[0-9]+x[0-9]+ +(rowblock|copy) +[0-9]" | awk '{printf "%s %s %s %s| ", $1, $2, $3, $(NF-1)} END {print ""}' | sed 's/| [0-9x]* rowblock [0-9.]* -| .*//'
}
S=64x262144
for t in 256 512 1024; do for c in 4 8 16; do R c$t-$c SE_RB_PATH=cluster SE_X_CLT=$t SE_X_CLS=$c -- $S; done; done
R c256 SE_RB_PATH=cluster SE_X_CLT=256 -- $S,256x1048576
R c512 SE_RB_PATH=cluster SE_X_CLT=512 -- $S,1024x32768,512x32768
R c512-2 SE_RB_PATH=cluster SE_X_CLT=512 SE_X_CLS=2 -- 1024x32768,512x32768
R c256-4 SE_RB_PATH=cluster SE_X_CLT=256 SE_X_CLS=4 -- 1024x32768,512x32768
R c1024-16 SE_RB_PATH=cluster SE_X_CLS=16 -- 8x1048576,4x4194304,8x1048573
R late1 SE_RB_PATH=pipe SE_X_LATE=1 -- 64x262144,8x1048576,256x1048576
R late2 SE_RB_PATH=pipe SE_X_LATE=2 -- 64x262144,8x1048576,256x1048576
R late1p33 SE_RB_PATH=pipe SE_X_LATE=1 SE_RB_PIPE_PARTS=33 -- 64x262144,256x1048576
el timed
cd $OUT && tar czf x4.tgz --remove-files x-*; ls
