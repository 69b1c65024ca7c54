#!/usr/bin/env bash
# Experiment 6 (issue 15): where the pipeline's time per row goes (globaltimer stamps of two CTAs
# of group 0, printed), and the pipeline against the cluster on more shapes of many long rows.
set -o pipefail
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
for f in .dev/debs/*.deb; do dpkg -x "$f" /; done; ldconfig
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DSE_BUILD_TESTS=OFF >/dev/null && cmake --build build -j16 2>&1 | grep -E " error|FAILED" | head
el built
B=./build/softmax-evidence
for m in 9 8 13; do for s in 256x1048576 64x262144 8x1048576; do
  echo "== mode $m $s"; SE_RB_PATH=pipe SE_X_LATE=$m timeout 60 $B run --validate-only --quiet --strategies rowblock --invocations 1 --shapes $s 2>&1 | grep -E "^TS" | sort | uniq -c | head -4
done; done
SE_RB_PATH=pipe SE_RB_PIPE_PARTS=66 SE_X_LATE=9 timeout 60 $B run --validate-only --quiet --strategies rowblock --invocations 1 --shapes 64x262144 2>&1 | grep -E "^TS" | head -4
el stamped
R() { # name env... -- shapes
  local n=$1; shift; local envs=(); while [ "$1" != "--" ]; do envs+=("$1"); shift; done; shift
  env "${envs[@]}" timeout 200 $B run --quiet --no-peers --strategies rowblock --protocol protocol/repeat.json --shapes $1 --runs-dir /tmp/x-$n > $OUT/x-$n.txt 2>&1 || echo "$n exit $?"
  echo "-- $n $(grep -E 'validation:' $OUT/x-$n.txt | tail -1)"; sed -n '/median_us/,$p' $OUT/x-$n.txt | grep -E "^[0-9]+x[0-9]+ +(rowblock|copy) +[0-9]" | awk '{printf "%s %s %s %s| ", $1, $2, $3, $(NF-1)} END {print ""}' | sed 's/| [0-9x]* rowblock [0-9.]* -| .*//'
}
L=700x40000,2048x65536,128x524288,256x1048576,512x1048576
R pipe1 SE_RB_PATH=pipe SE_X_LATE=1 -- $L
R cluster SE_RB_PATH=cluster -- $L
el timed
cd $OUT && tar czf x6.tgz --remove-files x-*; ls
