# device call R (2026-12-07, fifth session), on the H200 call Q left warm: `profile` of call Q's
# reference run if call Q had no time for it; bench/launch_probe.cu on G3's launch-bound shapes;
# three runs of protocol/repeat.json (no peers), the reference's repeats; in the time left,
# memcheck of LayerNorm (every strategy, odd shapes).
set -o pipefail
for d in .carry/deb/*.deb; do dpkg -x "$d" / ; done; ldconfig 2>/dev/null
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
LIMIT=${LIMIT:-600}; left() { echo $(( LIMIT - $1 - ($(date +%s) - T0) )); }
L=/tmp/logsR; rm -rf $L /tmp/rep; mkdir -p $L
nvidia-smi --query-gpu=name,uuid,clocks.max.sm --format=csv,noheader | tee $L/gpu.txt
NEW=build/softmax-evidence; SAN=/usr/local/cuda/bin/compute-sanitizer
R=$(cat /tmp/ref.path) || exit 3
if [ ! -d "$R/profile" ]; then
  timeout -k 5 $(left 200) $NEW profile "$R" --quiet > $L/profile.log 2>&1; el "profile rc=$?"; tail -3 $L/profile.log
  timeout 30 $NEW verify --strict "$R" > $L/ref-verify.log 2>&1; el "verify rc=$?"; tail -1 $L/ref-verify.log
  tar -c -C "$(dirname $R)" "$(basename $R)" | xz -T0 -6 > /tmp/ref.tar.xz && split -b 15M -d -a 1 /tmp/ref.tar.xz $OUT/ref.tar.xz.; el packed
fi
ninja -j16 -C build se_launch_probe > $L/probe-build.log 2>&1 && timeout -k 3 60 build/se_launch_probe --samples 400 1x1 1x7 8x1 8x8 1x1024 8x1024 1x4096 8x4096 8x8192 1x32768 > $L/launch-probe.txt 2>&1; el "launch probe rc=$?"; cat $L/launch-probe.txt
for i in 1 2 3; do [ $(left 20) -lt 150 ] && { el "skip repeat $i"; continue; }
  timeout -k 5 150 $NEW run --protocol protocol/repeat.json --no-peers --quiet --runs-dir /tmp/rep --run-dir-out /tmp/rep$i.path > $L/rep$i.log 2>&1; el "repeat $i rc=$?"; done
ls /tmp/rep >/dev/null 2>&1 && tar -cJf $OUT/repeats.tar.xz -C /tmp rep; el packed repeats
tar -czf $OUT/logsR.tar.gz -C /tmp logsR
if [ $(left 10) -gt 40 ]; then
  timeout -k 3 $(left 10) $SAN --tool memcheck --print-limit 4 $NEW run --protocol protocol/layernorm.json --shapes 1x1,3x3,257x7,7x65,2x257,3x1024,3x4097,2x8193,1x524289,64x131075 --no-peers --validate-only --invocations 1 --quiet > $L/ln-memcheck.log 2>&1; echo "== memcheck layernorm rc=$?"; grep -m 6 -E "Invalid|at .*se_k|ERROR SUMMARY" $L/ln-memcheck.log
  [ $(left 10) -gt 20 ] && timeout -k 3 $(left 10) $SAN --tool racecheck --print-limit 4 $NEW run --protocol protocol/layernorm.json --strategies rowblock --shapes 1x524289,1x1048576,64x131075,8x1048573 --no-peers --validate-only --invocations 1 --quiet > $L/ln-racecheck.log 2>&1; echo "== racecheck layernorm rowblock grid rc=$?"; grep -m 6 -E "hazard|ERROR SUMMARY" $L/ln-racecheck.log
  tar -czf $OUT/logsR.tar.gz -C /tmp logsR
fi
el done
