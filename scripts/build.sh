#!/usr/bin/env bash
# build.sh [--configure-only] [--target T] [CMAKE_ARGS...] - configures and
# builds into build/ (CMake + Ninja). Extra arguments go to CMake, e.g.
# -DCMAKE_CUDA_ARCHITECTURES=89. Without one, the architecture of this
# machine's first GPU is used (nvidia-smi), else Hopper (sm_90); the kernels
# need compute capability 7.0 or newer. --configure-only stops after CMake's
# configure step; --target builds that target only (scripts/main.sh builds
# softmax-evidence, without the tests).
set -euo pipefail
cd "$(dirname "$0")/.."
configure_only=0 target=()
while [ $# -gt 0 ]; do
    case "$1" in
        --configure-only) configure_only=1; shift ;;
        --target) [ $# -ge 2 ] || { echo "build: --target needs a target name" >&2; exit 2; }
                  target=(--target "$2"); shift 2 ;;
        *) break ;;
    esac
done
command -v nvcc >/dev/null 2>&1 || export PATH=/usr/local/cuda/bin:$PATH
arch=()
if ! printf '%s\n' "$@" | grep -q CMAKE_CUDA_ARCHITECTURES; then
    cap=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d ' .' || true)
    if [[ "$cap" =~ ^[0-9]{2,3}$ ]]; then
        echo "build: compiling for this machine's GPU, sm_$cap"
        arch=(-DCMAKE_CUDA_ARCHITECTURES="$cap")
    elif [ ! -f build/CMakeCache.txt ]; then
        arch=(-DCMAKE_CUDA_ARCHITECTURES=90)
    fi
fi
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release "${arch[@]}" "$@"
[ "$configure_only" -eq 1 ] && { echo "build: configured build/ (--configure-only: nothing built)"; exit 0; }
cmake --build build -j "$(nproc)" "${target[@]}"
