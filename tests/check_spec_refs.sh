#!/bin/bash
# check_spec_refs: section references in the repository lead somewhere.
#
# docs/spec.md is the repository's model description; every "§N", "§N.N" or "§N.N.N" in a
# tracked text file (code comments, --help texts, docs, sweep files, analysis) refers to a
# section of it.  This fails when
#   - a reference names a section that has no heading in docs/spec.md
#     ("## N. Title", "### N.N Title", "#### N.N.N Title");
#   - a heading has no anchor <a id="sN.N"></a> on the line before it, or an anchor has no
#     heading, or a section number appears twice (links docs/spec.md#sN.N must be stable);
#   - a tracked file cites the outside model description that docs/spec.md replaced
#     (the file named spec.md under ../shared), which a clone does not have.
# Usage: tests/check_spec_refs.sh [REPO_ROOT]   (default: the checkout holding this script)
# grep -q below reads here-strings, never a pipe: its early exit would fail a pipe.
set -uo pipefail
export LC_ALL=C

root=${1:-${RCSIM_SOURCE_DIR:-$(cd "$(dirname "$0")/.." && pwd)}}
spec="$root/docs/spec.md"
[ -f "$spec" ] || { echo "FAIL: $spec does not exist"; exit 1; }

# Tracked files (a source tree without git: every file outside .git and build directories).
files=$(mktemp)
trap 'rm -f "$files"' EXIT
if git -C "$root" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    git -C "$root" ls-files -z | while IFS= read -r -d '' f; do
        [ -f "$root/$f" ] && printf '%s\0' "$f"
    done >"$files"
else
    (cd "$root" && find . \( -name .git -o -type d -name 'build*' \) -prune -o -type f -print0 |
        sed -z 's|^\./||') >"$files"
fi
[ -s "$files" ] || { echo "FAIL: no files found under $root"; exit 1; }

fail=0

# Sections: the number of every heading, and of every anchor.
headings=$(grep -nE '^#{2,4} [0-9]+(\.[0-9]+)*\.? ' "$spec" |
    sed -E 's/^([0-9]+):#+ ([0-9]+(\.[0-9]+)*)\.? .*/\1 \2/')
anchors=$(grep -nE '^<a id="s[0-9]+(\.[0-9]+)*"></a>$' "$spec" |
    sed -E 's/^([0-9]+):<a id="s([0-9.]+)"><\/a>$/\1 \2/')
sections=$(printf '%s\n' "$headings" | awk 'NF {print $2}' | sort)
[ -n "$sections" ] || { echo "FAIL: docs/spec.md has no numbered headings"; exit 1; }
dups=$(printf '%s\n' "$sections" | uniq -d)
[ -z "$dups" ] || { echo "FAIL: docs/spec.md numbers these sections twice:" $dups; fail=1; }
while read -r line num; do
    [ -n "$line" ] || continue
    want="$((line - 1)) $num"
    grep -qxF "$want" <<<"$anchors" ||
        { echo "FAIL: docs/spec.md:$line: heading $num lacks <a id=\"s$num\"></a> on the line before"; fail=1; }
done <<<"$headings"
while read -r line num; do
    [ -n "$line" ] || continue
    grep -qxF "$((line + 1)) $num" <<<"$headings" ||
        { echo "FAIL: docs/spec.md:$line: anchor s$num is not followed by heading $num"; fail=1; }
done <<<"$anchors"

# References: file:line:§N.N for every match in every tracked text file (-I skips binaries),
# checked against the sections in one awk pass.
refs=$(cd "$root" && xargs -0 grep -IHnoE '§[0-9]+(\.[0-9]+)*' <"$files")
n_refs=$(printf '%s' "$refs" | grep -c '' || true)
bad=$(awk -v secs="$sections" 'BEGIN { n = split(secs, a, "\n"); for (i = 1; i <= n; i++) ok[a[i]] = 1 }
      NF { num = $0; sub(/.*§/, "", num); where = $0; sub(/:[^:]*$/, "", where)
           if (!(num in ok)) print "FAIL: " where ": §" num " is not a section of docs/spec.md" }' <<<"$refs")
if [ -n "$bad" ]; then
    printf '%s\n' "$bad"
    fail=1
fi

# The outside model description: written with a bracket so that this script does not match.
outside=$(cd "$root" && xargs -0 grep -IHnE 'shared/spec[.]md' <"$files")
if [ -n "$outside" ]; then
    echo "FAIL: these lines cite ../shared/spec[.]md; cite docs/spec.md §N.N instead:"
    printf '%s\n' "$outside"
    fail=1
fi

n_files=$(tr -cd '\0' <"$files" | wc -c)
n_sections=$(printf '%s\n' "$sections" | wc -l)
if [ "$fail" -ne 0 ]; then
    exit 1
fi
echo "ok: $n_refs section references in $n_files tracked files; all name one of the $n_sections sections of docs/spec.md"
