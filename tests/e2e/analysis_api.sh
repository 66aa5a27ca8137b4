#!/bin/bash
# End-to-end test of the strategy structure and the Python API on a sweep made here with the real binary:
#  - strategy structure as data: `rcsim plot --x k` (and --hue ft, --facet family,
#    --where family=rc) draws k on the axis with its unit; `--list` names the structure
#    columns; summarize's CSV has family, k, p, ft after strategy;
#  - the Python API: tests/analysis/api_checks.py (load_jobs columns, dtypes and categories,
#    load_deliveries rows = the jobs' deliveries, load_histograms) with analysis/ on
#    PYTHONPATH and nothing else;
#  - the starter notebook analysis/examples/explore.ipynb: valid nbformat 4, its code cells
#    run as a script, and executed by Jupyter's nbconvert when Debian's python3-nbconvert and
#    python3-ipykernel are installed (scripts/deps.sh --notebook); the log says which.
# Environment (set by tests/CMakeLists.txt): RCSIM, RCSIM_SOURCE_DIR, MPIEXEC, PYTHON.
set -euo pipefail
SRC=${RCSIM_SOURCE_DIR:?}
RCSIM=${RCSIM:?}
PY=${PYTHON:-/usr/bin/python3}
export PYTHONPATH="$SRC/analysis${PYTHONPATH:+:$PYTHONPATH}"  # the package rcplot (python3 -m rcplot TOOL)
export RCSIM_PYTHON=$PY RCSIM_BIN=$RCSIM MPLBACKEND=Agg
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
cd "$TMP"
"$PY" -c 'import pandas' 2>/dev/null || fail "$PY cannot import pandas (Debian: python3-pandas; scripts/deps.sh installs it)"

# 1. a sweep of strategies that differ in k, p and ft: 2 x 5 x 2 seeds, 10 simulated minutes
cat > s.yaml <<'EOF'
name: api-sweep
description: "e2e: strategy structure and the Python API"
defaults:
  duration: 10m
  store_raw: true
axes:
  users: [16, 32]
  strategy: [unicast, rc-k1-p1, rc-k2-p2, rc-k4-p2, rc-k2-p2-ft]
seeds: 2
EOF
LAUNCH=()
if [ -n "${MPIEXEC:-}" ] && [ -x "${MPIEXEC}" ]; then LAUNCH=("$MPIEXEC" -np 2); fi
"${LAUNCH[@]}" "$RCSIM" sweep s.yaml --out s.h5 > sweep.log 2>&1 ||
    { cat sweep.log; fail "rcsim sweep failed"; }
grep -q "20 jobs: 20 run" sweep.log || { cat sweep.log; fail "the sweep did not run 20 jobs"; }

axes() {
    local f=$1; shift
    "$PY" - "$f" "$@" <<'PYEOF' || fail "axes of $f"
import json, sys
a = json.load(open(sys.argv[1]))
p = a["panels"]
for expr in sys.argv[2:]:
    if not eval(expr):
        sys.exit("%s: %s is false; axes: %s" % (sys.argv[1], expr, json.dumps(a, indent=1)))
PYEOF
}

# 2. rcsim plot --x k: among RC strategies k is a number (a line plot); ft (k = 2 is both
#    rc-k2-p2 and rc-k2-p2-ft) becomes a facet, p (fixed by k here) is no axis
"$RCSIM" plot s.h5 --x k --where family=rc --out k.png --axes-json k.json > plot.log 2>&1 ||
    { cat plot.log; fail "rcsim plot --x k --where family=rc"; }
axes k.json 'a["x"] == "k" and a["kind"] == "line"' 'p[0]["xlabel"] == "k [count]"' \
    'p[0]["xticklabels"] == ["1", "2", "4"]' 'a["hue"] == "users"' \
    'p[0]["legend"] == ["16", "32"]' 'a["facets"] == ["ft"] and len(p) == 2'
# with unicast in the sweep, unicast has no k: a named axis, n/a last, drawn as boxes
"$RCSIM" plot s.h5 --x k --out k-all.png --axes-json k-all.json > plot2.log 2>&1 ||
    { cat plot2.log; fail "rcsim plot --x k"; }
axes k-all.json 'a["x"] == "k"' 'p[0]["xlabel"] == "k [count]"' \
    'p[0]["xticklabels"][-1] == "n/a" and p[0]["xticklabels"][:3] == ["1", "2", "4"]'
# structure as hue and facet, and --where on a structure column
"$RCSIM" plot s.h5 --x users --hue k --facet ft --where family=rc --out hue.png \
    --axes-json hue.json > plot3.log 2>&1 || { cat plot3.log; fail "rcsim plot --hue k --facet ft"; }
axes hue.json 'a["hue"] == "k" and a["facets"] == ["ft"]' 'len(p) == 2' \
    'p[0]["legend_title"] == "k [count]"'
"$RCSIM" plot s.h5 --list > list.txt || fail "rcsim plot --list"
grep -q "^strategy structure (as --x, --hue, --facet or --where): family=rc|unicast, k=1|2|4|n/a, p=1|2|n/a, ft=false|n/a|true" list.txt ||
    { cat list.txt; fail "plot --list does not name the structure columns"; }
rc=0; "$RCSIM" plot s.h5 --x k --where family=nope --out x.png > bad.log 2>&1 || rc=$?
[ "$rc" = 2 ] || { cat bad.log; fail "--where family=nope exited $rc, want 2"; }

# 3. summarize: the strategy parameters that vary, after strategy
"$PY" -m rcplot summarize s.h5 --csv table.csv > /dev/null || fail "summarize --csv"
head -1 table.csv | grep -q "^users,strategy,k,p,ft,seeds," ||
    { head -1 table.csv; fail "summarize --csv: want users,strategy,k,p,ft,seeds,..."; }
grep -q "^16,rc-k4-p2,4,2,false,2," table.csv || { cat table.csv; fail "summarize --csv: no row 16,rc-k4-p2,4,2,false,2"; }
grep -q "^16,unicast,n/a,n/a,n/a,2," table.csv || { cat table.csv; fail "summarize --csv: no row 16,unicast,n/a,n/a,n/a,2"; }

# 4. the Python API with analysis/ on PYTHONPATH (what the modulefile sets)
PYTHONPATH="$SRC/analysis" "$PY" "$SRC/tests/analysis/api_checks.py" s.h5 > api.log 2>&1 ||
    { cat api.log; fail "api_checks.py"; }
tail -3 api.log
# The three-line session of docs/analysis.md, from a directory without analysis/.
PYTHONPATH="$SRC/analysis" "$PY" - s.h5 <<'PYEOF' || fail "the docs' three-line session"
import sys
from rcsim import load_jobs, load_deliveries
jobs = load_jobs(sys.argv[1])
print(jobs.groupby(["strategy", "users"], observed=True)["online_p50"].median().head(3))
assert len(load_deliveries(sys.argv[1])) == jobs["counter_deliveries"].sum()
PYEOF

# 5. the starter notebook
NB="$SRC/analysis/examples/explore.ipynb"
"$PY" - "$NB" > nb.py <<'PYEOF' || fail "$NB is not a valid nbformat 4 notebook"
import json, sys
nb = json.load(open(sys.argv[1]))
assert nb["nbformat"] == 4, nb["nbformat"]
assert nb["metadata"]["kernelspec"]["name"] == "python3"
code = [c for c in nb["cells"] if c["cell_type"] == "code"]
assert len(code) >= 3, "only %d code cells" % len(code)
for c in nb["cells"]:
    assert c["cell_type"] in ("code", "markdown"), c["cell_type"]
    assert isinstance(c["source"], list) and "metadata" in c
    if c["cell_type"] == "code":
        assert c["outputs"] == [] and c["execution_count"] is None, "committed with outputs"
for c in code:
    print("".join(c["source"]))
    print()
PYEOF
if "$PY" -c 'import nbformat' 2>/dev/null; then
    "$PY" -c 'import nbformat, sys; nbformat.validate(nbformat.read(sys.argv[1], as_version=4))' "$NB" ||
        fail "nbformat.validate refuses $NB"
fi
RCSIM_RESULTS=s.h5 PYTHONPATH="$SRC/analysis" "$PY" nb.py > nb.log 2>&1 ||
    { cat nb.log; fail "the notebook's code cells, run as a script"; }
grep -q "^20 jobs; strategies: \['unicast', 'rc-k1-p1', 'rc-k2-p2', 'rc-k2-p2-ft', 'rc-k4-p2'\]" nb.log ||
    { cat nb.log; fail "notebook script: unexpected output"; }
echo "notebook: code cells run as a script: ok"
if "$PY" -m nbconvert --version > /dev/null 2>&1 && "$PY" -c 'import ipykernel' 2>/dev/null; then
    cp "$NB" explore.ipynb
    # (without MPLBACKEND=Agg: the kernel draws inline, into the notebook)
    env -u MPLBACKEND RCSIM_RESULTS="$TMP/s.h5" PYTHONPATH="$SRC/analysis" timeout 300 "$PY" -m nbconvert \
        --to notebook --execute --ExecutePreprocessor.timeout=240 \
        --ExecutePreprocessor.kernel_name=python3 --output executed.ipynb explore.ipynb \
        > nbconvert.log 2>&1 || { cat nbconvert.log; fail "nbconvert --execute of the notebook"; }
    "$PY" - executed.ipynb <<'PYEOF' || fail "the executed notebook"
import json, sys
nb = json.load(open(sys.argv[1]))
code = [c for c in nb["cells"] if c["cell_type"] == "code"]
assert all(c["execution_count"] for c in code), "a cell did not run"
kinds = [o["output_type"] for c in code for o in c["outputs"]]
assert "error" not in kinds, kinds
text = json.dumps(nb)
assert "20 jobs; strategies:" in text and "image/png" in text, "missing outputs"
PYEOF
    echo "notebook: executed by $("$PY" -m nbconvert --version 2>/dev/null | head -1 | sed 's/^/nbconvert /'): ok"
else
    echo "notebook: nbconvert/ipykernel not installed (scripts/deps.sh --notebook): checked as a script only"
fi
echo "PASS: analysis API and strategy structure"
