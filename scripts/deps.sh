#!/usr/bin/env bash
# deps.sh run|test - what the build and a run need, or what the tests need
# (docs/SETUP.md).
#
# deps.sh run (scripts/main.sh): only what building and running a protocol
# needs: CMake 3.24+, Ninja, pkg-config, a C compiler, OpenSSL's libcrypto and
# jansson (CMakeLists.txt's REQUIRED ones), gnuplot and a font for the
# figures (not with SE_MAIN_FIGURES=0, which draws none), and the CUDA
# toolkit. Each is looked for where the build looks (PATH, pkg-config, and
# without pkg-config the headers and libraries in the compiler's and
# CMAKE_PREFIX_PATH's folders, as CMakeLists.txt's fallback does), on any
# Linux. Where something is missing: as root with
# apt-get (Debian/Ubuntu) it installs the missing packages; otherwise it prints
# the exact packages to install with apt-get (Debian/Ubuntu) and with dnf (the
# RHEL family) and exits 1. Nothing is installed when all is found.
#
# deps.sh test (scripts/test.sh): the above and the tests' own packages
# through apt-get (Debian/Ubuntu, root or sudo): cmocka, libarchive, Slurm and
# munge for tests/slurm, clang for the fuzzers of scripts/fuzz.sh, Python
# hypothesis for the merge.py fuzz test, zlib for verify --archive, Google
# Benchmark's compare.py and python3-venv for tests/cli/export_test.sh,
# Chromium and python3-markdown for the site and README screenshot tests.
set -euo pipefail
mode=${1:-}
case "$mode" in
    run|test) ;;
    *) echo "usage: scripts/deps.sh run|test" >&2; exit 2 ;;
esac

# The run's requirements: what is looked for | Debian/Ubuntu package | RHEL-family package.
requirements=(
    "cmake 3.24 or newer on PATH|cmake|cmake"
    "ninja on PATH|ninja-build|ninja-build"
    "pkg-config on PATH (or OpenSSL's and jansson's files found without it)|pkg-config|pkgconf-pkg-config"
    "a C compiler (cc) on PATH|gcc libc6-dev|gcc"
    "OpenSSL's libcrypto (pkg-config libcrypto)|libssl-dev|openssl-devel"
    "jansson (pkg-config jansson)|libjansson-dev|jansson-devel"
    "gnuplot on PATH (the figures)|gnuplot-nox|gnuplot"
    "a Sans font (fc-match Sans; the figures)|fonts-dejavu-core|dejavu-sans-fonts"
)

# has_lib HEADER LIB: HEADER and libLIB.so in the folders CMake and the
# compiler search (the standard ones, CPATH, LIBRARY_PATH, CMAKE_PREFIX_PATH).
has_lib() {
    local inc=(/usr/include /usr/local/include) lib=(/usr/lib /usr/lib64 /usr/local/lib /usr/local/lib64)
    local arch d p
    arch=$(cc -print-multiarch 2>/dev/null || true)
    [ -n "$arch" ] && { inc+=("/usr/include/$arch"); lib+=("/usr/lib/$arch"); }
    IFS=: read -ra p <<<"${CPATH:-}:${C_INCLUDE_PATH:-}"; inc+=("${p[@]}")
    IFS=: read -ra p <<<"${LIBRARY_PATH:-}:${LD_LIBRARY_PATH:-}"; lib+=("${p[@]}")
    IFS=: read -ra p <<<"${CMAKE_PREFIX_PATH:-}"
    for d in "${p[@]}"; do [ -n "$d" ] && { inc+=("$d/include"); lib+=("$d/lib" "$d/lib64"); }; done
    local h=0 l=0
    for d in "${inc[@]}"; do [ -n "$d" ] && [ -f "$d/$1" ] && h=1; done
    for d in "${lib[@]}"; do [ -n "$d" ] && compgen -G "$d/lib$2.so*" >/dev/null && l=1; done
    [ $h -eq 1 ] && [ $l -eq 1 ]
}
pc() { command -v pkg-config >/dev/null 2>&1 && pkg-config --exists "$1"; }

# found N: whether requirement N is met.
found() {
    case "$1" in
        0) command -v cmake >/dev/null 2>&1 &&
               cmake --version 2>/dev/null | awk 'NR == 1 { split($3, v, "."); exit !(v[1] > 3 || (v[1] == 3 && v[2] >= 24)) }' ;;
        1) command -v ninja >/dev/null 2>&1 ;;
        2) command -v pkg-config >/dev/null 2>&1 || { has_lib openssl/crypto.h crypto && has_lib jansson.h jansson; } ;;
        3) command -v cc >/dev/null 2>&1 ;;
        4) pc libcrypto || has_lib openssl/crypto.h crypto ;;
        5) pc jansson || has_lib jansson.h jansson ;;
        6) [ "${SE_MAIN_FIGURES:-1}" = 0 ] || command -v gnuplot >/dev/null 2>&1 ;;
        7) [ "${SE_MAIN_FIGURES:-1}" = 0 ] ||
               { command -v fc-match >/dev/null 2>&1 && [ -n "$(fc-match -f '%{file}' Sans 2>/dev/null)" ]; } ;;
    esac
}

missing_deb=() missing_rpm=() missing_what=()
check_run() {
    missing_deb=() missing_rpm=() missing_what=()
    local i what deb rpm
    for i in "${!requirements[@]}"; do
        found "$i" && continue
        IFS='|' read -r what deb rpm <<<"${requirements[$i]}"
        missing_what+=("$what")
        read -ra d <<<"$deb"; missing_deb+=("${d[@]}")
        read -ra r <<<"$rpm"; missing_rpm+=("${r[@]}")
    done
}

check_run
if [ ${#missing_what[@]} -gt 0 ]; then
    # As root, or for the tests through sudo as before; never for a run without root.
    sudo=none
    if [ "$(id -u)" -eq 0 ]; then sudo=""
    elif [ "$mode" = test ] && command -v sudo >/dev/null 2>&1; then sudo=sudo
    fi
    if [ "$sudo" != none ] && command -v apt-get >/dev/null 2>&1; then
        echo "deps: installing ${missing_deb[*]}"
        export DEBIAN_FRONTEND=noninteractive
        # A machine that reaches no package mirror says so below, with the list.
        $sudo apt-get update -qq || true
        $sudo apt-get install -y -qq --no-install-recommends "${missing_deb[@]}" ||
            echo "deps: apt-get could not install them" >&2
        check_run
    fi
fi
if [ ${#missing_what[@]} -gt 0 ]; then
    {
        echo "deps: missing what the build and a run need:"
        printf 'deps:   %s\n' "${missing_what[@]}"
        echo "deps: install them, then run this again:"
        echo "deps:   Debian/Ubuntu:  sudo apt-get install ${missing_deb[*]}"
        echo "deps:   RHEL family:    sudo dnf install ${missing_rpm[*]}"
        echo "deps: (RHEL 8/9, Rocky, Alma: ninja-build and some -devel packages need CodeReady Builder/CRB enabled)"
        echo "deps: a machine without gnuplot can still measure: SE_MAIN_FIGURES=0 scripts/main.sh draws no figures"
    } >&2
    exit 1
fi

if ! command -v nvcc >/dev/null 2>&1 && [ ! -x /usr/local/cuda/bin/nvcc ]; then
    echo "deps: nvcc not found on PATH or in /usr/local/cuda/bin: install the CUDA toolkit (12.x or 13.x)" \
         "with cuDNN 9 first" >&2
    exit 1
fi
[ "$mode" = run ] && exit 0

# The tests' own packages (Debian/Ubuntu), besides the run's above.
packages=(libcmocka-dev libarchive-dev zlib1g-dev python3-hypothesis clang chromium fonts-dejavu-core libbenchmark-tools python3-venv
          python3-markdown slurmctld slurmd slurm-client munge)
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "deps: installing the tests' packages ${missing[*]}"
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    export DEBIAN_FRONTEND=noninteractive
    $sudo apt-get update -qq
    $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
