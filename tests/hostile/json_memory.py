#!/usr/bin/env python3
"""json_memory.py BIN RUN - hostile: JSON parsing has a memory bound near the
file's size (issue 34, L1). A copy of RUN whose summary.json is 24 MB of a
list of small numbers (under the 256 MiB bound a JSON file may have, about
20 times its size in memory as parsed): verify must refuse it with a clear
message naming summary.json and the memory bound (not "-1:-1:"), its peak
RSS (getrusage of the child) under 13 times the file's size (the parse's
bound is 8 times and 16 MiB, the text itself is read into memory too)."""
import os
import resource
import shutil
import subprocess
import sys
import tempfile

binary, run = sys.argv[1], sys.argv[2]
tmp = tempfile.mkdtemp(prefix="se-hostile-json-")
try:
    copy = os.path.join(tmp, "run")
    shutil.copytree(run, copy)
    path = os.path.join(copy, "summary.json")
    os.chmod(path, 0o644)
    with open(path, "w") as f:
        f.write('{"pad": [' + "0," * 12_000_000 + "0]}\n")
    size = os.path.getsize(path)
    p = subprocess.run([binary, "verify", copy], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
    out = p.stdout.decode("utf-8", "replace")
    lines = [l for l in out.splitlines() if "summary.json" in l and "memory" in l]
    fails = 0
    print(f"summary.json: {size} bytes; verify exit {p.returncode}, peak RSS {peak} bytes "
          f"({peak / size:.1f} times)")
    if p.returncode != 1 or not lines or "-1:-1" in out:
        print("FAIL: verify does not refuse summary.json naming the memory bound:")
        print("\n".join(out.splitlines()[-6:]))
        fails += 1
    else:
        print("ok: " + lines[0].strip()[:300])
    if peak > 13 * size:
        print(f"FAIL: peak RSS {peak} is over 13 times the file's {size} bytes")
        fails += 1
    else:
        print("ok: peak RSS under 13 times the file's size")
    sys.exit(1 if fails else 0)
finally:
    shutil.rmtree(tmp)
