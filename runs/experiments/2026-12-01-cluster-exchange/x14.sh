#!/usr/bin/env bash
# Experiment 14 (issue 15): rowblock's cluster exchanges through st.async and mbarriers (Quack's
# cluster reduction) instead of cluster barriers and remote reads; globaltimer stamps of the
# grid, cluster and register kernels' phases.
set -o pipefail
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
for f in .dev/debs/*.deb; do dpkg -x "$f" /; done; ldconfig
C="-G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DSE_BUILD_TESTS=OFF"
mkdir -p /tmp/old && tar --exclude=./build -cf - . | (cd /tmp/old && tar xf -) && cp .dev/x14/old/a/src/gpu/* /tmp/old/src/gpu/
cmake -S . -B build $C >/dev/null && cmake --build build -j16 2>&1 | grep -E " error|FAILED" | head
cmake -S . -B /tmp/bt $C -DCMAKE_CUDA_FLAGS=-DSE_X_NOSTAMP >/dev/null && cmake --build /tmp/bt -j16 2>&1 | grep -E " error|FAILED" | head
cmake -S /tmp/old -B /tmp/old/build $C >/dev/null && cmake --build /tmp/old/build -j16 2>&1 | grep -E " error|FAILED" | head
el built
NEW=/tmp/bt/softmax-evidence; OLD=/tmp/old/build/softmax-evidence; ST=./build/softmax-evidence
ALL=32x4096,4096x4096,1024x32768,64x262144,8x1048576,4x4194304,1x1,1x7,3x4097,5xT+1,2x100003,8x1048573,4x4194301,256x1048576
V() { local n=$1; shift; local envs=(); while [ "$1" != "--" ]; do envs+=("$1"); shift; done; shift
  env "${envs[@]}" timeout 300 $NEW run --validate-only --quiet --strategies rowblock "$@" > $OUT/v-$n.txt 2>&1; echo "-- v $n exit $? $(grep -E '^validation' $OUT/v-$n.txt | tail -1)"; grep -E "FAIL" $OUT/v-$n.txt | head -5; }
V all X=1 -- --shapes $ALL
V huge X=1 -- --scale 1e30 --shapes 256x1048576,3x4097
V cl X=1 SE_RB_PATH=cluster -- --shapes 64x262144,8x1048576,8x1048573,2x100003,4x4194301
V cl512 SE_RB_PATH=cluster SE_X_CLT=512 SE_X_CLS=8 -- --shapes 64x262144,8x1048573
V cl256 SE_RB_PATH=cluster SE_X_CLT=256 SE_X_CLS=8 -- --shapes 64x262144
V clhuge SE_RB_PATH=cluster -- --scale 1e30 --shapes 64x262144,8x1048576,2x100003
V clhuge36 SE_RB_PATH=cluster -- --scale 1e36 --shapes 64x262144,2x100003
el validated
for tool in memcheck racecheck synccheck; do
  SE_RB_PATH=cluster timeout 200 compute-sanitizer --tool $tool --error-exitcode 99 --print-limit 10 $NEW run --validate-only --quiet --strategies rowblock --invocations 1 --shapes 2x100003,4x65536,3x131075,2x262144 > $OUT/san-$tool.txt 2>&1; echo "-- $tool exit $? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $OUT/san-$tool.txt | tail -1)"
done
SE_RB_PATH=cluster timeout 200 compute-sanitizer --tool memcheck --error-exitcode 99 $NEW run --validate-only --quiet --strategies rowblock --invocations 1 --scale 1e36 --shapes 2x100003,4x65536 > $OUT/san-ovf.txt 2>&1; echo "-- memcheck overflow exit $? $(grep -E 'ERROR SUMMARY' $OUT/san-ovf.txt | tail -1)"
el sanitized
R() { # name binary env... -- shapes
  local n=$1 b=$2; shift 2; local envs=(); while [ "$1" != "--" ]; do envs+=("$1"); shift; done; shift
  env "${envs[@]}" timeout 300 $b run --quiet --no-peers --strategies rowblock --protocol protocol/repeat.json --shapes $1 --runs-dir /tmp/x-$n > $OUT/x-$n.txt 2>&1 || echo "$n exit $?"
  echo "-- $n $(grep -E 'validation:' $OUT/x-$n.txt | tail -1)"; sed -n '/median_us/,$p' $OUT/x-$n.txt | grep -E "^[0-9]+x[0-9]+ +(rowblock|copy) +[0-9]" | awk '{printf "%s %s %s %s| ", $1, $2, $3, $(NF-1)} END {print ""}'
}
R new-def $NEW X=1 -- 256x1048576,64x262144
R old-def $OLD X=1 -- 256x1048576,64x262144
for cfg in "1024 0" "512 8" "256 8" "1024 8"; do set -- $cfg
  R new-c$1-$2 $NEW SE_RB_PATH=cluster SE_X_CLT=$1 SE_X_CLS=$2 -- 64x262144
  R old-c$1-$2 $OLD SE_RB_PATH=cluster SE_X_CLT=$1 SE_X_CLS=$2 -- 64x262144
done
R new-c16 $NEW SE_RB_PATH=cluster -- 8x1048576,8x1048573
R old-c16 $OLD SE_RB_PATH=cluster -- 8x1048576,8x1048573
R new-def2 $NEW X=1 -- 256x1048576
el timed
S() { local n=$1; shift; local envs=(); while [ "$1" != "--" ]; do envs+=("$1"); shift; done; shift
  env SE_X_STAMP=1 "${envs[@]}" timeout 300 $ST run --quiet --no-peers --strategies rowblock --protocol protocol/repeat.json --shapes $1 --runs-dir /tmp/s-$n > $OUT/s-$n.txt 2>&1 || echo "$n exit $?"
  grep -E "^stamp" $OUT/s-$n.txt | awk '{k=$2" "$3; if (!(k in seen)) {seen[k]=1; c=0} c++; if (c<=4) print}' ; }
S def X=1 -- 32x4096,4096x4096,1024x32768,64x262144,8x1048576,4x4194304,8x1048573,4x4194301,256x1048576
S cl SE_RB_PATH=cluster -- 64x262144,8x1048576
S cl512 SE_RB_PATH=cluster SE_X_CLT=512 SE_X_CLS=8 -- 64x262144
el stamped
cd $OUT && tar czf x14.tgz --remove-files v-* san-* x-* s-*; ls
