#!/usr/bin/env bash
# render_unchanged.sh BINARY EXTRA_BINARY SOURCE_DIR - every committed run
# (each folder under SOURCE_DIR/runs with a MANIFEST.sha256) rendered by
# BINARY and by EXTRA_BINARY, the same program built with one strategy more
# (SE_TEST_EXTRA_STRATEGY: test-extra, model/strategy.h), must come out byte
# for byte the same: verify's report, table and answer in every format,
# goals, figures (gnuplot sources, data, SVG, PNG, report.md and .html,
# provenance.json), the site (every file), a trace export and the list of a
# run's traced cases, compare against the reference run, and the answer over
# runs/answer-runs.json, and profile --reparse of a copy of each profiled
# run. A run means what it recorded (its strategies.json,
# or the legacy v1 table of a run made before it), never what today's
# binary compiles in. Both binaries write into the same folder in turn, so
# paths in messages match. Needs gnuplot (figures); skips (77) without it.
set -u
bin=$(realpath "$1") extra=$(realpath "$2") src=$(realpath "$3")
. "$(dirname "$0")/lib.sh"

runs=()
while IFS= read -r m; do runs+=("$(dirname "$m")"); done \
    < <(find "$src/runs" -mindepth 2 -maxdepth 3 -name MANIFEST.sha256 | LC_ALL=C sort)
[ "${#runs[@]}" -gt 0 ] || { bad "no committed run under $src/runs"; finish; }
ref=$src/runs/reference

# workload_of RUN: strategies.json's workload name (a run made before that
# file measured the softmax); compare refuses runs of two workloads.
workload_of() {
    python3 -c 'import json, sys
try:
    print(json.load(open(sys.argv[1] + "/strategies.json"))["workload"]["name"])
except (OSError, KeyError):
    print("rms-softmax")' "$1"
}

# out FILE CMD...: stdout and stderr of CMD, then its exit status.
out() { local f=$1.out; shift; "$@" > "$f" 2>&1; echo "exit $?" >> "$f"; }

render() {
    local b=$1 dir=$work/out
    rm -rf "$dir"; mkdir -p "$dir"
    (
        cd "$dir" || exit 1
        for r in "${runs[@]}"; do
            n=$(printf '%s' "${r#"$src"/runs/}" | tr / _)
            out "$n.verify" "$b" verify "$r"
            for f in text md csv json; do out "$n.table.$f" "$b" table "$r" --format "$f"; done
            for f in text md summary json; do out "$n.answer.$f" "$b" answer "$r" --format "$f"; done
            for f in text md; do out "$n.goals.$f" "$b" goals "$r" --format "$f"; done
            out "$n.figures" "$b" figures "$r" "fig-$n"
            out "$n.site" "$b" site "$r" "site-$n" --quiet
            out "$n.trace-unknown" "$b" trace "$r" 1x1.none -o "$n.none.json"
            if [ -f "$r/traces/4096x4096.fusion.csv" ]; then
                out "$n.trace" "$b" trace "$r" 4096x4096.fusion -o "$n.fusion.json"
            fi
            if [ "$r" != "$ref" ] && [ "$(workload_of "$r")" = "$(workload_of "$ref")" ]; then
                for f in text json; do
                    out "$n.compare.$f" "$b" compare "$ref" "$r" --format "$f"
                done
            fi
        done
        if [ -f "$src/runs/answer-runs.json" ]; then
            for f in text md summary json; do
                out "set.answer.$f" "$b" answer --set "$src/runs/answer-runs.json" --format "$f"
            done
        fi
    )
    rm -rf "$work/$2"; mv "$dir" "$work/$2"
}

render "$bin" a
render "$extra" b
ok "rendered ${#runs[@]} committed runs with both binaries ($(find "$work/a" -type f | wc -l) files)"

# The extra binary does have the extra strategy (else the test proves nothing).
if "$extra" run --help 2>&1 | grep -q test-extra && ! "$bin" run --help 2>&1 | grep -q test-extra; then
    ok "only the extra binary has test-extra"
else
    bad "the extra binary's run --help does not list test-extra (or the normal one does)"
fi
# Every rendering succeeded with the normal binary (a rendering that fails
# the same way in both would prove nothing); trace 1x1.none must fail.
for f in "$work"/a/*.out; do
    case $f in *.trace-unknown.out) continue ;; esac
    [ "$(tail -1 "$f")" = "exit 0" ] || bad "$(basename "$f"): $(tail -1 "$f"): $(tail -3 "$f" | head -2)"
done
# profile --reparse (no GPU) rebuilds a run's profile exports from its saved
# ncu CSV with the binary's strategies: with the extra one, the same bytes.
for r in "${runs[@]}"; do
    [ -f "$r/profile/ncu_raw.csv" ] || continue
    n=$(printf '%s' "${r#"$src"/runs/}" | tr / _)
    rm -rf "$work/rp"; cp -r "$r" "$work/rp"
    if "$extra" profile "$work/rp" --reparse --quiet > "$work/rp.log" 2>&1 &&
       diff -r "$r" "$work/rp" > "$work/rp.diff" 2>&1; then
        ok "$n: profile --reparse with the extra strategy rewrites the run byte for byte"
    else
        bad "$n: profile --reparse with the extra strategy: $(tail -2 "$work/rp.log") $(head -5 "$work/rp.diff")"
    fi
done
if diff -r "$work/a" "$work/b" > "$work/diff" 2>&1; then
    ok "every output byte for byte the same"
else
    bad "outputs differ with the extra strategy (first lines of diff -r):"
    head -40 "$work/diff"
fi
finish
