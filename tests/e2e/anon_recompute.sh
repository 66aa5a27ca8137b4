#!/bin/bash
# Every tracked message's entropy, min-entropy, sender entropy and latency,
# recomputed from the observation file alone by `python3 -m rcplot anon-recompute` (analysis/rcplot/tools/anon_recompute.py, which shares no
# code with rcsim), agree with rcsim's own values to 1e-9 — for unicast, RC, RC-FT and
# provider fan-out, with
# and without corrupted nodes, in both models.  Each run is repeated with the sender view's log
# (--anon-sender log, read backward from each exit), which must agree with the dense
# recomputation as well, and with the dense run's own values; epsilon too (the targets file
# names each message's challenge partner).  A tampered observation file must disagree
# (the comparison can fail).  Then the options as sweep axes: the columns reach the results
# file, corruption lowers the entropy there, and rcsim plot draws it.
set -uo pipefail
: "${RCSIM:?}" "${RCSIM_SOURCE_DIR:?}"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
PY=${PYTHON:-/usr/bin/python3}
export PYTHONPATH="$RCSIM_SOURCE_DIR/analysis${PYTHONPATH:+:$PYTHONPATH}"  # the package rcplot (python3 -m rcplot TOOL)
cd "$RCSIM_SOURCE_DIR"
fail=0
# Short but not trivial: mean hop delay 0.1 s (settle 4 s), a multicast every 4 s.
common=(--users 12 --duration 30 --rate-delay 10 --app-rate 1/4 --anonymity on --anon-targets 25
        --seed 3)
for model in exact paper; do
    for strat in unicast rc-k2-p2 rc-k2-p2-ft provider-fanout; do
        for corrupt in none some; do
            extra=()
            [ "$corrupt" = some ] && extra=(--corrupt-mixes 0.34 --corrupt-providers 0.5)
            f="$T/$model-$strat-$corrupt.csv"
            if ! "$RCSIM" run "${common[@]}" --model "$model" --strategy "$strat" "${extra[@]}" \
                --anon-trace "$f" --json >"$T/run.json" 2>"$T/err"; then
                echo "FAIL: $model $strat $corrupt: rcsim run"; cat "$T/err"; fail=1; continue
            fi
            n=$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["anon_targets"])' "$T/run.json")
            [ "$n" -ge 10 ] || { echo "FAIL: $model $strat $corrupt: only $n targets"; fail=1; }
            c=$(grep -m1 '^# corrupt=' "$f")
            if [ "$corrupt" = some ] && [ "$c" = "# corrupt=" ]; then
                echo "FAIL: $model $strat: no corrupted node in the file"; fail=1
            fi
            out=$("$PY" -m rcplot anon-recompute "$f" --check "$f.targets.csv") ||
                { echo "FAIL: $model $strat $corrupt: $out"; fail=1; continue; }
            echo "ok $model $strat $corrupt: $out"
            # The same run with the sender log: the same observations, and the same values.
            g="$T/$model-$strat-$corrupt-log.csv"
            if ! "$RCSIM" run "${common[@]}" --model "$model" --strategy "$strat" "${extra[@]}" \
                --anon-sender log --anon-trace "$g" >/dev/null 2>"$T/err"; then
                echo "FAIL: $model $strat $corrupt: rcsim run --anon-sender log"; cat "$T/err"
                fail=1; continue
            fi
            cmp -s "$f" "$g" || { echo "FAIL: $model $strat $corrupt: log mode observed otherwise"; fail=1; }
            out=$("$PY" -m rcplot anon-recompute "$g" --check "$g.targets.csv") ||
                { echo "FAIL: $model $strat $corrupt log: $out"; fail=1; continue; }
            echo "ok $model $strat $corrupt log: $out"
        done
    done
done

# The comparison can fail: in a copy of the file, the first tracked bundle leaves its first
# mix 40 ms later.
f="$T/exact-rc-k2-p2-none.csv"
"$PY" - "$f" "$T/tampered.csv" <<'PY'
import sys
rows = open(sys.argv[1]).read().split("\n")
meta = dict(w.split("=") for w in rows[1][1:].split())
first_mix = int(meta["users"]) + int(meta["providers"])
tracked = next(r.split(",")[2] for r in rows if r.split(",")[1:2] == ["T"])
for i, line in enumerate(rows):
    c = line.split(",")
    if len(c) == 12 and c[1] == "L" and c[2] == tracked and int(c[4]) >= first_mix:
        c[6], c[7] = str(int(c[6]) + 40000), str(int(c[7]) + 40000)
        rows[i] = ",".join(c)
        break
open(sys.argv[2], "w").write("\n".join(rows))
PY
if "$PY" -m rcplot anon-recompute "$T/tampered.csv" --check "$f.targets.csv" >"$T/t.out"; then
    echo "FAIL: a tampered observation file still agrees"; fail=1
else
    echo "ok tampered file disagrees: $(grep -c MISMATCH "$T/t.out") mismatches shown"
fi

# Sweep axes and results columns.
cat >"$T/anon.yaml" <<'Y'
name: anon-test
defaults: {users: 16, duration: 90, rate_delay: 10, app_rate: 1/4, anonymity: on, anon_targets: 100}
axes:
  corrupt_mixes: [0, 0.67]
seeds: 1
Y
"$RCSIM" sweep "$T/anon.yaml" --out "$T/anon.h5" >"$T/sweep.log" 2>&1 ||
    { echo "FAIL: sweep"; cat "$T/sweep.log"; fail=1; }
"$PY" - "$T/anon.h5" <<'PY' || fail=1
import sys, h5py, numpy as np
with h5py.File(sys.argv[1], "r") as f:
    g = f["table"]
    cm = np.asarray(g["corrupt_mixes"][:], dtype=float)
    h = np.asarray(g["counter_anon_entropy_mean_bits"][:], dtype=float)
    n = np.asarray(g["counter_anon_targets"][:])
    s = np.asarray(g["counter_anon_sender_entropy_mean_bits"][:], dtype=float)
    eps = np.asarray(g["counter_anon_eps_mean"][:], dtype=float)
    p95 = np.asarray(g["counter_anon_eps_p95"][:], dtype=float)
    delta = np.asarray(g["counter_anon_delta"][:], dtype=float)
order = np.argsort(cm)
print("sweep: corrupt_mixes", cm[order], "entropy", h[order], "sender", s[order], "targets", n[order])
ok = len(h) == 2 and (n >= 50).all() and np.isfinite(h).all() and h[order][1] < h[order][0]
ok = ok and np.isfinite(s).all()
print("sweep: eps mean", eps[order], "p95", p95[order], "delta", delta[order])
# unlinkability columns: present, epsilon finite and below its p95, delta a share
ok = ok and np.isfinite(eps).all() and (eps <= p95).all() and ((delta >= 0) & (delta <= 1)).all()
if not ok:
    print("FAIL: the sweep's anonymity columns do not say what they should")
sys.exit(0 if ok else 1)
PY
# Plottable: a numeric axis (the default 0 is in no canonical text) and the named statistic.
"$RCSIM" plot "$T/anon.h5" --list >"$T/list" 2>&1 || { echo "FAIL: plot --list"; fail=1; }
grep -q "axis corrupt_mixes *0, 0.67" "$T/list" ||
    { echo "FAIL: corrupt_mixes is not the axis 0, 0.67:"; cat "$T/list"; fail=1; }
"$RCSIM" plot "$T/anon.h5" --stat anon_entropy --x corrupt_mixes --out "$T/h.png" >"$T/plot" 2>&1 &&
    [ -s "$T/h.png" ] && grep -q "bits" "$T/plot" ||
    { echo "FAIL: plot --stat anon_entropy"; cat "$T/plot"; fail=1; }
exit $fail
