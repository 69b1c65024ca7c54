#!/usr/bin/env bash
# main.sh [RUN_ARGS...] - the README's main job: checks for what a run needs
# (scripts/deps.sh run: without root it installs nothing and names the
# packages that are missing), builds softmax-evidence, and on a machine with
# an NVIDIA GPU runs the default protocol (validation, timing, a new run
# directory under runs/) and renders its figures and report into
# out/<run id>/. Without a GPU it re-verifies the committed reference run
# instead, re-renders its figures and report into out/reference/, and says
# so. Extra arguments go to `softmax-evidence run` (e.g. --shapes 8x4096,
# --protocol FILE). SE_MAIN_STOP_AFTER=setup stops after the check of what is
# needed, SE_MAIN_STOP_AFTER=configure after CMake's configure step
# (docs/SETUP.md; tests/setup/main_setup_as_user.sh uses it);
# SE_MAIN_FIGURES=0 neither needs gnuplot nor draws figures (a GPU machine
# without it: render the run elsewhere with `softmax-evidence figures`).
set -uo pipefail
cd "$(dirname "$0")/.."
stop=${SE_MAIN_STOP_AFTER:-}
case "$stop" in
    ""|setup|configure) ;;
    *) echo "main: SE_MAIN_STOP_AFTER is '$stop'; it takes setup or configure" >&2; exit 2 ;;
esac
scripts/deps.sh run || exit 1
[ "$stop" = setup ] && { echo "main: everything a run needs is here (SE_MAIN_STOP_AFTER=setup: stopping)"; exit 0; }
# The tests need cmocka, a run does not: where CMake would not find it
# (pkg-config, or cmocka.h in the standard, CPATH or CMAKE_PREFIX_PATH
# folders) the tests are not configured; scripts/test.sh configures them.
have_cmocka() {
    pkg-config --exists cmocka 2>/dev/null && return 0
    local d dirs=(/usr/include /usr/local/include)
    IFS=: read -ra p <<<"${CPATH:-}:${C_INCLUDE_PATH:-}"; dirs+=("${p[@]}")
    IFS=: read -ra p <<<"${CMAKE_PREFIX_PATH:-}"; for d in "${p[@]}"; do dirs+=("$d/include"); done
    for d in "${dirs[@]}"; do [ -n "$d" ] && [ -f "$d/cmocka.h" ] && return 0; done
    return 1
}
tests=()
if ! have_cmocka; then
    echo "main: no cmocka here: building without the tests (-DSE_BUILD_TESTS=OFF)"
    tests=(-DSE_BUILD_TESTS=OFF)
fi
if [ "$stop" = configure ]; then
    scripts/build.sh --configure-only "${tests[@]}" >build.log 2>&1 || {
        cat build.log; echo "main: configuring build/ failed" >&2; exit 1; }
    echo "main: configured build/ (SE_MAIN_STOP_AFTER=configure: stopping before the build; the output in build.log)"
    exit 0
fi
# The build's progress (ninja's [n/N] lines) on the terminal, everything in build.log.
echo "main: building softmax-evidence into build/ (the whole output in build.log)"
scripts/build.sh --target softmax-evidence "${tests[@]}" 2>&1 | tee build.log |
    grep --line-buffered -E '^\[[0-9]+/[0-9]+\]|^build:' | cut -c1-100
[ "${PIPESTATUS[0]}" -eq 0 ] || { cat build.log; echo "main: build failed" >&2; exit 1; }
# The run writes its run directory's path here (--run-dir-out), also when a
# case failed validation; nothing is scraped from its output.
dirfile=$(mktemp)
trap 'rm -f "$dirfile"' EXIT

# Figures, report and provenance of a run that verifies, into out/NAME
# (figures verifies the run first and writes nothing if it does not).
render() {
    if [ "${SE_MAIN_FIGURES:-1}" = 0 ]; then
        echo "main: SE_MAIN_FIGURES=0: no figures drawn; softmax-evidence figures $1 out/$2 draws them"
        return 0
    fi
    ./build/softmax-evidence figures "$1" "out/$2" || {
        echo "main: rendering $1 into out/$2 failed" >&2
        return 1
    }
    echo "main: figures and report of $1 in out/$2/ (report.html)"
}

./build/softmax-evidence run --run-dir-out "$dirfile" "$@"
rc=$?
# Exit status 6: no CUDA device (softmax-evidence --help lists the codes).
if [ $rc -eq 6 ]; then
    echo "main: no GPU found on this machine: re-verifying and re-rendering the committed"
    echo "main: reference run runs/reference instead (no new measurement is made)."
    ./build/softmax-evidence verify --strict runs/reference || exit $?
    render runs/reference reference
    exit $?
fi
dir=$(head -n 1 "$dirfile")
if [ $rc -eq 0 ] && [ -n "$dir" ] && [ -d "$dir" ]; then
    render "$dir" "$(basename "$dir")" || exit $?
elif [ -n "$dir" ]; then
    echo "main: the run exited with status $rc; its run directory $dir is kept, not rendered" >&2
fi
exit $rc
