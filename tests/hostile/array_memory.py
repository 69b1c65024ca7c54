#!/usr/bin/env python3
"""array_memory.py BIN COMPLETE_RUN - hostile: memory of the saved-array
re-check is bounded by what is checked, not by what a file claims (issue
34, M3). (1) A copy of COMPLETE_RUN whose 1x7 shape is widened to
1x67108864, with that case's input and stream output as sparse files of
256 MiB (widen_run.py: nothing on disk): `verify` re-checks them with a
peak RSS under 128 MiB (9ae71be held the input, the output and a float64
reference: 1 GiB). (2) The same widened run as a selected bundle whose
archive is a gzip bomb (the two arrays, zeros, about 0.5 MB compressed):
`verify --archive` names it and its peak RSS stays under 128 MiB (9ae71be:
over 1 GiB). Peak RSS by getrusage(RUSAGE_CHILDREN) of a child that runs
only the measured command."""
import gzip
import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import widen_run  # noqa: E402

binary, complete = sys.argv[1], sys.argv[2]
LIMIT = 128 << 20
COLS = 1 << 26
fails = 0


def measured(args):
    """(exit status, output, peak RSS in bytes) of args, run by a fresh child."""
    probe = ("import resource, subprocess, sys\n"
             "p = subprocess.run(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)\n"
             "sys.stdout.buffer.write(p.stdout)\n"
             "print('\\nRSS', resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024)\n"
             "sys.exit(p.returncode)\n")
    p = subprocess.run([sys.executable, "-c", probe] + args, stdout=subprocess.PIPE)
    out = p.stdout.decode("utf-8", "replace")
    rss = int(out.rsplit("RSS ", 1)[1])
    return p.returncode, out, rss


def want(cond, what, detail=""):
    global fails
    print(("ok: " if cond else "FAIL: ") + what)
    if not cond:
        fails += 1
        print("  " + detail[-1500:].replace("\n", "\n  "))


class Zeros(io.RawIOBase):
    def __init__(self, n):
        self.left = n

    def readable(self):
        return True

    def readinto(self, b):
        k = min(len(b), self.left)
        b[:k] = bytes(k)
        self.left -= k
        return k


tmp = tempfile.mkdtemp(prefix="se-hostile-arrays-")
try:
    run = os.path.join(tmp, "wide")
    x, y, nbytes = widen_run.widen(complete, run, COLS)
    rc, out, rss = measured([binary, "verify", run])
    print(f"(1) verify of the widened run, arrays of {nbytes} bytes (sparse): exit {rc}, "
          f"peak RSS {rss} bytes")
    want("recomputed from the arrays" in out and "1x67108864.stream" in out,
         "(1) verify re-checked the widened stream output from its saved arrays", out)
    want(rss < LIMIT, f"(1) peak RSS under {LIMIT} bytes", out)

    # (2) The selected bundle and its gzip bomb (libarchive builds only).
    if b"not built in" in subprocess.run([binary, "archive", "--help"], stdout=subprocess.PIPE,
                                         stderr=subprocess.STDOUT).stdout:
        print("(2) skipped: this build has no libarchive")
        sys.exit(1 if fails else 0)
    run_id = json.load(open(os.path.join(run, "run.json")))["run_id"]
    bomb = os.path.join(tmp, "bomb.tar.gz")
    with open(bomb, "wb") as raw:
        with gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=9, mtime=0) as gz:
            with tarfile.open(fileobj=gz, mode="w", format=tarfile.PAX_FORMAT) as t:
                for rel in (x, y):
                    info = tarfile.TarInfo(f"{run_id}/{rel}")
                    info.size = nbytes
                    t.addfile(info, io.BufferedReader(Zeros(nbytes)))
    data = open(bomb, "rb").read()
    manifest = open(os.path.join(run, "MANIFEST.sha256"), "rb").read()
    remote = {"format": "softmax-evidence-remote", "version": 1, "run_id": run_id,
              "archive": {"name": "bomb.tar.gz", "sha256": hashlib.sha256(data).hexdigest(),
                          "bytes": len(data)},
              "complete_manifest_sha256": hashlib.sha256(manifest).hexdigest(),
              "files": sorted([x, y])}
    rj = json.dumps(remote, indent=2).encode() + b"\n"
    open(os.path.join(run, "remote.json"), "wb").write(rj)
    lines = manifest.decode().splitlines(keepends=True)
    lines.append(f"{hashlib.sha256(rj).hexdigest()}  remote.json\n")
    open(os.path.join(run, "MANIFEST.sha256"), "w").writelines(sorted(lines, key=lambda l: l[66:]))
    for rel in (x, y):
        os.remove(os.path.join(run, rel))
    rc, out, rss = measured([binary, "verify", run, "--archive", bomb])
    print(f"(2) verify --archive of a {len(data)}-byte gzip bomb (two entries of {nbytes} "
          f"bytes): exit {rc}, peak RSS {rss} bytes")
    want(rc == 1 and "gzip bomb" in out, "(2) verify --archive fails, naming the gzip bomb", out)
    want(rss < LIMIT, f"(2) peak RSS under {LIMIT} bytes", out)
finally:
    shutil.rmtree(tmp)
print(f"{fails} failed")
sys.exit(1 if fails else 0)
