# lib.sh - sourced by the figure tests (figures_test.sh, sweep_test.sh): skips
# (exit 77) where gnuplot is missing, makes a work folder removed at exit
# ($work), and the pass/fail helpers ok, bad, finish and expect.
# scripts/deps.sh installs gnuplot (so CI has it); a machine it cannot
# install on (the H200 has no package mirror) skips, saying so.
if ! command -v gnuplot >/dev/null; then
    echo "SKIP: gnuplot is not installed on this machine (scripts/deps.sh installs gnuplot-nox)"
    exit 77
fi
fails=0 passes=0
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
ok() { echo "ok: $*"; passes=$((passes + 1)); }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
finish() { echo "$passes passed, $fails failed"; [ "$fails" -eq 0 ]; exit $?; }

# expect NAME WANT_RC SUBSTRING -- ARGS...: runs the binary, checks exit code and message.
expect() {
    local name=$1 want_rc=$2 want=$3; shift 4
    local out rc
    out=$("$@" 2>&1); rc=$?
    if [ "$rc" -ne "$want_rc" ] || ! grep -qF -- "$want" <<<"$out"; then
        bad "$name: exit $rc (want $want_rc), want '$want' in:"; echo "$out" | tail -8
    else
        ok "$name"
    fi
}
