#!/bin/bash
# check_results_columns: the ragged groups' columns are listed the same everywhere.
#
# src/io/h5out_ragged.def declares the columns of every ragged group of the results file
# (the schema, the writer and the reader are generated from it; unit_h5out checks a written
# file against it).  This fails when the layout tree of docs/results-layout.md, or the
# per-delivery field list of analysis/rcplot/results.py (DELIVERY_FIELDS) or the curve's of
# analysis/rcplot/disclosure.py (CURVE_FIELDS), lists other
# columns or another order.
# Usage: tests/check_results_columns.sh [REPO_ROOT]   (default: the checkout holding this script)
set -uo pipefail
export LC_ALL=C
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
command -v python3 >/dev/null || { echo "check_results_columns.sh: needs python3" >&2; exit 2; }
python3 - "$root" <<'PY'
import re, sys

root = sys.argv[1]
src = open(f"{root}/src/io/h5out_ragged.def").read()
qsrc = open(f"{root}/src/exp/result.c").read()
m = re.search(r"rc_summary_q_names\[RC_SUMMARY_QUANTILES\]\s*=\s*\{([^}]*)\}", qsrc)
qnames = re.findall(r'"([^"]+)"', m.group(1)) if m else []
if not qnames:
    sys.exit("check_results_columns: cannot read rc_summary_q_names in src/exp/result.c")

decl = {}
for line in src.splitlines():
    if m := re.match(r"RC_H5_COL\((\w+),\s*(\w+),", line):
        decl.setdefault(m.group(1), []).append(m.group(2))
    elif m := re.match(r"RC_H5_COLS\((\w+),\s*\w+,\s*rc_summary_q_names,", line):
        decl.setdefault(m.group(1), []).extend(qnames)
    elif re.match(r"RC_H5_COLS\(", line):
        sys.exit(f"check_results_columns: cannot expand {line.strip()}")

# The label of each declared list in the layout tree of docs/results-layout.md.
labels = {"HIST": ["online/", "all/"], "UNDELIVERED": ["undelivered/"],
          "DELIVERIES": ["deliveries/"], "SIZES": ["sizes/"], "USERS": ["users/"],
          "ANON": ["targets/"], "DISC": ["curve/"]}
bad = 0
if set(labels) != set(decl):
    print(f"check_results_columns: declared lists {sorted(decl)}, this script knows "
          f"{sorted(labels)}: update its labels")
    bad = 1

doc = open(f"{root}/docs/results-layout.md").read().splitlines()


def doc_list(label):
    """The names after `label` in the tree: a comma list, continued on the next line while
    a line ends with a comma, up to a parenthesis or two spaces."""
    for i, line in enumerate(doc):
        s = line.strip()
        if not s.startswith(label + " "):
            continue
        text = s[len(label):].strip()
        while text.endswith(",") and i + 1 < len(doc):
            i += 1
            text += " " + doc[i].strip()
        text = re.split(r"\(|\s{2,}", text)[0]
        return [w.strip() for w in text.split(",") if w.strip()]
    return None


for g, labs in labels.items():
    want = ["end"] + decl.get(g, [])
    for lab in labs:
        got = doc_list(lab)
        if got is None:
            print(f"docs/results-layout.md: no line for {lab} (declared: {', '.join(want)})")
            bad = 1
        elif got != want:
            print(f"docs/results-layout.md: {lab} lists {', '.join(got)}; "
                  f"src/io/h5out_ragged.def declares {', '.join(want)}")
            bad = 1

py = open(f"{root}/analysis/rcplot/results.py").read()
m = re.search(r"^DELIVERY_FIELDS\s*=\s*\(([^)]*)\)", py, re.M)
fields = re.findall(r'"([^"]+)"', m.group(1)) if m else None
if fields != decl.get("DELIVERIES"):
    print(f"analysis/rcplot/results.py: DELIVERY_FIELDS = {fields}; src/io/h5out_ragged.def "
          f"declares {decl.get('DELIVERIES')}")
    bad = 1
dpy = open(f"{root}/analysis/rcplot/disclosure.py").read()
m = re.search(r"^CURVE_FIELDS\s*=\s*\(([^)]*)\)", dpy, re.M)
fields = re.findall(r'"([^"]+)"', m.group(1)) if m else None
if fields != decl.get("DISC"):
    print(f"analysis/rcplot/disclosure.py: CURVE_FIELDS = {fields}; "
          f"src/io/h5out_ragged.def declares {decl.get('DISC')}")
    bad = 1
sys.exit(bad)
PY
