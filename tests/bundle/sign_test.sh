#!/usr/bin/env bash
# sign_test.sh BINARY RUN_DIR OTHER_RUN_DIR - signed runs (docs/SIGNING.md):
# a signed copy of the reference run verifies with its public key and fails
# with another key, with a signature of another manifest, after a re-hashed
# edit (which plain verify cannot see), and without a signature; malformed,
# hostile and foreign signature files are refused; the openssl command line
# verifies our signature and we verify one it made. No GPU needed.
set -u
bin=$1 ref=$2 other=$3
fails=0 passes=0
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
run=$work/run sig=$work/run/MANIFEST.sha256.sig

ok() { echo "ok: $1"; passes=$((passes + 1)); }
bad() { echo "FAIL: $1"; shift; [ $# -gt 0 ] && printf '%s\n' "$@" | tail -15; fails=$((fails + 1)); }

# expect NAME WANT_RC SUBSTRING -- COMMAND...: the command exits WANT_RC, and
# its output (stdout and stderr) holds SUBSTRING; 120 s at most (no hang: a
# verify of the reference run takes about 1 s of CPU, 7 s of wall time under
# AddressSanitizer on a loaded 2-core machine, where 10 s timed out).
expect() {
    local name=$1 want_rc=$2 want=$3; shift 4
    local out rc
    out=$(timeout 120 "$@" 2>&1); rc=$?
    if [ "$rc" -ne "$want_rc" ] || ! grep -qF -- "$want" <<<"$out"; then
        bad "$name: exit $rc (want $want_rc), want '$want' in:" "$out"
    else
        ok "$name"
    fi
}

fresh() { rm -rf "$run"; cp -r "$ref" "$run"; chmod -R u+w "$run"; }
# Rewrites the manifest line of one file: the forgery a plain manifest allows.
. "$(dirname "$0")/rehash.sh"
rehash() { rehash_in "$run" "$1"; }
fingerprint() { openssl pkey -pubin -in "$1" -outform DER | sha256sum | cut -d' ' -f1; }

for k in key other; do
    openssl genpkey -algorithm ed25519 -out "$work/$k.pem" 2>/dev/null &&
        openssl pkey -in "$work/$k.pem" -pubout -out "$work/$k.pub" ||
        { echo "FAIL: openssl cannot make an Ed25519 key pair"; echo "0 passed, 1 failed"; exit 1; }
done
key=$work/key.pem pub=$work/key.pub

fresh
expect "sign a copy of the reference run" 0 "signature in $sig" -- "$bin" sign "$run" --key "$key"
if [ "$(sed -n 1p "$sig")" = "softmax-evidence-signature 1" ] && [ "$(wc -l <"$sig")" -eq 5 ] &&
   grep -qx "key-sha256 $(fingerprint "$pub")" "$sig"; then
    ok "signature file: format line, the key's SHA-256, five lines"
else
    bad "signature file: format line, the key's SHA-256, five lines" "$(cat "$sig")"
fi
expect "signed run verifies with the public key (--strict)" 0 "signature: OK" -- \
    "$bin" verify "$run" --strict --trusted-key "$pub"
expect "signed run verifies without --trusted-key, the signature not unlisted" 0 \
    "0 unlisted" -- "$bin" verify --strict "$run"
# (a selected bundle's remote-only files are in its archive: --ignore-missing)
missing=""
[ -f "$run/remote.json" ] && missing=--ignore-missing
expect "sha256sum -c still checks the signed run" 0 "OK" -- \
    sh -c "cd '$run' && sha256sum --quiet $missing -c MANIFEST.sha256 && echo OK"
expect "another key fails" 1 "not the trusted key" -- \
    "$bin" verify "$run" --trusted-key "$work/other.pub"

# The openssl command line, both ways (the commands docs/SIGNING.md gives).
sed -n 's/^signature //p' "$sig" | openssl base64 -d -A >"$work/sig.bin"
expect "openssl pkeyutl verifies our signature" 0 "Signature Verified Successfully" -- \
    openssl pkeyutl -verify -pubin -inkey "$pub" -rawin -in "$run/MANIFEST.sha256" \
    -sigfile "$work/sig.bin"
openssl pkeyutl -sign -inkey "$work/other.pem" -rawin -in "$run/MANIFEST.sha256" -out "$work/cli.bin"
{ echo "softmax-evidence-signature 1"; echo "signed-file MANIFEST.sha256"; echo "algorithm ed25519"
  echo "key-sha256 $(fingerprint "$work/other.pub")"; echo "signature $(openssl base64 -A -in "$work/cli.bin")"
} >"$sig"
expect "we verify a signature made by openssl pkeyutl" 0 "signature: OK" -- \
    "$bin" verify "$run" --trusted-key "$work/other.pub"
expect "the openssl signature fails with our first key" 1 "not the trusted key" -- \
    "$bin" verify "$run" --trusted-key "$pub"

# A re-hashed edit: plain verify cannot see it, the signature can.
fresh
"$bin" sign "$run" --key "$key" >/dev/null
sed -i 's/"name": "NVIDIA H200"/"name": "NVIDIA B200"/' "$run/environment.json"
rehash environment.json
expect "re-hashed edit passes plain verify (why runs are signed)" 0 "verify: OK" -- \
    "$bin" verify --strict "$run"
expect "re-hashed edit fails with --trusted-key" 1 "does not match the bytes of MANIFEST.sha256" -- \
    "$bin" verify --strict "$run" --trusted-key "$pub"
expect "re-hashed edit: verify's last line says FAILED" 1 "signature: FAILED" -- \
    "$bin" verify "$run" --trusted-key "$pub"

# A signature of another manifest (another run signed with the same key).
rm -rf "$work/other-run"; cp -r "$other" "$work/other-run"; chmod -R u+w "$work/other-run"
"$bin" sign "$work/other-run" --key "$key" >/dev/null
fresh
cp "$work/other-run/MANIFEST.sha256.sig" "$sig"
expect "signature of another manifest fails" 1 "does not match the bytes of MANIFEST.sha256" -- \
    "$bin" verify "$run" --trusted-key "$pub"

# No signature.
fresh
expect "missing signature fails with --trusted-key" 1 "the run is not signed" -- \
    "$bin" verify "$run" --trusted-key "$pub"
expect "missing signature: plain verify passes" 0 "verify: OK" -- "$bin" verify "$run"

# Malformed and hostile signature files are refused, promptly.
"$bin" sign "$run" --key "$key" >/dev/null
cp "$sig" "$work/good.sig"
b64=$(sed -n 's/^signature //p' "$work/good.sig")
flip=$(printf '%s' "$b64" | sed 's/^\(.\{10\}\)./\1A/;t'); [ "$flip" = "$b64" ] && flip=$(printf '%s' "$b64" | sed 's/^\(.\{10\}\)./\1B/')
sed "s|^signature .*|signature $flip|" "$work/good.sig" >"$sig"
expect "a changed signature byte fails" 1 "does not match the bytes" -- \
    "$bin" verify "$run" --trusted-key "$pub"
head -4 "$work/good.sig" >"$sig"
expect "truncated signature file" 1 "line 5 is not" -- "$bin" verify "$run" --trusted-key "$pub"
{ cat "$work/good.sig"; echo extra; } >"$sig"
expect "a line after the signature" 1 "bytes after the fifth line" -- \
    "$bin" verify "$run" --trusted-key "$pub"
sed 's/^algorithm ed25519$/algorithm rsa/' "$work/good.sig" >"$sig"
expect "another algorithm" 1 "line 3 is not" -- "$bin" verify "$run" --trusted-key "$pub"
sed 's/==$/=/' "$work/good.sig" >"$sig"
expect "base64 without its padding" 1 "line 5 is not" -- "$bin" verify "$run" --trusted-key "$pub"
# The last digit before "==" carries 2 bits; setting an unused one decodes
# to the same bytes, and is refused all the same (only one text per signature).
sed 's/A==$/B==/;t;s/Q==$/R==/;t;s/g==$/h==/;t;s/w==$/x==/' "$work/good.sig" >"$sig"
expect "non-canonical base64 (unused bits set)" 1 "line 5 is not" -- \
    "$bin" verify "$run" --trusted-key "$pub"
rm -f "$sig"; ln -s "$work/good.sig" "$sig"
expect "signature file as a symbolic link" 1 "symbolic link" -- "$bin" verify "$run" --trusted-key "$pub"
rm -f "$sig"; mkfifo "$sig"
expect "signature file as a FIFO (no hang)" 1 "not a regular file" -- \
    "$bin" verify "$run" --trusted-key "$pub"
rm -f "$sig"; ln -s /dev/zero "$sig"
expect "signature file linked to /dev/zero" 1 "symbolic link" -- \
    "$bin" verify "$run" --trusted-key "$pub"
rm -f "$sig"; head -c 100000 /dev/zero >"$sig"
expect "oversized signature file" 1 "more than the 1024 read" -- \
    "$bin" verify "$run" --trusted-key "$pub"
rm -f "$sig"

# Keys of the wrong kind, and runs that do not verify, are refused.
openssl genpkey -algorithm x25519 -out "$work/x25519.pem" 2>/dev/null
expect "sign with a public key" 2 "not a PEM private key" -- "$bin" sign "$run" --key "$pub"
expect "sign with a non-Ed25519 key" 2 "not an Ed25519 key" -- \
    "$bin" sign "$run" --key "$work/x25519.pem"
expect "verify with a private key as the trusted key" 2 "not a PEM public key" -- \
    "$bin" verify "$run" --trusted-key "$key"
expect "sign without --key" 2 "usage: softmax-evidence sign RUN_DIR --key KEY" -- "$bin" sign "$run"
expect "verify --trusted-key on a site is refused" 2 "--trusted-key checks a run directory" -- \
    sh -c "mkdir -p '$work/site' && : >'$work/site/SITE_MANIFEST.sha256' && '$bin' verify '$work/site' --trusted-key '$pub'"
printf 'x' >>"$run/run.json"
expect "sign refuses a run that does not verify" 1 "does not verify, so it is not signed" -- \
    "$bin" sign "$run" --key "$key"
if [ -e "$sig" ]; then bad "a refused sign leaves no signature"; else ok "a refused sign leaves no signature"; fi
if ls -A "$run" | grep -q '^\.tmp-signature'; then bad "no temporary file left"; else ok "no temporary file left"; fi

echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ]
