#!/bin/bash
# Provider-fanout (docs/spec.md §2.6) end to end through the real binary:
# the run the issue asks for (m = 128, 1 h) delivers everything and beats unicast's mean
# latency in both models; a trace run has members that collect their copies from the
# postbox after an offline spell; --provider-rate is checked and slows the fan-out; a sweep
# with strategy and provider_rate axes (under MPI when available) writes results that the
# analysis (rcsim summarize, plot) recognises; `--help strategies` and `rcsim strategies
# --json` list the family.
set -uo pipefail
: "${RCSIM:?}" "${RCSIM_SOURCE_DIR:?}"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
PY=${PYTHON:-/usr/bin/python3}
fail=0
unset RCSIM_DATA_DIR

field() { "$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$1" "$2"; }

# 1. the issue's check, in both models: every expected delivery made, mean below unicast's
for model in exact paper; do
  for s in provider-fanout unicast; do
    "$RCSIM" run --users 128 --strategy "$s" --duration 1h --model "$model" --json --quiet \
        >"$T/$s-$model.json" 2>"$T/err" || { echo "FAIL: $s $model: $(cat "$T/err")"; fail=1; }
  done
  f=$T/provider-fanout-$model.json u=$T/unicast-$model.json
  [ "$(field "$f" undelivered)" = 0 ] || { echo "FAIL: $model: fan-out left $(field "$f" undelivered) undelivered"; fail=1; }
  [ "$(field "$f" deliveries)" = "$(field "$f" expected_deliveries)" ] || { echo "FAIL: $model: fan-out deliveries"; fail=1; }
  # one client packet per multicast: the sender's own, to its provider
  [ "$(field "$f" payload_packets)" = "$(field "$f" multicasts)" ] || { echo "FAIL: $model: payload_packets != multicasts"; fail=1; }
  "$PY" - "$f" "$u" "$model" <<'PY' || fail=1
import json, sys
f, u = (json.load(open(p)) for p in sys.argv[1:3])
print("%s: provider-fanout mean %.2f s, unicast mean %.2f s" % (sys.argv[3], f["mean_s"], u["mean_s"]))
assert f["mean_s"] < u["mean_s"], "fan-out does not beat unicast"
# the path is one payload slot, 4 delayed hops and a pull: a few seconds, never minutes
assert 1.0 < f["mean_s"] < 5.0, f["mean_s"]
PY
done

# 2. with a trace: offline members collect their copies from the postbox when back
"$RCSIM" trace synth --online 0.800 --gaps 4.58 --gap-median 855 --concentration 2.42 \
    --sigma-on 1.79 --lines 64 --seed 3 \
    -o "$T/trace.txt.gz" >/dev/null || { echo "FAIL: trace synth"; fail=1; }
"$RCSIM" run --users 64 --strategy provider-fanout --trace "$T/trace.txt.gz" --duration 2h \
    --json --quiet >"$T/trace.json" 2>"$T/err" || { echo "FAIL: trace run: $(cat "$T/err")"; fail=1; }
"$PY" - "$T/trace.json" <<'PY' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))
late = d["deliveries_all"] - d["deliveries"]
print("trace: %d deliveries, %d of them after an offline spell, %d undelivered"
      % (d["deliveries_all"], late, d["undelivered"]))
assert late > 0, "no member collected a copy after being offline"
assert d["deliveries_all"] + d["undelivered"] == d["expected_deliveries"], d
PY

# 3. --provider-rate: checked, and a slow provider delays the whole group
"$RCSIM" run --strategy provider-fanout --provider-rate -1 --duration 60 >/dev/null 2>"$T/err"
rc=$?
{ [ $rc = 2 ] && grep -q -- "--provider-rate" "$T/err"; } || { echo "FAIL: --provider-rate -1: exit $rc: $(cat "$T/err")"; fail=1; }
"$RCSIM" run --users 32 --strategy provider-fanout --provider-rate 2 --duration 20m --json --quiet \
    >"$T/slow.json" || fail=1
"$RCSIM" run --users 32 --strategy provider-fanout --duration 20m --json --quiet >"$T/fast.json" || fail=1
"$PY" - "$T/slow.json" "$T/fast.json" <<'PY' || fail=1
import json, sys
slow, fast = (json.load(open(p)) for p in sys.argv[1:3])
print("provider_rate 2/s: mean %.2f s; unlimited: %.2f s" % (slow["mean_s"], fast["mean_s"]))
# 31 copies at 2 a second: the last leaves the provider 15 s after the first
assert slow["mean_s"] > fast["mean_s"] + 5, (slow["mean_s"], fast["mean_s"])
PY

# 4. a sweep over strategy x provider_rate, then the analysis on its results
cat >"$T/fanout.yaml" <<'Y'
name: fanout-test
defaults: {users: 32, duration: 10m}
axes:
  strategy: [unicast, provider-fanout, rc-k2-p2]
  provider_rate: [0, 4]
seeds: 1
Y
LAUNCH=()
if [ -n "${MPIEXEC:-}" ] && [ -x "${MPIEXEC}" ]; then LAUNCH=("$MPIEXEC" -np 2); fi
"${LAUNCH[@]}" "$RCSIM" sweep "$T/fanout.yaml" --out "$T/fanout.h5" >"$T/sweep.log" 2>&1 ||
  { echo "FAIL: sweep"; cat "$T/sweep.log"; fail=1; }
"$RCSIM" summarize "$T/fanout.h5" --csv - >"$T/sum.csv" 2>"$T/err" || { echo "FAIL: summarize: $(cat "$T/err")"; fail=1; }
"$PY" - "$T/sum.csv" <<'PY' || fail=1
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
fan = [r for r in rows if r["strategy"] == "provider-fanout"]
assert len(rows) == 6 and len(fan) == 2, [(r["strategy"], r.get("provider_rate")) for r in rows]
# the default (0 = unlimited) is shown empty
assert sorted(float(r["provider_rate"] or 0) for r in fan) == [0.0, 4.0], fan
slow, fast = sorted(fan, key=lambda r: float(r["provider_rate"] or 0), reverse=True)
assert float(slow["mean"]) > float(fast["mean"]), (slow["mean"], fast["mean"])
PY
"$RCSIM" plot "$T/fanout.h5" --out "$T/plot.png" >"$T/plot.log" 2>&1 || { echo "FAIL: rcsim plot"; cat "$T/plot.log"; fail=1; }
[ -s "$T/plot.png" ] || { echo "FAIL: rcsim plot wrote nothing"; fail=1; }

# 5. the family is listed, with its help, as text and as data
for how in "--help strategies" "run --help strategies" "strategies"; do
  # shellcheck disable=SC2086
  "$RCSIM" $how >"$T/help" 2>&1 || { echo "FAIL: rcsim $how"; fail=1; }
  grep -q "provider-fanout" "$T/help" || { echo "FAIL: rcsim $how lacks provider-fanout"; fail=1; }
done
"$RCSIM" run --help >"$T/runhelp" 2>&1  # a file, not a pipe: grep -q would close it early (SIGPIPE under pipefail)
grep -q -- "--provider-rate" "$T/runhelp" || { echo "FAIL: run --help lacks --provider-rate"; fail=1; }
"$RCSIM" strategies --json >"$T/fam.json" || fail=1
"$RCSIM" strategies --json provider-fanout rollercoaster-k2-p2-timeout10x >"$T/names.json" || fail=1
"$PY" - "$T/fam.json" "$T/names.json" <<'PY' || fail=1
import json, sys
fam = {f["family"]: f for f in json.load(open(sys.argv[1]))}
assert set(fam) >= {"unicast", "rc", "provider-fanout"}, fam.keys()
assert set(fam["rc"]["params"]) == {"k", "p", "ft", "multiplier", "dropoffline"}
n = json.load(open(sys.argv[2]))
assert n[0] == {"name": "provider-fanout", "given": "provider-fanout", "family": "provider-fanout",
                "pattern": "provider-fanout", "params": {}}, n[0]
assert n[1]["name"] == "rc-k2-p2-ft" and n[1]["params"]["multiplier"] == 1.0 and n[1]["params"]["ft"] is True
PY
[ $fail = 0 ] && echo "provider-fanout e2e ok"
exit $fail
