# device call G3 (2026-12-06): fusion's tile tasks rotated over the blocks (new, working tree) against HEAD's
# round robin (old), same machine, alternating; a traced run of the new code, verified
set -o pipefail
for d in .carry/deb/*.deb; do dpkg -x "$d" / ; done; ldconfig 2>/dev/null
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
L=/tmp/logs; mkdir -p $L
nvidia-smi --query-gpu=name,uuid,clocks.sm,clocks.max.sm,temperature.gpu --format=csv,noheader | tee $L/gpu.txt
rm -rf /tmp/old && mkdir -p /tmp/old && tar --exclude=./build --exclude=./.carry -cf - . | tar -xf - -C /tmp/old && cp -r .carry/old/src /tmp/old/
( cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DSE_BUILD_TESTS=OFF > $L/cmake-new.log 2>&1 && ninja -j8 -C build softmax-evidence > $L/build-new.log 2>&1 ) &
( cd /tmp/old && cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DSE_BUILD_TESTS=OFF > $L/cmake-old.log 2>&1 && ninja -j8 -C build softmax-evidence > $L/build-old.log 2>&1 ) &
wait; el built; ls -la build/softmax-evidence /tmp/old/build/softmax-evidence || { tail -20 $L/*.log; exit 1; }
SH=16380x4097,16368x4100,2047x4097,2046x4100,4096x4096,1024x32768,64x262144,8x1048573,4x4194301,32x4096,262144x32,3x4097
for i in 1 2; do for v in old new; do
  if [ $v = old ]; then B=/tmp/old/build/softmax-evidence; else B=build/softmax-evidence; fi
  timeout -k 5 100 $B run --protocol protocol/sweep.json --shapes $SH --strategies stream,fusion,fusion-graph --no-peers --quiet --runs-dir /tmp/r-$v-$i --run-dir-out /tmp/r-$v-$i.path > $L/run-$v-$i.log 2>&1; el run $v $i rc=$?; tail -1 $L/run-$v-$i.log
done; done
B=build/softmax-evidence
for i in 1 2; do $B compare $(cat /tmp/r-old-$i.path) $(cat /tmp/r-new-$i.path) > $L/cmp-old-new-$i.txt 2>&1; done
$B compare $(cat /tmp/r-old-1.path) $(cat /tmp/r-old-2.path) > $L/cmp-old-old.txt 2>&1
for v in old new; do for i in 1 2; do $B table $(cat /tmp/r-$v-$i.path) > $L/table-$v-$i.txt 2>&1; cp $(cat /tmp/r-$v-$i.path)/validation.json $L/validation-$v-$i.json; done; done
el compared
timeout -k 5 120 $B run --shapes 16380x4097,2047x4097,3x4097,5xT+1,1024x32768 --strategies fusion,fusion-graph,stream --no-peers --quiet --runs-dir /tmp/rt --run-dir-out /tmp/rt.path > $L/run-traced.log 2>&1; el traced rc=$?
$B verify $(cat /tmp/rt.path) > $L/verify-traced.txt 2>&1; el verify rc=$?; tail -2 $L/verify-traced.txt
$B trace $(cat /tmp/rt.path) 16380x4097.fusion -o /tmp/t.json > $L/trace-16380x4097.txt 2>&1; el trace rc=$?; tail -3 $L/trace-16380x4097.txt
tar -cJf $OUT/run-traced.tar.xz -C $(dirname $(cat /tmp/rt.path)) $(basename $(cat /tmp/rt.path))
tar -czf $OUT/g3logs.tar.gz -C /tmp logs; ls -la $OUT; el done
