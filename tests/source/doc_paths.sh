#!/usr/bin/env bash
# doc_paths.sh SOURCE_DIR - every source path that README.md and docs/*.md
# name (`src/...`, a glob such as src/model/*.c included) exists in the tree.
set -u
cd "$1" || exit 1
fails=0 n=0
while IFS=: read -r file line path; do
    path=${path%.}; path=${path%,}
    n=$((n + 1))
    # shellcheck disable=SC2086
    if ! compgen -G "$path" >/dev/null; then
        echo "FAIL: $file:$line names $path, which does not exist"
        fails=$((fails + 1))
    fi
done < <(grep -onE 'src/[A-Za-z0-9_*./-]*[A-Za-z0-9_*/]' README.md docs/*.md)
echo "$n source paths named in README.md and docs/, $fails missing"
[ "$n" -gt 0 ] && [ "$fails" -eq 0 ]
