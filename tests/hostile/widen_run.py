"""widen_run.py - hostile runs of saved arrays whose protocol claims a wide
shape (issue 34, M3), for tests/hostile/array_memory.py: a copy of a small
complete run (tests/data/complete-run) whose 1x7 shape becomes 1xCOLS in
protocol.json and in the stream record of validation.json, with that case's
input and output saved as sparse files of zeros (nothing on disk) and listed
in the manifest with their hashes, so that verify re-checks them."""
import hashlib
import json
import os
import shutil


def zeros_sha256(n):
    h, block = hashlib.sha256(), bytes(1 << 20)
    while n:
        k = min(n, len(block))
        h.update(block[:k])
        n -= k
    return h.hexdigest()


def widen(src, dst, cols):
    """The widened copy dst of src; returns (x path, y path, array bytes), relative."""
    shutil.copytree(src, dst)
    for root, dirs, files in os.walk(dst):
        for n in dirs + files:
            os.chmod(os.path.join(root, n), 0o755 if n in dirs else 0o644)
    shape = f"1x{cols}"
    pj = os.path.join(dst, "protocol.json")
    p = json.load(open(pj))
    p["workload"]["shapes"] = [shape if s == "1x7" else s for s in p["workload"]["shapes"]]
    json.dump(p, open(pj, "w"), indent=2)
    vj = os.path.join(dst, "validation.json")
    v = json.load(open(vj))
    nbytes = 4 * cols
    for c in v["cases"]:
        if c["shape"] == "1x7":
            c.update(case=c["case"].replace("1x7", shape, 1), shape=shape, cols=cols,
                     elements=cols)
    zero = zeros_sha256(nbytes)
    for c in v["cases"]:
        if c["case"] == f"{shape}.stream":
            c.update(input_sha256=zero, output_sha256=zero)
    json.dump(v, open(vj, "w"), indent=2)
    x, y = f"arrays/{shape}.x.f32", f"arrays/{shape}.stream.y.f32"
    for rel in (x, y):
        with open(os.path.join(dst, rel), "wb") as f:
            f.truncate(nbytes)  # sparse: nothing on disk
    lines = []
    for line in open(os.path.join(dst, "MANIFEST.sha256")):
        h, name = line.rstrip("\n").split("  ", 1)
        if name in ("protocol.json", "validation.json"):
            h = hashlib.sha256(open(os.path.join(dst, name), "rb").read()).hexdigest()
        lines.append((name, h))
    lines += [(x, zero), (y, zero)]
    with open(os.path.join(dst, "MANIFEST.sha256"), "w") as f:
        f.writelines(f"{h}  {n}\n" for n, h in sorted(lines))
    return x, y, nbytes
