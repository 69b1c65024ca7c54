#!/usr/bin/env bash
# build.sh - configures and builds into build/ (CMake + Ninja). Extra
# arguments go to CMake, e.g. -DCMAKE_CUDA_ARCHITECTURES=89.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v nvcc >/dev/null 2>&1 || export PATH=/usr/local/cuda/bin:$PATH
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release "$@"
cmake --build build -j "$(nproc)"
