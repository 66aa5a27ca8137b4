#!/bin/bash
# `rcsim summarize` computes its table on the results table's columns
# (analysis/rcplot/coltable.py) instead of one Python object per job.  On real files of a
# sweep run here (two axes, three seeds, a trace, store_raw; a second sweep with the
# adversary and anonymity columns), the text table, --csv and --json, with and without
# --where (on an axis and on the seed), for one file and for two files sharing jobs, must
# be byte-identical to the generic path's (RCSIM_SUMMARIZE_GENERIC=1), and the column path
# must really have been taken (it falls back to the generic one when it does not apply).
# Environment (set by tests/CMakeLists.txt): RCSIM, RCSIM_SOURCE_DIR, PYTHON.
set -euo pipefail
SRC=${RCSIM_SOURCE_DIR:?}
RCSIM=${RCSIM:?}
PY=${PYTHON:-/usr/bin/python3}
export PYTHONPATH="$SRC/analysis${PYTHONPATH:+:$PYTHONPATH}"  # the package rcplot (python3 -m rcplot TOOL)
# the repository's synthetic trace (data/synthetic), so that no download is needed
export RCSIM_BIN=$RCSIM RCSIM_DATA_DIR=$SRC/data/synthetic
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
cd "$TMP"
trace=gen_synth80
cat > a.yaml <<EOF
name: cols-a
defaults:
  duration: 4m
  store_raw: true
axes:
  users: [16, 8]
  trace: [online, $trace]
  strategy: [unicast, rc-k2-p2-ft-dropoffline]
seeds: 3
EOF
cat > b.yaml <<'EOF'
name: cols-b
defaults:
  duration: 2m
  users: 12
  anonymity: true
  app_rate: 0.25
axes:
  adversary: [drop, delay]
  adversary_fraction: [0, 0.1]
  strategy: [unicast, rc-k2-p2]
seeds: 2
EOF
"$RCSIM" sweep a.yaml --out a.h5 > /dev/null 2>&1 || fail "sweep a"
"$RCSIM" sweep b.yaml --out b.h5 > /dev/null 2>&1 || fail "sweep b"
same() { # args of summarize.py
    "$PY" -m rcplot summarize "$@" > cols.out 2> cols.err || fail "summarize $*"
    RCSIM_SUMMARIZE_GENERIC=1 "$PY" -m rcplot summarize "$@" > gen.out 2> gen.err \
        || fail "generic summarize $*"
    cmp -s cols.out gen.out || { diff gen.out cols.out | head -20; fail "outputs differ: $*"; }
    cmp -s cols.err gen.err || fail "messages differ: $*"
    [ -s cols.out ] || fail "no output: $*"
}
taken() { # paths and w:KEY=VALUE: the column path must apply
    "$PY" - "$SRC/analysis" "$@" <<'PY' || fail "the column path was not taken: $*"
import sys
sys.path.insert(0, sys.argv[1])
from rcplot import coltable, table
from rcplot.sweep import parse_where
args = sys.argv[2:]
where = parse_where([a[2:] for a in args if a.startswith("w:")])
paths = [a for a in args if not a.startswith("w:")]
sys.exit(0 if coltable.summarize_fast(paths, where, table.DEFAULT_STATS, table.SUMS) else 1)
PY
}
for files in "a.h5" "b.h5" "a.h5 b.h5 a.h5"; do
    # shellcheck disable=SC2086
    { same $files; same $files --csv -; same $files --json -; taken $files; }
done
same a.h5 --where users=8 --json -
same a.h5 --where seed=2 --csv -
same b.h5 --where adversary_fraction=0.1 --where strategy=unicast
taken a.h5 w:seed=2
taken b.h5 w:adversary_fraction=0.1
# what the column path does not handle still works, through the generic path
same a.h5 --per-seed
"$PY" -m rcplot summarize a.h5 --where nosuch=1 > /dev/null 2> err.txt && fail "bad --where"
grep -q "no such parameter" err.txt || fail "bad --where message: $(cat err.txt)"
grep -q "^cols-a\|sweep cols-a" <("$PY" -m rcplot summarize a.h5) || fail "header"
echo "summarize_columns: column path = generic path on every output"
