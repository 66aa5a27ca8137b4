#!/bin/bash
# Bit-identity check for speed work (docs/performance.md): runs a fixed set of jobs that
# covers every model path (paper and exact models, unicast, RC, RC-FT with and without
# drop-offline, bursts, traces, lambda/16, --cover full, adversary, anti-entropy with membership
# changes, a source going offline, several groups, population mode, and populations of
# 6,000 that put pulls in the calendar, core/calq.h, in both models) with one binary, and
# compares two such runs: the JSON summary (without wall time, RSS and the event count),
# and every raw delivery, histogram bucket and population table of the HDF5 output.
#
# Usage: bench/identity.sh run RCSIM OUTDIR [--population-model V]
#                                                 run the set with binary RCSIM into OUTDIR
#                                                 (population jobs in model V, else the newest)
#        bench/identity.sh compare DIR1 DIR2      exit 0 when identical, 1 otherwise
#        bench/identity.sh --help
# Trace jobs need the availability traces: $RCSIM_DATA_DIR, else data/availability
# (scripts/get-traces.sh fetches them); without them the run stops with that message.
# Prints the event count of each job in the comparison (events may change when a change
# removes work that had no effect, e.g. events that did nothing).
# A population job's id names its population model (population_model in the canonical
# text), so the summary leaves out the id of population jobs: the id changes with the
# model version even where the new model changes nothing (p > 1, the paper's lattice).
# Job p (exact, unicast, p = 1) is what population model 2 changes: against a build
# before model 2 it differs by design.  Population model 3
# (fifth round) hands a pull's messages over in another order: against a build before
# it, jobs k and n (exact RC-FT populations) differ by design, and job p, whose
# deliveries send nothing, keeps its results with other event counts.  Population
# model 4 (the default after model 3) hands them over in model 2's order but interleaves
# two clients that pull at the same microsecond: against a build whose newest model is
# 3, jobs k and n differ by design and job p keeps its results.  Run the newer build with
# --population-model of the older one's newest model to compare the rest (a build with
# model 4, run with --population-model 3, is identical to one whose newest is 3).
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

JOBS=(
  "a --model paper --strategy rc-k2-p2-ft-dropoffline --users 128 --duration 2h"
  "b --model paper --strategy rc-k1-p1-ft-dropoffline --users 128 --burst 32 --duration 1h"
  "c --model paper --strategy rc-k2-p2-ft-dropoffline --users 128 --burst 16 --trace gen_os15 --duration 2h"
  "d --model paper --strategy rc-k4-p1-ft-dropoffline --users 128 --trace gen_os10 --lambda-div 16 --duration 6h"
  "e --model exact --strategy rc-k2-p2-ft --users 64 --trace gen_os15 --duration 2h --cover full"
  "f --model paper --strategy rc-k16-p16-ft-dropoffline --users 128 --trace gen_os15 --lambda-div 4 --duration 6h"
  "g --model exact --strategy rc-k2-p2-ft-dropoffline --users 64 --adversary delay --adversary-fraction 0.2 --duration 1h"
  "h --model exact --strategy rc-k2-p2-ft --users 64 --gossip-interval 30 --membership-rate 0.01 --duration 1h"
  "i --model paper --strategy rc-k2-p2-ft --users 64 --source-offline 600:1200 --duration 1h"
  "j --model paper --strategy rc-k8-p1-ft-dropoffline --users 128 --groups 4 --group-size 32 --trace gen_os15 --duration 3h"
  "k --model exact --strategy rc-k2-p2-ft-dropoffline --population 2000 --groups 400 --group-size-dist zipf:1.5:3:200 --duration 10m"
  "l --model paper --strategy unicast --users 128 --burst 8 --duration 2h"
  "m --model paper --strategy rc-k2-p2 --users 256 --duration 2h"
  "n --model exact --strategy rc-k2-p2-ft-dropoffline --population 6000 --groups 1200 --group-size-dist zipf:1.5:3:200 --duration 10m"
  "o --model paper --strategy unicast --population 6000 --groups 1200 --group-size-dist zipf:1.5:3:200 --duration 10m"
  "p --model exact --strategy unicast --population 6000 --groups 1200 --group-size-dist zipf:1.5:3:200 --duration 10m"
)

usage() { sed -n '2,18p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }

summary() { # JSON without the fields that measure cost, keys sorted
  python3 - "$1" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
for k in ("wall_s", "peak_rss_kb", "events"):
    d.pop(k, None)
if "population" in d:
    d.pop("job_id", None)
    d.pop("population_model", None)
print(json.dumps(d, sort_keys=True))
EOF
}

events() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("events"))' "$1"; }

case "${1:-}" in
  run)
    pm=()
    if [ $# -eq 5 ] && [ "$4" = --population-model ]; then pm=(--population-model "$5")
    elif [ $# -ne 3 ]; then usage >&2; exit 2; fi
    bin=$2; out=$3
    [ -x "$bin" ] || { echo "identity.sh: $bin is not an executable" >&2; exit 2; }
    data=${RCSIM_DATA_DIR:-$ROOT/data/availability}
    if ! compgen -G "$data/*gen_os15*" >/dev/null; then
      echo "identity.sh: no availability traces in $data (set RCSIM_DATA_DIR or run scripts/get-traces.sh)" >&2
      exit 2
    fi
    mkdir -p "$out"
    for job in "${JOBS[@]}"; do
      read -r tag args <<<"$job"
      extra=()
      [[ " $args " == *" --population "* ]] && extra=("${pm[@]}")
      # shellcheck disable=SC2086
      if ! RCSIM_DATA_DIR=$data "$bin" run $args "${extra[@]}" --seed 3 --json --quiet --store-raw \
          --out "$out/$tag.h5" >"$out/$tag.json" 2>"$out/$tag.err" </dev/null; then
        echo "identity.sh: job $tag failed: $(head -c 300 "$out/$tag.err")" >&2
        exit 1
      fi
      echo "job $tag done" >&2
    done
    ;;
  compare)
    [ $# -eq 3 ] || { usage >&2; exit 2; }
    a=$2; b=$3; bad=0
    for job in "${JOBS[@]}"; do
      read -r tag _ <<<"$job"
      for d in "$a" "$b"; do
        [ -s "$d/$tag.json" ] || { echo "identity.sh: $d/$tag.json missing" >&2; exit 2; }
      done
      same=yes
      [ "$(summary "$a/$tag.json")" == "$(summary "$b/$tag.json")" ] || { same="NO (summary)"; bad=1; }
      for g in /deliveries /hist /population; do
        if ! cmp -s <(h5dump -g $g "$a/$tag.h5" 2>&1 | tail -n +2) \
                    <(h5dump -g $g "$b/$tag.h5" 2>&1 | tail -n +2); then
          same="NO ($g)"; bad=1
        fi
      done
      printf '%s  identical: %-16s events %s -> %s\n' "$tag" "$same" \
        "$(events "$a/$tag.json")" "$(events "$b/$tag.json")"
    done
    [ $bad -eq 0 ] && echo "all identical" || echo "DIFFERENT"
    exit $bad
    ;;
  -h|--help) usage ;;
  *) usage >&2; exit 2 ;;
esac
