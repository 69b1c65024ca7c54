#!/usr/bin/env bash
# browser_test.sh BINARY RUN_DIR WORK_DIR - builds the site of a run and
# opens every page in headless Chromium (Debian's chromium): no console
# message, every image loaded (the pages' own load-time check), no broken
# local link or anchor, no external resource; every page and the report
# (figures/report.html) laid out at 1280 and 800 pixels wide without
# horizontal overflow of the body, and any page taller than three screens
# with a contents list (a measuring script added to a copy of the site; a
# page made too wide on purpose is caught); a screenshot of every page for
# a person to look at (WORK_DIR/screens/*.png); verify accepts the site and
# catches a tampered site file.
set -u
bin=$1 ref=$2 work=$3
# The site draws the figures with gnuplot; scripts/deps.sh installs it (so
# CI has it); a machine it cannot install on (the H200) skips, saying so.
if ! command -v gnuplot >/dev/null; then
    echo "SKIP: gnuplot is not installed on this machine (scripts/deps.sh installs gnuplot-nox)"
    exit 77
fi
fails=0 passes=0
ok() { echo "ok: $*"; passes=$((passes + 1)); }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }

rm -rf "$work"; mkdir -p "$work"
site="$work/site"
if ! "$bin" site "$ref" "$site" > "$work/site.log" 2>&1; then
    cat "$work/site.log"; echo "0 passed, 1 failed"; exit 1
fi
ok "site built: $(tail -1 "$work/site.log")"

chromium=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$chromium" ]; then
    echo "SKIP: chromium is not installed on this machine (scripts/deps.sh installs Debian's chromium)"
    exit 77
fi
browse() { timeout 120 "$chromium" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage \
    --user-data-dir="$work/profile" "$@"; }

for page in index protocol results provenance traces reproduce; do
    f="$site/$page.html"
    browse --enable-logging=stderr --v=0 --virtual-time-budget=10000 --dump-dom "file://$f" \
        > "$work/$page.dom" 2> "$work/$page.log"
    if grep -q "CONSOLE" "$work/$page.log"; then
        bad "$page.html: console messages: $(grep CONSOLE "$work/$page.log" | head -3)"
    else
        ok "$page.html: no console message"
    fi
    imgs=$(grep -o 'data-images="[0-9]*"' "$work/$page.dom" | grep -o '[0-9]*')
    broken=$(grep -o 'data-broken-images="[0-9]*"' "$work/$page.dom" | grep -o '[0-9]*')
    if [ -z "$imgs" ] || [ "$broken" != "0" ]; then
        bad "$page.html: images $imgs, broken ${broken:-unknown}"
    else
        ok "$page.html: $imgs images, all loaded"
    fi
done
imgs=$(grep -o 'data-images="[0-9]*"' "$work/index.dom" | grep -o '[0-9]*')
[ "${imgs:-0}" -ge 3 ] && ok "the overview shows the headline figures ($imgs)" || bad "the overview shows $imgs figures"

# The protocol page shows two protocol hashes and says why there are two.
if grep -q "Two hashes, because they are of two files" "$work/protocol.dom"; then
    ok "protocol.html explains its two protocol hashes"
else bad "protocol.html shows two protocol hashes without saying why"; fi

# Links: every local href and src resolves, every #anchor exists; no external resource.
for f in "$site"/*.html; do
    page=$(basename "$f")
    if grep -oE '<(img|script|link)[^>]*(src|href)="(https?:)?//[^"]*"' "$f" | grep -q .; then
        bad "$page loads an external resource"
    fi
    nbad=0
    while read -r target; do
        case "$target" in
            http://*|https://*|mailto:*) continue ;;
            \#*) grep -q "id=\"${target#\#}\"" "$f" || { bad "$page: anchor $target missing"; nbad=$((nbad + 1)); } ;;
            *) path="${target%%#*}"; [ -e "$site/$path" ] || { bad "$page: broken link $target"; nbad=$((nbad + 1)); } ;;
        esac
    done < <(grep -oE '(href|src)="[^"]*"' "$f" | sed -E 's/^(href|src)="//; s/"$//')
    [ "$nbad" -eq 0 ] && ok "$page: every link resolves"
done


# Layout: a copy of the site with a measuring script in every page, laid out
# at two widths. The body must not be wider than the window (wide tables
# scroll in their own box), and a page taller than three windows must have
# a contents list.
measure="$work/measure"
rm -rf "$measure"; cp -r "$site" "$measure"
cat > "$work/measure.js" <<'JS'
<script>window.addEventListener('load', function () {
  var b = document.body, e = document.documentElement;
  b.setAttribute('data-scroll-width', Math.max(b.scrollWidth, e.scrollWidth));
  b.setAttribute('data-inner-width', window.innerWidth);
  b.setAttribute('data-height', Math.max(b.scrollHeight, e.scrollHeight));
  b.setAttribute('data-toc', document.querySelector('nav.toc') ? 1 : 0);
});</script>
JS
inject() { python3 - "$work/measure.js" "$@" <<'PY'
import sys
js = open(sys.argv[1]).read()
for path in sys.argv[2:]:
    s = open(path).read()
    assert "</body>" in s, path
    open(path, "w").write(s.replace("</body>", js + "</body>", 1))
PY
}
pages_html="index.html protocol.html results.html provenance.html traces.html reproduce.html figures/report.html"
(cd "$measure" && inject $pages_html)
# A page made wider than the window on purpose: the check must catch it.
cp "$measure/reproduce.html" "$measure/too-wide.html"
python3 - "$measure/too-wide.html" <<'PY'
import sys
s = open(sys.argv[1]).read()
open(sys.argv[1], "w").write(s.replace("<main>", "<main><div style=\"width:3000px\">x</div>", 1))
PY
attr() { grep -o "$1=\"[0-9]*\"" <<<"$2" | head -1 | grep -o '[0-9]*'; }
layout() { # PAGE WIDTH HEIGHT -> "scroll_width inner_width height toc"
    local body
    body=$(browse --window-size="$2,$3" --virtual-time-budget=10000 --dump-dom "file://$measure/$1" \
           2>/dev/null | grep -o '<body[^>]*>' | head -1)
    echo "$(attr data-scroll-width "$body") $(attr data-inner-width "$body") $(attr data-height "$body") $(attr data-toc "$body")"
}
for width in 1280 800; do
    for page in $pages_html; do
        read -r sw iw h toc <<<"$(layout "$page" "$width" 1000)"
        if [ -z "$sw" ] || [ -z "$iw" ]; then
            bad "$page at $width px: the measuring script did not run"
        elif [ "$sw" -gt "$iw" ]; then
            bad "$page at $width px: the body is $sw px wide, wider than the window ($iw px)"
        else
            ok "$page at $width px: no horizontal overflow (body $sw px, window $iw px, page $h px tall)"
        fi
        if [ -n "$h" ] && [ "$h" -gt 3000 ] && [ "$toc" != 1 ]; then
            bad "$page at $width px: $h px tall without a contents list"
        elif [ -n "$h" ] && [ "$h" -gt 3000 ]; then
            ok "$page at $width px: $h px tall, with a contents list"
        fi
    done
done
read -r sw iw h toc <<<"$(layout too-wide.html 1280 1000)"
if [ -n "$sw" ] && [ "$sw" -gt "$iw" ]; then ok "a page made too wide is caught ($sw px in a $iw px window)"
else bad "a page made too wide was not caught ($sw px in a $iw px window)"; fi

# Screenshots of every page and the report, the top 2000 px at 1280 px wide,
# for a person to look at.
mkdir -p "$work/screens"
for page in $pages_html; do
    png="$work/screens/$(basename "${page%.html}").png"
    browse --window-size=1280,2000 --virtual-time-budget=10000 --screenshot="$png" "file://$site/$page" \
        > /dev/null 2>&1
    if [ -s "$png" ] && [ "$(head -c 8 "$png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]; then
        ok "screenshot of $page: $png"
    else
        bad "no screenshot of $page"
    fi
done

out=$("$bin" verify "$site" 2>&1); rc=$?
if [ $rc -eq 0 ] && grep -q "verify site: OK" <<<"$out" && grep -q "remote-only" <<<"$out"; then
    ok "verify accepts the site ($(grep 'left out of the site' <<<"$out"))"
else
    bad "verify on the site: exit $rc"; echo "$out" | tail -8
fi
cp -r "$site" "$work/tampered"
printf 'X' | dd of="$work/tampered/index.html" bs=1 seek=100 conv=notrunc status=none
out=$("$bin" verify "$work/tampered" 2>&1); rc=$?
if [ $rc -eq 1 ] && grep -q "mismatch: index.html" <<<"$out"; then
    ok "a tampered site file is caught"
else
    bad "tampered site: exit $rc"; echo "$out" | tail -5
fi
cp -r "$site" "$work/tampered2"; rm -rf "$work/tampered"
rm "$work/tampered2/run/samples/32x4096.stream.csv"
out=$("$bin" verify "$work/tampered2" 2>&1); rc=$?
if [ $rc -eq 1 ] && grep -q "run/samples/32x4096.stream.csv" <<<"$out"; then
    ok "a selected run file removed from the site is caught"
else
    bad "removed site run file: exit $rc"; echo "$out" | tail -5
fi

echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ]
