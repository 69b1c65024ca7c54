#!/usr/bin/env bash
# export_test.sh BINARY RESUMMARIZE SOURCE_DIR VENV - `softmax-evidence
# export` (docs/EXPORT.md) read by the real tools: the reference run and a
# doctored copy of it (one case's samples x1.5, still verifying) exported as
# nvbench JSON are compared by nvbench's own nvbench_compare.py and
# nvbench_compare_robust.py (PyPI package cuda-bench, installed into VENV),
# and as Google Benchmark JSON by its compare.py (Debian libbenchmark-tools,
# scripts/deps.sh; numpy and scipy from VENV): each must call exactly the
# doctored case slower and every other case the same. Skips only where PyPI
# cannot be reached.
set -u
bin=$1 resum=$2 src=$3 venv=$4
ref=$src/runs/reference
fails=0 passes=0
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
ok() { echo "ok: $1"; passes=$((passes + 1)); }
bad() { echo "FAIL: $1"; fails=$((fails + 1)); }

gbench_compare=/usr/share/benchmark/compare.py
[ -f "$gbench_compare" ] || { echo "FAIL: $gbench_compare is missing: scripts/deps.sh installs libbenchmark-tools"; exit 1; }
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c "import cuda.bench, numpy, scipy, tabulate, colorama, jsondiff" 2>/dev/null; then
    if ! python3 -c "import urllib.request; urllib.request.urlopen('https://pypi.org/simple/cuda-bench/', timeout=20)" 2>/dev/null; then
        echo "SKIP: PyPI (https://pypi.org) cannot be reached, so nvbench's compare scripts (cuda-bench) cannot be installed"
        exit 77
    fi
    rm -rf "$venv"
    python3 -m venv "$venv" && "$venv/bin/pip" install -q "cuda-bench[compare]" numpy scipy ||
        { echo "FAIL: installing cuda-bench[compare], numpy and scipy into $venv failed"; exit 1; }
fi
py=$venv/bin/python
scripts=$("$py" -c "import cuda.bench, os; print(os.path.join(os.path.dirname(cuda.bench.__file__), 'scripts'))")
echo "nvbench scripts: $scripts ($("$venv/bin/pip" show cuda-bench | grep ^Version))"

# Both device scopes: nvbench's cold measurement is the L2-flushed one
# (device_cold), Google Benchmark's export the L2-warm one (device).
slow_case=$(python3 "$(dirname "$0")/make_slower_run.py" "$resum" "$ref" "$work/slow" 1.5 device,device_cold) ||
    { echo "FAIL: the doctored run cannot be made"; exit 1; }
shape=${slow_case%%.*} what=${slow_case#*.}
echo "doctored case: $slow_case (device and device_cold samples x1.5)"
ncases=$(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['cases']))" "$ref/summary.json")

mkdir "$work/nv" "$work/gb"
"$bin" export "$ref" --format nvbench -o "$work/nv/ref.json" && "$bin" export "$work/slow" --format nvbench -o "$work/nv/slow.json" ||
    { echo "FAIL: export --format nvbench"; exit 1; }
[ "$(ls "$work/nv/ref.json-bin" | wc -l)" -eq "$ncases" ] && ok "nvbench: $ncases sample files in ref.json-bin/" || bad "nvbench sample files"

# nvbench_compare.py: SLOW on the doctored case only.
(cd "$work/nv" && "$py" "$scripts/nvbench_compare.py" --no-color ref.json slow.json) >"$work/nv1.txt" 2>&1
python3 - "$work/nv1.txt" "$shape" "$what" "$ncases" <<'PY' && ok "nvbench_compare.py: $slow_case SLOW, the other cases SAME" || { bad "nvbench_compare.py"; tail -20 "$work/nv1.txt"; }
import sys
text, shape, what, n = open(sys.argv[1]).read(), sys.argv[2], sys.argv[3], int(sys.argv[4])
bench, slow = None, []
for line in text.splitlines():
    if line.startswith("# ") and line != "# Summary":
        bench = line[2:]
    elif line.startswith("|") and ("SLOW" in line or "FAST" in line):
        slow.append((bench, line.split("|")[1].strip(), line))
assert [(b, s) for b, s, _ in slow] == [(what, shape)], slow
assert "+50.00%" in slow[0][2] or "50.00%" in slow[0][2], slow[0][2]
assert "- Total Matches: %d" % n in text and "Failure (diff > min_noise):  1" in text, text[-400:]
PY

# nvbench_compare_robust.py: reads the sample files, one regression.
(cd "$work/nv" && "$py" "$scripts/nvbench_compare_robust.py" --no-color ref.json slow.json) >"$work/nv2.txt" 2>&1
rc=$?
python3 - "$work/nv2.txt" "$shape" "$what" "$ncases" <<'PY' && [ $rc -eq 0 ] && ok "nvbench_compare_robust.py: $slow_case a regression, no unusable data" || { bad "nvbench_compare_robust.py (exit $rc)"; tail -20 "$work/nv2.txt"; }
import sys
text, shape, what, n = open(sys.argv[1]).read(), sys.argv[2], sys.argv[3], int(sys.argv[4])
assert "Could not use NVBench" not in text and "Traceback" not in text, text[:600]
bench, slow = None, []
for line in text.splitlines():
    if line.startswith("# ") and line != "# Summary":
        bench = line[2:]
    elif line.startswith("|") and ("SLOW" in line or "FAST" in line):
        slow.append((bench, line.split("|")[1].strip()))
assert slow == [(what, shape)], slow
assert "- Total Matches: %d" % n in text, text[-500:]
assert "Regression  (clear timing gap, %Diff > 0): 1" in text and "Unknown     (input data unavailable or unusable): 0" in text, text[-500:]
PY

# Google Benchmark's compare.py: +0.5000 on the doctored case, +0.0000 elsewhere, U test p < 0.05.
"$bin" export "$ref" --format gbench -o "$work/gb/ref.json" >/dev/null && "$bin" export "$work/slow" --format gbench -o "$work/gb/slow.json" >/dev/null ||
    { echo "FAIL: export --format gbench"; exit 1; }
"$py" "$gbench_compare" --no-color -a benchmarks "$work/gb/ref.json" "$work/gb/slow.json" >"$work/gb.txt" 2>&1; rc=$?
python3 - "$work/gb.txt" "$slow_case" "$ncases" <<'PY' && [ $rc -eq 0 ] && ok "Google Benchmark compare.py: $slow_case +0.5000 (U test p < 0.05), the others +0.0000" || { bad "gbench compare.py (exit $rc)"; head -20 "$work/gb.txt"; }
import sys
lines, case, n = open(sys.argv[1]).read().splitlines(), sys.argv[2], int(sys.argv[3])
med = {l.split()[0][:-len("_median")]: l.split() for l in lines if l.split() and l.split()[0].endswith("_median")}
assert len(med) == n, len(med)
for c, f in med.items():
    assert f[1] == ("+0.5000" if c == case else "+0.0000"), (c, f)
p = [l.split() for l in lines if l.startswith(case + "_pvalue")][0]
assert float(p[1]) < 0.05, p
PY

# compare.py prints Time Old and Time New as whole numbers of the export's
# time unit: they must be the medians in ns (with us, a 16.13 us median
# printed as "16 16"), and the same in every row of a case not doctored.
python3 - "$work/gb.txt" "$ref/summary.json" "$work/slow/summary.json" <<'PY' && ok "Google Benchmark compare.py: Time Old/New are each case's median in ns" || { bad "gbench compare.py's printed times are not the medians in ns"; grep _median "$work/gb.txt" | head -5; }
import json, sys
lines = open(sys.argv[1]).read().splitlines()
med = lambda f: {c["case"]: c["scopes"]["device"]["median_ns"] for c in json.load(open(f))["cases"]}
a, b = med(sys.argv[2]), med(sys.argv[3])
rows = {l.split()[0][:-len("_median")]: l.split() for l in lines if l.split() and l.split()[0].endswith("_median")}
for case, f in rows.items():
    assert abs(float(f[3]) - a[case]) <= 0.5 and abs(float(f[4]) - b[case]) <= 0.5, (case, f[3:5], a[case], b[case])
PY

# nvbench's cold measurement is the flushed scope; the L2-warm one is labelled as such.
python3 - "$work/nv/ref.json" "$ref/summary.json" <<'PY' && ok "nvbench export: nv/cold is the L2-flushed scope (device_cold), the warm scope is se/warm and says so" || bad "nvbench export's scopes mislabelled"
import json, sys
doc, summ = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
cases = {c["case"]: c for c in summ["cases"]}
for b in doc["benchmarks"]:
    for st in b["states"]:
        shape = st["axis_values"][0]["value"]
        c = cases[shape + "." + b["name"]]["scopes"]
        s = {x["tag"]: x for x in st["summaries"]}
        val = lambda t: float(s[t]["data"][0]["value"])
        assert abs(val("nv/cold/time/gpu/median") - c["device_cold"]["median_ns"] * 1e-9) < 1e-15
        assert "flushed" in s["nv/cold/time/gpu/median"]["description"]
        assert abs(val("se/warm/time/gpu/median") - c["device"]["median_ns"] * 1e-9) < 1e-15
        assert "L2 warm" in s["se/warm/time/gpu/median"]["name"]
        assert not any("warm" in x["description"] and x["tag"].startswith("nv/cold") for x in st["summaries"])
PY

# A folder an export did not write is never replaced; a run that does not verify is refused.
mkdir -p "$work/mine/o.json-bin"; touch "$work/mine/o.json-bin/notes.txt"
"$bin" export "$ref" --format nvbench -o "$work/mine/o.json" >/dev/null 2>"$work/err"; rc=$?
[ $rc -eq 2 ] && [ -f "$work/mine/o.json-bin/notes.txt" ] && [ ! -e "$work/mine/o.json" ] &&
    ok "export keeps a folder it did not write (exit 2)" || bad "export over a foreign folder: exit $rc"
echo " " >>"$work/slow/summary.json"
"$bin" export "$work/slow" --format gbench -o "$work/x.json" >/dev/null 2>"$work/err"; rc=$?
[ $rc -eq 1 ] && [ ! -e "$work/x.json" ] && grep -q "export: the run does not verify" "$work/err" &&
    ok "export refuses a run that does not verify (exit 1)" || bad "export of an unverified run: exit $rc"

echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ]
