#!/bin/bash
# check_strategy_lists: the strategy lists of the docs are generated from the strategy table.
#
# The table (src/multicast/strategy_table.c) is what the binary runs; `rcsim strategies
# --json` prints its families.  Two documents list them for readers, and both lists are
# made from that JSON by this script, never by hand:
#   README.md             the "### Strategies" table: one row per family (key, pattern,
#                         summary and each parameter's help)
#   docs/architecture.md  the map's lines "family KEY   FILE: summary", FILE being the file
#                         in src/multicast/ that defines the family's ops (and its row's
#                         file when that is another)
#
# usage: tests/check_strategy_lists.sh RCSIM REPO_ROOT            check (ctest unit_strategy_lists)
#        tests/check_strategy_lists.sh --write RCSIM REPO_ROOT    rewrite both lists in place
# Exit 0: both lists are what the table gives; 1: a list differs (the diff is printed, with
# the command that rewrites it); 2: usage.  It checks itself first: a list with a family
# taken out must fail.
set -uo pipefail
write=0
if [[ ${1:-} == --write ]]; then write=1; shift; fi
RCSIM=${1:?usage: check_strategy_lists.sh [--write] RCSIM REPO_ROOT}
ROOT=${2:?usage: check_strategy_lists.sh [--write] RCSIM REPO_ROOT}

json=$("$RCSIM" strategies --json) || { echo "check_strategy_lists: '$RCSIM strategies --json' failed"; exit 1; }

STRATEGY_JSON=$json python3 - "$ROOT" "$write" "$RCSIM" <<'PY'
import difflib, glob, json, os, re, sys

root, write, rcsim = sys.argv[1], sys.argv[2] == "1", sys.argv[3]
fams = json.loads(os.environ["STRATEGY_JSON"])
if not fams:
    sys.exit("check_strategy_lists: the strategy table lists no family")

src = {os.path.basename(p): open(p).read() for p in sorted(glob.glob(os.path.join(root, "src/multicast/*.c")))}

def files_of(key):
    """The file defining the family's ops, and the row's file when it is another."""
    row = [f for f, t in src.items() if re.search(r'\.family\s*=\s*"%s"' % re.escape(key), t)]
    if len(row) != 1:
        sys.exit("check_strategy_lists: family '%s': %d files of src/multicast/ define its row"
                 % (key, len(row)))
    m = re.search(r'\.ops\s*=\s*&(\w+)', src[row[0]])
    ops = [f for f, t in src.items() if m and re.search(r'rc_strategy_ops\s+%s\s*=' % m.group(1), t)]
    if len(ops) != 1 or ops[0] == row[0]:
        return row[0]
    return "%s (row: %s)" % (ops[0], row[0])

def readme_rows():
    out = ["| family | names | meaning |", "|---|---|---|"]
    for f in fams:
        params = "".join("; `%s`: %s" % (n, p["help"]) for n, p in f.get("params", {}).items())
        out.append("| `%s` | `%s` | %s%s |" % (f["family"], f["pattern"], f["summary"], params))
    return out

def arch_rows():
    return ["       │     family %-18s%s: %s" % (f["family"], files_of(f["family"]), f["summary"])
            for f in fams]

def readme_block(lines):
    """Index range of the "### Strategies" table (from its header row to its last row)."""
    try:
        sec = next(i for i, l in enumerate(lines) if l.startswith("### Strategies"))
        a = next(i for i in range(sec, len(lines)) if lines[i].startswith("| family |"))
    except StopIteration:
        return None
    b = a
    while b < len(lines) and lines[b].startswith("|"):
        b += 1
    return a, b

def arch_block(lines):
    """Index range of the map's family lines (and their continuation lines)."""
    fam = re.compile(r"^ *│ +family ")
    cont = re.compile(r"^ *│ {5,}\S")
    a = next((i for i, l in enumerate(lines) if fam.match(l)), None)
    if a is None:
        return None
    b = a + 1
    while b < len(lines) and cont.match(lines[b]):
        b += 1
    return a, b

def check(path, block, want, fix, base=root, quiet=False):
    full = os.path.join(base, path)
    lines = open(full).read().split("\n")
    rng = block(lines)
    if rng is None:
        print("%s: the strategy list is missing (see tests/check_strategy_lists.sh)" % path)
        return False
    got = lines[rng[0]:rng[1]]
    if got == want:
        return True
    if fix:
        lines[rng[0]:rng[1]] = want
        open(full, "w").write("\n".join(lines))
        print("%s: strategy list rewritten" % path)
        return True
    if quiet:
        return False
    print("%s: the strategy list is not the table's:" % path)
    sys.stdout.writelines(l + "\n" for l in difflib.unified_diff(got, want, "committed", "generated", lineterm=""))
    return False

# Self-check: a README whose table lacks the first family must fail.
import tempfile
with tempfile.TemporaryDirectory() as t:
    rows = readme_rows()
    open(os.path.join(t, "README.md"), "w").write(
        "### Strategies\n\n" + "\n".join(rows[:2] + rows[3:]) + "\n\n## Next\n")
    if check("README.md", readme_block, rows, False, base=t, quiet=True):
        sys.exit("check_strategy_lists: the self-check did not catch a missing family")

ok = check("README.md", readme_block, readme_rows(), write)
ok = check("docs/architecture.md", arch_block, arch_rows(), write) and ok
if not ok:
    print("Rewrite both lists from the table with:\n  tests/check_strategy_lists.sh --write %s %s"
          % (rcsim, root))
    sys.exit(1)
print("strategy lists are the table's: %s" % " ".join(f["family"] for f in fams))
PY
