#!/bin/bash
# ingest.sh: how fast results get into a results file (docs/performance.md,
# "Results at scale").  Measures, with the real binary:
#   1. farm ingest of near-empty jobs (2 users, 1 simulated second) under mpirun -np P
#      (oversubscribed above 2 cores): jobs/s and the master's CPU per job, the latter as
#      (master cpu of N jobs - master cpu of 1 job) / N, so start-up is not counted;
#      the same at -np 3 with --no-fork (the cost of one forked child per chunk);
#   2. bytes per job of the results file and of the journal (near-empty jobs), and of
#      a few real paper-model jobs (m = 128, 6 h);
#   3. the time to load the summary table of 10^4, 10^5, 10^6 jobs (synthetic files
#      written through the same writer by bench_results) as numpy columns and as a
#      pandas DataFrame, with /usr/bin/python3.
# Medians of --repeat runs.  Prints a Markdown table; --json FILE also writes JSON.
#
#   bench/ingest.sh [--build-dir DIR] [--jobs N] [--repeat R] [--np "2 3 5 9"]
#                   [--load-sizes "10000 100000 1000000"] [--quick] [--json FILE]
# Exit: 0 ok, 1 a run failed, 2 bad usage.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=$ROOT/build
JOBS=10000
REPEAT=3
NPS="2 3 5 9"
LOADS="10000 100000 1000000"
JSON=""
while [ $# -gt 0 ]; do
    case "$1" in
        --build-dir) BUILD=$2; shift ;;
        --jobs) JOBS=$2; shift ;;
        --repeat) REPEAT=$2; shift ;;
        --np) NPS=$2; shift ;;
        --load-sizes) LOADS=$2; shift ;;
        --json) JSON=$2; shift ;;
        --quick) JOBS=1000; REPEAT=1; NPS="2 3"; LOADS="10000" ;;
        -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
        *) echo "ingest.sh: unknown option $1" >&2; exit 2 ;;
    esac
    shift
done
RCSIM=$BUILD/rcsim
PY=/usr/bin/python3
MPIEXEC=${MPIEXEC:-mpirun}
[ -x "$RCSIM" ] || { echo "ingest.sh: no $RCSIM (build first)" >&2; exit 2; }
cmake --build "$BUILD" --target bench_results > /dev/null
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
W=$(mktemp -d /tmp/rcsim-ingest-XXXXXX)
trap 'rm -rf "$W"' EXIT
sweep_file() { # $1 path, $2 seeds
    printf 'name: ingest\ndescription: "near-empty jobs: 2 users, 1 simulated second"\n' > "$1"
    printf 'defaults:\n  users: 2\n  duration: 1\n  trace: online\nseeds: %s\n' "$2" >> "$1"
}
sweep_file "$W/n.yaml" "$JOBS"
sweep_file "$W/one.yaml" 1
median() { sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
# run NP YAML [opts]: prints "jobs_per_s master_cpu_s"
run() {
    local np=$1 yaml=$2; shift 2
    rm -f "$W/r.h5" "$W/r.h5.journal"
    local line
    line=$("$MPIEXEC" -np "$np" "$RCSIM" sweep "$yaml" --out "$W/r.h5" --progress 1000 "$@" 2>/dev/null | grep "^rcsim sweep") ||
        { echo "ingest.sh: mpirun -np $np rcsim sweep $yaml failed" >&2; exit 1; }
    echo "$line" | sed -n 's/.*, \([0-9.]*\) jobs\/s, master cpu \([0-9.]*\) s.*/\1 \2/p'
}
echo "# farm ingest: $JOBS near-empty jobs, median of $REPEAT; $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
declare -A RATE CPU_US
rows=()
for np in $NPS; do
    rates=(); cpus=(); ones=()
    for _ in $(seq "$REPEAT"); do
        read -r r c < <(run "$np" "$W/n.yaml")
        rates+=("$r"); cpus+=("$c")
        read -r _ c1 < <(run "$np" "$W/one.yaml")
        ones+=("$c1")
    done
    rate=$(printf '%s\n' "${rates[@]}" | median)
    cpu=$(printf '%s\n' "${cpus[@]}" | median)
    one=$(printf '%s\n' "${ones[@]}" | median)
    us=$(awk -v a="$cpu" -v b="$one" -v n="$JOBS" 'BEGIN { printf "%.1f", (a - b) / n * 1e6 }')
    RATE[$np]=$rate; CPU_US[$np]=$us
    rows+=("| $np | $((np - 1)) | $rate | $cpu | $one | $us |")
    echo "np=$np: $rate jobs/s, master cpu $cpu s ($one s for one job): $us us/job" >&2
done
# bytes per job (the last run of the largest np left its files; rerun at np 3 to be sure)
run 3 "$W/n.yaml" > /dev/null
h5b=$(awk -v s="$(stat -c %s "$W/r.h5")" -v n="$JOBS" 'BEGIN { printf "%.0f", s / n }')
jb=$(awk -v s="$(stat -c %s "$W/r.h5.journal")" -v n="$JOBS" 'BEGIN { printf "%.0f", s / n }')
# fork cost: -np 3 with and without --no-fork
nf=(); fk=()
for _ in $(seq "$REPEAT"); do
    read -r r _ < <(run 3 "$W/n.yaml" --no-fork); nf+=("$r")
    read -r r _ < <(run 3 "$W/n.yaml"); fk+=("$r")
done
nofork=$(printf '%s\n' "${nf[@]}" | median)
fork=$(printf '%s\n' "${fk[@]}" | median)
echo "np=3: $fork jobs/s with a fork per chunk, $nofork with --no-fork" >&2
# real jobs: 6 paper-model jobs of m = 128, 6 h; bytes per job beyond a one-job file
printf 'name: ingest-real\ndefaults: {users: 128, duration: 6h, model: paper, trace: online}\naxes:\n  strategy: [unicast, rc-k2-p2, rc-k2-p2-ft]\nseeds: 2\n' > "$W/real.yaml"
rm -f "$W/real.h5"*
"$MPIEXEC" -np 3 "$RCSIM" sweep "$W/real.yaml" --out "$W/real.h5" > /dev/null 2>&1 || { echo "real sweep failed" >&2; exit 1; }
"$RCSIM" run --users 128 --duration 60 --model paper --out "$W/base.h5" --quiet
real_h5=$(awk -v s="$(stat -c %s "$W/real.h5")" -v b="$(stat -c %s "$W/base.h5")" 'BEGIN { printf "%.0f", (s - b) / 5 }')
real_j=$(awk -v s="$(stat -c %s "$W/real.h5.journal")" 'BEGIN { printf "%.0f", (s - 16) / 6 }')
echo "paper jobs (m=128, 6 h): ~$real_h5 B/job in the file, $real_j B/job in the journal" >&2
# load times
load_rows=()
for n in $LOADS; do
    f=$W/syn$n.h5
    "$BUILD/bench_results" "$n" "$f" 20 >&2
    for what in table dataframe; do
        ws=(); cs=()
        for _ in $(seq "$REPEAT"); do
            read -r w c < <("$PY" - "$ROOT/analysis" "$f" "$what" <<'PY'
import sys, time
sys.path.insert(0, sys.argv[1])
from rcplot import results
t0, c0 = time.time(), time.process_time()
if sys.argv[3] == "table":
    t = results.load_table([sys.argv[2]]); n = len(t); t.close()
else:
    n = len(results.load_dataframe([sys.argv[2]]))
print("%.3f %.3f" % (time.time() - t0, time.process_time() - c0))
PY
)
            ws+=("$w"); cs+=("$c")
        done
        wm=$(printf '%s\n' "${ws[@]}" | median); cm=$(printf '%s\n' "${cs[@]}" | median)
        load_rows+=("| $n | $what | $wm | $cm |")
        echo "load $n jobs as $what: wall $wm s, cpu $cm s" >&2
    done
    rm -f "$f" "$f.journal"
done
echo "| -np | workers | jobs/s | master cpu, $JOBS jobs (s) | master cpu, 1 job (s) | master cpu per job (us) |"
echo "|---:|---:|---:|---:|---:|---:|"
printf '%s\n' "${rows[@]}"
echo
echo "fork per chunk vs --no-fork at -np 3: $fork vs $nofork jobs/s"
echo "bytes per job: results file $h5b B, journal $jb B (near-empty jobs); paper jobs m=128 6 h: $real_h5 B, $real_j B"
echo
echo "| jobs | as | wall (s) | cpu (s) |"
echo "|---:|---|---:|---:|"
printf '%s\n' "${load_rows[@]}"
if [ -n "$JSON" ]; then
    {
        echo "{\"format\": \"rcsim-ingest/1\", \"jobs\": $JOBS, \"repeat\": $REPEAT, \"loadavg\": \"$(cut -d' ' -f1-3 /proc/loadavg)\","
        echo " \"farm\": ["
        first=1
        for np in $NPS; do
            [ $first = 1 ] || echo ","
            first=0
            printf '  {"np": %s, "jobs_per_s": %s, "master_us_per_job": %s}' "$np" "${RATE[$np]}" "${CPU_US[$np]}"
        done
        echo "],"
        echo " \"np3_fork_jobs_per_s\": $fork, \"np3_nofork_jobs_per_s\": $nofork,"
        echo " \"h5_bytes_per_job\": $h5b, \"journal_bytes_per_job\": $jb,"
        echo " \"paper_h5_bytes_per_job\": $real_h5, \"paper_journal_bytes_per_job\": $real_j}"
    } > "$JSON"
fi
