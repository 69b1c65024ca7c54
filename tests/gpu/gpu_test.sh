#!/usr/bin/env bash
# gpu_test.sh - runs a GPU test, or skips it (exit 77, CTest's SKIP_RETURN_CODE)
# with the reason when this machine has no CUDA device or lacks the tool.
#
#   gpu_test.sh validate BINARY [run options...]
#   gpu_test.sh refuse RC SUBSTRING BINARY [run options...]
#   gpu_test.sh bundle BINARY PROTOCOL   (with the PyTorch peers where torch has CUDA)
#   gpu_test.sh interrupt BINARY
#   gpu_test.sh sanitize TOOL BINARY [run options...]   (memcheck, racecheck, synccheck)
set -u
mode=$1; shift
skip() { echo "SKIP: $*"; exit 77; }

has_gpu() {
    # The binary itself decides: exit 6 means no CUDA device.
    local out rc
    out=$("$1" run --shapes 1x1 --strategies stream --invocations 1 --quiet --validate-only 2>&1); rc=$?
    if [ $rc -eq 6 ]; then
        skip "no CUDA device on this machine ($(grep -o 'cudaGetDeviceCount: [^,]*' <<<"$out"))"
    fi
}

case "$mode" in
validate)
    bin=$1; shift
    has_gpu "$bin"
    exec "$bin" run --quiet --validate-only "$@"
    ;;
refuse)
    # refuse RC SUBSTRING BINARY ARGS: the run must stop with RC and SUBSTRING
    # before any kernel runs.
    want_rc=$1 want=$2 bin=$3; shift 3
    has_gpu "$bin"
    out=$("$bin" run --quiet --validate-only "$@" 2>&1); rc=$?
    echo "$out"
    [ "$rc" -eq "$want_rc" ] && grep -qF -- "$want" <<<"$out" || { echo "FAIL: want exit $want_rc and '$want'"; exit 1; }
    ;;
sanitize|sanitize-run)
    # sanitize: validation only; sanitize-run: a whole run of a small protocol
    # (validation, timing without the blocking kernel, traces, bundle).
    tool=$1; bin=$2; shift 2
    has_gpu "$bin"
    sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
    [ -x "$sanitizer" ] || skip "compute-sanitizer not found"
    log=$(mktemp); runs=$(mktemp -d); trap 'rm -rf "$log" "$runs"' EXIT
    if [ "$mode" = sanitize ]; then
        set -- run --quiet --validate-only "$@"
    else
        # No peers: python and torch are not what is being sanitized.
        set -- run --quiet --no-blocking-kernel --no-peers --runs-dir "$runs" --protocol "$@"
    fi
    "$sanitizer" --tool "$tool" --error-exitcode 99 --print-limit 20 "$bin" "$@" >"$log" 2>&1
    rc=$?
    cat "$log"
    summary=$(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$log" | tail -1)
    echo "compute-sanitizer $tool: ${summary:-no summary line} (exit $rc)"
    [ $rc -eq 0 ] || exit 1
    ;;
bundle)
    # bundle BINARY PROTOCOL: a full run into a fresh runs folder, then verify.
    bin=$1 protocol=$2
    has_gpu "$bin"
    runs=$(mktemp -d); trap 'rm -rf "$runs"' EXIT
    # As a Slurm array task would run it: the run records where it ran.
    SLURM_JOB_ID=4242 SLURM_ARRAY_JOB_ID=4240 SLURM_ARRAY_TASK_ID=2 \
        "$bin" run --quiet --protocol "$protocol" --runs-dir "$runs" --save-arrays || exit 1
    dirs=("$runs"/2*)
    python3 - "${dirs[0]}" "${CUDA_VISIBLE_DEVICES-}" "$(hostname)" <<'EOF2' || exit 1
import json, os, sys
run, cvd, host = sys.argv[1], sys.argv[2] or None, sys.argv[3]
env = json.load(open(os.path.join(run, "environment.json")))
pl, r = env.get("placement"), json.load(open(os.path.join(run, "run.json")))
want = {"slurm_job_id": "4242", "slurm_array_job_id": "4240", "slurm_array_task_id": "2",
        "hostname": host, "cuda_visible_devices": cvd, "device_ordinal": env["gpu"]["ordinal"]}
if pl != want:
    sys.exit(f"FAIL: environment.json placement {pl}, want {want}")
if "arrays_max_bytes" not in r or r["arrays_max_bytes"] is not None:
    sys.exit(f"FAIL: run.json arrays_max_bytes {r.get('arrays_max_bytes', 'absent')}: --save-arrays saves every case (null)")
print("placement and arrays_max_bytes recorded:", pl)
EOF2
    [ ${#dirs[@]} -eq 1 ] && [ -f "${dirs[0]}/MANIFEST.sha256" ] || { echo "FAIL: expected one complete run in $runs"; ls -la "$runs"; exit 1; }
    (cd "${dirs[0]}" && sha256sum -c --quiet MANIFEST.sha256) || { echo "FAIL: sha256sum -c"; exit 1; }
    "$bin" verify --strict "${dirs[0]}" || exit 1
    # The PyTorch peers (docs/PEERS.md): measured where python3 has torch
    # with CUDA, skipped (saying why) elsewhere; the table shows them.
    [ -f "${dirs[0]}/peers.json" ] || { echo "FAIL: no peers.json"; exit 1; }
    table=$("$bin" table "${dirs[0]}") || { echo "FAIL: table"; exit 1; }
    echo "$table" | tail -4
    if python3 -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; then
        grep -q '"status": "ok"' "${dirs[0]}/peers.json" || { echo "FAIL: torch has CUDA here, yet the peers were skipped"; grep reason "${dirs[0]}/peers.json"; exit 1; }
        for p in torch-eager torch-compile torch-softmax; do
            grep -qE "^32x4096 +$p +[0-9]" <<<"$table" || { echo "FAIL: no $p row for 32x4096 in the table"; exit 1; }
        done
    else
        grep -q '"status": "skipped"' "${dirs[0]}/peers.json" || { echo "FAIL: no torch with CUDA here, yet the peers did not say skipped"; exit 1; }
    fi
    ;;
interrupt)
    # interrupt BINARY: SIGINT in the middle of a default run leaves no run
    # directory, complete-looking or not, and says so.
    bin=$1
    has_gpu "$bin"
    runs=$(mktemp -d); trap 'rm -rf "$runs"' EXIT
    touch "$runs/earlier-run-marker"
    "$bin" run --quiet --runs-dir "$runs" >"$runs.out" 2>&1 &
    pid=$!
    sleep 4
    kill -INT "$pid"
    wait "$pid"; rc=$?
    out=$(cat "$runs.out"); rm -f "$runs.out"
    echo "$out" | tail -3
    left=$(ls -A "$runs")
    [ "$rc" -ne 0 ] || { echo "FAIL: interrupted run exited 0"; exit 1; }
    grep -q "no run was written" <<<"$out" || { echo "FAIL: no message saying no run was written"; exit 1; }
    [ "$left" = "earlier-run-marker" ] || { echo "FAIL: left behind: $left"; exit 1; }
    echo "interrupted run: exit $rc, nothing left behind, earlier content untouched"
    ;;
*)
    echo "usage: gpu_test.sh validate|sanitize ..." >&2; exit 2 ;;
esac
