#!/usr/bin/env bash
# ci-extra.sh [FUZZ_SECONDS] - the CI jobs that follow the plain tests
# (scripts/test.sh runs this after ctest in build/): (1) the C code built
# with AddressSanitizer and UndefinedBehaviorSanitizer in build-asan/
# (-DSE_SANITIZE=ON), its CPU tests and the no-GPU subcommands on
# runs/reference under it, leaks included; (2) every libFuzzer harness for
# FUZZ_SECONDS (default 20) each (scripts/fuzz.sh). Ends with
# "N passed, N failed"; exits non-zero on any failure. docs/FUZZING.md.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
fuzz_secs=${1:-20}
command -v nvcc >/dev/null 2>&1 || export PATH=/usr/local/cuda/bin:$PATH
passed=0 failed=0
step() { # step NAME COMMAND...: runs one check, counting it
    local name=$1; shift
    local t0=$SECONDS
    if "$@"; then echo "ci-extra: ok: $name ($((SECONDS - t0)) s)"; passed=$((passed + 1))
    else echo "ci-extra: FAILED: $name ($((SECONDS - t0)) s)"; failed=$((failed + 1)); fi
}

# protect_shadow_gap=0: the CUDA runtime maps memory where ASan keeps its gap.
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:protect_shadow_gap=0
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1

asan_build() {
    local arch=()
    if [ ! -f build-asan/CMakeCache.txt ]; then
        # The main build's architectures (the cache entry's type varies with
        # how it was given), else Hopper.
        local a
        a=$(sed -n 's/^CMAKE_CUDA_ARCHITECTURES:[A-Z]*=//p' build/CMakeCache.txt 2>/dev/null | head -n 1)
        arch=(-DCMAKE_CUDA_ARCHITECTURES="${a:-90}")
    fi
    cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Release -DSE_SANITIZE=ON "${arch[@]}" >/dev/null &&
        cmake --build build-asan -j "$(nproc)" >build-asan.log 2>&1 && rm -f build-asan.log ||
        { tail -30 build-asan.log; return 1; }
}
# The CPU tests that run our C code (the Python-only checks and the ones that
# need services or a browser already ran in build/; the hostile tests that
# bound peak RSS measure the plain build's memory, not ASan's shadow).
asan_ctest() {
    (cd build-asan && ctest -L cpu -j "$(nproc)" --output-on-failure \
        -E '^(bootstrap_|layers_|performance_reference_table|every_kernel_in|peers_script|slurm_|site_in_a_headless_browser|export_read_|hostile:json_parse_memory|hostile:saved_array_recheck_memory)')
}
# The no-GPU subcommands on the reference run, under the sanitizers.
asan_subcommands() {
    local bin=$root/build-asan/softmax-evidence ref=$root/runs/reference out
    out=$(mktemp -d) || return 1
    "$bin" verify --strict "$ref" >"$out/verify.txt" &&
        "$bin" table "$ref" >"$out/table.txt" &&
        "$bin" goals "$ref" --format md >"$out/goals.md" &&
        "$bin" answer "$ref" "$root"/runs/repeat/*/ >"$out/answer.txt" &&
        "$bin" trace "$ref" 4096x4096.megakernel -o "$out/mk.json" >"$out/trace.txt" &&
        "$bin" figures "$ref" "$out/figures" >"$out/figures.txt" &&
        "$bin" site "$ref" "$out/site" >"$out/site.txt" &&
        "$bin" verify "$out/site" >"$out/site-verify.txt" &&
        "$bin" compare "$ref" "$root"/runs/perf/*/ --format json >"$out/compare.json" &&
        "$bin" table "$ref" --format csv >"$out/table.csv" &&
        "$bin" export "$ref" --format nvbench -o "$out/nv.json" >"$out/export.txt" &&
        "$bin" export "$ref" --format gbench -o "$out/gb.json" >>"$out/export.txt"
    local rc=$?
    [ $rc -eq 0 ] || tail -20 "$out"/*.txt
    rm -rf "$out"
    return $rc
}

step "ASan+UBSan build (build-asan)" asan_build
if [ -x build-asan/softmax-evidence ]; then
    step "CPU tests under ASan+UBSan" asan_ctest
    step "verify, table, goals, answer, trace, figures, site, compare, export on runs/reference under ASan+UBSan" asan_subcommands
fi
step "libFuzzer harnesses, ${fuzz_secs} s each" scripts/fuzz.sh "$fuzz_secs"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
