#!/usr/bin/env bash
# offline-peers.sh - the optional peers' Python packages (docs/PEERS.md) for
# a GPU machine that cannot reach PyPI: packed on a machine that can, carried
# over in parts of at most 16 MiB (SE_PEERS_PART_BYTES), unpacked on the GPU machine.
#
#   scripts/offline-peers.sh pack DIR      (a machine with PyPI: writes DIR/peers.tar.xz.NN
#                                           and DIR/SHA256SUMS)
#   scripts/offline-peers.sh install DIR TARGET   (the GPU machine: checks every part's
#                                           SHA-256, unpacks into TARGET; then
#                                           export PYTHONPATH=TARGET)
#
# pack installs the wheels with pip --target for the GPU machine's Python
# (PEERS_PYTHON_VERSION, 3.12 unless set) and Linux x86_64, without their
# dependencies: PyTorch, Triton, NumPy, einops, protobuf and the CUDA
# Python bindings (cuda-bindings 12.8 or newer) are taken to be there
# already, as in PyTorch's CUDA images. FlashInfer's wheel is mostly CUDA sources for kernels other
# than its softmax; only its Python files, headers and the sources of the
# sampling module it compiles on first use are kept (some 18 MB compressed
# instead of 715 MB unpacked). The versions are those of the reference run
# (peers.json: environment.peer_packages).
set -euo pipefail

PACKAGES=(liger-kernel==0.8.5 quack-kernels==0.6.5 nvidia-cutlass-dsl==4.8.1
          nvidia-cutlass-dsl-libs-core==4.8.1 nvidia-cutlass-dsl-libs-base==4.8.1
          nvidia-cutlass-dsl-libs-cu13==4.8.1
          apache-tvm-ffi==0.1.15.post2 torch-c-dlpack-ext==0.1.5 cuda-tile==1.7.0
          flashinfer-python==0.7.4)
PART_BYTES=${SE_PEERS_PART_BYTES:-16M} # a call of a 64 MiB limit also takes the tree (~46 MB)

usage() {
    sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
}

die() { echo "offline-peers: $*" >&2; exit 1; }

pack() {
    local out=$1 pyver=${PEERS_PYTHON_VERSION:-3.12}
    [[ "$pyver" =~ ^3\.[0-9]+$ ]] || die "PEERS_PYTHON_VERSION: expected 3.N, got '$pyver'"
    [ ! -e "$out" ] || [ -z "$(ls -A "$out")" ] || die "$out: exists and is not empty"
    mkdir -p "$out"
    work=$(mktemp -d "${TMPDIR:-/tmp}/se-offline-peers-XXXXXX") # global: the trap runs after pack returns
    trap 'rm -rf "$work"' EXIT
    local plat=()
    for p in manylinux_2_17 manylinux_2_24 manylinux_2_27 manylinux_2_28 manylinux_2_31 \
             manylinux_2_34 manylinux_2_35 manylinux2014 manylinux1; do
        plat+=(--platform "${p}_x86_64")
    done
    echo "offline-peers: downloading ${#PACKAGES[@]} wheels for Python $pyver"
    python3 -m pip download -q --no-deps --only-binary=:all: --python-version "$pyver" \
        --implementation cp "${plat[@]}" -d "$work/wheels" "${PACKAGES[@]}"
    python3 -m pip install -q --no-deps --no-index --no-compile --only-binary=:all: \
        --python-version "$pyver" --implementation cp "${plat[@]}" \
        --target "$work/site" "$work"/wheels/*.whl
    # FlashInfer: Python, headers, the whole of its CCCL (whose C++ headers
    # have no extension: cuda/std/type_traits, __config; without them the
    # sampling module's JIT build fails, as it did in reference run
    # 20261201T083109Z) and the three sources of its sampling module
    # (flashinfer/jit/sampling.py); the other kernels' sources and prebuilt
    # backends stay behind.
    (cd "$work/site" && find flashinfer -type f ! \( -name '*.py' -o -name '*.h' -o -name '*.cuh' \
        -o -name '*.hpp' -o -name '*.inl' -o -name '*.inc' -o -path 'flashinfer/data/cccl/*' \
        -o -path 'flashinfer/data/csrc/sampling.cu' \
        -o -path 'flashinfer/data/csrc/renorm.cu' \
        -o -path 'flashinfer/data/csrc/flashinfer_sampling_binding.cu' \) -delete)
    [ -f "$work/site/flashinfer/data/csrc/sampling.cu" ] ||
        die "flashinfer: data/csrc/sampling.cu not in the wheel: its layout changed, update the trim"
    [ -f "$work/site/flashinfer/data/cccl/libcudacxx/include/cuda/std/type_traits" ] ||
        die "flashinfer: data/cccl/libcudacxx/include/cuda/std/type_traits not kept: its layout changed, update the trim"
    (cd "$work/site" && tar cf - --sort=name .) | xz -T0 --x86 --lzma2=preset=6 -c |
        split -b "$PART_BYTES" -d -a 2 - "$out/peers.tar.xz."
    (cd "$out" && sha256sum peers.tar.xz.* > SHA256SUMS)
    printf '%s\n' "${PACKAGES[@]}" > "$out/PACKAGES"
    echo "offline-peers: $(ls "$out"/peers.tar.xz.* | wc -l) parts in $out ($(du -sh "$out" | cut -f1))"
}

install() {
    local dir=$1 target=$2
    [ -f "$dir/SHA256SUMS" ] || die "$dir/SHA256SUMS: missing (made by 'pack')"
    # Every part listed, every listed part present and intact, no other part.
    local listed
    listed=$(awk '{print $2}' "$dir/SHA256SUMS")
    grep -qvE '^peers\.tar\.xz\.[0-9]{2}$' <<<"$listed" &&
        die "$dir/SHA256SUMS: lists a file that is not a part: $(grep -vE '^peers\.tar\.xz\.[0-9]{2}$' <<<"$listed" | head -1)"
    for f in "$dir"/peers.tar.xz.*; do
        [ -e "$f" ] || die "$dir: no parts (peers.tar.xz.NN)"
        grep -qxF "$(basename "$f")" <<<"$listed" || die "$f: not listed in $dir/SHA256SUMS"
    done
    (cd "$dir" && sha256sum --quiet -c SHA256SUMS) || die "$dir: a part is missing or differs from SHA256SUMS"
    mkdir -p "$target"
    local parts=()
    while read -r name; do parts+=("$dir/$name"); done < <(sort <<<"$listed")
    cat "${parts[@]}" | xz -d | tar xf - -C "$target" --no-same-owner ||
        die "$dir: the parts do not unpack into $target"
    # A .pth file is read only in a site directory, not on PYTHONPATH: the
    # CUTLASS DSL's (nvidia_cutlass_dsl_packages.pth) adds its dsl_packages.
    local path=$target
    [ ! -d "$target/nvidia_cutlass_dsl/dsl_packages" ] || path=$path:$target/nvidia_cutlass_dsl/dsl_packages
    echo "offline-peers: unpacked into $target; export PYTHONPATH=$path\${PYTHONPATH:+:\$PYTHONPATH}"
}

case "${1:-}" in
    pack) [ $# -eq 2 ] || usage; pack "$2" ;;
    install) [ $# -eq 3 ] || usage; install "$2" "$3" ;;
    *) usage ;;
esac
