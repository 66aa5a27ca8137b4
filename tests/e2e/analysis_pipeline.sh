#!/bin/bash
# End-to-end test of the analysis: a real short sweep (tests/data/sweeps/analysis-small.yaml,
# 10 simulated minutes, 2 seeds) through `rcsim sweep`, then every figure script, the
# comparison with the paper and the docs generator.  Fails when a figure cannot be drawn
# (non-zero exit, missing or empty PNG/PDF), when the comparison lacks the expected rows,
# or when a job's histogram disagrees with its exact summary.  It checks the pipeline, not
# the paper's numbers, so the "80 %" trace the sweep names (gen_os15, the name the comparison
# matches on) is a synthetic stand-in generated here (`rcsim trace synth` with that trace's
# statistics), found through --data-dir: the test needs no real traces.
# Environment (set by tests/CMakeLists.txt): RCSIM, RCSIM_SOURCE_DIR, MPIEXEC, PYTHON.
set -euo pipefail
SRC=${RCSIM_SOURCE_DIR:?}
RCSIM=${RCSIM:?}
PY=${PYTHON:-/usr/bin/python3}
export PYTHONPATH="$SRC/analysis${PYTHONPATH:+:$PYTHONPATH}"  # the package rcplot (python3 -m rcplot TOOL)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# 1. a real sweep, under MPI when the launcher is there (rank 0 hands out, 2 workers), with a
#    synthetic stand-in for gen_os15 (256 lines, the statistics of data/synthetic's synth80)
mkdir "$TMP/traces"
"$RCSIM" trace synth --online 0.800 --gaps 4.58 --gap-median 855 --concentration 2.42 \
    --sigma-on 1.79 --lines 256 --seed 1 -o "$TMP/traces/schedules_gen_os15.txt.gz" > /dev/null ||
    fail "rcsim trace synth failed"
H5=$TMP/analysis-small.h5
LAUNCH=()
if [ -n "${MPIEXEC:-}" ] && [ -x "${MPIEXEC}" ]; then LAUNCH=("$MPIEXEC" -np 3); fi
"${LAUNCH[@]}" "$RCSIM" sweep "$SRC/tests/data/sweeps/analysis-small.yaml" --out "$H5" \
    --data-dir "$TMP/traces" > "$TMP/sweep.log" 2>&1 || { cat "$TMP/sweep.log"; fail "rcsim sweep failed"; }
[ -s "$H5" ] || fail "no results file"

# 2. the results are self-consistent: each exact summary quantile (numpy's linear rule)
#    must lie in the histogram's bracket of the samples around each quantile's rank)
"$PY" - "$H5" "$SRC/analysis" <<'PYEOF' || fail "histogram and summary disagree"
import sys
sys.path.insert(0, sys.argv[2])
from rcplot import results, stats
with results.load([sys.argv[1]]) as res:
    assert len(res.jobs) == 24, "expected 24 jobs, got %d" % len(res.jobs)
    assert res.edges is not None and len(res.edges) == 32771, "bad /hist/edges_s"
    for j in res.jobs:
        n = j.summary.get("count", 0)
        h = j.hist()
        assert int(h.sum()) == int(n), "%s: histogram holds %d, summary count %d" % (j.id, h.sum(), n)
        if n < 2:
            continue
        for name, q in (("p1", 0.01), ("p50", 0.5), ("p90", 0.9), ("p99", 0.99)):
            want = j.summary[name]
            lo, hi = stats.hist_quantile_bounds(h, res.edges, q)
            assert lo - 1e-6 <= want <= hi + 1e-6, \
                "%s %s: summary %.4f outside the histogram's [%.4f, %.4f]" % (j.id, name, want, lo, hi)
            # docs/results-layout.md: quantiles read from the histogram are within 0.1 %
            est = stats.hist_quantile(h, res.edges, q)
            assert abs(est - want) <= 1e-3 * want, \
                "%s %s: histogram says %.6f, exact %.6f" % (j.id, name, est, want)
print("results consistent: %d jobs" % len(res.jobs))
PYEOF

# 3. every figure draws, as PNG and PDF
FIGS=$TMP/figures/paper-quick
args=()
for n in 5 6 7 8 9 14 15 16; do args+=(--fig "$n"); done
"$PY" -m rcplot figures --out "$FIGS" "${args[@]}" "$H5" || fail "figures.py failed"
for n in 5 6 7 8 9 14 15 16; do
    for ext in png pdf; do
        [ -s "$FIGS/fig$n.$ext" ] || fail "missing or empty fig$n.$ext"
    done
    head -c 8 "$FIGS/fig$n.png" | od -An -c | grep -q 'P   N   G' || fail "fig$n.png is not a PNG"
    head -c 5 "$FIGS/fig$n.pdf" | grep -q '%PDF' || fail "fig$n.pdf is not a PDF"
done
# a figure with no data must fail loudly, not draw an empty plot
if "$PY" -m rcplot figures --out "$TMP/none" --fig 5 --model exact "$H5" 2>/dev/null; then
    fail "figures.py drew figure 5 without exact-model data"
fi

# 4. the comparison has the expected rows, with finite values
CSV=$FIGS/comparison.csv
"$PY" -m rcplot paper-check --quiet --csv "$CSV" --md "$FIGS/comparison.md" "$H5" \
    > "$TMP/compare.log" || fail "paper-check failed"
grep -q "paper values within tolerance" "$TMP/compare.log" || fail "no comparison summary"
for row in \
    "^5,32,online,unicast,1,1,1,median," \
    "^5,32,online,rc-k2-p2,1,1,1,p99," \
    "^15,32,online,rc-k1-p1,1,1,1,mean," \
    "^6,128,gen_os15,rc-k2-p2-ft-dropoffline,1,1,1,q1," \
    "^16,128,gen_os15,rc-k2-p2-ft,1,1,1,p90," \
    "^7,128,online,rc-k2-p2-ft-dropoffline,1,2,1,median," \
    "^8,128,online,rc-k2-p2-ft-dropoffline,2,1,1,q3," \
    "^9,128,gen_os15,rc-k2-p1-ft-dropoffline,1,1,2,mean," \
    "^9,128,gen_os15,rc-k2-p2-ft-dropoffline,1,1,1,mean,"; do
    line=$(grep -E "$row" "$CSV") || fail "comparison lacks a row matching $row"
    echo "$line" | grep -qE ',(nan|inf),' && fail "non-finite value in: $line"
    echo "$line" | grep -qE ',2,600,' || fail "expected 2 seeds of 600 s in: $line"
done
rows=$(($(wc -l < "$CSV") - 1))
[ "$rows" -ge 80 ] || fail "only $rows comparison rows"

# 5. the single-run spread of the trace means (as `reproduce.sh spread`, here with 2 seeds)
"$PY" -m rcplot means-spread --min-seeds 2 --md "$FIGS/means-spread.md" "$H5" \
    > "$TMP/spread.log" || fail "means_spread.py failed"
grep -qE "^\| gen_os15 \| rollercoaster-k2-p1-timeout10x-dropoffline \| 2 \| 2 \| " "$FIGS/means-spread.md" ||
    fail "means-spread lacks the gen_os15 k=2 p=1 lambda/2 row"
grep -q "configurations: the paper's mean lies inside our per-run range" "$FIGS/means-spread.md" ||
    fail "means-spread lacks its summary"
if "$PY" -m rcplot means-spread "$H5" > /dev/null 2>&1; then
    fail "means_spread.py reported 2-seed configurations with the default --min-seeds 5"
fi

# 6. the docs page is generated from these outputs
"$PY" -m rcplot make-docs --root "$TMP" > /dev/null || fail "make_docs.py failed"
for n in 5 6 7 8 9 14 15 16; do
    grep -q "](../figures/paper-quick/fig$n.png)" "$TMP/docs/figures.md" || fail "docs lack fig $n"
done
grep -q "values within the docs/spec.md §9.3" "$TMP/docs/figures.md" || fail "docs lack the summary"
grep -q "### Means with traces: one run against twenty" "$TMP/docs/figures.md" ||
    fail "docs lack the means-spread section"
echo "analysis pipeline OK: 8 figures, $rows comparison rows"
