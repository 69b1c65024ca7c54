#!/usr/bin/env bash
# array_args.sh SOURCE_DIR - hostile: scripts/slurm/array.sh refuses quotes,
# % and newlines (and the other shell and sbatch characters) wherever they
# would reach sbatch or its batch scripts (issue 34, L7): each refusal exits
# 2 naming the argument, before the fleet folder is made and before sbatch
# is called. A stand-in sbatch on PATH records its calls, so no Slurm is
# needed; a clean call goes through it.
set -u
src=$(cd "$1" && pwd)
tmp=$(mktemp -d /tmp/se-hostile-array.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/bin" "$tmp/cwd"
cat >"$tmp/bin/sbatch" <<EOS
#!/bin/sh
echo "\$@" >>"$tmp/sbatch-calls"
echo 42
EOS
chmod +x "$tmp/bin/sbatch"
printf '#!/bin/sh\nexit 0\n' >"$tmp/se" && chmod +x "$tmp/se"
cp "$tmp/se" "$tmp/s\$(id)e"
fails=0 passes=0
# refused NAME ARG_WORD RUNS_ROOT ARGS...: array.sh exits 2 naming ARG_WORD,
# makes nothing under RUNS_ROOT and never calls sbatch.
refused() {
    local name=$1 word=$2 root=$3
    shift 3
    rm -f "$tmp/sbatch-calls"
    out=$(cd "$tmp/cwd" && PATH="$tmp/bin:$PATH" "$src/scripts/slurm/array.sh" -N 2 --bin "$tmp/se" \
        --runs-root "$root" "$@" 2>&1)
    rc=$?
    made=$(find "$tmp" -name 'fleet-*' | head -1)
    if [ "$rc" -eq 2 ] && grep -qF -- "$word" <<<"$out" && [ -z "$made" ] && [ ! -e "$tmp/sbatch-calls" ]; then
        echo "ok: $name: refused ($(head -c 160 <<<"$out"))"
        passes=$((passes + 1))
    else
        echo "FAIL: $name: exit $rc, fleet folder '${made}', sbatch calls: $(cat "$tmp/sbatch-calls" 2>/dev/null)"
        echo "  $out" | head -5
        fails=$((fails + 1))
        find "$tmp" -name 'fleet-*' -prune -exec rm -rf {} +
    fi
}
root=$tmp/runs
refused "a quote in --partition" --partition "$root" --partition 'gpu"x'
refused "a single quote in --partition" --partition "$root" --partition "gpu'x"
refused "a newline in --partition" --partition "$root" --partition $'gpu\nrm -rf ~'
refused "a newline in --time" --time "$root" --time $'10\n#SBATCH --uid=0'
refused "a carriage return in --time" --time "$root" --time $'10\r'
refused "% in --runs-root" --runs-root "$tmp/runs%x" --time 10
refused "a space in --runs-root" --runs-root "$tmp/my runs"
refused "a newline in --runs-root" --runs-root "$tmp/r"$'\n'"x"
refused "\$ in --bin" --bin "$root" --bin "$tmp/s\$(id)e"
refused "a quote in a run argument" "run argument" "$root" -- --protocol 'a"b'
refused "a newline in a run argument" "run argument" "$root" -- --protocol $'a\nb'
refused "% in a run argument" "run argument" "$root" -- --protocol 'a%jb'
# The clean call still goes through (its fleet folder made, sbatch called twice).
rm -f "$tmp/sbatch-calls"
out=$(cd "$tmp/cwd" && PATH="$tmp/bin:$PATH" "$src/scripts/slurm/array.sh" -N 2 --bin "$tmp/se" \
    --runs-root "$root" --partition gpu --time 02:00:00 -- --quiet 2>&1)
rc=$?
if [ "$rc" -eq 0 ] && [ "$(wc -l <"$tmp/sbatch-calls" 2>/dev/null)" = 2 ] && grep -q '^fleet: ' <<<"$out"; then
    echo "ok: a clean call submits both jobs"
    passes=$((passes + 1))
else
    echo "FAIL: a clean call: exit $rc: $out"
    fails=$((fails + 1))
fi
echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ]
