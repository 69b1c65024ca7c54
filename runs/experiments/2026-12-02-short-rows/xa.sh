#!/usr/bin/env bash
# xa: the short-row span kernels and the dispatcher's grid rule, first
# contact on the H200: build, validate every rowblock path, sanitize the
# new kernels, time rowblock and cuDNN against the copy on sweep shapes.
set -uo pipefail
exec > >(tee "$OUT/xa.log") 2>&1
for f in .carry/deb/*.deb; do dpkg -x "$f" /; done; ldconfig
t0=$(date +%s)
scripts/build.sh -DCMAKE_CUDA_ARCHITECTURES=90 > "$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
echo "build: $(( $(date +%s) - t0 )) s"; git log -1 --oneline 2>&1 | head -1
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv,noheader
S=$(sed -n 's/.*"\(70000x1,[^"]*\)"$/\1/p;' tests/CMakeLists.txt | head -1)
S2=$(grep -o '"1x1,5x3,300x8,[^"]*"' tests/CMakeLists.txt | tr -d '"'); S3=$(grep -o '"40x300000,[^"]*"' tests/CMakeLists.txt | tr -d '"'); S4=$(grep -o '"2x2000000,[^"]*"' tests/CMakeLists.txt | tr -d '"')
ALL="$S$S2$S3$S4"; echo "shapes: $ALL"
[ -n "${XA_SKIP_VALIDATE:-}" ] || timeout 120 build/softmax-evidence run --quiet --validate-only --strategies rowblock --shapes "$ALL,1x1048576,3x1000004,3x1000003,16x524288,1x16777216" 2>&1 | grep -E "FAIL|validation:"
echo "validate rc=${PIPESTATUS[0]}"
timeout 60 build/softmax-evidence run --quiet --validate-only --strategies rowblock --scale 1e36 --shapes "70000x1,3001x7,257x5,4097x33,100000x37,10x511,300x512,1x1,5x3,1x1048576,3x1000004" 2>&1 | tail -15
for tool in memcheck racecheck; do
  timeout 100 compute-sanitizer --tool $tool --error-exitcode 99 --print-limit 5 build/softmax-evidence run --quiet --validate-only --strategies rowblock --invocations 1 --shapes 300x8,3001x7,4097x33,999x100,10x511,1x7,5x3,3x1000004,1x1048576 2>&1 | grep -E "SUMMARY|rc=|FAIL" ; echo "$tool rc=${PIPESTATUS[0]}"
done
t1=$(date +%s)
timeout 200 build/softmax-evidence run --quiet --no-peers --protocol runs/experiments/2026-12-02-short-rows/xa-protocol.json --runs-dir "$OUT/runs" --run-dir-out "$OUT/dir" 2>&1 | tail -5
echo "run: $(( $(date +%s) - t1 )) s"
d=$(head -1 "$OUT/dir"); build/softmax-evidence table "$d" --format md > "$OUT/table.md" 2>&1; grep -E "rowblock|cudnn|copy" "$OUT/table.md" | cut -c1-200
tar -C "$(dirname "$d")" -czf "$OUT/xa-run.tar.gz" "$(basename "$d")" --exclude='*/source/*'
