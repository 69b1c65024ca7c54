set -o pipefail
source .carry/pre.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release > /dev/null && ninja -C build softmax-evidence > $OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
S=4096x4096,1024x32768,2x100003,1x100003,1x262144,1x524288,1x1048576,3x1000004,3x1000003,32x4096,64x262144,256x1048576,8x1048573,4x4194301,17x2000001,17x2000000,1000x37,100000x37,3x4097
timeout 420 build/softmax-evidence run --shapes $S --no-peers --quiet --runs-dir /tmp/diag --run-dir-out /tmp/diag.path > $OUT/run.log 2>&1; echo rc=$?
d=$(cat /tmp/diag.path); build/softmax-evidence table $d > $OUT/table.txt 2>&1
grep -E "rowblock|fusion |megakernel |stream  |copy |graph-pdl" $OUT/table.txt | head -130
tar -czf $OUT/diag.tar.gz -C /tmp/diag .
