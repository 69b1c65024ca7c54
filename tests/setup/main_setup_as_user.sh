#!/usr/bin/env bash
# main_setup_as_user.sh SRC_DIR - the main job's set-up as a user without
# root (docs/SETUP.md): a user made for this test (useradd; removed at the
# end) runs scripts/main.sh with SE_MAIN_STOP_AFTER=configure on a copy of
# the sources, with the build dependencies present, and
#   - nothing is installed: apt-get, apt, dnf, yum, sudo and su on its PATH
#     are stand-ins that record a call, and none may be called;
#   - the set-up passes and CMake's configure step runs (build/CMakeCache.txt);
# then, with cmake and gnuplot hidden from PATH, the set-up exits 1 naming the
# exact apt-get and dnf packages, still installing nothing, and without
# gnuplot but with SE_MAIN_FIGURES=0 (no figures) it passes. Skips (77) where it cannot add a user: not root.
set -uo pipefail
src=$(cd "$1" && pwd)
if [ "$(id -u)" -ne 0 ]; then
    echo "SKIP: not root, so this test cannot add the non-root user it runs the set-up as (useradd)"
    exit 77
fi
command -v useradd >/dev/null 2>&1 && command -v runuser >/dev/null 2>&1 || {
    echo "SKIP: useradd or runuser is missing"; exit 77; }
user=se-setup-$$
tmp=$(mktemp -d /tmp/se-setup-test.XXXXXX)
cleanup() {
    userdel "$user" >/dev/null 2>&1
    rm -rf "$tmp"
}
trap cleanup EXIT
useradd -M -d "$tmp/home" -s /bin/bash "$user" || { echo "FAIL: useradd $user failed"; exit 1; }
mkdir -p "$tmp/home" "$tmp/tree" "$tmp/shims" "$tmp/nognuplot"
chmod 755 "$tmp"
# The sources a build needs (no runs/, no build/; bench/ holds a benchmark target).
for p in CMakeLists.txt cmake src protocol scripts tests bench; do
    cp -a "$src/$p" "$tmp/tree/" || { echo "FAIL: copying $p"; exit 1; }
done
rm -rf "$tmp/tree/build"
: >"$tmp/installs.log"
for tool in apt-get apt dnf yum sudo su; do
    printf '#!/bin/sh\necho "%s $*" >>%s\nexit 1\n' "$tool" "$tmp/installs.log" >"$tmp/shims/$tool"
    chmod 755 "$tmp/shims/$tool"
done
chown -R "$user" "$tmp/home" "$tmp/tree" "$tmp/installs.log"
# A PATH like this one's, readable by the user, minus root's own folders.
userpath=$tmp/shims
IFS=: read -ra dirs <<<"$PATH"
for d in "${dirs[@]}" /usr/local/cuda/bin; do
    case "$d" in /root*) continue ;; esac
    userpath=$userpath:$d
done

as_user() {
    runuser -u "$user" -- env -i HOME="$tmp/home" PATH="$1" LANG=C.UTF-8 "${@:2}"
}
fail=0
check_no_install() {
    if [ -s "$tmp/installs.log" ]; then
        echo "FAIL: $1 tried to install:"; cat "$tmp/installs.log"; fail=1
    fi
}

echo "== scripts/main.sh as $user (uid $(id -u "$user")), SE_MAIN_STOP_AFTER=configure"
out=$(cd "$tmp/tree" && as_user "$userpath" SE_MAIN_STOP_AFTER=configure bash scripts/main.sh 2>&1)
rc=$?
echo "$out" | tail -5
[ $rc -eq 0 ] || { echo "FAIL: main.sh's set-up exited $rc as a non-root user with every build dependency"; fail=1; }
[ -f "$tmp/tree/build/CMakeCache.txt" ] || { echo "FAIL: no build/CMakeCache.txt: CMake's configure step did not run"; fail=1; }
echo "$out" | grep -q "main: configured build/" || { echo "FAIL: main.sh did not say it configured build/"; fail=1; }
check_no_install "main.sh with every dependency present"
[ "$(stat -c %U "$tmp/tree/build/CMakeCache.txt" 2>/dev/null)" = "$user" ] ||
    { echo "FAIL: build/ was not written by $user"; fail=1; }

echo "== cmake and gnuplot not on PATH"
for d in "${dirs[@]}" /usr/local/cuda/bin; do
    case "$d" in /root*) continue ;; esac
    for f in "$d"/*; do
        b=${f##*/}
        case "$b" in gnuplot*|cmake) continue ;; esac
        [ -e "$tmp/nognuplot/$b" ] || ln -s "$f" "$tmp/nognuplot/$b" 2>/dev/null
    done
done
out=$(cd "$tmp/tree" && as_user "$tmp/shims:$tmp/nognuplot" SE_MAIN_STOP_AFTER=setup bash scripts/main.sh 2>&1)
rc=$?
echo "$out"
[ $rc -eq 1 ] || { echo "FAIL: exit $rc without cmake and gnuplot, not 1"; fail=1; }
for want in "sudo apt-get install cmake gnuplot-nox" "sudo dnf install cmake gnuplot"; do
    echo "$out" | grep -qF "$want" || { echo "FAIL: the message does not say '$want'"; fail=1; }
done
check_no_install "main.sh without cmake and gnuplot"
echo "== gnuplot not on PATH, SE_MAIN_FIGURES=0 (no figures drawn)"
mkdir -p "$tmp/withcmake"; cp -a "$tmp/nognuplot/." "$tmp/withcmake/"
ln -s "$(command -v cmake)" "$tmp/withcmake/cmake"
out=$(cd "$tmp/tree" && as_user "$tmp/shims:$tmp/withcmake" SE_MAIN_FIGURES=0 SE_MAIN_STOP_AFTER=setup \
      bash scripts/main.sh 2>&1)
rc=$?
echo "$out" | tail -2
[ $rc -eq 0 ] || { echo "FAIL: exit $rc without gnuplot but with SE_MAIN_FIGURES=0, not 0"; fail=1; }
check_no_install "main.sh with SE_MAIN_FIGURES=0"

[ $fail -eq 0 ] && echo "PASS: as $user, main.sh's set-up installed nothing, configured the build, and named the missing packages"
exit $fail
