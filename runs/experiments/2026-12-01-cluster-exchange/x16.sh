#!/usr/bin/env bash
# Experiment 16 (issue 15): the new rowblock dispatch (clusters of 256-thread CTAs; the cluster
# where the grid would have a tail or the clusters run every row at once) against the forced
# alternatives at its boundaries; the rowblock GPU tests on the new code.
set -o pipefail
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
for f in .dev/debs/*.deb; do dpkg -x "$f" /; done; ldconfig
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 >/dev/null && cmake --build build -j16 2>&1 | grep -E " error|FAILED" | head
el built
B=./build/softmax-evidence
R() { local n=$1; shift; local envs=(); while [ "$1" != "--" ]; do envs+=("$1"); shift; done; shift
  env "${envs[@]}" timeout 300 $B run --quiet --no-peers --strategies rowblock --protocol protocol/repeat.json --shapes $1 --runs-dir /tmp/x-$n > $OUT/x-$n.txt 2>&1 || echo "$n exit $?"
  echo "-- $n $(grep -E 'validation:' $OUT/x-$n.txt | tail -1)"; sed -n '/median_us/,$p' $OUT/x-$n.txt | grep -E "^[0-9]+x[0-9]+ +(rowblock|copy) +[0-9]" | awk '{printf "%s %s %s %s\n", $1, $2, $3, $(NF-1)}' | paste - - | awk '{print $1, $3, $7}'
}
R dflt X=1 -- 2x100003,32x262144,16x524288,3x16384,8x16384,2x32768,128x131072,40x300000,20x1000000,512x32768
R grid SE_RB_PATH=grid -- 2x100003,32x262144,16x524288
R reg SE_RB_PATH=reg -- 3x16384,8x16384,2x32768
el timed
(cd build && timeout 420 ctest -R "rowblock_paths|huge_inputs_rowblock" --output-on-failure > $OUT/ctest.txt 2>&1; echo "ctest exit $?"; grep -E "Test +#|tests passed|Total Test" $OUT/ctest.txt)
el tested
cd $OUT && tar czf x16.tgz --remove-files x-* ctest.txt; ls
