#!/usr/bin/env bash
# multirun.sh K [--gap SECONDS] [--out DIR] [RUN ARGS...] - K separate runs of
# one protocol, for an answer that carries the spread between runs
# (docs/TIMING.md, "Several runs"). Each run is its own process
# (`softmax-evidence run --runs-dir DIR RUN ARGS...`), started SECONDS after
# the previous one finished (default 120), so the runs are spread over
# several minutes; with several GPUs the runs go round robin over them
# (CUDA_VISIBLE_DEVICES set per run; the GPUs are those of
# CUDA_VISIBLE_DEVICES if set, else nvidia-smi's). The runs land in DIR
# (default runs/set-<UTC start>), and DIR/runset.json (bundle/runset.h)
# lists them, written only once all K runs succeeded. Then:
#   softmax-evidence answer --set DIR/runset.json
#   softmax-evidence compare --record-floor FLOOR.json --a-set DIR/runset.json
# Example: scripts/multirun.sh 5 --gap 120 --protocol protocol/repeat.json
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${SE_BIN:-build/softmax-evidence}
usage() { echo "usage: scripts/multirun.sh K [--gap SECONDS] [--out DIR] [RUN ARGS...]" >&2; exit 2; }
[ $# -ge 1 ] || usage
k=$1; shift
[[ "$k" =~ ^[0-9]+$ ]] && [ "$k" -ge 1 ] && [ "$k" -le 256 ] ||
    { echo "multirun: K: '$k' is not a whole number from 1 to 256" >&2; exit 2; }
gap=120 out=""
while [ $# -gt 0 ]; do
    case "$1" in
        --gap) [ $# -ge 2 ] || usage
               [[ "$2" =~ ^[0-9]+$ ]] && [ "$2" -le 86400 ] ||
                   { echo "multirun: --gap: '$2' is not a whole number of seconds from 0 to 86400" >&2; exit 2; }
               gap=$2; shift 2 ;;
        --out) [ $# -ge 2 ] && [ -n "$2" ] || usage; out=$2; shift 2 ;;
        *) break ;;
    esac
done
for a in "$@"; do
    case "$a" in --runs-dir|--runs-dir=*|--run-dir-out|--run-dir-out=*|--device|--device=*)
        echo "multirun: $a is set by multirun.sh itself (one folder, one GPU per run)" >&2; exit 2 ;;
    esac
done
[ -x "$bin" ] || { echo "multirun: $bin not found; run scripts/build.sh" >&2; exit 1; }
if [ -n "${CUDA_VISIBLE_DEVICES:-}" ]; then
    IFS=, read -r -a gpus <<<"$CUDA_VISIBLE_DEVICES"
else
    mapfile -t gpus < <(nvidia-smi --query-gpu=index --format=csv,noheader 2>/dev/null | tr -d ' ' || true)
fi
[ "${#gpus[@]}" -ge 1 ] || gpus=(0)
start=$(date -u +%Y%m%dT%H%M%SZ)
out=${out:-runs/set-$start}
[ ! -e "$out/runset.json" ] || { echo "multirun: $out/runset.json exists; choose another --out" >&2; exit 1; }
mkdir -p "$out"
echo "multirun: $k runs into $out, ${gap}s apart, on GPU(s) ${gpus[*]}" >&2
names=() devices=()
tmp=$(mktemp); trap 'rm -f "$tmp"' EXIT
for ((i = 0; i < k; i++)); do
    if [ "$i" -gt 0 ] && [ "$gap" -gt 0 ]; then sleep "$gap"; fi
    g=${gpus[$((i % ${#gpus[@]}))]}
    echo "multirun: run $((i + 1)) of $k on GPU $g" >&2
    rm -f "$tmp"
    if ! CUDA_VISIBLE_DEVICES=$g "$bin" run --runs-dir "$out" --run-dir-out "$tmp" "$@"; then
        echo "multirun: run $((i + 1)) of $k failed; $out/runset.json not written (runs so far: ${names[*]:-none})" >&2
        exit 1
    fi
    [ -s "$tmp" ] || { echo "multirun: run $((i + 1)) wrote no run directory" >&2; exit 1; }
    d=$(head -1 "$tmp")
    names+=("$(basename "$d")")
    devices+=("$g")
    # Two runs in one second would share a run id: the next starts a second later at least.
    sleep 1
done
python3 - "$out/runset.json.tmp" "$start" "$gap" "${#names[@]}" "${names[@]}" "${devices[@]}" "$*" <<'PY'
import json, sys
path, start, gap, n = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
names, devices, args = sys.argv[5:5 + n], sys.argv[5 + n:5 + 2 * n], sys.argv[5 + 2 * n]
doc = {"format": "softmax-evidence-runset", "version": 1, "created_utc": start, "gap_s": gap,
       "command": "scripts/multirun.sh %d --gap %d %s" % (n, gap, args),
       "devices": devices, "runs": names}
open(path, "w").write(json.dumps(doc, indent=2) + "\n")
PY
mv "$out/runset.json.tmp" "$out/runset.json"
echo "multirun: $out/runset.json lists ${names[*]}" >&2
echo "$out/runset.json"
