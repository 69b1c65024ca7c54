#!/usr/bin/env bash
# browser_test.sh BINARY RUN_DIR WORK_DIR - builds the site of a run and
# opens every page in headless Chromium (Debian's chromium): no console
# message, every image loaded (the pages' own load-time check), no broken
# local link or anchor, no external resource; a screenshot of the overview
# for a person to look at (WORK_DIR/overview.png); verify accepts the site
# and catches a tampered site file.
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

browse --screenshot="$work/overview.png" --window-size=1400,2400 "file://$site/index.html" \
    > /dev/null 2>&1
if [ -s "$work/overview.png" ] && [ "$(head -c 8 "$work/overview.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]; then
    ok "screenshot of the overview: $work/overview.png"
else
    bad "no screenshot of the overview"
fi

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
