#!/bin/bash
# No circles of files: within each folder of src/, the .c files that call each other
# must not go round in a circle (a.c calls b.c, b.c calls a.c, or longer), so that every
# folder can be read from its bottom file up.  (Includes pointing up or sideways across
# folders are tests/check_layers.sh's job.)
#
# A file depends on another of its folder when it names a function the other defines
# (a call, or the function handed over as a pointer, e.g. an event handler), directly or
# through a static inline function of a header it includes.  Data is not a dependency:
# a table of ops (rc_strategy_ops, rc_mc_service_ops) is how a file reaches code above it
# without naming it.
#
# Sizes too: no .c file of src/ over 1,000 lines, none of src/cli/ over 350 (the CLI only
# parses and calls); a file over its limit is named.
#
# usage: tests/check_structure.sh [SRC_DIR]   (default: the src/ beside this script)
# Before checking SRC_DIR the script checks itself on small trees with known circles, so
# a broken pattern cannot pass silently.  Exit 0: no circle and no file over its size limit;
# 1: circles or oversized files (listed); 2: usage.
set -u

check() {
    python3 - "$1" <<'PY'
import os, re, sys

root = sys.argv[1]

def strip(text):
    """Comments, string and character literals and preprocessor lines removed (lines kept)."""
    text = re.sub(r'/\*.*?\*/', lambda m: '\n' * m.group(0).count('\n'), text, flags=re.S)
    text = re.sub(r'//[^\n]*', '', text)
    text = re.sub(r'"(\\.|[^"\\\n])*"', '""', text)
    text = re.sub(r"'(\\.|[^'\\\n])*'", "''", text)
    return re.sub(r'^[ \t]*#[^\n]*(\\\n[^\n]*)*', '', text, flags=re.M)

# A definition at the start of a line: [qualifiers and type] name(params) {
DEF = re.compile(r'^([A-Za-z_][\w \t\*]*?)\b([A-Za-z_]\w*)\s*\(([^;{}()]|\([^()]*\))*\)\s*\{', re.M)
IDENT = re.compile(r'\b[A-Za-z_]\w*\b')
INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*"([^"]+)"', re.M)

def bodies(text):
    """(name, is_static, body text) for every function defined in the text."""
    out = []
    for m in DEF.finditer(text):
        depth, i = 0, m.end() - 1
        while i < len(text):
            depth += {'{': 1, '}': -1}.get(text[i], 0)
            if depth == 0:
                break
            i += 1
        out.append((m.group(2), re.search(r'\bstatic\b', m.group(1)) is not None,
                    text[m.end():i]))
    return out

bad = False
for area in sorted(os.listdir(root)):
    d = os.path.join(root, area)
    if not os.path.isdir(d):
        continue
    raw = {f: open(os.path.join(d, f), errors='replace').read()
           for f in sorted(os.listdir(d)) if f.endswith(('.c', '.h'))}
    text = {f: strip(t) for f, t in raw.items()}
    cfiles = [f for f in text if f.endswith('.c')]
    # Who defines each (non-static) function of the folder.
    home = {}
    for f in cfiles:
        for name, static, _ in bodies(text[f]):
            if not static and name != 'main':
                home[name] = f
    # What each header's inline functions name, and which headers of the folder a file includes.
    inline_refs = {h: set().union(*[set(IDENT.findall(b)) for _, _, b in bodies(text[h])] or [set()])
                   for h in text if h.endswith('.h')}

    def includes(f, seen):
        for inc in INCLUDE.findall(raw[f]):
            h = inc[len(area) + 1:] if inc.startswith(area + '/') else inc
            if h in raw and h not in seen:
                seen.add(h)
                includes(h, seen)
        return seen

    edges = {}
    for f in cfiles:
        own = {name for name, _, _ in bodies(text[f])}  # a static function shadows the folder's
        names = set(IDENT.findall(text[f])) - own
        via = {}
        for h in includes(f, set()):
            for n in inline_refs.get(h, ()):
                via.setdefault(n, h)
        for n in names | (set(via) - own):
            g = home.get(n)
            if g is not None and g != f:
                edges.setdefault(f, {}).setdefault(g, []).append(
                    n if n in names else '%s (inline in %s)' % (n, via[n]))
    # Circles: strongly connected components of more than one file (Tarjan).
    index, low, stack, on, comps = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, {})):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                comps.append(sorted(comp))

    for v in sorted(cfiles):
        if v not in index:
            visit(v)
    for comp in comps:
        bad = True
        print('%s: circle of files %s' % (area, ' '.join(comp)))
        for a in comp:
            for b in sorted(edges.get(a, {})):
                if b in comp:
                    print('    %s/%s calls %s/%s: %s' % (area, a, area, b,
                                                        ', '.join(sorted(edges[a][b])[:4])))
sys.exit(1 if bad else 0)
PY
}

self_test() {
    local t got
    t=$(mktemp -d)
    trap 'rm -rf "$t"' RETURN
    mkdir -p "$t"/{pair,ring,inline,clean}
    # pair: a.c and b.c call each other (one of them only through a function pointer)
    printf 'void b_go(void);\nvoid a_go(void) { b_go(); }\nstatic void a_cb(void) {}\n' > "$t/pair/a.c"
    printf 'void a_go(void);\nvoid reg(void (*f)(void));\n/* a_go() in a comment */\nvoid b_go(void) { reg(a_go); }\n' > "$t/pair/b.c"
    # ring: x -> y -> z -> x
    printf 'int y1(void);\nint x1(void) { return y1(); }\n' > "$t/ring/x.c"
    printf 'int z1(void);\nint y1(void) { return z1(); }\n' > "$t/ring/y.c"
    printf 'int x1(void);\nint z1(void)\n{\n    return x1();\n}\n' > "$t/ring/z.c"
    # inline: p.c calls q.c, and q.c reaches p.c through an inline helper of h.h
    printf 'int p1(void);\nstatic inline int h1(void) { return p1(); }\n' > "$t/inline/h.h"
    printf 'int q1(void);\nint p1(void) { return q1(); }\n' > "$t/inline/p.c"
    printf '#include "inline/h.h"\nint q1(void) { return h1(); }\n' > "$t/inline/q.c"
    # clean: one-way calls, a static function of the same name, and a table of ops
    printf 'int lo(void) { return 1; }\nstatic int hi(void) { return 0; }\n' > "$t/clean/lo.c"
    printf 'int lo(void);\ntypedef struct { int (*f)(void); } ops;\nint hi(void) { return lo(); }\n' > "$t/clean/hi.c"
    printf 'int hi(void);\nextern const ops tbl;\nint top(void) { return hi() + tbl.f(); }\n' > "$t/clean/top.c"
    printf 'int top(void);\nconst ops tbl = {top};\n' > "$t/clean/table.c"
    got=$(check "$t" | grep -v '^    ')
    local want=$'inline: circle of files p.c q.c\npair: circle of files a.c b.c\nring: circle of files x.c y.c z.c'
    if [[ $got != "$want" ]]; then
        echo "check_structure.sh self-test failed: expected"
        echo "$want"
        echo "got"
        echo "$got"
        return 1
    fi
}

# sizes DIR: every .c file under DIR at most 1,000 lines, those of DIR/cli at most 350
# (cli only parses and calls); prints one line per file over its limit, returns 1 if any.
sizes() {
    local f n lim bad=0
    while IFS= read -r f; do
        n=$(wc -l < "$f")
        lim=1000
        [[ ${f#"$1"/} == cli/* ]] && lim=350
        if (( n > lim )); then
            echo "${f#"$1"/}: $n lines, more than $lim (split it by responsibility)"
            bad=1
        fi
    done < <(find "$1" -type f -name '*.c' | sort)
    return $bad
}

size_self_test() {
    local t got want
    t=$(mktemp -d)
    trap 'rm -rf "$t"' RETURN
    mkdir -p "$t"/{cli,exp}
    seq 350 > "$t/cli/ok.c"
    seq 351 > "$t/cli/long.c"
    seq 1000 > "$t/exp/ok.c"
    seq 1001 > "$t/exp/long.c"
    got=$(sizes "$t")
    want=$'cli/long.c: 351 lines, more than 350 (split it by responsibility)\nexp/long.c: 1001 lines, more than 1000 (split it by responsibility)'
    if [[ $got != "$want" ]]; then
        echo "check_structure.sh size self-test failed: expected"
        echo "$want"
        echo "got"
        echo "$got"
        return 1
    fi
}

src=${1:-$(dirname "$0")/../src}
if [[ ! -f $src/core/sim.h ]]; then
    echo "check_structure.sh: $src is not rcsim's src/ directory" >&2
    exit 2
fi
command -v python3 >/dev/null || { echo "check_structure.sh: needs python3" >&2; exit 2; }
self_test || exit 1
size_self_test || exit 1
status=0
if ! sizes "$src"; then
    echo "check_structure.sh: files over their size limit (no src/**/*.c over 1,000 lines,"
    echo "src/cli/*.c at most 350; docs/architecture.md)"
    status=1
fi
if out=$(check "$src"); then
    echo "structure: no circle of files in any folder of $src"
else
    echo "$out"
    echo "check_structure.sh: break each circle (an inline read in the folder's shared header, or"
    echo "a table of ops the lower file reaches the upper one through; docs/architecture.md)"
    status=1
fi
[[ $status == 0 ]] && echo "sizes: every .c file of $src within its limit"
exit $status
