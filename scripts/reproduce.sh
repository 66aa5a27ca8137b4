#!/bin/bash
# reproduce.sh: the one command that reproduces the paper's figures.
#
# Builds rcsim if needed, runs each figure's sweep (experiments/figN.yaml) into
# results/<tag>/figN.h5 (under mpirun when available; an existing file is resumed, not
# recomputed), draws figures/<tag>/figN.{png,pdf}, writes the comparison with the paper
# (figures/<tag>/comparison.{md,csv}) and regenerates docs/figures.md -- those two only
# when every figure's results are complete; a partial run writes its comparison to
# figures/<tag>/partial/ instead.  <tag> is the
# model, plus "-quick" for --quick runs, so quick and full results never mix in a file.
# Wall time per figure is printed and recorded in figures/<tag>/timings.tsv.  The drawing
# scripts record which code and results drew each file in figures/<tag>/provenance.json
# (python3 -m rcplot check-figures); --redraw redraws a set from the existing results alone.
# Exit status: 0 ok, 1 a sweep or a figure failed, 2 bad usage.
set -euo pipefail

usage() {
    cat <<'EOF'
usage: scripts/reproduce.sh [--quick] [--model paper|exact] [--np N] [--build-dir DIR]
                            [--no-build] [--redraw] [FIGURE ...]

Reproduces the paper's figures 5 6 7 8 9 14 15 16 (default: all of them, plus
"spread" and "misses" unless --quick).  "spread" runs experiments/means-spread.yaml (20
seeds of the trace heatmap cells) and writes figures/<tag>/means-spread.md: where the
paper's single-run means fall among our per-run means (needs several seeds, so not
--quick).  "misses" runs experiments/misses-spread.yaml (30 independent seeds of every
configuration outside the tolerance) into results/<tag>/misses-spread.h5; the comparison
then judges each miss against those runs' central 95 % (docs/figures.md, "Misses, one
by one").

  --quick          short runs: simulated span 2 h instead of 24 h and one seed
                   (--set duration=2h --set seed=1); results go to results/<model>-quick
  --model M        paper (default: the reference's quirks, docs/spec.md §0) or exact
  --np N           MPI ranks for `rcsim sweep` (default: cores + 1, since rank 0 only
                   hands out jobs); 1 runs without mpirun
  --build-dir DIR  where to build rcsim (default: build)
  --no-build       do not build; use an existing DIR/rcsim
  --redraw         run no sweep: redraw the figures, tables and comparison from the
                   results already in results/<tag>/ (a figure without them fails),
                   also when they were made by another build of rcsim (a plain rerun
                   refuses to resume those); timings.tsv keeps the times of that run
  --set KEY=VALUE  extra parameter override for every sweep (repeatable)
  -h, --help       this help

Outputs: results/<tag>/figN.h5, figures/<tag>/figN.{png,pdf}, figures/<tag>/comparison.{md,csv},
figures/<tag>/timings.tsv, figures/<tag>/traces.tsv, docs/figures.md.  The comparison and
docs/figures.md are replaced only when the results of all eight figures are complete and no
extra --set was given; otherwise the comparison goes to figures/<tag>/partial/.  Environment: PYTHON (default /usr/bin/python3),
MPIEXEC (default mpirun), RCSIM_DATA_DIR (the paper's traces).

Figures 6, 7, 8, 9, 14, 16 and spread need the paper's availability traces: fetch them with
scripts/get-traces.sh (data/README.md).  A figure whose traces are missing is skipped with a
message saying so (exit status 1); 5 and 15 need none.
EOF
}

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PY=${PYTHON:-/usr/bin/python3}   # python3 on PATH may be a pyenv one without h5py
MPIEXEC=${MPIEXEC:-mpirun}
MODEL=paper
QUICK=0
NP=$(( $(nproc) + 1 ))
BUILD=build
DO_BUILD=1
REDRAW=0
EXTRA=()
FIGS=()

while [ $# -gt 0 ]; do
    case "$1" in
        --quick) QUICK=1 ;;
        --model) MODEL=${2:?--model needs a value}; shift ;;
        --model=*) MODEL=${1#*=} ;;
        --np) NP=${2:?--np needs a value}; shift ;;
        --np=*) NP=${1#*=} ;;
        --build-dir) BUILD=${2:?--build-dir needs a value}; shift ;;
        --build-dir=*) BUILD=${1#*=} ;;
        --no-build) DO_BUILD=0 ;;
        --redraw) REDRAW=1 ;;
        --set) EXTRA+=(--set "${2:?--set needs KEY=VALUE}"); shift ;;
        --set=*) EXTRA+=(--set "${1#*=}") ;;
        -h|--help) usage; exit 0 ;;
        -*) echo "reproduce.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
        *) FIGS+=("$1") ;;
    esac
    shift
done
case "$MODEL" in paper|exact) ;; *) echo "reproduce.sh: --model must be paper or exact" >&2; exit 2 ;; esac
case "$NP" in ''|*[!0-9]*|0) echo "reproduce.sh: --np must be a positive integer" >&2; exit 2 ;; esac
if [ ${#FIGS[@]} -eq 0 ]; then
    FIGS=(5 6 7 8 9 14 15 16)
    [ "$QUICK" = 1 ] || FIGS+=(spread misses)
fi
for f in "${FIGS[@]}"; do
    case "$f" in 5|6|7|8|9|14|15|16|spread|misses) ;; *) echo "reproduce.sh: no figure '$f' (5 6 7 8 9 14 15 16 spread misses)" >&2; exit 2 ;; esac
done

cd "$ROOT"
export PYTHONPATH="$ROOT/analysis${PYTHONPATH:+:$PYTHONPATH}"  # the package rcplot (python3 -m rcplot TOOL)
# shellcheck source=scripts/traces-env.sh
source "$ROOT/scripts/traces-env.sh"
[[ "$BUILD" = /* ]] || BUILD="$ROOT/$BUILD"
RCSIM=${RCSIM:-$BUILD/rcsim}
if [ "$DO_BUILD" = 1 ]; then
    if [ ! -f "$BUILD/CMakeCache.txt" ]; then
        cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release >/dev/null
    fi
    cmake --build "$BUILD" -j"$(nproc)" --target rcsim
fi
[ -x "$RCSIM" ] || { echo "reproduce.sh: no rcsim binary at $RCSIM" >&2; exit 1; }
# The analysis scripts read strategy families from the binary (analysis/rcplot/strategies.py):
# the one this script runs, whichever --build-dir or $RCSIM named it.
export RCSIM_BIN="$RCSIM"

TAG=$MODEL
SETS=(--set "model=$MODEL")
if [ "$QUICK" = 1 ]; then
    TAG=$MODEL-quick
    SETS+=(--set duration=2h --set seed=1)
fi
SETS+=("${EXTRA[@]}")
RES=results/$TAG
OUT=figures/$TAG
mkdir -p "$RES" "$OUT"
TIMINGS=$OUT/timings.tsv
[ -f "$TIMINGS" ] || printf 'figure\tjobs\tnp\tsweep_s\tanalysis_s\tfinished\n' > "$TIMINGS"

# Transparent huge pages for the heap (a glibc tunable; ignored by other C libraries):
# saturated jobs (Fig. 8) spend their time on cache and TLB misses over 10^5-10^6 message
# records, and run 13 % faster with it; other jobs do not change (docs/performance.md,
# "Session 5").  Results do not depend on it.
export GLIBC_TUNABLES=${GLIBC_TUNABLES:+$GLIBC_TUNABLES:}glibc.malloc.hugetlb=1

LAUNCH=()
RANKS=1
if [ "$NP" -gt 1 ] && command -v "$MPIEXEC" >/dev/null 2>&1; then
    # Open MPI refuses to run as root without the allow flags, and more ranks than cores need
    # oversubscription; the environment forms are ignored by MPIs that do not know them.
    if [ "$(id -u)" = 0 ]; then
        export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    fi
    export OMPI_MCA_rmaps_base_oversubscribe=1
    LAUNCH=("$MPIEXEC" -np "$NP")
    RANKS=$NP
fi

count_jobs() {
    [ -f "$1" ] || { echo 0; return; }
    "$PY" -c 'import sys, h5py
try:
    f = h5py.File(sys.argv[1], "r")
    print(int(f["table"].attrs["rows"]) if "table" in f else len(f["jobs"]) if "jobs" in f else 0)
except Exception:
    print(0)' "$1"
}

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

# record FIG JOBS SWEEP_S ANALYSIS_S: replace this figure's row of timings.tsv.
record() {
    local tmp
    tmp=$(mktemp)
    awk -F'\t' -v f="$1" 'NR == 1 || $1 != f' "$TIMINGS" > "$tmp"
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$RANKS" "$3" "$4" \
        "$(date -u +%Y-%m-%dT%H:%M:%SZ)" >> "$tmp"
    mv "$tmp" "$TIMINGS"
    chmod 644 "$TIMINGS"
}
old_sweep_s() { awk -F'\t' -v f="$1" '$1 == f { print $4 }' "$TIMINGS"; }

status=0
hinted=0
for n in "${FIGS[@]}"; do
    sweep=experiments/fig$n.yaml
    [ "$n" != spread ] || sweep=experiments/means-spread.yaml
    [ "$n" != misses ] || sweep=experiments/misses-spread.yaml
    missing=$(rcsim_traces_missing "$sweep")
    if [ -n "$missing" ]; then
        [ "$hinted" = 1 ] || rcsim_traces_hint "reproduce.sh: figure $n" "$missing"
        hinted=1
        echo "reproduce.sh: figure $n skipped: no $missing" >&2
        status=1
        continue
    fi
    # The two studies beside the figures: a sweep into results/<tag>/<sweep name>.h5;
    # "spread" also writes its table (the comparison reads misses-spread.h5 at the end).
    if [ "$n" = spread ] || [ "$n" = misses ]; then
        h5=$RES/$(basename "$sweep" .yaml).h5
        t0=$(now)
        if [ "$REDRAW" = 1 ]; then
            if [ ! -f "$h5" ]; then
                echo "reproduce.sh: --redraw: no $h5; the $n study needs its sweep run" >&2
                status=1
                continue
            fi
            echo "== $n: redrawing from $h5"
        else
            echo "== $n: ${LAUNCH[*]:-} $RCSIM sweep $sweep --out $h5 ${SETS[*]}"
        fi
        if { [ "$REDRAW" = 1 ] || "${LAUNCH[@]}" "$RCSIM" sweep "$sweep" --out "$h5" "${SETS[@]}"; } &&
            { [ "$n" != spread ] ||
              "$PY" -m rcplot means-spread --model "$MODEL" --md "$OUT/means-spread.md" "$h5" >/dev/null; }; then
            echo "== $n: $(elapsed "$t0" "$(now)")s, $h5"
        else
            echo "reproduce.sh: the $(basename "$sweep" .yaml) study failed" >&2
            status=1
        fi
        continue
    fi
    h5=$RES/fig$n.h5
    if [ ! -f "$sweep" ]; then
        echo "reproduce.sh: $sweep does not exist; skipping figure $n" >&2
        status=1
        continue
    fi
    before=$(count_jobs "$h5")
    t0=$(now)
    if [ "$REDRAW" = 1 ]; then
        if [ ! -f "$h5" ]; then
            echo "reproduce.sh: --redraw: no $h5; figure $n needs its sweep run" >&2
            status=1
            continue
        fi
        echo "== figure $n: redrawing from $RES/fig*.h5"
    elif echo "== figure $n: ${LAUNCH[*]:-} $RCSIM sweep $sweep --out $h5 ${SETS[*]}" &&
         ! "${LAUNCH[@]}" "$RCSIM" sweep "$sweep" --out "$h5" "${SETS[@]}"; then
        echo "reproduce.sh: the sweep of figure $n failed" >&2
        status=1
        continue
    fi
    # The figure is drawn from the table: refuse a file whose journal holds jobs its table lacks
    # (analysis/rcplot/journal.py), so a comparison is never drawn from missing rows.
    if ! "$PY" -c 'import sys; from rcplot import journal; journal.check_files(sys.argv[1:])' "$h5"; then
        echo "reproduce.sh: $h5 lacks jobs of its journal; run the same command again (without --redraw) to write them" >&2
        status=1
        continue
    fi
    t1=$(now)
    sweep_s=$(elapsed "$t0" "$t1")
    after=$(count_jobs "$h5")
    # A resumed sweep with nothing left to do keeps the wall time of the run that did it.
    if [ "$after" = "$before" ] && [ -n "$(old_sweep_s "$n")" ]; then
        sweep_s=$(old_sweep_s "$n")
    fi
    # Figures are drawn from every results file of this tag, so a figure can use runs
    # another figure's sweep made (Fig 15 = Fig 5's runs; Fig 7 g=1 = Fig 5/6 runs).
    if ! "$PY" -m rcplot figures --model "$MODEL" --out "$OUT" --fig "$n" "$RES"/fig*.h5; then
        echo "reproduce.sh: figure $n could not be drawn" >&2
        status=1
    fi
    t2=$(now)
    an_s=$(elapsed "$t1" "$t2")
    [ "$REDRAW" = 1 ] || record "$n" "$after" "$sweep_s" "$an_s"
    echo "== figure $n: $after jobs, sweep ${sweep_s}s, analysis ${an_s}s"
done

# The traces' online fractions (all lines, and the first 16 that the paper model uses),
# quoted by the notes of docs/figures.md (skipped without the traces).
if [ -z "$(rcsim_traces_missing <(echo gen_os10 gen_os15 gen_os20))" ]; then
    "$RCSIM" trace stats --tsv gen_os10 gen_os15 gen_os20 > "$OUT/traces.tsv" ||
        { echo "reproduce.sh: rcsim trace stats failed" >&2; rm -f "$OUT/traces.tsv"; }
fi

shopt -s nullglob
files=("$RES"/fig*.h5)
spread=()
[ ! -f "$RES/misses-spread.h5" ] || spread=(--spread "$RES/misses-spread.h5")
# The comparison with the paper (figures/<tag>/comparison.*) and the headline of
# docs/figures.md speak for every figure, so only a complete set of results replaces them:
# every figure's results file holds every job of its sweep, run as the experiments define it
# (no extra --set).  A partial run (`reproduce.sh 5 9 15` in a fresh clone, a figure skipped
# for want of traces, extra overrides) writes its comparison to figures/<tag>/partial/
# instead and leaves the full one and the docs alone.
incomplete=()
[ ${#EXTRA[@]} -eq 0 ] || incomplete+=("extra overrides: ${EXTRA[*]}")
for n in 5 6 7 8 9 14 15 16; do
    h5=$RES/fig$n.h5
    if [ ! -f "$h5" ]; then incomplete+=("fig$n: no $h5"); continue; fi
    # `rcsim sweep --dry-run` counts the jobs still to run, as a resume would (0: complete);
    # it writes nothing, so results of another build (a --redraw after a rebuild) count too.
    left=$("$RCSIM" sweep "experiments/fig$n.yaml" --out "$h5" --dry-run --allow-other-build \
           "${SETS[@]}" 2>/dev/null |
           sed -n 's/.* \([0-9]*\) to run, .*/\1/p' | head -1)
    [ "$left" = 0 ] || incomplete+=("fig$n: ${left:-?} job(s) not in $h5")
done
CMP=$OUT
if [ ${#incomplete[@]} -gt 0 ]; then
    CMP=$OUT/partial
    mkdir -p "$CMP"
    echo "reproduce.sh: partial results (${incomplete[*]}); the comparison goes to" \
         "$CMP/comparison.{md,csv}, $OUT/comparison.* and docs/figures.md are left as they were" >&2
fi
if [ ${#files[@]} -gt 0 ]; then
    "$PY" -m rcplot paper-check --quiet --model "$MODEL" --csv "$CMP/comparison.csv" \
        --md "$CMP/comparison.md" "${spread[@]}" "${files[@]}" || status=1
fi
[ ${#incomplete[@]} -gt 0 ] || "$PY" -m rcplot make-docs --root "$ROOT"
exit $status
