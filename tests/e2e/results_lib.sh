# Helpers shared by the farm and reliability end-to-end tests (sourced by
# farm_lib.sh and rel_lib.sh, which set PY, RCSIM, SWEEP and WORK first).  They read
# results files and journals with h5py and struct only (tests/e2e/results_view.py).
RESULTS_VIEW="$(dirname "${BASH_SOURCE[0]}")/results_view.py"

# Valid journal records (group-committed JOB records); 0 for a missing file.
journal_records() { $PY "$RESULTS_VIEW" journal "$1"; }

# "<jobs> <unique ids>" of a results file, every job complete; fails if it does not open.
h5_jobs() { $PY "$RESULTS_VIEW" jobs "$1"; }

# Per-job results of two files identical (measured fields aside); extra args: --ignore COLS.
h5_same() { $PY "$RESULTS_VIEW" compare "$@"; }

# Entries under /failed.
failed_count() { $PY "$RESULTS_VIEW" failed "$1"; }

sweep_jobs() { "$RCSIM" sweep "$SWEEP" --out "$WORK/dry.h5" --dry-run "$@" | sed -n 's/.*: \([0-9]*\) jobs,.*/\1/p'; }

# Keeps the first $2 job records of journal $1 (a sweep stopped after $2 jobs).
journal_keep() { $PY "$RESULTS_VIEW" journal-keep "$1" "$2"; }

# A small synthetic trace (one hour per line): $1 output, $2 seed, $3 lines (default 40).
synth_hour_trace() {
    "$RCSIM" trace synth --online 0.8 --gaps 2 --gap-median 300 --period 3600 \
        --lines "${3:-40}" --seed "$2" -o "$1" > /dev/null
}
