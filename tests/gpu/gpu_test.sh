#!/usr/bin/env bash
# gpu_test.sh - runs a GPU test, or skips it (exit 77, CTest's SKIP_RETURN_CODE)
# with the reason when this machine has no CUDA device or lacks the tool.
#
#   gpu_test.sh validate BINARY [run options...]
#   gpu_test.sh refuse RC SUBSTRING BINARY [run options...]
#   gpu_test.sh sanitize TOOL BINARY [run options...]   (memcheck, racecheck, synccheck)
set -u
mode=$1; shift
skip() { echo "SKIP: $*"; exit 77; }

has_gpu() {
    # The binary itself decides: exit 3 with "no CUDA device" means none.
    local out rc
    out=$("$1" run --shapes 1x1 --strategies stream --invocations 1 --quiet 2>&1); rc=$?
    if [ $rc -eq 3 ] && grep -q "no CUDA device" <<<"$out"; then
        skip "no CUDA device on this machine ($(grep -o 'cudaGetDeviceCount: [^,]*' <<<"$out"))"
    fi
}

case "$mode" in
validate)
    bin=$1; shift
    has_gpu "$bin"
    exec "$bin" run --quiet "$@"
    ;;
refuse)
    # refuse RC SUBSTRING BINARY ARGS: the run must stop with RC and SUBSTRING
    # before any kernel runs.
    want_rc=$1 want=$2 bin=$3; shift 3
    has_gpu "$bin"
    out=$("$bin" run --quiet "$@" 2>&1); rc=$?
    echo "$out"
    [ "$rc" -eq "$want_rc" ] && grep -qF -- "$want" <<<"$out" || { echo "FAIL: want exit $want_rc and '$want'"; exit 1; }
    ;;
sanitize)
    tool=$1; bin=$2; shift 2
    has_gpu "$bin"
    sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
    [ -x "$sanitizer" ] || skip "compute-sanitizer not found"
    log=$(mktemp); trap 'rm -f "$log"' EXIT
    "$sanitizer" --tool "$tool" --error-exitcode 99 --print-limit 20 "$bin" run --quiet "$@" >"$log" 2>&1
    rc=$?
    cat "$log"
    summary=$(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$log" | tail -1)
    echo "compute-sanitizer $tool: ${summary:-no summary line} (exit $rc)"
    [ $rc -eq 0 ] || exit 1
    ;;
*)
    echo "usage: gpu_test.sh validate|sanitize ..." >&2; exit 2 ;;
esac
