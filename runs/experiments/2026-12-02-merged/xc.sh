#!/usr/bin/env bash
# xc: the merged tree on the H200, once: build; every strategy validated on
# packed, split and odd shapes (the tiled ones bitwise identical); rowblock's
# new paths at 1e36; memcheck and racecheck on odd shapes; the
# re-derivation check (host-generated input bits, checks/ in a run, a
# flipped value); the run write path (issue 34). Every step has a time limit.
set -uo pipefail
exec > >(tee "$OUT/xc.log") 2>&1
for f in .carry/deb/*.deb; do dpkg -x "$f" /; done; ldconfig
SECONDS=0
scripts/build.sh -DCMAKE_CUDA_ARCHITECTURES=90 > "$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
echo "build: ${SECONDS}s"; git log -1 --format=%h 2>/dev/null
V="1x1,1x7,3x4097,5xT+1,8x4096,100000x37,65536x64,1000x1000,2x100003,8x1048573,4096x4096,17x2000001,17x2000000,8x37,3x100,300x512,256x1048576"
SECONDS=0; timeout 200 build/softmax-evidence run --quiet --validate-only --invocations 1 --shapes "$V" > "$OUT/validate.txt" 2>&1
echo "validate all: rc=$? ${SECONDS}s"; grep -E "FAIL|validation:" "$OUT/validate.txt"; grep -E "^(100000x37|17x2000001|1000x1000) +(stream|megakernel) " "$OUT/validate.txt" | cut -c1-150
SECONDS=0; timeout 60 build/softmax-evidence run --quiet --validate-only --strategies rowblock --scale 1e36 --shapes "8x37,3x7,9x100,300x4,70001x1,257x12,4097x33,1000x255" 2>&1 | grep -E "FAIL|validation:"; echo "1e36: ${SECONDS}s"
for tool in memcheck racecheck; do
  SECONDS=0; timeout 150 compute-sanitizer --tool $tool --error-exitcode 99 --print-limit 5 build/softmax-evidence run --quiet --validate-only --invocations 1 --shapes 3x37,17x4097,300x9,8x37,2x100003 2>&1 | grep -E "SUMMARY|FAIL|validation:"; echo "$tool rc=${PIPESTATUS[0]} ${SECONDS}s"
done
SECONDS=0; timeout 150 scripts/gpu-check-rederive.sh > "$OUT/rederive.txt" 2>&1; echo "rederive rc=$? ${SECONDS}s"; grep -E "^==|rederive:|FAIL|ok|caught" "$OUT/rederive.txt" | head -20
SECONDS=0; SE_CHECK_NO_PROFILE=1 timeout 90 scripts/gpu-check-secfiles.sh > "$OUT/secfiles.txt" 2>&1; echo "secfiles rc=$? ${SECONDS}s"; tail -3 "$OUT/secfiles.txt"
