#!/usr/bin/env bash
# xb: rowblock's float4 register kernels (rows of a multiple of 4 columns)
# and the one-column kernel: validate, sanitize, time against the copy and
# cuDNN on the sweep's short rows.
set -uo pipefail
exec > >(tee "$OUT/xb.log") 2>&1
for f in .carry/deb/*.deb; do dpkg -x "$f" /; done; ldconfig
scripts/build.sh -DCMAKE_CUDA_ARCHITECTURES=90 > "$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
S=$(grep -o '"70000x1,[^"]*"' tests/CMakeLists.txt | tr -d '"'); S2=$(grep -o '"65536x64,[^"]*"' tests/CMakeLists.txt | tr -d '"')
SECONDS=0; timeout 90 build/softmax-evidence run --quiet --validate-only --strategies rowblock --shapes "$S$S2,1x1,5x3,2x9,7x1001" 2>&1 | grep -E "FAIL|validation:"; echo "rc=${PIPESTATUS[0]} ${SECONDS}s"
SECONDS=0; timeout 90 build/softmax-evidence run --quiet --validate-only --strategies rowblock --scale 1e36 --shapes "$S$S2" 2>&1 | grep -E "FAIL|validation:"; echo "rc=${PIPESTATUS[0]} ${SECONDS}s"
for tool in memcheck racecheck; do
  timeout 100 compute-sanitizer --tool $tool --error-exitcode 99 --print-limit 5 build/softmax-evidence run --quiet --validate-only --strategies rowblock --invocations 1 --shapes 70001x1,300x4,257x12,1000x20,999x100,1000x256,300x512,3001x7,4097x33 2>&1 | grep -E "SUMMARY|FAIL" ; echo "$tool rc=${PIPESTATUS[0]}"
done
timeout 150 build/softmax-evidence run --quiet --no-peers --protocol runs/experiments/2026-12-02-short-rows/xb-protocol.json --runs-dir "$OUT/runs" --run-dir-out "$OUT/dir" 2>&1 | tail -2
d=$(head -1 "$OUT/dir"); build/softmax-evidence table "$d" --format md > "$OUT/table.md" 2>&1; grep -E "rowblock|cudnn|copy" "$OUT/table.md" | cut -d'|' -f2,3,4,9
