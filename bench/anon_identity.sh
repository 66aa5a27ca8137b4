#!/bin/bash
# Bit-identity check of the observed wire (docs/anonymity.md): runs a fixed set of small
# anonymity jobs (--anonymity on, every observation written with --anon-trace) with one
# binary, and compares two such runs byte for byte: each job's observation file, its
# FILE.targets.csv, and its JSON summary without wall time, RSS and the event count.
# The jobs cover unicast, RC, RC-FT, provider fan-out (packets a provider makes), an
# adversary owning mixes and providers, the paper's lattice, availability traces, a
# net without the providers' mixing delay on fewer, narrower layers, and two jobs with
# many more candidates than tracked messages (RC-FT at a multicast a second, a zipf
# population), where the sample's look-ahead leaves most of them out (docs/spec.md
# §10.2).  Each takes seconds.
#
# Usage: bench/anon_identity.sh run RCSIM OUTDIR    run the set with binary RCSIM into OUTDIR
#        bench/anon_identity.sh compare DIR1 DIR2   exit 0 when identical, 1 otherwise
#        bench/anon_identity.sh --help
# The trace job needs the availability traces: $RCSIM_DATA_DIR, else data/availability.
# The observation files are large (tens of MB a job, 124 MB for j): OUTDIR wants 500 MB.
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

ANON="--anonymity on --anon-targets 200 --seed 3"
JOBS=(
  "a --strategy unicast --users 32 --duration 5m"
  "b --strategy rc-k2-p2 --users 32 --duration 5m"
  "c --strategy rc-k2-p2-ft --users 32 --duration 5m"
  "d --strategy provider-fanout --users 32 --duration 5m"
  "e --strategy rc-k2-p2-ft --users 32 --duration 5m --corrupt-mixes 0.3 --corrupt-providers 0.3"
  "f --model paper --strategy rc-k2-p2-ft-dropoffline --users 32 --duration 5m"
  "g --strategy rc-k2-p2-ft --users 32 --duration 10m --trace gen_os15"
  "h --strategy provider-fanout --users 24 --duration 5m --q-ingress-delay off --mix-layers 2 --mixes-per-layer 2"
  "i --strategy rc-k2-p2-ft --users 200 --duration 60s --rate-delay 10 --app-rate 1"
  "j --strategy rc-k2-p2-ft-dropoffline --population 1500 --groups 300 --group-size-dist zipf:1.5:3:200 --duration 40s"
)

usage() { sed -n '2,15p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }

summary() { # JSON without the fields that measure cost, keys sorted
  python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
for k in ("wall_s", "peak_rss_kb", "events"):
    d.pop(k, None)
print(json.dumps(d, sort_keys=True))' "$1"
}

case "${1:-}" in
  run)
    [ $# -eq 3 ] || { usage >&2; exit 2; }
    bin=$2; out=$3
    [ -x "$bin" ] || { echo "anon_identity.sh: $bin is not an executable" >&2; exit 2; }
    data=${RCSIM_DATA_DIR:-$ROOT/data/availability}
    mkdir -p "$out"
    for job in "${JOBS[@]}"; do
      read -r tag args <<<"$job"
      # shellcheck disable=SC2086
      if ! RCSIM_DATA_DIR=$data "$bin" run $args $ANON --anon-trace "$out/$tag.csv" --json \
          --quiet >"$out/$tag.json" 2>"$out/$tag.err" </dev/null; then
        echo "anon_identity.sh: job $tag failed: $(head -c 300 "$out/$tag.err")" >&2
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
        for f in "$tag.json" "$tag.csv" "$tag.csv.targets.csv"; do
          [ -s "$d/$f" ] || { echo "anon_identity.sh: $d/$f missing" >&2; exit 2; }
        done
      done
      diff=()
      [ "$(summary "$a/$tag.json")" == "$(summary "$b/$tag.json")" ] || diff+=(summary)
      cmp -s "$a/$tag.csv" "$b/$tag.csv" || diff+=(observations)
      cmp -s "$a/$tag.csv.targets.csv" "$b/$tag.csv.targets.csv" || diff+=(targets)
      same=yes
      [ ${#diff[@]} -eq 0 ] || { same="NO (${diff[*]})"; bad=1; }
      printf '%s  identical: %-30s observations %s lines\n' "$tag" "$same" \
        "$(wc -l <"$a/$tag.csv")"
    done
    [ $bad -eq 0 ] && echo "all identical" || echo "DIFFERENT"
    exit $bad
    ;;
  -h|--help) usage ;;
  *) usage >&2; exit 2 ;;
esac
