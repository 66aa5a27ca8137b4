#!/bin/bash
# Nodes that serve and mix (docs/spec.md §1.14, §1.15) end to end through the real binary:
# a mix of finite capacity against queueing theory (M/M/1's mean sojourn and wait,
# M/M/1/K's drop probability), the mixing rules' entropies against values derived by hand
# (a threshold mix of n: log2 n; a pool mix of n and f: log2(n+f) + (f/n) log2((n+f)/f))
# and against `python3 -m rcplot anon-recompute`'s recomputation from the observation
# file, every default unchanged, bad values refused with exit 2 naming the option, and a sweep over
# the new options under MPI whose HDF5 holds the node counters.
set -uo pipefail
: "${RCSIM:?}" "${RCSIM_SOURCE_DIR:?}"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
PY=${PYTHON:-/usr/bin/python3}
export PYTHONPATH="$RCSIM_SOURCE_DIR/analysis${PYTHONPATH:+:$PYTHONPATH}"  # the package rcplot (python3 -m rcplot TOOL)
fail=0
unset RCSIM_DATA_DIR

# One mix (one layer of one), unicast (p = 1) and every packet routed: the mix's arrivals
# are Poisson -- the clients' streams through the providers' exponential delays, and the
# mix's own loops coming back -- and its service is exponential: an M/M/1 queue.
ONE="--users 32 --strategy unicast --mix-layers 1 --mixes-per-layer 1"

# 1. M/M/1: mean sojourn 1/(mu - lambda) and wait rho/(mu - lambda), lambda measured.  The
#    tolerance is 5 standard errors of a run of T seconds: M/M/1's time-average number in
#    system has asymptotic variance 2 rho (1 + rho) / (1 - rho)^4 / mu per second
#    (Whitt 1989), and the mean sojourn is that number over lambda (Little's law).
"$RCSIM" run $ONE --duration 20m --node-service serve --mix-capacity 400 --json --quiet \
    >"$T/mm1.json" 2>"$T/err" || { echo "FAIL: M/M/1 run: $(cat "$T/err")"; fail=1; }
# 2. M/M/1/K, K = 3, near saturation: an arrival is dropped with probability
#    (1 - rho) rho^K / (1 - rho^(K+1)) (PASTA).  Tolerance: 5 binomial standard errors
#    of the arrivals counted, times 3 for their correlation (the batch means of
#    tests/test_node_service.c measure it under 2 at K = 3, rho = 0.9).
"$RCSIM" run $ONE --duration 20m --node-service serve --mix-capacity 200 --queue-limit 3 \
    --json --quiet --check true >"$T/mm1k.json" 2>"$T/err" ||
  { echo "FAIL: M/M/1/K run: $(cat "$T/err")"; fail=1; }
"$PY" - "$T/mm1.json" "$T/mm1k.json" <<'PY' || fail=1
import json, math, sys
def means(d):  # the mean wait and sojourn from the counters (microsecond sums)
    n = d["node_served"]
    d["wait_s"] = d["node_wait_us"] / 1e6 / n
    d["sojourn_s"] = (d["node_wait_us"] + d["node_service_us"]) / 1e6 / n
    return d
d = means(json.load(open(sys.argv[1])))
T, mu = 1200.0, 400.0
lam = d["node_served"] / T
rho = lam / mu
se = math.sqrt(2 * rho * (1 + rho) / (1 - rho) ** 4 / mu / T) / lam
w, want = d["sojourn_s"], 1 / (mu - lam)
print("M/M/1: lambda %.2f /s, mu %.0f /s: sojourn %.6f s, 1/(mu-lambda) %.6f s (SE %.1e); "
      "wait %.6f s, rho/(mu-lambda) %.6f s; drops %d"
      % (lam, mu, w, want, se, d["wait_s"], rho / (mu - lam), d["node_drops"]))
assert abs(w - want) < 5 * se, (w, want, se)
assert abs(d["wait_s"] - rho / (mu - lam)) < 5 * se
assert d["node_drops"] == 0
# the longest wait is above the mean; a few packets carry real messages (unicast's payloads)
assert d["node_wait_max_us"] > d["node_wait_us"] / d["node_served"]
assert 0 < d["node_real_served"] < d["node_served"] / 10
assert d["node_real_wait_us"] <= d["node_real_served"] * d["node_wait_max_us"]
k = json.load(open(sys.argv[2]))
n = k["node_served"] + k["node_drops"]
lam, mu, K = n / T, 200.0, 3
rho = lam / mu
p = (1 - rho) * rho ** K / (1 - rho ** (K + 1))
got = k["node_drops"] / n
se = math.sqrt(p * (1 - p) / n)
print("M/M/1/3: rho %.3f: drop share %.5f, M/M/1/K %.5f (binomial SE %.1e)" % (rho, got, p, se))
assert abs(got - p) < 5 * 3 * se, (got, p, se)
# a dropped packet's real message is lost: it is not delivered
assert k["undelivered"] > 0
PY

# 2b. A fixed processing time P at every node (the mix and the providers), no exponential
#     service: each node is an M/D/1 queue, whose mean wait is Pollaczek-Khinchine's
#     rho P / (2 (1 - rho)), half an M/M/1's at the same load.  Against a run whose every
#     node serves exponentially at rate 1/P (the same arrivals in law), the summed waits
#     are half, node by node and so in total; and every service takes exactly P.
"$RCSIM" run $ONE --duration 20m --node-service serve --node-processing 2.5ms --json --quiet \
    >"$T/md1.json" 2>"$T/err" || { echo "FAIL: M/D/1 run: $(cat "$T/err")"; fail=1; }
"$RCSIM" run $ONE --duration 20m --node-service serve --mix-capacity 400 --provider-capacity 400 \
    --json --quiet >"$T/mm1all.json" 2>"$T/err" || { echo "FAIL: M/M/1 run: $(cat "$T/err")"; fail=1; }
"$PY" - "$T/md1.json" "$T/mm1all.json" <<'PY' || fail=1
import json, sys
d, m = (json.load(open(p)) for p in sys.argv[1:3])
wd = d["node_wait_us"] / d["node_served"]
wm = m["node_wait_us"] / m["node_served"]
print("fixed 2.5 ms at every node: mean wait %.1f us; exponential 400 /s: %.1f us; ratio %.3f "
      "(M/D/1 against M/M/1: 0.5); service %.1f us each" % (wd, wm, wd / wm, d["node_service_us"] / d["node_served"]))
assert d["node_service_us"] == d["node_served"] * 2500, "a service took another time than P"
assert abs(d["node_served"] - m["node_served"]) < 0.01 * m["node_served"]
assert 0.42 < wd / wm < 0.58, wd / wm
PY

# 3. defaults: the new options at their defaults are the job without them, bit for bit
"$RCSIM" run --users 32 --duration 2m --json --quiet >"$T/a.json" 2>"$T/err" || fail=1
"$RCSIM" run --users 32 --duration 2m --node-service plan --mix-kind poisson --mix-threshold 10 \
    --mix-period 1 --mix-pool 0 --queue-limit 0 --provider-capacity 0 --json --quiet \
    >"$T/b.json" 2>"$T/err" || { echo "FAIL: defaults: $(cat "$T/err")"; fail=1; }
"$PY" - "$T/a.json" "$T/b.json" <<'PY' || fail=1
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
for x in (a, b):
    for k in ("wall_s", "peak_rss_kb"):
        x.pop(k)
assert a == b, "defaults changed the job"
assert not any(k.startswith("node_") for k in a), "node counters printed without serve"
PY

# 4. mixing rules on one mix, anonymity by hand.  The sender's provider adds no delay
#    (q_ingress_delay off: it forwards at once, timing links its input and output), so the
#    mix is the only place packets mix.  A threshold mix of n sends every packet of a flush
#    with the same share 1/n of each message in it: H = log2 n for every message, exactly.
#    A pool mix of n and f sends n of its n + f: a message is in the first flush it meets
#    with probability n/(n+f) spread over n packets, and each later flush has (f/(n+f))^k
#    of it left: H = log2(n+f) + (f/n) log2((n+f)/f).  Every rule is recomputed from the
#    observation file by `python3 -m rcplot anon-recompute`, with the pool-mean rule and with the
#    batch rule (--rule batch: a flush's outputs share the mean of what the mix held).
MIX="$ONE --duration 90 --q-ingress-delay off --anonymity on --anon-targets 200 --json --quiet"
run_mix() { # name args...
  local name=$1; shift
  "$RCSIM" run $MIX "$@" --anon-trace "$T/$name.csv" >"$T/$name.json" 2>"$T/err" ||
    { echo "FAIL: $name run: $(cat "$T/err")"; fail=1; return; }
  "$PY" -m rcplot anon-recompute "$T/$name.csv" \
      --check "$T/$name.csv.targets.csv" >"$T/$name.re" 2>&1 ||
    { echo "FAIL: $name: recomputation differs: $(tail -3 "$T/$name.re")"; fail=1; }
  "$PY" -m rcplot anon-recompute "$T/$name.csv" --rule batch \
      --check "$T/$name.csv.targets.csv" >"$T/$name.rb" 2>&1 ||
    { echo "FAIL: $name: batch recomputation differs: $(tail -3 "$T/$name.rb")"; fail=1; }
}
run_mix threshold --mix-kind threshold --mix-threshold 8
run_mix pool --mix-kind pool --mix-threshold 5 --mix-pool 3
run_mix timed --mix-kind timed --mix-period 0.05
"$PY" - "$T" <<'PY' || fail=1
import json, math, os, sys
d = lambda n: json.load(open(os.path.join(sys.argv[1], n + ".json")))
th, po, ti = d("threshold"), d("pool"), d("timed")
want_po = math.log2(8) + 3 / 5 * math.log2(8 / 3)
print("threshold 8: H %.9f (log2 8 = 3), min-H %.9f; pool 5+3: H %.9f (by hand %.9f); "
      "timed 50 ms: H %.4f; %d, %d, %d messages"
      % (th["anon_entropy_mean_bits"], th["anon_min_entropy_mean_bits"],
         po["anon_entropy_mean_bits"], want_po, ti["anon_entropy_mean_bits"],
         th["anon_targets"], po["anon_targets"], ti["anon_targets"]))
assert th["anon_targets"] > 50 and po["anon_targets"] > 50
assert abs(th["anon_entropy_mean_bits"] - 3) < 1e-9
assert abs(th["anon_min_entropy_mean_bits"] - 3) < 1e-9
assert abs(po["anon_entropy_mean_bits"] - want_po) < 1e-6
# a timed mix's flush holds what arrived in one period: about 194 /s x 50 ms
assert 2.5 < ti["anon_entropy_mean_bits"] < 4.0
PY

# 5. bad values: exit 2, naming the option and the value
bad() { # expected-text args...
  local want=$1; shift
  "$RCSIM" run --duration 10 "$@" >/dev/null 2>"$T/err"
  local rc=$?
  { [ $rc = 2 ] && grep -q -- "$want" "$T/err"; } ||
    { echo "FAIL: $*: exit $rc: $(cat "$T/err")"; fail=1; }
}
bad "node_service: serve needs a finite rate" --node-service serve
bad "provider_capacity: has no effect" --provider-capacity 100
bad "queue_limit: has no effect" --queue-limit 5
bad "mix_capacity: 300 has no effect" --mix-capacity 300
bad "--node-service: 'fast'" --node-service fast
bad "--mix-kind: 'batch'" --mix-kind batch
bad "mix_pool: 0: a pool mix keeps at least one" --mix-kind pool
bad "mix_pool: 2 has no effect" --mix-kind threshold --mix-pool 2
bad "mix_threshold: 5 has no effect" --mix-threshold 5
bad "mix_period: 2 has no effect" --mix-kind threshold --mix-period 2
bad "--mix-threshold: value '0'" --mix-kind threshold --mix-threshold 0
bad "--queue-limit: value '-1'" --node-service serve --mix-capacity 100 --queue-limit -1
bad "--provider-capacity: value '-3'" --node-service serve --provider-capacity -3
bad "cover: skip cannot go with nodes" --mix-kind timed --cover skip
bad "node_processing: has no effect" --node-processing 2ms
bad "--node-processing: value '-1'" --node-service serve --node-processing -1
bad "--node-processing: 'slow'" --node-service serve --node-processing slow
bad "queue_limit: 4 cannot go with --anonymity on" --node-service serve --mix-capacity 100 \
    --queue-limit 4 --anonymity on
bad "corrupt_mixes: 0.3 cannot go with --mix-kind threshold" --mix-kind threshold --anonymity on \
    --corrupt-mixes 0.3
"$RCSIM" run --help >"$T/help" 2>&1
for o in --node-service --provider-capacity --queue-limit --mix-kind --mix-threshold \
    --mix-period --mix-pool; do
  grep -q -- "$o" "$T/help" || { echo "FAIL: run --help lacks $o"; fail=1; }
done

# 6. a sweep over the new options (a zip), under MPI when available: the HDF5 table holds
#    the options and the node counters, and only the non-default jobs have new ids
cat >"$T/nodes.yaml" <<'Y'
name: nodes-test
defaults: {duration: 1m, users: 32, strategy: unicast, cover: full}
zip:
  - {mix_kind: poisson}
  - {mix_kind: threshold, mix_threshold: 4}
  - {node_service: serve, mix_capacity: 150, queue_limit: 8}
seeds: 1
Y
LAUNCH=()
if [ -n "${MPIEXEC:-}" ] && [ -x "${MPIEXEC}" ]; then LAUNCH=("$MPIEXEC" -np 2); fi
"${LAUNCH[@]}" "$RCSIM" sweep "$T/nodes.yaml" --out "$T/nodes.h5" >"$T/sweep.log" 2>&1 ||
  { echo "FAIL: sweep"; cat "$T/sweep.log"; fail=1; }
"$RCSIM" run --users 32 --duration 1m --strategy unicast --cover full --json --quiet \
    >"$T/plain.json" 2>"$T/err" || fail=1
"$PY" - "$T/nodes.h5" "$T/plain.json" <<'PY' || fail=1
import json, sys
import h5py, numpy as np
plain = json.load(open(sys.argv[2]))
with h5py.File(sys.argv[1], "r") as f:
    t = f["table"]
    cols = set(t.dtype.names) if hasattr(t, "dtype") and t.dtype.names else set(t.keys())
    for c in ("mix_kind", "node_service", "queue_limit", "counter_node_served",
              "counter_node_drops", "counter_node_wait_us", "counter_node_service_us"):
        assert c in cols, ("column missing", c)
    kind, serve = t["mix_kind"][:], t["node_service"][:]
    served, drops = t["counter_node_served"][:], t["counter_node_drops"][:]
    wait, ids = t["counter_node_wait_us"][:], t["job_id"][:]
# enum columns hold dictionary codes (io/h5out_schema.c): compare them, not their values
def hexid(x):
    return x.decode() if isinstance(x, bytes) else (x if isinstance(x, str) else "%016x" % int(x))
rows = [dict(kind=int(k), serve=int(s), served=int(a), drops=int(b), wait=int(w), id=hexid(i))
        for k, s, a, b, w, i in zip(kind, serve, served, drops, wait, ids)]
print("sweep (mix_kind code, node_service code, served, drops, wait us):",
      [(r["kind"], r["serve"], r["served"], r["drops"], r["wait"]) for r in rows])
assert len(rows) == 3
# the default job serves nothing and keeps the id of the same job run alone
base = [r for r in rows if r["id"] == plain["job_id"]]
assert len(base) == 1, ([r["id"] for r in rows], plain["job_id"])
base = base[0]
assert base["served"] == 0 and base["drops"] == 0 and base["wait"] == 0
thr = [r for r in rows if r is not base and r["served"] == 0]
srv = [r for r in rows if r["served"] > 0]
assert len(thr) == 1 and len(srv) == 1, rows
thr, srv = thr[0], srv[0]
assert thr["kind"] != base["kind"] and thr["serve"] == base["serve"]  # a threshold mix: no service
assert srv["kind"] == base["kind"] and srv["serve"] != base["serve"]
assert srv["wait"] > 0 and srv["drops"] > 0  # 150 /s against about 194 /s: it queues, and drops
PY
exit $fail
