#!/usr/bin/env bash
# Experiment 21 (issue 15, goals 4 and 5): rowblock's short rows over small
# clusters (x21.patch: SE_X_CL=csize:threads forces the cluster path, SE_X_CLV8
# takes the 8-values kernel); run together with x20 (wide.patch).
set -o pipefail
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
for f in .dev/debs/libjansson*.deb; do dpkg -x "$f" /; done; ldconfig
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DSE_BUILD_TESTS=OFF >/dev/null &&
    cmake --build build -j16 2>&1 | grep -E " error|FAILED" | head
el built
B=./build/softmax-evidence
R() { # name env... -- shapes
  local n=$1; shift; local envs=(); while [ "$1" != "--" ]; do envs+=("$1"); shift; done; shift
  env "${envs[@]}" timeout 200 $B run --quiet --no-peers --strategies rowblock --protocol protocol/repeat.json --shapes $1 --runs-dir /tmp/x-$n > $OUT/x-$n.txt 2>&1 || echo "$n exit $?"
  echo "-- $n $(grep -E 'validation:' $OUT/x-$n.txt | tail -1)"; sed -n '/median_us/,$p' $OUT/x-$n.txt | grep -E "^[0-9]+x[0-9]+ +(rowblock|copy) +[0-9]" | awk '{printf "%s %s %s| ", $1, $2, $3} END {print ""}'
}
SH=32x4096,3x4097,5x4097,64x4096,2x8192
R def X=1 -- $SH
for cfg in 2:256 4:256 4:128 8:128 2:512 4:64 8:64; do
  R cl$cfg SE_X_CL=$cfg -- $SH
  R cl8v$cfg SE_X_CL=$cfg SE_X_CLV8=1 -- $SH
done
el timed-rowblock
SE_X_CL=4:128 SE_X_CLV8=1 timeout 100 compute-sanitizer --tool racecheck --error-exitcode 99 $B run --validate-only --quiet --strategies rowblock --invocations 1 --shapes 32x4096,3x4097 > $OUT/san-cl.txt 2>&1; echo "-- racecheck cl exit $?"
el done-x21
bash runs/experiments/2026-12-01-megakernel-rows/x20.sh
cd $OUT && tar czf x21.tgz --remove-files x-* san-cl.txt; ls
