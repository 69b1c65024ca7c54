#!/usr/bin/env bash
# fuzz.sh [SECONDS] [HARNESS...] - builds the libFuzzer harnesses of
# tests/fuzz with clang into build-fuzz/ (-DSE_FUZZ=ON; ASan and UBSan) and
# runs each for SECONDS (default 20) from its seeds, keeping what it finds
# in build-fuzz/corpus/<harness>/ (so longer runs build on earlier ones) and
# crashes in build-fuzz/crashes/; then the Python harnesses (Hypothesis:
# merge.py's inputs, the Slurm scripts' arguments) as long, their example
# databases in build-fuzz/corpus/<harness>/. Prints each harness's
# executions and coverage, then "N passed, N failed"; exits non-zero on any
# finding. docs/FUZZING.md. Example of a long run: scripts/fuzz.sh 3600
set -uo pipefail
cd "$(dirname "$0")/.."
secs=${1:-20}; shift || true
harnesses=("$@"); [ ${#harnesses[@]} -gt 0 ] || harnesses=(protocol manifest samples trace verify remote sign archive merge slurm_args)
command -v nvcc >/dev/null 2>&1 || export PATH=/usr/local/cuda/bin:$PATH
cc=$(command -v clang || true)
if [ -z "$cc" ]; then echo "fuzz: clang not found (scripts/deps.sh installs it)"; echo "0 passed, 1 failed"; exit 1; fi
if ! { cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_COMPILER="$cc" \
         -DSE_FUZZ=ON -DSE_BUILD_TESTS=OFF ${CMAKE_CUDA_ARCHITECTURES:+-DCMAKE_CUDA_ARCHITECTURES=$CMAKE_CUDA_ARCHITECTURES} \
         >build-fuzz.log 2>&1 || { [ -f build-fuzz/CMakeCache.txt ] && cmake build-fuzz >>build-fuzz.log 2>&1; }; } ||
   ! cmake --build build-fuzz -j "$(nproc)" --target fuzzers >>build-fuzz.log 2>&1; then
    tail -30 build-fuzz.log; echo "fuzz: the build failed (build-fuzz.log)"; echo "0 passed, 1 failed"; exit 1
fi
rm -f build-fuzz.log
dir=build-fuzz/tests/fuzz
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
# The Python harnesses run with a python3 that has Hypothesis: the one on
# PATH, else Debian's (python3-hypothesis, scripts/deps.sh).
py=""
for p in python3 /usr/bin/python3; do
    if command -v "$p" >/dev/null 2>&1 && "$p" -c 'import hypothesis' 2>/dev/null; then py=$p; break; fi
done
passed=0 failed=0
for h in "${harnesses[@]}"; do
    corpus=build-fuzz/corpus/$h crashes=build-fuzz/crashes/$h/
    mkdir -p "$corpus" "$crashes"
    log=build-fuzz/fuzz_$h.log
    case $h in
        merge | slurm_args)
            if [ -z "$py" ]; then
                echo "fuzz_$h: FAILED: no python3 with Hypothesis (scripts/deps.sh installs python3-hypothesis)"
                failed=$((failed + 1))
                continue
            fi
            "$py" "tests/fuzz/fuzz_$h.py" "$secs" "$PWD" "$corpus" >"$log" 2>&1
            rc=$?
            if [ "$rc" -eq 0 ]; then
                tail -n 1 "$log"
                passed=$((passed + 1))
            else
                echo "fuzz_$h: FAILED (exit $rc), log $log:"; grep -E "Falsifying|Error|assert" "$log" | head -5
                failed=$((failed + 1))
            fi
            continue
            ;;
    esac
    # fuzz_archive and fuzz_sign make their seeds at start (a real archive,
    # a real signature): one run with -runs=0 writes them into the corpus.
    case $h in archive | sign) SE_FUZZ_SEED_OUT=$corpus "$dir/fuzz_$h" -runs=0 >/dev/null 2>&1 ;; esac
    # fuzz_verify's seeds are whole files of a run (up to ~50 kB); fuzz_archive's
    # a whole archive (its tar stream is 2 MB).
    maxlen=4096
    case $h in verify | remote) maxlen=65536 ;; archive) maxlen=4194304 ;; esac
    seeds=$dir/corpus/$h
    [ -d "$seeds" ] || seeds=""
    "$dir/fuzz_$h" -max_total_time="$secs" -timeout=60 -rss_limit_mb=2048 -max_len="$maxlen" \
        -print_final_stats=1 -artifact_prefix="$crashes" "$corpus" ${seeds:+"$seeds"} >"$log" 2>&1
    rc=$?
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
    cov=$(grep -ao 'cov: [0-9]* ft: [0-9]*' "$log" | tail -1) # -a: a harness may print its input's bytes
    if [ "$rc" -eq 0 ]; then
        echo "fuzz_$h: ok: ${execs:-?} executions in ${secs} s (${speed:-?} exec/s), ${cov:-no coverage line}, corpus $(ls "$corpus" | wc -l) inputs"
        passed=$((passed + 1))
    else
        echo "fuzz_$h: FAILED (exit $rc), log $log, inputs in $crashes:"; grep -aE "ERROR|SUMMARY|runtime error" "$log" | head -5
        failed=$((failed + 1))
    fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
