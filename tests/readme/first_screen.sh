#!/usr/bin/env bash
# first_screen.sh SRC_DIR OUT_DIR - README.md rendered to HTML (python3's
# markdown, as GitHub lays a README out: a column about 830 px wide in a
# 1280 px window) and opened in headless Chromium at 1280x800: the question,
# the answer's sentences, its figure, the two commands and how to run your
# own shapes and how long that takes must all end within the first 800 px.
# Writes OUT_DIR/readme.html and OUT_DIR/readme-first-screen.png (the
# screenshot, to look at). Skips (77) without Chromium or python3-markdown.
set -uo pipefail
src=$(cd "$1" && pwd) out=$2
mkdir -p "$out"
chromium=$(command -v chromium || command -v chromium-browser || true)
[ -n "$chromium" ] || { echo "SKIP: chromium is not installed (scripts/deps.sh test installs Debian's chromium)"; exit 77; }
py=""
for p in python3 /usr/bin/python3; do
    if "$p" -c 'import markdown' 2>/dev/null; then py=$p; break; fi
done
[ -n "$py" ] || { echo "SKIP: no python3 with the markdown module (scripts/deps.sh test installs python3-markdown)"; exit 77; }

html=$out/readme.html
"$py" - "$src/README.md" "$src" "$html" <<'PY' || { echo "FAIL: rendering README.md"; exit 1; }
import markdown, sys
text = open(sys.argv[1]).read()
body = markdown.markdown(text, extensions=["tables", "fenced_code"])
# GitHub's README column at a 1280 px window: about 830 px of text, 16 px
# type, 1.5 line height; code blocks in 85% monospace.
style = """
body { margin: 0; background: #fff; }
article { box-sizing: border-box; width: 880px; margin: 0 0 0 24px; padding: 24px 32px;
  font: 16px/1.5 -apple-system, "Segoe UI", "DejaVu Sans", sans-serif; color: #1f2328; }
h1 { font-size: 2em; border-bottom: 1px solid #d1d9e0; padding-bottom: .3em; margin: 0 0 16px; }
h2 { font-size: 1.5em; border-bottom: 1px solid #d1d9e0; padding-bottom: .3em; }
p, pre, table, details { margin: 0 0 16px; }
pre { background: #f6f8fa; padding: 16px; border-radius: 6px; font-size: 85%; overflow: auto; }
code { font-family: "DejaVu Sans Mono", monospace; font-size: 85%; }
pre code { font-size: 100%; }
img { max-width: 100%; }
"""
measure = """
<script>
window.addEventListener('load', () => {
  const bottom = e => e ? Math.round(e.getBoundingClientRect().bottom + window.scrollY) : -1;
  const para = start => [...document.querySelectorAll('article > p')]
      .find(p => p.textContent.trim().startsWith(start));
  const pre = [...document.querySelectorAll('pre')]
      .find(p => p.textContent.includes('scripts/main.sh') && p.textContent.includes('scripts/test.sh'));
  const img = document.querySelector('img[src$="fig7_answer.png"]');
  const r = {question: bottom(para('The question.')), answer: bottom(para('The answer.')),
             figure: img && img.complete && img.naturalWidth > 0 ? bottom(img) : -1,
             commands: bottom(pre), own_shapes: bottom(para('Your own shapes')),
             wall_time: bottom([...document.querySelectorAll('article > p')].find(p => p.textContent.includes('How long:')))};
  document.getElementById('measured').textContent = 'MEASURED ' + JSON.stringify(r);
});
</script>"""
page = (f'<!doctype html><html><head><meta charset="utf-8"><base href="file://{sys.argv[2]}/">'
        f'<style>{style}</style></head><body><article>{body}</article>'
        f'<pre id="measured" style="display:none"></pre>{measure}</body></html>')
open(sys.argv[3], "w").write(page)
PY
browse() { timeout 120 "$chromium" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage \
               --allow-file-access-from-files --hide-scrollbars "$@" 2>/dev/null; }
png=$out/readme-first-screen.png
rm -f "$png"
browse --window-size=1280,800 --virtual-time-budget=5000 --screenshot="$png" "file://$html" >/dev/null
[ -s "$png" ] || { echo "FAIL: Chromium wrote no screenshot"; exit 1; }
m=$(browse --window-size=1280,800 --virtual-time-budget=5000 --dump-dom "file://$html" |
    grep -o 'MEASURED {[^<]*}' | sed 's/^MEASURED //; s/&quot;/"/g')
[ -n "$m" ] || { echo "FAIL: the page's measurement did not run"; exit 1; }
echo "bottom edge of each part, px from the top (first screen: 800): $m"
"$py" - "$m" <<'PY'
import json, sys
m = json.loads(sys.argv[1])
bad = [f"{k} {'missing' if v < 0 else f'ends at {v} px'}" for k, v in m.items() if v < 0 or v > 800]
if bad:
    print("FAIL: not on the first screen (1280x800): " + "; ".join(bad))
    sys.exit(1)
print("PASS: the question, the answer, its figure, the two commands, your own shapes and the "
      "wall time all end by " + str(max(m.values())) + " px")
PY
rc=$?
echo "screenshot: $png"
exit $rc
