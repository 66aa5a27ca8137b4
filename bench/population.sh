#!/bin/bash
# Population-mode benchmarks (docs/performance.md "Populations"): time and
# peak memory of one job with N users in G groups, and how memory grows with N, G and
# the simulated span.  Benchmarks, not tests: nothing here passes or fails on speed.
#
# Usage: bench/population.sh [--rcsim PATH] [--only NAME] [--big-span D] [--slope-span D]
#   --rcsim PATH      the binary (default build/rcsim)
#   --only NAME       run only the named part: n10k, n100k, span, slope-n, slope-g
#   --big-span D      simulated span of the N = 100,000 job (default 1h; a shorter span
#                     is extrapolated to 1 h in the summary, and says so)
#   --slope-span D    simulated span of the memory-slope jobs (default 5m)
# Every job: --model exact, rc-k2-p2-ft-dropoffline, online, seed 1, group sizes
# zipf:1.5:3:1000 (mean 52), the paper's 1/30 s per-group event rate.  Each job runs
# alone under /usr/bin/time (user+sys CPU seconds, wall seconds, peak RSS) and prints
#   bench-pop name=... N=... G=... span_s=... events=... cpu_s=... wall_s=... rss_mib=...
# then the fitted slopes.  Runs under `nice`; on a loaded machine CPU seconds are the
# number to compare, wall seconds are not.
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
RCSIM=$ROOT/build/rcsim
ONLY=""
BIG_SPAN=1h
SLOPE_SPAN=5m
DIST=zipf:1.5:3:1000
STRAT=rc-k2-p2-ft-dropoffline
while [ $# -gt 0 ]; do
  case "$1" in
    --rcsim) RCSIM=$2; shift ;;
    --only) ONLY=$2; shift ;;
    --big-span) BIG_SPAN=$2; shift ;;
    --slope-span) SLOPE_SPAN=$2; shift ;;
    -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
    *) echo "population.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
[ -x "$RCSIM" ] || { echo "population.sh: $RCSIM is not executable (build it first)" >&2; exit 2; }
PY=/usr/bin/python3
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
OUT=$T/rows

# job NAME N G SPAN
job() {
  local name=$1 n=$2 g=$3 span=$4
  if ! /usr/bin/time -f "%U %S %e %M" -o "$T/time" nice "$RCSIM" run --population "$n" \
      --groups "$g" --group-size-dist "$DIST" --strategy "$STRAT" --duration "$span" \
      --json >"$T/json" 2>"$T/err"; then
    echo "bench-pop name=$name FAILED: $(tail -1 "$T/err")"
    return 1
  fi
  "$PY" - "$name" "$n" "$g" "$T/json" "$T/time" <<'PY' | tee -a "$OUT"
import json, sys
name, n, g, jp, tp = sys.argv[1:]
d = json.load(open(jp))
u, s, e, m = open(tp).read().split()[-4:]
print(f"bench-pop name={name} N={n} G={g} span_s={d['duration_s']:.0f} "
      f"multicasts={d['multicasts']} deliveries={d['deliveries_all']} events={d['events']} "
      f"cpu_s={float(u) + float(s):.1f} wall_s={float(e):.1f} rss_mib={int(m) / 1024:.1f} "
      f"ev_per_cpu_s={d['events'] / max(float(u) + float(s), 1e-9):.3g}")
PY
}

want() { [ -z "$ONLY" ] || [ "$ONLY" = "$1" ]; }

want n10k && job n10k 10000 2000 1h
want n100k && job n100k 100000 20000 "$BIG_SPAN"
if want span; then
  job span-10m 10000 2000 10m
  job span-30m 10000 2000 30m
fi
# The slopes stay where the network is not saturated: about 40 memberships per user (e.g.
# N = 2,500 or G = 8,000 at N = 10,000 with these sizes) exceed what a client's payload
# slots carry (lambda_P x p = 4 sub-messages/s), queues then grow all run, and memory with
# them -- that is the backlog, not the population.  Here: at most 21 per user.
if want slope-n; then
  for n in 5000 10000 20000 40000 80000; do job "slope-n" "$n" 2000 "$SLOPE_SPAN"; done
fi
if want slope-g; then
  for g in 1000 2000 4000 8000; do job "slope-g" 40000 "$g" "$SLOPE_SPAN"; done
fi

"$PY" - "$OUT" <<'PY'
import sys
rows = []
for line in open(sys.argv[1]):
    kv = dict(x.split("=", 1) for x in line.split()[1:] if "=" in x)
    rows.append(kv)
def fit(xs, ys):
    n = len(xs); mx = sum(xs) / n; my = sum(ys) / n
    b = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
    return my - b * mx, b
for key, var, unit in (("slope-n", "N", "user"), ("slope-g", "G", "group")):
    rs = [r for r in rows if r["name"] == key]
    if len(rs) >= 2:
        xs = [float(r[var]) for r in rs]; ys = [float(r["rss_mib"]) * 2**20 for r in rs]
        a, b = fit(xs, ys)
        print(f"bench-pop slope {key}: RSS = {a / 2**20:.1f} MiB + {b / 1024:.2f} KiB per {unit} "
              f"({len(rs)} points, {var} {int(min(xs))}..{int(max(xs))})")
for r in rows:
    if r["name"] == "n100k" and float(r["span_s"]) < 3600:
        f = 3600 / float(r["span_s"])
        print(f"bench-pop n100k: {r['span_s']} s simulated; 1 h extrapolated linearly: "
              f"~{float(r['cpu_s']) * f:.0f} CPU s (memory does not grow with the span)")
PY
