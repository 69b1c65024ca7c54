# rehash.sh - sourced by tamper.sh and sign_test.sh: rehash_in RUN FILE
# rewrites FILE's manifest line in RUN, the forgery a plain manifest allows.
# In a selected bundle (remote.json) the forger also rewrites remote.json's
# complete_manifest_sha256, which verify --strict checks against the
# manifest (docs/ARCHIVE.md), and remote.json's own line: only the content
# checks, or a signature, can then catch the edit.
rehash_in() {
    local run=$1 f=$2 h
    h=$(sha256sum "$run/$f" | cut -d' ' -f1)
    sed -i "s|^[0-9a-f]\{64\}  $f\$|$h  $f|" "$run/MANIFEST.sha256"
    [ -f "$run/remote.json" ] || return 0
    python3 - "$run" <<'PY'
import hashlib, json, os, sys
run = sys.argv[1]
m = os.path.join(run, "MANIFEST.sha256")
lines = open(m, "rb").read().splitlines(True)
rest = b"".join(l for l in lines if not l.endswith(b"  remote.json\n"))
r = json.load(open(os.path.join(run, "remote.json")))
r["complete_manifest_sha256"] = hashlib.sha256(rest).hexdigest()
text = (json.dumps(r, indent=2) + "\n").encode()
open(os.path.join(run, "remote.json"), "wb").write(text)
h = hashlib.sha256(text).hexdigest().encode()
open(m, "wb").write(b"".join(h + b"  remote.json\n" if l.endswith(b"  remote.json\n") else l
                             for l in lines))
PY
}
