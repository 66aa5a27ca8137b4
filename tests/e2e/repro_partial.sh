#!/bin/bash
# A partial `scripts/reproduce.sh` (some figures only) never replaces the full
# comparison with the paper (figures/<tag>/comparison.{md,csv}) nor docs/figures.md.  In a copy
# of the tree, `reproduce.sh --quick 5 15` runs the two figures that need no traces (with the
# real rcsim, one rank): their figures are drawn, their comparison goes to
# figures/paper-quick/partial/, and the committed comparison and docs are byte for byte as before.
source "$(dirname "$0")/rel_lib.sh"
R="$WORK/repo"
mkdir -p "$R"
for p in scripts analysis experiments figures docs data; do cp -r "$RCSIM_SOURCE_DIR/$p" "$R/"; done
rm -rf "$R/figures/paper-quick/partial"
sums() { md5sum "$R/figures/paper-quick/comparison.md" "$R/figures/paper-quick/comparison.csv" "$R/docs/figures.md" | sed "s|$R/||"; }
before=$(sums)
rc=0
# The binary named the way a user names a build: --build-dir DIR --no-build, with neither
# RCSIM nor RCSIM_BIN in the environment (the drawing reads strategy families from it too).
(cd "$R" && env -u RCSIM -u RCSIM_BIN MPLBACKEND=Agg timeout 300 bash scripts/reproduce.sh \
    --build-dir "$(dirname "$RCSIM")" --no-build --quick --np 1 5 15) \
    > "$WORK/out" 2> "$WORK/err" || rc=$?
[ "$rc" = 0 ] || fail "reproduce.sh --build-dir DIR --no-build --quick 5 15: exit $rc: $(tail -20 "$WORK/err")"
[ "$(sums)" = "$before" ] || fail "a partial run changed the full comparison or docs/figures.md:
$(diff <(echo "$before") <(sums))"
grep -q "partial results" "$WORK/err" || fail "no note that the results are partial: $(tail -5 "$WORK/err")"
P="$R/figures/paper-quick/partial"
[ -s "$P/comparison.csv" ] && [ -s "$P/comparison.md" ] || fail "no partial comparison in $P"
# The partial comparison holds Fig. 5 and 15 rows only.
figs=$($PY -c 'import csv,sys; print(" ".join(sorted({r["figure"] for r in csv.DictReader(open(sys.argv[1]))})))' "$P/comparison.csv")
case " $figs " in *" 6 "*|*" 14 "*) fail "the partial comparison has figures it did not run: $figs" ;; esac
[ -n "$figs" ] || fail "the partial comparison has no rows"
[ -s "$R/figures/paper-quick/fig5.png" ] || fail "figure 5 was not drawn"
echo "ok: partial comparison of figures $figs in figures/paper-quick/partial; full comparison and docs unchanged"
echo PASS
