#!/usr/bin/env python3
"""seams.py SRC_DIR names|lookups - the bundle's seams hold in the source.

names:   no bundle file name (run.json, summary.json, MANIFEST.sha256,
         profile/ncu_raw.csv ...) or JSON "format" value is spelled in a
         string literal anywhere in SRC_DIR but bundle/paths.h and paths.c,
         the one owner of a run directory's names.
lookups: no file of SRC_DIR/render reads the bundle's JSON by raw key or
         index (json_object_get, json_object_iter*, json_array_get and the
         foreach macros) except the files in PENDING, the renderers not yet
         moved onto the bundle's typed views (issue 32, item 5). A file in
         PENDING that no longer has a raw lookup fails too, so the list only
         shrinks.
Comments are stripped first: prose may name files, code may not.
"""
import os
import re
import sys

NAMES = ["run.json", "environment.json", "protocol.json", "summary.json",
         "validation.json", "resources.json", "traces.json", "strategies.json",
         "peers.json", "remote.json", "MANIFEST.sha256", "profile.json",
         "kernels.csv", "ncu_raw.csv", "traces/outputs.csv"]
FORMATS = ["softmax-evidence-run", "softmax-evidence-environment",
           "softmax-evidence-validation", "softmax-evidence-resources",
           "softmax-evidence-profile", "softmax-evidence-strategies"]
OWNERS = {os.path.join("bundle", "paths.h"), os.path.join("bundle", "paths.c")}
LOOKUP = re.compile(r"\b(json_object_get|json_object_iter\w*|json_array_get|"
                    r"json_array_foreach|json_object_foreach\w*)\b")
PENDING = set()  # every renderer reads the views (issue 32, item 5)

NAME_RE = re.compile(r"(?<![A-Za-z0-9_-])(" + "|".join(re.escape(n) for n in NAMES) +
                     r")(?![A-Za-z0-9_])")
LITERAL = re.compile(r'"((?:[^"\\\n]|\\.)*)"')


def strip_comments(text):
    """The text with /* */ and // comments blanked, string literals kept."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if c == '"' or c == "'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def sources(root):
    for d, _, files in os.walk(root):
        for f in sorted(files):
            if f.endswith((".c", ".h", ".cu")):
                yield os.path.join(d, f)


def check_names(src):
    bad = []
    for path in sources(src):
        rel = os.path.relpath(path, src)
        if rel in OWNERS:
            continue
        with open(path, encoding="utf-8") as fh:
            code = strip_comments(fh.read())
        for no, line in enumerate(code.split("\n"), 1):
            if line.lstrip().startswith("#include"):
                continue
            for m in LITERAL.finditer(line):
                body = m.group(1)
                hit = NAME_RE.search(body) or (body in FORMATS and body)
                if hit:
                    bad.append("%s:%d: %s (use bundle/paths.h)" % (rel, no, m.group(0)))
    return bad


def check_lookups(src):
    bad, render = [], os.path.join(src, "render")
    seen = set()
    for path in sources(render):
        name = os.path.basename(path)
        with open(path, encoding="utf-8") as fh:
            code = strip_comments(fh.read())
        hits = [(no, m.group(1)) for no, line in enumerate(code.split("\n"), 1)
                for m in LOOKUP.finditer(line)]
        if hits:
            seen.add(name)
        if hits and name not in PENDING:
            bad += ["render/%s:%d: %s (read it through a bundle view)" % (name, no, f)
                    for no, f in hits]
    for name in sorted(PENDING - seen):
        bad.append("render/%s: no raw lookup left; remove it from PENDING in %s" %
                   (name, os.path.basename(__file__)))
    return bad


def main():
    if len(sys.argv) != 3 or sys.argv[2] not in ("names", "lookups"):
        sys.exit("usage: seams.py SRC_DIR names|lookups")
    src = sys.argv[1]
    bad = check_names(src) if sys.argv[2] == "names" else check_lookups(src)
    for b in bad:
        print("FAIL:", b)
    if sys.argv[2] == "lookups":
        print("%d renderers still read raw keys: %s" % (len(PENDING), " ".join(sorted(PENDING))))
    print("%d problems" % len(bad))
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
