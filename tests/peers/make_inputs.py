#!/usr/bin/env python3
"""make_inputs.py [--layernorm] DIR SHAPE... - writes DIR/peers-inputs.json and
the arrays it names, as `softmax-evidence run` does, for testing bench/peers.py
without a GPU: x normal(0, 16) from a seeded generator, xp = s * x per row;
with --layernorm, LayerNorm's inputs: its peers and x alone, no xp."""
import hashlib
import json
import math
import os
import random
import struct
import sys


def main(out, shapes, layernorm=False):
    os.makedirs(out, exist_ok=True)
    rng = random.Random(7)
    doc = {"format": "softmax-evidence-peers-inputs", "version": 1, "samples": 5, "warmup": 1,
           "first_seq": 1000, "peers": ["torch-eager", "torch-compile", "torch-softmax"],
           "shapes": []}
    if layernorm:
        doc["operation"] = "layernorm"
        doc["peers"] = ["torch-layernorm-eager", "torch-layernorm-compile"]
    eps = 1e-6
    for sid in shapes:
        rows, cols = (int(v) for v in sid.split("x"))
        x = [struct.unpack("<f", struct.pack("<f", rng.gauss(0.0, 16.0)))[0]
             for _ in range(rows * cols)]
        xp = []
        for r in range(rows):
            row = x[r * cols:(r + 1) * cols]
            s = 1.0 / math.sqrt(sum(v * v for v in row) / cols + eps)
            xp.extend(s * v for v in row)
        entry = {"id": sid, "rows": rows, "cols": cols, "eps": eps}
        for key, vals in (("x", x),) if layernorm else (("x", x), ("xp", xp)):
            name = "%s.%s.f32" % (sid, key)
            data = struct.pack("<%df" % len(vals), *vals)
            with open(os.path.join(out, name), "wb") as f:
                f.write(data)
            entry[key] = name
            entry[key + "_sha256"] = hashlib.sha256(data).hexdigest()
        doc["shapes"].append(entry)
    with open(os.path.join(out, "peers-inputs.json"), "w") as f:
        json.dump(doc, f, indent=1)


if __name__ == "__main__":
    ln = len(sys.argv) > 1 and sys.argv[1] == "--layernorm"
    main(sys.argv[1 + ln], sys.argv[2 + ln:], ln)
