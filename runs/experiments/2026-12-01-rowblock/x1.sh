#!/usr/bin/env bash
# Experiment call (not committed): rowblock variants chosen by SE_X_* env vars
# of an uncommitted patch, against Liger, with ncu on both.
set -o pipefail
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
for f in .dev/debs/*.deb; do dpkg -x "$f" /; done; ldconfig
mkdir -p /tmp/pyx && pip install -q --no-deps --target /tmp/pyx .dev/wheels/liger*.whl 2>&1 | grep -v WARN
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DSE_BUILD_TESTS=OFF >/dev/null && cmake --build build -j16 2>&1 | grep -E " error|FAILED" | head
el built
B=./build/softmax-evidence
for o in $(find build -name 'rowblock*.o'); do echo "== $o"; cuobjdump -sass $o | awk '/Function :/ {f=$3} /\/\*[0-9a-f]{4}\*\// {n[f]++} END {for (k in n) print n[k], k}'; done
R() { # name env... -- shapes
  local n=$1; shift; local envs=(); while [ "$1" != "--" ]; do envs+=("$1"); shift; done; shift
  env "${envs[@]}" PYTHONPATH=/tmp/pyx $B run --quiet --strategies ${S:-rowblock} --protocol protocol/repeat.json --shapes $1 --runs-dir /tmp/x-$n ${2:-} > $OUT/x-$n.txt 2>&1 || echo "$n exit $?"
  echo "-- $n"; sed -n '/median_us/,$p' $OUT/x-$n.txt | grep -E "^[0-9]+x[0-9]+ +(rowblock|copy|liger-softmax) +[0-9]" | awk '{printf "%s %s %s %s| ", $1, $2, $3, $(NF-1)} END {print ""}'
}
R base X=0 -- 1x1,1x7,3x4097,5x4097,32x4096,4096x4096,1024x32768,2048x8192
el base
R tiny SE_X_TINY=1 -- 1x1,1x7 --no-peers
R many16 SE_X_MANY=16 -- 4096x4096,2048x8192 --no-peers
R many8 SE_X_MANY=8 -- 4096x4096,2048x8192 --no-peers
R few16 SE_X_FEW=16 -- 32x4096,3x4097,5x4097 --no-peers
R few32 SE_X_FEW=32 -- 32x4096,3x4097,5x4097 --no-peers
R cl256 SE_X_CL=256 -- 1024x32768,512x32768,64x262144 --no-peers
R cl256ns SE_X_CL=256 SE_X_CLNOSMEM=1 -- 1024x32768,512x32768 --no-peers
R cl512ns SE_X_CL=512 SE_X_CLNOSMEM=1 -- 1024x32768,512x32768 --no-peers
R cl128ns SE_X_CL=128 SE_X_CLNOSMEM=1 -- 1024x32768,4096x4096 --no-peers
R nostream SE_X_NOSTREAM=1 -- 1024x32768,512x32768 --no-peers
S=all R allstrat X=0 -- 1x1,1x7,3x4097,32x4096 --no-peers
R base2 X=0 -- 1x1,1x7,3x4097,5x4097,32x4096,4096x4096,2048x8192,1024x32768,512x32768,64x262144 --no-peers
el variants
M=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,launch__block_size,launch__grid_size,launch__shared_mem_per_block_dynamic,launch__shared_mem_per_block_static,smsp__inst_executed.sum,sm__cycles_elapsed.avg.per_second
PYTHONPATH=/tmp/pyx timeout 120 ncu --metrics $M --csv -k regex:"_softmax_(single|multi)" python3 .dev/x1_liger.py 1x1 3x4097 32x4096 4096x4096 1024x32768 > $OUT/ncu-liger.csv 2>$OUT/ncu-liger.err; el "ncu liger $?"
timeout 120 ncu --metrics $M --csv -k regex:rowblock -c 12 $B run --validate-only --quiet --strategies rowblock --shapes 1x1,3x4097,32x4096,4096x4096,1024x32768 --invocations 1 > $OUT/ncu-ours.csv 2>$OUT/ncu-ours.err; el "ncu ours $?"
SE_X_TINY=1 timeout 60 ncu --metrics $M --csv -k regex:rowblock -c 2 $B run --validate-only --quiet --strategies rowblock --shapes 1x1 --invocations 1 > $OUT/ncu-tiny.csv 2>&1; el "ncu tiny $?"
python3 - <<'P' 
import csv, glob, os
for f in sorted(glob.glob(os.environ["OUT"] + "/ncu-*.csv")):
    rows = [r for r in csv.reader(open(f)) if len(r) > 10]
    if not rows: print(f, "no rows"); continue
    h = rows[0]; ki = h.index("Kernel Name"); mi = h.index("Metric Name"); vi = h.index("Metric Value"); ii = h.index("ID")
    d = {}
    for r in rows[1:]:
        d.setdefault((r[ii], r[ki][:40]), {})[r[mi].split("__")[1][:22]] = r[vi]
    print("==", os.path.basename(f))
    for k, v in d.items(): print(k, v)
P
cd $OUT && tar czf x1.tgz --remove-files x-*.txt ncu-*; ls
