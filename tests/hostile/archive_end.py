#!/usr/bin/env python3
"""archive_end.py BIN COMPLETE_RUN - hostile: verify --archive reads the gzip
stream to its end (issue 34, L3). COMPLETE_RUN is archived (`archive
--remote-min-bytes 0`); then its archive is replaced by one with a bad gzip
CRC, one with a second gzip member, one with a tar stream after the
end-of-archive blocks, and one with bytes after the gzip stream, each with
remote.json's archive bytes and SHA-256 set to match it (so only the
stream's end tells): verify --archive must fail on each (exit 1, or 5 for
a stream corrupt within its entries, as a truncated one is), saying why. The
archive as written still verifies. Exit 77 without libarchive."""
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

binary, complete = sys.argv[1], sys.argv[2]
if b"not built in" in subprocess.run([binary, "archive", "--help"], stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT).stdout:
    print("SKIP: this build has no libarchive")
    sys.exit(77)
tmp = tempfile.mkdtemp(prefix="se-hostile-gzend-")
fails = 0


def run(*args):
    p = subprocess.run([binary] + list(args), stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    return p.returncode, p.stdout.decode("utf-8", "replace")


def use_archive(bundle, data, name):
    """Writes data as the bundle's archive and points remote.json at it."""
    path = os.path.join(tmp, name)
    open(path, "wb").write(data)
    rj = os.path.join(bundle, "remote.json")
    r = json.load(open(rj))
    r["archive"].update(name=name, sha256=hashlib.sha256(data).hexdigest(), bytes=len(data))
    text = (json.dumps(r, indent=2) + "\n").encode()
    open(rj, "wb").write(text)
    m = os.path.join(bundle, "MANIFEST.sha256")
    lines = [(hashlib.sha256(text).hexdigest() + "  remote.json\n") if l.endswith("  remote.json\n")
             else l for l in open(m)]
    open(m, "w").writelines(lines)
    return path


try:
    bundle = os.path.join(tmp, "run")
    shutil.copytree(complete, bundle)
    for root, dirs, files in os.walk(bundle):
        for n in dirs + files:
            os.chmod(os.path.join(root, n), 0o755 if n in dirs else 0o644)
    good = os.path.join(tmp, "run.tar.gz")
    rc, out = run("archive", bundle, "-o", good, "--remote-min-bytes", "0")
    if rc != 0:
        print("FAIL: archive:\n" + out)
        sys.exit(1)
    data = open(good, "rb").read()
    rc, out = run("verify", bundle, "--archive", use_archive(bundle, data, "good.tar.gz"))
    print(("ok" if rc == 0 else "FAIL") + f": the archive as written verifies (exit {rc})")
    fails += rc != 0

    tar = gzip.decompress(data)
    extra = io.BytesIO()
    with tarfile.open(fileobj=extra, mode="w") as t:
        info = tarfile.TarInfo(json.load(open(os.path.join(bundle, "run.json")))["run_id"] + "/extra")
        info.size = 5
        t.addfile(info, io.BytesIO(b"extra"))
    bad_crc = bytearray(data)
    bad_crc[-8] ^= 0xFF
    cases = [("a bad gzip CRC", bytes(bad_crc), "incorrect data check"),
             ("a second gzip member", data + gzip.compress(extra.getvalue()), "second gzip member"),
             ("a tar stream after the end-of-archive blocks",
              gzip.compress(tar + extra.getvalue()), "after the tar end-of-archive"),
             ("bytes after the gzip stream", data + b"trailing bytes\n", "after the end of the gzip")]
    for i, (what, blob, word) in enumerate(cases):
        rc, out = run("verify", bundle, "--archive", use_archive(bundle, blob, f"bad{i}.tar.gz"))
        # A corrupt stream met while reading entries is an I/O error (5), as a
        # truncated one is; what is found after them is a problem (1).
        good_here = rc in (1, 5) and word in out
        print(("ok" if good_here else "FAIL") + f": {what}: verify --archive exit {rc}"
              + ("".join(f"\n  {l}" for l in out.splitlines() if word in l)[:300] if good_here
                 else "\n  " + "\n  ".join(out.splitlines()[-4:])))
        fails += not good_here
finally:
    shutil.rmtree(tmp)
print(f"{fails} failed")
sys.exit(1 if fails else 0)
