#!/usr/bin/env bash
# figures_test.sh BINARY RUN_DIR - `softmax-evidence figures` on the committed
# reference run: every figure drawn as SVG and PNG at its size, the report
# written, every hash in provenance.json matching its file, a rebuild
# byte-identical where docs/FIGURES.md says so, and refusals (a tampered
# run, a directory of something else, no gnuplot, a place inside the run)
# that leave OUT_DIR untouched. No GPU needed; gnuplot is.
set -u
bin=$1 ref=$2
. "$(dirname "$0")/lib.sh"

figs="fig1_latency fig2_speedup fig3_bandwidth fig4_timelines fig5_controls fig6_distributions fig7_answer fig8_rowlength"
# Each figure's pixel size as provenance.json states it (sizes follow the
# run's shapes: fig1 and fig6 have a panel per shape, fig2 a row per case).
declare -A size

# Width and height from a PNG's IHDR chunk, after checking the signature.
png_size() {
    [ "$(od -An -tx1 -N8 "$1" | tr -d ' \n')" = "89504e470d0a1a0a" ] || { echo "not-a-png"; return; }
    od -An -tu1 -j16 -N8 "$1" | awk '{ print $1*16777216 + $2*65536 + $3*256 + $4, $5*16777216 + $6*65536 + $7*256 + $8 }'
}

# "SECTION PATH SHA256" for every hashed file in a provenance.json (jansson's
# 2-space indented layout: "path" then "sha256" on the next lines).
prov_hashes() {
    awk '
        /"(run_files|data_files|outputs|report)": \[/ { match($0, /"[a-z_]+"/); sec = substr($0, RSTART + 1, RLENGTH - 2) }
        /"script": \{/ { sec = "script" }
        /"path": "/ { split($0, a, "\""); path = a[4] }
        /"sha256": "/ { split($0, a, "\""); print sec, path, a[4] }
    ' "$1"
}

start=$(date +%s.%N)
if "$bin" figures "$ref" "$work/a" > "$work/a.log" 2>&1; then
    ok "figures of the reference run ($(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f s", e - s }'))"
else
    bad "figures of the reference run failed:"; tail -20 "$work/a.log"; finish
fi

while read -r name w h; do size[$name]="$w $h"; done < <(python3 -c '
import json, sys
for f in json.load(open(sys.argv[1]))["figures"]:
    for o in f.get("outputs", []):
        if o["format"] == "png":
            print(f["name"], o["width"], o["height"])' "$work/a/provenance.json")
for f in $figs; do
    [ -n "${size[$f]:-}" ] || bad "provenance.json gives no PNG size of $f"
    for ext in svg png; do
        if [ -s "$work/a/$f.$ext" ]; then ok "$f.$ext exists and is not empty"; else bad "$f.$ext missing or empty"; fi
    done
    if head -c 400 "$work/a/$f.svg" | grep -q '<svg'; then ok "$f.svg is SVG"; else bad "$f.svg has no <svg> element"; fi
    got=$(png_size "$work/a/$f.png")
    if [ "$got" = "${size[$f]}" ]; then ok "$f.png decodes as ${got/ /x}"; else bad "$f.png: size '$got', want '${size[$f]}'"; fi
    [ -s "$work/a/gnuplot/$f.gp" ] || bad "gnuplot/$f.gp missing"
done

# Fig. 1: every legend entry has its own point type (the megakernel and its
# queue-initialization control used to share one).
pts=$(grep -o 'NaN with points pt [0-9]*' "$work/a/gnuplot/fig1_latency.gp" | awk '{print $5}')
if [ -n "$pts" ] && [ "$(sort <<<"$pts" | uniq -d)" = "" ]; then
    ok "fig1: $(wc -l <<<"$pts") legend entries, each with its own point type"
else
    bad "fig1: legend point types repeat: $(tr '\n' ' ' <<<"$pts")"
fi
# Fig. 2: the mechanisms on a linear axis, cuDNN and the other references in
# a log panel of their own, every interval written beside its point.
gp2="$work/a/gnuplot/fig2_speedup.gp"
if [ "$(grep -c '^ *set logscale x' "$gp2")" -eq 1 ] && [ "$(grep -c '^ *unset logscale x' "$gp2")" -eq 1 ] &&
   grep -q 'title "cudnn (reference' "$gp2" && ! grep -q 'time_ratio_to_stream' <(grep 'set multiplot title' "$gp2"); then
    ok "fig2: mechanisms linear, references in their own log panel, no field name in the title"
else
    bad "fig2: panels or title not as designed"
fi
rows=$(grep -vc '^#\|^$' "$work/a/data/fig2_speedup.tsv")
labels=$(grep -v '^#' "$work/a/data/fig2_speedup.tsv" | grep -c '\[.*, .*\]')
if [ "$rows" -gt 0 ] && [ "$rows" -eq "$labels" ]; then ok "fig2: all $rows points carry their interval as text"
else bad "fig2: $labels of $rows points carry their interval"; fi
# Fig. 3: points with intervals on a linear axis, no bars.
gp3="$work/a/gnuplot/fig3_bandwidth.gp"
if grep -q 'yerrorbars' "$gp3" && ! grep -q 'with boxes\|set logscale' "$gp3"; then
    ok "fig3: points with intervals on a linear axis"
else
    bad "fig3: bars or a log axis"
fi
# Fig. 2: every written interval names its case, and the mechanisms' colours
# are far apart (no two within 80 in RGB distance; graph, stream-pdl and
# graph-pdl were three near-identical blues).
unnamed=$(awk -F'\t' '!/^#/ && NF >= 5 && $5 !~ /^[a-z][a-z0-9-]* [0-9]/' "$work/a/data/fig2_speedup.tsv" | wc -l)
if [ "$unnamed" -eq 0 ]; then ok "fig2: every written interval starts with its strategy's or peer's name"
else bad "fig2: $unnamed written intervals do not name their case"; fi
near=$(python3 - "$gp2" <<'PY'
import re, sys, itertools
gp = open(sys.argv[1]).read()
# the first panel's series (the mechanisms): up to the second "set title"
first = gp.split("set title", 2)[1]
cols = sorted(set(re.findall(r'xerrorbars pt \d+ ps [\d.]+ lw \d+ lc rgb "(#[0-9a-f]{6})"', first)))
rgb = [tuple(int(c[i:i + 2], 16) for i in (1, 3, 5)) for c in cols]
bad = [f"{a}~{b}" for (a, x), (b, y) in itertools.combinations(zip(cols, rgb), 2)
       if sum((p - q) ** 2 for p, q in zip(x, y)) ** 0.5 < 80]
print(len(cols), " ".join(bad))
PY
)
if [ "${near#* }" = "" ] && [ "${near%% *}" -ge 5 ]; then ok "fig2: ${near%% *} mechanism colours, no two alike"
else bad "fig2: colours too alike: $near"; fi
# Fig. 3: no bandwidth for a launch-bound shape (its copy under twice an
# empty kernel launch), and the figure says why; every other shape has points.
fig3=$(python3 - "$ref/summary.json" "$work/a/data/fig3_bandwidth.tsv" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
empty = next(c for c in s["controls"] if c["what"] == "empty_stream")["scopes"]["device"]["median_ns"]
copy = {c["case"].rsplit(".", 1)[0]: c["scopes"]["device"]["median_ns"] for c in s["cases"] if c["what"] == "copy"}
drawn = {l.rstrip("\n").split("\t")[-1] for l in open(sys.argv[2]) if l.strip() and not l.startswith("#")}
bound = {k for k, v in copy.items() if v < 2 * empty}
wrong = sorted((bound & drawn) | (set(copy) - bound - drawn))
print(len(bound), " ".join(wrong))
PY
)
if [ "${fig3#* }" = "" ] && [ "${fig3%% *}" -gt 0 ] && grep -q 'launch-bound' "$gp3"; then
    ok "fig3: the ${fig3%% *} launch-bound shapes have no bandwidth, and the figure says why"
else bad "fig3: launch-bound shapes drawn or others missing ($fig3), or no explanation"; fi
# Fig. 4's caption: traced spans are not timings, and what tracing adds to
# each traced strategy, as traces.json's tracing_cost measured it.
want4=$(python3 - "$ref/traces.json" "$work/a/provenance.json" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
p = json.dumps(json.load(open(sys.argv[2])))
shape = "4096x4096"
want = [f"{c['overhead_fraction'] * 100:.0f}% to {c['case'].split('.', 1)[1]} (median "
        f"{c['untraced_median_ns'] / 1e3:.1f} us untraced" for c in t["tracing_cost"]
        if c["case"] in (shape + ".fusion", shape + ".megakernel")]
print(len(want), sum(w in p for w in want))
PY
)
if [ "$want4" = "2 2" ] && grep -qF "Traced spans are not timings" "$work/a/report.md"; then
    ok "fig4: the caption says traced spans are not timings and what tracing adds (traces.json)"
else bad "fig4: caption lacks the tracing cost ($want4 of 2 found) or the warning"; fi
run_id=$(sed -n 's/^ *"run_id": "\([^"]*\)".*/\1/p' "$ref/run.json")
if [ -f "$ref/profile/kernels.csv" ]; then profile_want="Nsight Compute counters from profile/kernels.csv"
else profile_want="no profiler export"; fi
for r in report.md report.html; do
    grep -qF -- "$profile_want" "$work/a/$r" || bad "$r lacks '$profile_want'"
    for want in "run $run_id" "megakernel is a toy" "initialization (the reset of the per-row counters" "Shape 4096x4096" "cuDNN reference" \
                "Validation" "Resources" "Dependency traces" "Profiler counters" "Limitations" \
                "globaltimer resolution" "Provenance of every timing number" "NVIDIA H200" \
                "PyTorch peers" "torch.compile (static shapes, full graph)"; do
        grep -qF -- "$want" "$work/a/$r" || bad "$r lacks '$want'"
    done
done
ok "report.md and report.html carry every section"
# No absolute path of the measuring machine (environment.json's source
# folder, command line, peers.json's script) in the report.
abs=$(python3 - "$ref" "$work/a/report.md" "$work/a/report.html" <<'PY'
import json, re, sys
ref = sys.argv[1]
paths = set()
def walk(v):
    if isinstance(v, dict):
        for x in v.values(): walk(x)
    elif isinstance(v, list):
        for x in v: walk(x)
    elif isinstance(v, str) and v.startswith("/"):
        paths.add(v)
walk(json.load(open(ref + "/environment.json")))
walk(json.load(open(ref + "/peers.json")).get("script", ""))
found = []
for f in sys.argv[2:]:
    text = open(f).read().replace("\\_", "_")
    found += [f"{p} in {f.rsplit('/', 1)[1]}" for p in sorted(paths) if len(p) > 1 and p in text]
print(len(paths), "; ".join(found))
PY
)
if [ -z "${abs#* }" ] && [ "${abs%% *}" -gt 0 ]; then ok "the report holds none of the run's ${abs%% *} absolute paths of the measuring machine"
else bad "the report shows absolute paths of the measuring machine: ${abs#* }"; fi
# Terminal escapes in a peer's error (the reference run's Quack errors) are
# dropped, not shown as \x1b.
if grep -qF '\x1b' "$work/a/report.md" "$work/a/report.html"; then bad "the report shows terminal escapes (\\x1b)"
else ok "the report shows no terminal escapes"; fi
# About four significant digits: no number in the report carries seven or
# more decimals (the profile's 17-digit values once did).
long=$(grep -oE '[0-9]+\.[0-9]{7,}' "$work/a/report.md" | wc -l)
if [ "$long" -eq 0 ]; then ok "report.md: no number with 7 or more decimals"
else bad "report.md: $long numbers with 7 or more decimals, e.g. $(grep -oE '[0-9]+\.[0-9]{7,}' "$work/a/report.md" | head -1)"; fi
# Counters that look wrong are explained, when the run's own file has them.
if [ -f "$ref/profile/kernels.csv" ]; then
    read -r zeros over < <(python3 -c '
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
print(sum(1 for r in rows if r.get("dram_write_bytes") not in (None, "") and float(r["dram_write_bytes"]) == 0),
      sum(1 for r in rows if r.get("l2_hit_rate_pct") not in (None, "") and float(r["l2_hit_rate_pct"]) > 100))' "$ref/profile/kernels.csv")
    for r in report.md report.html; do
        if [ "$zeros" -gt 0 ] && ! grep -q "DRAM bytes written of 0.* $zeros of" "$work/a/$r"; then
            bad "$r: $zeros kernels write 0 DRAM bytes, not explained with their count"
        elif [ "$over" -gt 0 ] && ! grep -q "L2 hit rates above 100%.* $over of" "$work/a/$r"; then
            bad "$r: $over L2 hit rates above 100%, not explained with their count"
        else
            ok "$r: DRAM writes of 0 ($zeros) and L2 hit rates over 100% ($over) explained"
        fi
    done
fi
# The HTML report: styled, a contents list after the answer, tables in
# boxes that scroll.
if grep -q '<style>' "$work/a/report.html" && grep -q '<nav class="toc" id="contents">' "$work/a/report.html" &&
   [ "$(grep -c '<table>' "$work/a/report.html")" -eq "$(grep -c '<div class="scroll"><table>' "$work/a/report.html")" ] &&
   awk '/<h2 id="the-answer">/{a=NR} /<nav class="toc"/{t=NR} END{exit !(a && t && a < t)}' "$work/a/report.html"; then
    ok "report.html: styled, the answer then a contents list, every table in a scrolling box"
else
    bad "report.html: style, contents list after the answer or scrolling tables missing"
fi
if grep -qE '(src|href)="(https?:)?//' "$work/a/report.html"; then bad "report.html makes an external request"
else ok "report.html has no external request"; fi
for f in $figs; do
    grep -qF "src=\"$f.png\"" "$work/a/report.html" || bad "report.html does not embed $f.png"
done
ok "report.html embeds every PNG by relative path"

# Every hash in provenance.json matches its file: run files in the run (and
# its manifest), everything else in OUT_DIR.
prov_hashes "$work/a/provenance.json" > "$work/a.hashes"
checked=0 wrong=0
while read -r sec path hash; do
    if [ "$sec" = run_files ]; then
        file="$ref/$path"
        grep -qx "$hash  $path" "$ref/MANIFEST.sha256" || { echo "  $path: not the manifest's hash"; wrong=$((wrong + 1)); }
    else
        file="$work/a/$path"
    fi
    got=$(sha256sum "$file" 2>/dev/null | cut -d' ' -f1)
    if [ "$got" != "$hash" ]; then echo "  $sec $path: provenance $hash, file ${got:-missing}"; wrong=$((wrong + 1)); fi
    checked=$((checked + 1))
done < "$work/a.hashes"
outputs=$(grep -c '^outputs ' "$work/a.hashes")
nfigs=$(wc -w <<<"$figs")
if [ "$wrong" -eq 0 ] && [ "$checked" -gt 100 ] && [ "$outputs" -eq $((2 * nfigs)) ]; then
    ok "provenance.json: $checked hashes match their files ($outputs figure outputs)"
else
    bad "provenance.json: $wrong of $checked hashes wrong, $outputs figure outputs (want $((2 * nfigs)))"
fi

# A rebuild elsewhere: data, scripts, SVGs and the report are byte-identical,
# and so are their provenance hashes.
"$bin" figures "$ref" "$work/b" > "$work/b.log" 2>&1 || { bad "rebuild failed"; tail "$work/b.log"; }
same=0 differ=0
for f in $(cd "$work/a" && ls data/* gnuplot/* ./*.svg report.md report.html); do
    if cmp -s "$work/a/$f" "$work/b/$f"; then same=$((same + 1)); else echo "  differs: $f"; differ=$((differ + 1)); fi
done
if [ "$differ" -eq 0 ] && [ "$same" -ge 19 ]; then ok "rebuild: $same data, script, SVG and report files byte-identical"
else bad "rebuild: $differ of $((same + differ)) deterministic files differ"; fi
prov_hashes "$work/b/provenance.json" > "$work/b.hashes"
if diff <(grep -v '\.png ' "$work/a.hashes") <(grep -v '\.png ' "$work/b.hashes") > /dev/null; then
    ok "rebuild: provenance hashes of the deterministic outputs identical"
else
    bad "rebuild: provenance hashes differ"
fi
png_same=0
for f in $figs; do cmp -s "$work/a/$f.png" "$work/b/$f.png" && png_same=$((png_same + 1)); done
echo "info: $png_same of $nfigs PNGs byte-identical on this machine (not required)"

# A file the user added to a previous output is never deleted: figures
# refuses, naming it (issue 16); without it the output is replaced whole.
echo keep > "$work/b/user-notes.txt"
out=$("$bin" figures "$ref" "$work/b" 2>&1); rc=$?
if [ $rc -ne 0 ] && grep -q "holds user-notes.txt, which is not part of" <<<"$out" && [ "$(cat "$work/b/user-notes.txt")" = keep ]; then
    ok "a previous figures output holding a user's file is refused, the file kept"
else
    bad "figures over a user's file: exit $rc: $out"
fi
rm "$work/b/user-notes.txt"
if "$bin" figures "$ref" "$work/b" > /dev/null 2>&1 && [ -s "$work/b/provenance.json" ] && [ -s "$work/b/FIGURES_MANIFEST.sha256" ]; then
    ok "a previous figures output is replaced"
else
    bad "a previous figures output was not replaced cleanly"
fi

# A tampered run is refused, naming the file; OUT_DIR is not created.
mkdir "$work/t"; cp -r "$ref" "$work/t/run"; chmod -R u+w "$work/t/run"
sample=samples/32x4096.stream.csv
off=$(( $(head -2 "$work/t/run/$sample" | wc -c) - 2 ))
printf '1' | dd of="$work/t/run/$sample" bs=1 seek="$off" conv=notrunc status=none
expect "tampered run refused, naming the file" 1 "$sample" -- "$bin" figures "$work/t/run" "$work/t/out/figs"
if [ ! -e "$work/t/out" ] && [ "$(ls -A "$work/t")" = run ]; then ok "tampered run: OUT_DIR not created, nothing left behind"
else bad "tampered run: something was written: $(ls -A "$work/t")"; fi

# An OUT_DIR holding something else is refused and left as it was.
mkdir "$work/other"; echo keep > "$work/other/notes.txt"
expect "non-empty directory of something else refused" 2 "not empty" -- "$bin" figures "$ref" "$work/other"
if [ "$(ls -A "$work/other")" = notes.txt ] && [ "$(cat "$work/other/notes.txt")" = keep ]; then
    ok "the other directory is untouched"
else
    bad "the other directory was changed: $(ls -A "$work/other")"
fi

# No gnuplot: an error naming it and how to install it, nothing created.
expect "missing gnuplot named, with its package" 5 "apt-get install gnuplot-nox" -- \
    env PATH=/nonexistent "$bin" figures "$ref" "$work/nognuplot"
if [ ! -e "$work/nognuplot" ]; then ok "missing gnuplot: OUT_DIR not created"; else bad "missing gnuplot: OUT_DIR created"; fi

# OUT_DIR inside the run would break the run's manifest.
mkdir "$work/c"; cp -r "$ref" "$work/c/run"; chmod -R u+w "$work/c/run"
expect "OUT_DIR inside the run refused" 2 "inside the run" -- "$bin" figures "$work/c/run" "$work/c/run/figures"
if [ ! -e "$work/c/run/figures" ]; then ok "OUT_DIR inside the run: nothing written into the run"
else bad "OUT_DIR inside the run: the run was written into"; fi

finish
