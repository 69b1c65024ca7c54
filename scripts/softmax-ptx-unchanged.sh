#!/usr/bin/env bash
# softmax-ptx-unchanged.sh [BASE] - compiles the RMS-scaled softmax's kernel
# files (phases, fusion, megakernel, rowblock*, controls, inputs, prescale)
# to PTX for sm_90 at BASE (default: where this branch left main, git
# merge-base HEAD main) and in the working tree, and
# compares them, with two differences masked: the byte size of a kernel's
# parameter (se_gpu_problem gained LayerNorm's fields at its end) and the
# per-path hash nvcc puts in internal symbol names. Identical PTX is
# identical machine code, so the softmax's outputs and hashes cannot have
# changed. Needs nvcc only (no GPU). Exits 1 when a file's PTX differs.
set -uo pipefail
cd "$(dirname "$0")/.."
base=${1:-$(git merge-base HEAD main)}
command -v nvcc >/dev/null 2>&1 || export PATH=/usr/local/cuda/bin:$PATH
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/base"
git archive "$base" src | tar -x -C "$work/base" || { echo "FAIL: cannot read $base"; exit 1; }
fails=0
for f in phases fusion megakernel rowblock rowblock_block rowblock_grid rowblock_rows controls inputs prescale; do
    for side in base new; do
        root=$([ $side = base ] && echo "$work/base" || pwd)
        nvcc -O3 -DNDEBUG -arch=compute_90 -I"$root/src" -x cu -ptx "$root/src/gpu/$f.cu" \
            -o "$work/$f.$side.ptx" || { echo "FAIL: $f.cu ($side) does not compile"; fails=$((fails + 1)); continue 2; }
        sed -E 's/(_param_[0-9]+)\[[0-9]+\]/\1[N]/; s/_INTERNAL_[0-9a-f]{8}_/_INTERNAL_H_/g' \
            "$work/$f.$side.ptx" >"$work/$f.$side.norm"
    done
    if cmp -s "$work/$f.base.norm" "$work/$f.new.norm"; then
        echo "$f.cu: PTX identical to $base's ($(wc -l <"$work/$f.new.ptx") lines)"
    else
        echo "FAIL: $f.cu: PTX differs from $base's:"
        diff "$work/$f.base.norm" "$work/$f.new.norm" | head -n 10
        fails=$((fails + 1))
    fi
done
[ "$fails" -eq 0 ]
