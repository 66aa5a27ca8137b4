#!/bin/bash
# check_tracker_refs: the repository speaks of itself, not of a tracker its users cannot see.
#
# Fails when a source, test, script, experiment or document names a tracker entry
# ("issue" or "issues" followed by a number, with or without '#').  Say instead what is
# meant: a docs section ("docs/reliability.md, \"Integrity, round 2\""), a commit, a file,
# or nothing.
# Usage: tests/check_tracker_refs.sh [REPO_ROOT]   (default: the checkout holding this script)
# It checks itself first on a small tree holding one such reference.
set -uo pipefail
export LC_ALL=C

PATTERN='\bissues?[[:space:]]*#?[0-9]+'
# Known lines left as they are, "path:line text" exactly (none now; a line added here must
# say why it cannot be reworded).
EXCEPTIONS=()
PLACES=(src docs analysis scripts tests bench experiments slurm cmake .ci README.md CMakeLists.txt)

check() {
    local root=$1 places=() p
    for p in "${PLACES[@]}"; do [ -e "$root/$p" ] && places+=("$p"); done
    [ ${#places[@]} -gt 0 ] || return 0
    local found
    found=$(cd "$root" && grep -riIE --exclude=check_tracker_refs.sh "$PATTERN" "${places[@]}" |
            grep -vxF -f <(printf '%s\n' "${EXCEPTIONS[@]}"))
    [ -z "$found" ] || { printf '%s\n' "$found"; return 1; }
}

# Self-check: a tree with one reference must fail, the same tree without it pass.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/src" "$tmp/docs"
printf '/* the heap, as measured (see docs/performance.md) */\n' > "$tmp/src/a.c"
if ! check "$tmp" >/dev/null; then echo "check_tracker_refs: self-check: a clean tree fails" >&2; exit 2; fi
printf '# Speed\nAs measured in Issue #%d.\n' 28 > "$tmp/docs/b.md"
if check "$tmp" >/dev/null; then echo "check_tracker_refs: self-check: a reference passes" >&2; exit 2; fi

root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
if ! check "$root"; then
    echo "check_tracker_refs: the lines above name tracker entries; name the docs section," \
         "commit or file instead" >&2
    exit 1
fi
