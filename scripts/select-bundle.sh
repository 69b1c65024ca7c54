#!/usr/bin/env bash
# select-bundle.sh RUN [ARCHIVE_DIR] [-- ARCHIVE OPTIONS...] - turns a complete
# run into its selected bundle (docs/ARCHIVE.md): writes the complete run as
# ARCHIVE_DIR/<run_id>.tar.gz (default: archives/ at the repository's top,
# which git ignores: the archives are kept outside the repository) with its
# .sha256, leaves the selected files in RUN (by default: the saved arrays
# and traces of at least 256 KiB become remote-only, except the traces the
# figures draw; pass archive's --remote-only/--keep options after --), then
# checks `verify --strict RUN` and `verify RUN --archive`.
# SE_BIN names the program (default build/softmax-evidence).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
bin=${SE_BIN:-$top/build/softmax-evidence}
if [ $# -lt 1 ] || [ "${1-}" = "--help" ]; then
    echo "usage: select-bundle.sh RUN [ARCHIVE_DIR] [-- ARCHIVE OPTIONS...]" >&2
    exit 2
fi
run=$1; shift
dir=$top/archives
if [ $# -gt 0 ] && [ "$1" != "--" ]; then dir=$1; shift; fi
[ "${1-}" = "--" ] && shift
[ -d "$run" ] || { echo "select-bundle.sh: RUN: $run is not a folder" >&2; exit 2; }
[ -x "$bin" ] || { echo "select-bundle.sh: $bin not built (scripts/build.sh, or set SE_BIN)" >&2; exit 2; }
run_id=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["run_id"])' "$run/run.json") || {
    echo "select-bundle.sh: $run/run.json: no run_id" >&2; exit 2; }
mkdir -p "$dir"
out=$dir/$run_id.tar.gz
before=$(du -sb "$run" | cut -f1)
"$bin" archive "$run" -o "$out" "$@"
"$bin" verify --strict "$run" | tail -n 1
"$bin" verify "$run" --archive "$out" | tail -n 3
after=$(du -sb "$run" | cut -f1)
echo "select-bundle: $run: $before bytes -> $after bytes on disk; the complete run is $out ($(stat -c %s "$out") bytes), $out.sha256"
