#!/usr/bin/env bash
# deps.sh - installs, through apt-get, the Debian/Ubuntu packages the build
# and the tests need (Slurm and munge for tests/slurm, clang for the
# fuzzers of scripts/fuzz.sh, Python hypothesis for the merge.py fuzz test,
# zlib for verify --archive, Google Benchmark's compare.py and python3-venv for
# tests/cli/export_test.sh), and checks for the CUDA toolkit and cuDNN,
# which come with the CUDA installation. Installs only what is missing.
set -euo pipefail

packages=(cmake ninja-build pkg-config gcc clang libc6-dev libssl-dev libcmocka-dev libjansson-dev libarchive-dev zlib1g-dev
          gnuplot-nox chromium fonts-dejavu-core libbenchmark-tools python3-venv
          slurmctld slurmd slurm-client munge python3-hypothesis)

missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "deps: installing ${missing[*]}"
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    export DEBIAN_FRONTEND=noninteractive
    $sudo apt-get update -qq
    $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

if ! command -v nvcc >/dev/null 2>&1 && [ ! -x /usr/local/cuda/bin/nvcc ]; then
    echo "deps: nvcc not found: install the CUDA toolkit (12.x or 13.x) first" >&2
    exit 1
fi
