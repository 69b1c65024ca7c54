#!/usr/bin/env bash
# Next session, one H200 (issue 18 item 4): a complete run of the default
# protocol with every array, archived at --level 0, and verify --archive on it.
# Was: call D on the two-GPU H200 machine: build the committed code, check the new
# rowblock grid on rows of any length, then Slurm for real: a one-node
# cluster (scripts/slurm/one-node.sh) with both GPUs in gres.conf, the array
# of two default-protocol runs (every array saved) and the merge job.
set -o pipefail
T0=$(date +%s)
el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
# A fresh machine has /lib -> usr/lib; a Debian package with ./lib/ in it,
# extracted over /, would replace that link with a folder (it happened once):
# repair it, and extract every Slurm package aside, copying only usr/ and etc/.
[ -L /lib ] || python3 -c "import os; os.rename('/lib', '/lib.bad'); os.symlink('usr/lib', '/lib')"
ls -ld /lib
for f in .dev/debs/*.deb; do dpkg -x "$f" /; done
mkdir -p /opt/la; for f in .dev/ladebs/*.deb; do dpkg -x "$f" /opt/la; done
cp -an /opt/la/usr/include/. /usr/include/
for so in /opt/la/usr/lib/x86_64-linux-gnu/*; do n=$(basename "$so"); [ -e /usr/lib/x86_64-linux-gnu/$n ] || { cp -a "$so" /usr/lib/x86_64-linux-gnu/; echo "la added: $n"; }; done
mkdir -p /usr/lib/x86_64-linux-gnu/pkgconfig; cp -an /opt/la/usr/lib/x86_64-linux-gnu/pkgconfig/. /usr/lib/x86_64-linux-gnu/pkgconfig/
ldconfig
export PATH=$PATH:/usr/sbin:/sbin
cat /etc/os-release | head -2; id -u; hostname
want=$(git bundle list-heads .dev/new.bundle | awk '/refs\/heads\/main/ {print $1}')
git fetch -q .dev/new.bundle main:refs/remotes/carried/main && git reset -q --hard "$want"
echo "== HEAD $(git rev-parse HEAD); code changes: $(git status --porcelain --untracked-files=no -- src cmake CMakeLists.txt protocol bench scripts | wc -l)"
nvidia-smi --query-gpu=index,name,uuid,pci.bus_id --format=csv,noheader
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DSE_BUILD_TESTS=OFF >/dev/null 2>$OUT/cmake.err || { cat $OUT/cmake.err; exit 1; }
cmake --build build -j32 2>&1 | grep -E " error|FAILED" | head -20
el built
B=$PWD/build/softmax-evidence



d=build/complete; rm -rf $d; mkdir -p $d
t=$(date +%s); $B run --quiet --no-peers --save-arrays --runs-dir $d --run-dir-out build/complete.txt > $OUT/run.log 2>&1; el "run exit $? in $(( $(date +%s) - t )) s"
c=$(cat build/complete.txt); du -sb $c; ls $c/arrays | wc -l
t=$(date +%s); $B archive $c -o build/complete.tar.gz --level 0 > $OUT/archive.log 2>&1; el "archive exit $? in $(( $(date +%s) - t )) s"; tail -5 $OUT/archive.log
ls -la build/complete.tar.gz; cat build/complete.tar.gz.sha256; du -sb $c
t=$(date +%s); timeout $(( 590 - ($(date +%s) - T0) )) $B verify $c --archive build/complete.tar.gz > $OUT/verify-archive.log 2>&1; el "verify --archive exit $? in $(( $(date +%s) - t )) s"; tail -12 $OUT/verify-archive.log
cp $c/remote.json $c/environment.json $OUT/ 2>/dev/null
cd $OUT && tar czf logs.tgz --remove-files $(ls | grep -vE '\.(tgz)$') ; ls -la $OUT
