#!/bin/bash
# check_doc_refs: the names the model and design documents cite exist, where they say.
#
# docs/spec.md, docs/architecture.md and docs/reliability.md point readers at code.  This
# fails when one of them
#   - cites a file or folder (`src/loopix/net.c`, `net_internal.h`, `loopix/`, or a bare
#     src/..., tests/... path in the text) that is not in the tree;
#   - cites, in backquotes, a name that looks like code (`rc_net_send`, `emit_bundle()`,
#     `store_raw`: an identifier with an underscore, or followed by "()") that no source
#     file holds as a word (src/, tests/, bench/, analysis/, scripts/, slurm/, experiments/,
#     CMake files); `counter_NAME` is found through NAME's row in src/multicast/counters.def,
#     and `e2e_NAME`/`unit_NAME` (ctest names) through NAME in tests/;
#   - places a cited name in a file that does not hold it: "`F` in `FILE`", "`F` and `G` in
#     `FILE`", "`F` (`FILE`)" and "`F`, `FILE`" all say that FILE holds F;
#   - names, in a code expression (`wait_n == 0 && u->online`), a field or name that is gone;
# and when a comment in src/ cites a "style rule N" of a guide the repository does not have.
# (Section numbers are tests/check_spec_refs.sh's job.)
# Usage: tests/check_doc_refs.sh [REPO_ROOT]   (default: the checkout holding this script)
# It checks itself first on a small tree with known bad references.
set -uo pipefail
export LC_ALL=C

check() {
    python3 - "$1" <<'PY'
import os, re, sys

root = sys.argv[1]
DOCS = ["docs/spec.md", "docs/architecture.md", "docs/reliability.md"]
CODE_DIRS = ["src", "tests", "bench", "analysis", "scripts", "slurm", "experiments", "cmake"]
CODE_EXT = (".c", ".h", ".in", ".def", ".py", ".sh", ".cmake", ".txt", ".yaml", ".tmpl")

files = []
for d in CODE_DIRS:
    for dp, dn, fn in os.walk(os.path.join(root, d)):
        dn[:] = [x for x in dn if not x.startswith(("build", ".")) and x != "__pycache__"]
        files += [os.path.relpath(os.path.join(dp, f), root) for f in fn]
files += [f for f in os.listdir(root) if os.path.isfile(os.path.join(root, f))]
text = {}
for f in files:
    if (f.endswith(CODE_EXT) or f == "CMakeLists.txt") and f != "tests/check_doc_refs.sh":
        try:
            text[f] = open(os.path.join(root, f), errors="replace").read()
        except OSError:
            pass
words = set()
for t in text.values():
    words.update(re.findall(r"[A-Za-z_]\w*", t))
test_words = set()
for f, t in text.items():
    if f.startswith("tests/"):
        test_words.update(re.findall(r"[A-Za-z_]\w*", t))
counters = set(re.findall(r"^RC_COUNTER\((\w+),", text.get("src/multicast/counters.def", ""), re.M))
basenames = {}
for f in files:
    basenames.setdefault(os.path.basename(f), []).append(f)
dirs = set()
for f in files:
    p = os.path.dirname(f)
    while p:
        dirs.add(p)
        p = os.path.dirname(p)

PATH = re.compile(r"^[\w.-]+(/[\w.-]+)*(\.(c|h|py|sh|md|cmake|yaml|csv|def|in|txt|json)|/)$")
IDENT = re.compile(r"^([A-Za-z_]\w*)(\(\))?$")

def resolve(p):
    """The tree's file (or folder) a cited path means, or None."""
    q = p.rstrip("/")
    for cand in (q, "src/" + q, "docs/" + q):
        if cand in text or cand in dirs or os.path.exists(os.path.join(root, cand)):
            return cand
    if "/" not in q and q in basenames:
        return basenames[q][0] if len(basenames[q]) == 1 else q
    if "/" in q:  # a path relative to a folder of src/ or tests/: "loopix/net.h"
        hits = [f for f in files if f.endswith("/" + q)]
        if hits:
            return hits[0]
    return None

def exists(name):
    if name in words:
        return True
    m = re.match(r"counter_(\w+)$", name)
    if m and m.group(1) in counters:
        return True
    m = re.match(r"(e2e|unit)_(\w+)$", name)
    return bool(m and m.group(2) in test_words)

def holds(path, name):
    if path in text:
        return re.search(r"\b%s\b" % re.escape(name), text[path]) is not None
    if "/" not in path and path in basenames:  # a bare name: any file of that name
        return any(holds(f, name) for f in basenames[path] if f in text)
    return True  # not a source file (or unresolved: reported as such)

bad = 0
for doc in DOCS:
    path = os.path.join(root, doc)
    if not os.path.exists(path):
        print("FAIL: %s does not exist" % doc)
        bad = 1
        continue
    lines = open(path).read().split("\n")
    in_code = False
    for no, line in enumerate(lines, 1):
        if line.startswith("```"):
            in_code = not in_code
            continue
        if in_code:
            continue
        where = "%s:%d" % (doc, no)
        toks = re.findall(r"`([^`\n]+)`", line)
        # Files and folders, in backquotes or as bare src/..., tests/... paths.
        bare = re.findall(r"(?<![\w/`.-])((?:src|tests|bench|analysis|scripts|docs|experiments|slurm)/[\w./-]*\w)", re.sub(r"`[^`]*`", "", line))
        for p in [t for t in toks if PATH.match(t)] + bare:
            if "<" in p or "*" in p or p.startswith("."):
                continue
            if re.match(r"^[\w.-]+\.(json|csv|yaml|md|txt)$", p) and "/" not in p and resolve(p) is None:
                continue  # an output or example file name, not a file of the tree
            if p.endswith((".h5",)):
                continue
            if resolve(p) is None:
                print("FAIL: %s: `%s` is not in the tree" % (where, p))
                bad = 1
        # Names that look like code.
        for t in toks:
            m = IDENT.match(t)
            if not m or ("_" not in t and not m.group(2)):
                continue
            if not exists(m.group(1)):
                print("FAIL: %s: `%s` is not in the sources" % (where, t))
                bad = 1
        # Code expressions (`wait_n == 0 && u->online`): their names with an underscore and
        # the fields they read (after -> or .) exist.
        for t in toks:
            if not re.fullmatch(r"[\w\s.()!&|=<>+*-]+", t) or not re.search(r"->|==|!=|&&|\|\|", t):
                continue
            names = set(n for n in re.findall(r"[A-Za-z_]\w*", t) if "_" in n)
            names |= set(re.findall(r"(?:->|\.)([A-Za-z_]\w*)", t))
            for n in sorted(names):
                if not exists(n):
                    print("FAIL: %s: `%s` in `%s` is not in the sources" % (where, n, t))
                    bad = 1
        # "`F` in `FILE`", "`F` and `G` in `FILE`", "`F` (`FILE`)", "`F`, `FILE`".
        pairs = []
        for m in re.finditer(r"((?:`[A-Za-z_]\w*(?:\(\))?`(?:,\s*|\s+and\s+|\s+or\s+|\s*/\s*)?)+)\s+in\s+`([^`]+)`", line):
            for f in re.findall(r"`([A-Za-z_]\w*)", m.group(1)):
                pairs.append((f, m.group(2)))
        for m in re.finditer(r"`([A-Za-z_]\w*)(?:\(\))?`(?:\s+\(|,\s+)`([^`]+)`", line):
            pairs.append((m.group(1), m.group(2)))
        for f, p in pairs:
            if not PATH.match(p) or p.endswith("/"):
                continue
            r = resolve(p)
            if r is not None and not holds(r, f):
                print("FAIL: %s: `%s` is not in %s" % (where, f, r))
                bad = 1
# A code comment that cites a numbered rule of a style guide the repository does not have.
for f, t in sorted(text.items()):
    if f.startswith("src/"):
        for no, line in enumerate(t.split("\n"), 1):
            if re.search(r"style (guide )?rule \d", line, re.I):
                print("FAIL: %s:%d: cites a style rule of a guide the repository does not have; "
                      "say what the rule means instead" % (f, no))
                bad = 1
sys.exit(bad)
PY
}

self_test() {
    local t got want
    t=$(mktemp -d)
    trap 'rm -rf "$t"' RETURN
    mkdir -p "$t"/{docs,src/loopix,src/multicast,tests}
    printf 'static void emit_bundle(void) {}\nvoid rc_net_send(void) { emit_bundle(); }\n' > "$t/src/loopix/client.c"
    printf 'int rc_net_new(void);\n' > "$t/src/loopix/net.h"
    printf '/* Checked (style rule 7). */\nint rc_net_new(void) { return 0; }\n' > "$t/src/loopix/net.c"
    printf 'RC_COUNTER(pulls, NET, U64, "", NEVER, NULL)\n' > "$t/src/multicast/counters.def"
    printf 'add_test(NAME e2e_${n}) # rel_json\n' > "$t/tests/e2e.cmake"
    cat > "$t/docs/spec.md" <<'MD'
Sends (`rc_net_send` in `src/loopix/net.c`) and bundles (`emit_bundle`, `src/loopix/client.c`).
Pulls (`on_pull`) and `rc_net_new` (`loopix/net.h`); `counter_pulls`, `counter_gone`.
The tests `e2e_rel_json` and `tests/test_gone.c`; text naming src/loopix/mix.c.
```
`not_checked_in_a_code_block`
```
MD
    printf 'Folders `loopix/` and `farm/`; `net.c`; `rc_net_new()` and `hop_delay()`.\n' > "$t/docs/architecture.md"
    printf 'The fields `u->gone_too == 0 && u.trace_on`; `store_raw` (`src/loopix/client.c`).\n' > "$t/docs/reliability.md"
    got=$(check "$t" | LC_ALL=C sort)
    want=$(LC_ALL=C sort <<'EOF'
FAIL: docs/spec.md:1: `rc_net_send` is not in src/loopix/net.c
FAIL: docs/spec.md:2: `on_pull` is not in the sources
FAIL: docs/spec.md:2: `counter_gone` is not in the sources
FAIL: docs/spec.md:3: `tests/test_gone.c` is not in the tree
FAIL: docs/spec.md:3: `src/loopix/mix.c` is not in the tree
FAIL: docs/architecture.md:1: `farm/` is not in the tree
FAIL: src/loopix/net.c:1: cites a style rule of a guide the repository does not have; say what the rule means instead
FAIL: docs/architecture.md:1: `hop_delay()` is not in the sources
FAIL: docs/reliability.md:1: `store_raw` is not in the sources
FAIL: docs/reliability.md:1: `store_raw` is not in src/loopix/client.c
FAIL: docs/reliability.md:1: `gone_too` in `u->gone_too == 0 && u.trace_on` is not in the sources
FAIL: docs/reliability.md:1: `trace_on` in `u->gone_too == 0 && u.trace_on` is not in the sources
EOF
)
    if [[ $got != "$want" ]]; then
        echo "check_doc_refs.sh self-test failed: expected"
        echo "$want"
        echo "got"
        echo "$got"
        return 1
    fi
}

root=${1:-${RCSIM_SOURCE_DIR:-$(cd "$(dirname "$0")/.." && pwd)}}
[ -f "$root/docs/spec.md" ] || { echo "check_doc_refs.sh: $root has no docs/spec.md" >&2; exit 2; }
command -v python3 >/dev/null || { echo "check_doc_refs.sh: needs python3" >&2; exit 2; }
self_test || exit 1
if out=$(check "$root"); then
    echo "doc refs: every file and code name that docs/spec.md, architecture.md and reliability.md cite is in the tree"
    exit 0
fi
echo "$out"
echo "FAIL: $(grep -c '^FAIL' <<<"$out") stale reference(s) in the docs (tests/check_doc_refs.sh)"
exit 1
