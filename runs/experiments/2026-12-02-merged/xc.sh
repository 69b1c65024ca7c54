#!/usr/bin/env bash
# xc: the merged tree on the H200, once (about 6 minutes): build; the tiles
# check (task graph 2: packed, split and odd shapes, the eight tiled
# strategies validated and bitwise identical, traces, tile 1000, memcheck
# and racecheck, medians and G5: scripts/gpu-check-tiles.sh); rowblock's
# new paths (direct, float4, one column) validated, also at 1e36; the
# re-derivation check (host-generated input bits, checks/ in a run, a
# flipped value: scripts/gpu-check-rederive.sh). Every step has a limit.
set -uo pipefail
exec > >(tee "$OUT/xc.log") 2>&1
for f in .carry/deb/*.deb; do dpkg -x "$f" /; done; ldconfig
SECONDS=0
scripts/build.sh -DCMAKE_CUDA_ARCHITECTURES=90 > "$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
echo "build: ${SECONDS}s"
SECONDS=0; KEEP=$OUT/tiles-run timeout 230 scripts/gpu-check-tiles.sh > "$OUT/tiles.txt" 2>&1; echo "tiles rc=$? ${SECONDS}s"; grep -vE "^\s*$" "$OUT/tiles.txt" | tail -45
[ -d "$OUT/tiles-run" ] && tar -C "$OUT" -czf "$OUT/tiles-run.tgz" tiles-run && rm -rf "$OUT/tiles-run"
SECONDS=0; timeout 60 build/softmax-evidence run --quiet --validate-only --strategies rowblock,cudnn --shapes "8x37,3x7,9x100,300x4,70001x1,257x12,4097x33,1000x255,1000x20,999x100,300x512" 2>&1 | grep -E "FAIL|validation:"; echo "rowblock: ${SECONDS}s"
SECONDS=0; timeout 60 build/softmax-evidence run --quiet --validate-only --strategies rowblock --scale 1e36 --shapes "8x37,3x7,9x100,300x4,70001x1,257x12,4097x33,1000x255" 2>&1 | grep -E "FAIL|validation:"; echo "rowblock 1e36: ${SECONDS}s"
SECONDS=0; timeout 120 scripts/gpu-check-rederive.sh > "$OUT/rederive.txt" 2>&1; echo "rederive rc=$? ${SECONDS}s"; grep -E "^==|rederive:|FAIL|checks size" "$OUT/rederive.txt" | head -20
