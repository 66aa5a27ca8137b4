#!/bin/bash
# End-to-end test of `rcsim compare` (analysis/rcplot/tools/baseline.py) on a small sweep of
# its own: --help, the text table, --csv and --plot, the error for an absent baseline (exit
# 2, naming the strategies), and the report's "Against the baseline" section; then every
# example of `rcsim plot --help` on the same sweep.
# Environment (set by tests/CMakeLists.txt): RCSIM, RCSIM_SOURCE_DIR, MPIEXEC, PYTHON.
set -euo pipefail
RCSIM=${RCSIM:?}
PY=${PYTHON:-/usr/bin/python3}
export RCSIM_PYTHON=$PY
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
cd "$TMP"

cat > small.yaml <<'YAML'
name: compare-small
description: "e2e: three strategies, three group sizes, three seeds, 10 min online"
defaults:
  duration: 10m
  trace: online
  store_raw: true
axes:
  users: [8, 16, 32]
  strategy: [unicast, rc-k2-p2, rc-k1-p1-ft]  # k varies: `plot --x k` has an axis
seeds: 3
YAML
LAUNCH=()
if [ -n "${MPIEXEC:-}" ] && [ -x "${MPIEXEC}" ]; then LAUNCH=("$MPIEXEC" -np 2); fi
"${LAUNCH[@]}" "$RCSIM" sweep small.yaml --out small.h5 > sweep.log 2>&1 ||
    { cat sweep.log; fail "rcsim sweep failed"; }

"$RCSIM" compare --help > help.txt || fail "rcsim compare --help"
for w in "--baseline" "--csv" "--plot" "paired" "examples:"; do
    grep -qe "$w" help.txt || fail "compare --help lacks $w"
done

"$RCSIM" compare small.h5 --csv c.csv --plot c.png > table.txt || { cat table.txt; fail "compare"; }
# 3 users x 2 strategies x 4 statistics, one header line, one note line, two "wrote" lines
[ "$(grep -cE '^(8|16|32) +rc-k(2-p2|1-p1-ft) +(mean|median|p90|p99) +3 ' table.txt)" = 24 ] ||
    { cat table.txt; fail "compare: want 24 rows of 3 pairs"; }
grep -q "fewer than 5 pairs" table.txt || fail "compare: 3 seeds must say 'seed range'"
"$PY" - c.csv c.png <<'PYEOF' || fail "compare --csv/--plot"
import csv, sys, math
import matplotlib.image as mi
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 24, len(rows)
for r in rows:
    assert r["baseline"] == "unicast" and r["interval"] == "seed range", r
    lo, est, hi = float(r["ratio_lo"]), float(r["ratio"]), float(r["ratio_hi"])
    assert 0 < lo <= est <= hi, r       # a ratio's bounds stay positive
    assert int(r["pairs"]) == 3, r
a = mi.imread(sys.argv[2])
assert a.shape[0] > 200 and a.shape[1] > 400, a.shape
PYEOF

set +e
"$RCSIM" compare small.h5 --baseline rc-k9-p9 > out.txt 2> err.txt
rc=$?
set -e
[ $rc = 2 ] || fail "absent baseline: exit $rc, want 2"
grep -q "baseline 'rc-k9-p9' is not in the results: the strategies are" err.txt ||
    { cat err.txt; fail "absent baseline: message"; }

"$RCSIM" report small.h5 --out rep > report.log || { cat report.log; fail "rcsim report"; }
grep -q "^## Against the baseline (unicast)" rep/report.md || fail "report lacks the section"
[ -s rep/img/baseline.png ] && [ -s rep/baseline.csv ] || fail "report lacks baseline files"
grep -q 'id="fig-baseline"' rep/report.html || fail "report.html lacks the ratio plot"
# no negative bound in the results table (every statistic there is >= 0); the baseline
# section's differences may be negative, its ratios not (checked in the CSV above)
sed -n '/^## Results/,/^## Plots/p' rep/report.md | grep -E '^\| [0-9]' > results.md
[ -s results.md ] || fail "report.md: no results rows"
if grep -E '(\[|\(|, |–)-[0-9]' results.md; then fail "negative bound in the report"; fi

# Every example of `rcsim plot --help` runs on this sweep: the lines
# "  rcsim plot r.h5 ..." of its examples block, r.h5 replaced by this file, comments cut.
"$RCSIM" plot --help > plothelp.txt || fail "rcsim plot --help"
sed -n '/^examples:/,/^$/p' plothelp.txt | grep -E '^ +rcsim plot r\.h5' |
    sed -e 's/#.*$//' -e 's/^ *rcsim plot r\.h5//' > examples.txt
n=$(wc -l < examples.txt)
[ "$n" -ge 6 ] || { cat plothelp.txt; fail "want at least 6 examples in rcsim plot --help, got $n"; }
while read -r -a args; do
    "$RCSIM" plot small.h5 "${args[@]}" > ex.log 2>&1 ||
        { cat ex.log; fail "rcsim plot --help example failed: rcsim plot r.h5 ${args[*]}"; }
    for ((i = 0; i < ${#args[@]}; i++)); do
        if [ "${args[$i]}" = --out ]; then
            [ -s "${args[$((i + 1))]}" ] || fail "example wrote no ${args[$((i + 1))]}"
        fi
    done
done < examples.txt
echo "the $n examples of rcsim plot --help ran"

echo "rcsim compare OK"
