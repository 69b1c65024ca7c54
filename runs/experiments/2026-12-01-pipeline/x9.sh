#!/usr/bin/env bash
# Experiment 9 (issue 15): the cooperative grid reading its rows in stages (a stage's CTAs start
# their loads when the stage before has its rows loaded), so one stage's exchanges, exponentials
# and stores overlap the next one's loads; against the committed grid kernel in the same call.
set -o pipefail
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
for f in .dev/debs/*.deb; do dpkg -x "$f" /; done; ldconfig
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DSE_BUILD_TESTS=OFF >/dev/null && cmake --build build -j16 2>&1 | grep -E " error|FAILED" | head
cp build/softmax-evidence /tmp/se-var
git stash -q && cmake --build build -j16 2>&1 | grep -E " error|FAILED" | head; cp build/softmax-evidence /tmp/se-base; git stash pop -q
el built
L=64x262144,8x1048576,4x4194304,8x1048573,4x4194301,2x100003
for st in 2 3 4; do SE_X_STAGES=$st timeout 100 /tmp/se-var run --validate-only --quiet --strategies rowblock --invocations 1 --shapes $L,3x65541,5x99999,64x131076 2>&1 | tail -1; done
SE_X_STAGES=2 timeout 100 /tmp/se-var run --validate-only --quiet --strategies rowblock --invocations 1 --scale 1e36 --shapes $L 2>&1 | tail -1
SE_X_STAGES=3 timeout 150 compute-sanitizer --tool memcheck --error-exitcode 99 /tmp/se-var run --validate-only --quiet --strategies rowblock --invocations 1 --shapes 2x600001,8x1048573,48x65540 2>&1 | grep -E "SUMMARY|validation"
R() { local n=$1; local b=$2; shift 2; local envs=(); while [ "$1" != "--" ]; do envs+=("$1"); shift; done; shift
  env "${envs[@]}" timeout 200 $b run --quiet --no-peers --strategies rowblock --protocol protocol/repeat.json --shapes $1 --runs-dir /tmp/x-$n > $OUT/x-$n.txt 2>&1 || echo "$n exit $?"
  echo "-- $n $(grep -E 'validation:' $OUT/x-$n.txt | tail -1)"; sed -n '/median_us/,$p' $OUT/x-$n.txt | grep -E "^[0-9]+x[0-9]+ +(rowblock|copy) +[0-9]" | awk '{printf "%s %s %s %s| ", $1, $2, $3, $(NF-1)} END {print ""}' | sed 's/| [0-9x]* rowblock [0-9.]* -| .*//'
}
R base /tmp/se-base X=0 -- $L
R s1 /tmp/se-var SE_X_STAGES=1 -- $L
R s2 /tmp/se-var SE_X_STAGES=2 -- $L
R s3 /tmp/se-var SE_X_STAGES=3 -- $L
R s4 /tmp/se-var SE_X_STAGES=4 -- $L
R base2 /tmp/se-base X=0 -- $L
el timed
cd $OUT && tar czf x9.tgz --remove-files x-*; ls
