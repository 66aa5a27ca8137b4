#!/bin/bash
# summarize.sh: `rcsim summarize` at scale (docs/performance.md, "summarize
# at scale").  A sweep of N near-empty jobs (2 users, 1 simulated second, N seeds) is run with
# the real binary under mpirun -np 3, then `python3 -m rcplot summarize` reads it REPEAT times; wall
# time, CPU time (user + system) and peak RSS (GNU time) are printed, the median of each.
# With --against DIR (another checkout's analysis/ directory, e.g. one of main) both run
# alternately on the same file, so a busy machine loads both alike, and their outputs must be
# byte-identical.  Goal: 20,000 jobs in under 1.5 s and 200 MB, 10^6 jobs in under
# 20 s and 1 GiB (--jobs 1000000: 10 durations x 100,000 seeds, a sweep's seed limit).
#
# --file H5 reads an existing results file instead of running the sweep (a 10^6-job sweep
# takes 20 minutes on the shared machine).
#
#   bench/summarize.sh [--build-dir DIR] [--jobs N] [--repeat R] [--against ANALYSIS_DIR]
#                      [--file H5]
# Exit: 0 ok, 1 a run failed or the outputs differ, 2 bad usage.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=$ROOT/build
JOBS=20000
REPEAT=5
AGAINST=""
FILE=""
while [ $# -gt 0 ]; do
    case "$1" in
        --build-dir) BUILD=$2; shift ;;
        --jobs) JOBS=$2; shift ;;
        --repeat) REPEAT=$2; shift ;;
        --against) AGAINST=$2; shift ;;
        --file) FILE=$2; shift ;;
        -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
        *) echo "summarize.sh: unknown option $1" >&2; exit 2 ;;
    esac
    shift
done
RCSIM=$BUILD/rcsim
PY=/usr/bin/python3
[ -x "$RCSIM" ] || { echo "summarize.sh: no $RCSIM (build first)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "summarize.sh: needs GNU time (/usr/bin/time)" >&2; exit 2; }
export RCSIM_BIN=$RCSIM OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
W=$(mktemp -d /tmp/rcsim-summarize-XXXXXX)
trap 'rm -rf "$W"' EXIT
if (( JOBS <= 100000 )); then
    printf 'name: summarize-bench\ndefaults:\n  users: 2\n  duration: 1\n  trace: online\nseeds: %s\n' "$JOBS" > "$W/n.yaml"
else
    # A sweep has at most 100,000 seeds: more jobs are 100,000 seeds x K durations (1..K s).
    (( JOBS % 100000 == 0 )) || { echo "summarize.sh: --jobs above 100000 must be a multiple of 100000" >&2; exit 2; }
    printf 'name: summarize-bench\ndefaults:\n  users: 2\n  trace: online\naxes:\n  duration: [%s]\nseeds: 100000\n' \
        "$(seq -s ', ' 1 $(( JOBS / 100000 )))" > "$W/n.yaml"
fi
if [ -n "$FILE" ]; then
    ln -s "$(cd "$(dirname "$FILE")" && pwd)/$(basename "$FILE")" "$W/n.h5"
else
    "${MPIEXEC:-mpirun}" -np 3 "$RCSIM" sweep "$W/n.yaml" --out "$W/n.h5" --progress 1000 > /dev/null 2>&1 \
        || { echo "summarize.sh: the sweep failed" >&2; exit 1; }
fi
one() { # $1 label, $2 analysis dir: appends "wall cpu rss_kB" to $W/$1.tsv
    # An older checkout's analysis/ has the script summarize.py; a newer one the package.
    local run=(-m rcplot summarize)
    [ -f "$2/rcplot/tools/summarize.py" ] || run=("$2/summarize.py")
    PYTHONPATH="$2" /usr/bin/time -f "%e %U %S %M" -o "$W/t" "$PY" "${run[@]}" "$W/n.h5" |
        grep -v '^\(ran\|overrides\): ' > "$W/$1.out"
    awk '{ printf "%s %.2f %s\n", $1, $2 + $3, $4 }' "$W/t" >> "$W/$1.tsv"
}
for ((i = 0; i < REPEAT; i++)); do
    one this "$ROOT/analysis"
    [ -z "$AGAINST" ] || one other "$AGAINST"
done
median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
report() { # $1 label, $2 name
    printf '| %s | %s | %s s | %s s | %s MB |\n' "$2" "$JOBS" "$(cut -d' ' -f1 "$W/$1.tsv" | median)" \
        "$(cut -d' ' -f2 "$W/$1.tsv" | median)" "$(( $(cut -d' ' -f3 "$W/$1.tsv" | median) / 1024 ))"
}
echo "| analysis | jobs | wall (median of $REPEAT) | cpu | peak RSS |"
echo "|---|---|---|---|---|"
report this "$ROOT/analysis"
if [ -n "$AGAINST" ]; then
    report other "$AGAINST"
    cmp -s "$W/this.out" "$W/other.out" || { echo "summarize.sh: the outputs differ" >&2; exit 1; }
    echo "(outputs identical)"
fi
