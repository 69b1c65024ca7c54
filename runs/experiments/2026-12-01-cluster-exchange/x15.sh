#!/usr/bin/env bash
# Experiment 15 (issue 15): the st.async cluster exchange (x14) on more cluster shapes, against
# the old exchange in the same call; globaltimer stamps of each path's phases.
set -o pipefail
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
for f in .dev/debs/*.deb; do dpkg -x "$f" /; done; ldconfig
C="-G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DSE_BUILD_TESTS=OFF"
rm -rf /tmp/old; mkdir -p /tmp/old && tar --exclude=./build -cf - . | (cd /tmp/old && tar xf -) && cp .dev/x14/old/a/src/gpu/* /tmp/old/src/gpu/
cmake -S . -B build $C >/dev/null && cmake --build build -j16 2>&1 | grep -E " error|FAILED" | head
cmake -S . -B /tmp/bt $C -DCMAKE_CUDA_FLAGS=-DSE_X_NOSTAMP >/dev/null && cmake --build /tmp/bt -j16 2>&1 | grep -E " error|FAILED" | head
cmake -S /tmp/old -B /tmp/old/build $C >/dev/null && cmake --build /tmp/old/build -j16 2>&1 | grep -E " error|FAILED" | head
el built
NEW=/tmp/bt/softmax-evidence; OLD=/tmp/old/build/softmax-evidence; ST=./build/softmax-evidence
R() { # name binary env... -- shapes
  local n=$1 b=$2; shift 2; local envs=(); while [ "$1" != "--" ]; do envs+=("$1"); shift; done; shift
  env "${envs[@]}" timeout 300 $b run --quiet --no-peers --strategies rowblock --protocol protocol/repeat.json --shapes $1 --runs-dir /tmp/x-$n > $OUT/x-$n.txt 2>&1 || echo "$n exit $?"
  echo "-- $n $(grep -E 'validation:' $OUT/x-$n.txt | tail -1)"; sed -n '/median_us/,$p' $OUT/x-$n.txt | grep -E "^[0-9]+x[0-9]+ +(rowblock|copy) +[0-9]" | awk '{printf "%s %s %s %s| ", $1, $2, $3, $(NF-1)} END {print ""}'
}
R old-def $OLD X=1 -- 256x1048576
R new-def $NEW X=1 -- 256x1048576
R old-c512-8 $OLD SE_RB_PATH=cluster SE_X_CLT=512 SE_X_CLS=8 -- 64x262144
R new-c512-8 $NEW SE_RB_PATH=cluster SE_X_CLT=512 SE_X_CLS=8 -- 64x262144
for cfg in "512 6" "512 16" "256 16" "256 12" "512 12"; do set -- $cfg
  R new-c$1-$2 $NEW SE_RB_PATH=cluster SE_X_CLT=$1 SE_X_CLS=$2 -- 64x262144
done
R new-c512-8b $NEW SE_RB_PATH=cluster SE_X_CLT=512 SE_X_CLS=8 -- 64x262144,128x262144,32x262144,128x131072,256x131072
R new-c512-16 $NEW SE_RB_PATH=cluster SE_X_CLT=512 SE_X_CLS=16 -- 16x524288,32x524288,128x524288
R new-gridref $NEW X=1 -- 128x262144,32x262144,128x131072,256x131072,16x524288,32x524288,128x524288
for cfg in "512 2" "256 4" "256 2" "1024 2"; do set -- $cfg
  R new-k$1-$2 $NEW SE_RB_PATH=cluster SE_X_CLT=$1 SE_X_CLS=$2 -- 1024x32768,512x32768
done
R new-reg $NEW X=1 -- 1024x32768,512x32768
el timed
S() { local n=$1; shift; local envs=(); while [ "$1" != "--" ]; do envs+=("$1"); shift; done; shift
  env SE_X_STAMP=1 "${envs[@]}" timeout 300 $ST run --quiet --no-peers --no-blocking-kernel --strategies rowblock --protocol protocol/repeat.json --shapes $1 --runs-dir /tmp/s-$n > $OUT/s-$n.txt 2>&1 || echo "$n exit $?"
  grep -E "^stamp" $OUT/s-$n.txt | awk '{k=$2" "$3; c[k]++; if (c[k]<=3) print}' ; }
S def X=1 -- 32x4096,4096x4096,1024x32768,64x262144,8x1048576,4x4194304,8x1048573,256x1048576
S cl512 SE_RB_PATH=cluster SE_X_CLT=512 SE_X_CLS=8 -- 64x262144
S cl1024 SE_RB_PATH=cluster -- 64x262144
el stamped
cd $OUT && tar czf x15.tgz --remove-files x-* s-*; ls
