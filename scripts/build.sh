#!/usr/bin/env bash
# build.sh - configures and builds into build/ (CMake + Ninja). Extra
# arguments go to CMake, e.g. -DCMAKE_CUDA_ARCHITECTURES=89. Without one, the
# architecture of this machine's first GPU is used (nvidia-smi), else Hopper
# (sm_90); the kernels need compute capability 7.0 or newer.
set -euo pipefail
cd "$(dirname "$0")/.."
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
cmake --build build -j "$(nproc)"
