#!/usr/bin/env bash
# scripts/offline-peers.sh install (docs/PEERS.md): unpacks parts that match
# SHA256SUMS and refuses, by name, a changed, missing or extra part, a
# SHA256SUMS that lists something else, and wrong arguments; nothing is
# unpacked from a refused set. pack needs PyPI and is not run here.
set -uo pipefail
src=$1
script=$src/scripts/offline-peers.sh
work=$(mktemp -d "${TMPDIR:-/tmp}/se-offline-peers-test-XXXXXX")
trap 'rm -rf "$work"' EXIT
passes=0 fails=0

# A set of parts as pack writes them: a tar.xz split in three, SHA256SUMS.
mkset() {
    rm -rf "$work/set" "$work/payload"; mkdir -p "$work/set" "$work/payload/pkg"
    head -c 300000 /dev/urandom > "$work/payload/pkg/lib.so"
    echo "VERSION = '1.0'" > "$work/payload/pkg/__init__.py"
    (cd "$work/payload" && tar cf - .) | xz -c | split -b 100000 -d -a 2 - "$work/set/peers.tar.xz."
    (cd "$work/set" && sha256sum peers.tar.xz.* > SHA256SUMS)
}

# check NAME WANT_EXIT WANT_TEXT -- ARGS...
check() {
    local name=$1 want=$2 text=$3; shift 4
    local out rc
    out=$("$script" "$@" 2>&1); rc=$?
    if [ "$rc" -eq "$want" ] && grep -qF -- "$text" <<<"$out"; then
        echo "ok: $name"; passes=$((passes + 1))
    else
        echo "FAIL: $name: exit $rc (want $want), want '$text' in:"; echo "$out" | tail -3
        fails=$((fails + 1))
    fi
}

mkset
n=$(ls "$work/set"/peers.tar.xz.* | wc -l)
[ "$n" -ge 3 ] || { echo "FAIL: the test set has $n parts, not 3 or more"; exit 1; }
check "intact parts unpack" 0 "unpacked into $work/t1" -- install "$work/set" "$work/t1"
if cmp -s "$work/payload/pkg/lib.so" "$work/t1/pkg/lib.so"; then
    echo "ok: the unpacked file is the packed one"; passes=$((passes + 1))
else echo "FAIL: the unpacked file differs"; fails=$((fails + 1)); fi

printf 'x' >> "$work/set/peers.tar.xz.01"
check "a changed part is refused" 1 "a part is missing or differs from SHA256SUMS" -- install "$work/set" "$work/t2"
[ ! -e "$work/t2/pkg" ] && { echo "ok: nothing unpacked from a changed part"; passes=$((passes + 1)); } ||
    { echo "FAIL: a changed part was unpacked"; fails=$((fails + 1)); }

mkset; rm "$work/set/peers.tar.xz.02"
check "a missing part is refused" 1 "a part is missing or differs from SHA256SUMS" -- install "$work/set" "$work/t3"

mkset; cp "$work/set/peers.tar.xz.00" "$work/set/peers.tar.xz.99"
check "an extra part is refused by name" 1 "peers.tar.xz.99: not listed in $work/set/SHA256SUMS" -- install "$work/set" "$work/t4"

mkset; echo "$(sha256sum /etc/hostname | cut -d' ' -f1)  ../../etc/hostname" >> "$work/set/SHA256SUMS"
check "SHA256SUMS naming a file that is not a part is refused" 1 "lists a file that is not a part: ../../etc/hostname" -- install "$work/set" "$work/t5"

mkset; rm "$work/set/SHA256SUMS"
check "no SHA256SUMS is refused" 1 "SHA256SUMS: missing" -- install "$work/set" "$work/t6"

check "no arguments: usage" 2 "offline-peers.sh install DIR TARGET" --
check "an unknown command: usage" 2 "offline-peers.sh pack DIR" -- unpack "$work/set"
mkdir -p "$work/full"; touch "$work/full/something"
check "pack into a folder that is not empty is refused" 1 "$work/full: exists and is not empty" -- pack "$work/full"

echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ]
