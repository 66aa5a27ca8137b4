#!/bin/bash
# check_doc_sizes: the file sizes and file lists docs/architecture.md gives match the tree.
#
# docs/architecture.md describes some files with their size: "`loopix/client.c` (463 lines)"
# or "`loopix/mix.c` (115)", a path under src/ in backquotes followed by its line count.
# This fails when
#   - such a file is not in the tree, or its line count is off by more than a fifth of the
#     count given (and more than 10 lines): small edits pass, a size that has gone stale
#     does not;
#   - a section that opens a list with the marker
#       <!-- sizes: every file of src/DIR/ (tests/check_doc_sizes.sh) -->
#     does not name, with its size, every .c and .h file of src/DIR/ (up to the next
#     heading), so a file added to the folder must be described there.
# Usage: tests/check_doc_sizes.sh [REPO_ROOT]   (default: the checkout holding this script)
# It checks itself first on a small tree with known stale sizes and a missing file.
set -uo pipefail
export LC_ALL=C

check() {
    python3 - "$1" <<'PY'
import os, re, sys

root = sys.argv[1]
doc = "docs/architecture.md"
lines = open(os.path.join(root, doc)).read().split("\n")
SIZED = re.compile(r"`([\w./-]+\.[ch])` \((\d+)(?: lines)?[),;:]")
MARK = re.compile(r"<!-- sizes: every file of src/([\w/]+)/ ")
bad = []

def count(path):
    with open(path, "rb") as f:
        return f.read().count(b"\n")

sized = {}  # path -> line of the doc
for i, line in enumerate(lines, 1):
    for path, n in SIZED.findall(line):
        full = os.path.join(root, "src", path)
        sized.setdefault(path, i)
        if not os.path.isfile(full):
            bad.append(f"{doc}:{i}: `{path}` is not in src/")
            continue
        n, have = int(n), count(full)
        if abs(have - n) > max(10, n // 5):
            bad.append(f"{doc}:{i}: `{path}` has {have} lines, not about {n}")

for i, line in enumerate(lines, 1):
    m = MARK.search(line)
    if not m:
        continue
    folder = m.group(1)
    end = next((j for j in range(i, len(lines)) if lines[j].startswith("#")), len(lines))
    named = set()
    for line2 in lines[i:end]:
        named.update(p for p, _ in SIZED.findall(line2))
    d = os.path.join(root, "src", folder)
    if not os.path.isdir(d):
        bad.append(f"{doc}:{i}: src/{folder}/ is not in the tree")
        continue
    for f in sorted(os.listdir(d)):
        if f.endswith((".c", ".h")) and f"{folder}/{f}" not in named:
            bad.append(f"{doc}:{i}: src/{folder}/{f} is not described with its size in this list")

for b in bad:
    print("FAIL: " + b)
sys.exit(1 if bad else 0)
PY
}

self_test() {
    local t
    t=$(mktemp -d) || return 1
    trap 'rm -rf "$t"' RETURN
    mkdir -p "$t/docs" "$t/src/net"
    seq 100 > "$t/src/net/a.c"
    seq 40 > "$t/src/net/b.c"
    seq 5 > "$t/src/net/c.h"
    cat > "$t/docs/architecture.md" <<'MD'
# Title
<!-- sizes: every file of src/net/ (tests/check_doc_sizes.sh) -->
- `net/a.c` (95 lines): close enough; `net/b.c` (20): stale;
- `net/gone.c` (10), and `net/c.h` (5).
## Next
- `net/a.c` (300): stale
MD
    got=$(check "$t" | sort)
    want=$(sort <<'EOF'
FAIL: docs/architecture.md:3: `net/b.c` has 40 lines, not about 20
FAIL: docs/architecture.md:4: `net/gone.c` is not in src/
FAIL: docs/architecture.md:6: `net/a.c` has 100 lines, not about 300
EOF
)
    if [[ $got != "$want" ]]; then
        echo "check_doc_sizes.sh self-test failed: expected"; echo "$want"; echo "got"; echo "$got"
        return 1
    fi
    : > "$t/src/net/d.c"
    got=$(check "$t")
    if ! grep -qx 'FAIL: docs/architecture.md:2: src/net/d.c is not described with its size in this list' <<<"$got"; then
        echo "check_doc_sizes.sh self-test failed: a file missing from a marked list passed"
        return 1
    fi
}

root=${1:-${RCSIM_SOURCE_DIR:-$(cd "$(dirname "$0")/.." && pwd)}}
[ -f "$root/docs/architecture.md" ] || { echo "check_doc_sizes.sh: $root has no docs/architecture.md" >&2; exit 2; }
command -v python3 >/dev/null || { echo "check_doc_sizes.sh: needs python3" >&2; exit 2; }
self_test || exit 1
if out=$(check "$root"); then
    echo "doc sizes: the sizes and file lists docs/architecture.md gives match the tree"
    exit 0
fi
echo "$out"
echo "FAIL: $(grep -c '^FAIL' <<<"$out") stale size(s) or list(s) in docs/architecture.md (tests/check_doc_sizes.sh)"
exit 1
