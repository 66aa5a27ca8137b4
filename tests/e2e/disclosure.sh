#!/bin/bash
# The long-term observer (--disclosure on, docs/spec.md §11) end to end through the real
# binary: its keys in --json only when on; a job without it keeps every other key and value;
# the sanity cases (no corrupted provider and everyone always online: the membership AUC is
# exactly 1/2; every provider corrupted under provider fan-out: the source's top-1 is 1;
# every mix corrupted too links RC's sources);
# its columns in the HDF5 table; bad values exit 2 naming the option.
set -uo pipefail
: "${RCSIM:?}" "${RCSIM_SOURCE_DIR:?}"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
PY=${PYTHON:-/usr/bin/python3}
fail=0
unset RCSIM_DATA_DIR
field() { "$PY" -c 'import json,sys; print(json.load(open(sys.argv[1])).get(sys.argv[2], "absent"))' "$1" "$2"; }
JOB=(--users 128 --groups 8 --group-size 16 --duration 2h)

# 1. off: no key; on: every key, the rest of the job unchanged
"$RCSIM" run "${JOB[@]}" --strategy rc-k2-p2 --json --quiet >"$T/off.json" || fail=1
"$RCSIM" run "${JOB[@]}" --strategy rc-k2-p2 --disclosure on --json --quiet >"$T/on.json" || fail=1
[ "$(field "$T/off.json" disclosure_source_top1)" = absent ] || { echo "FAIL: a disclosure key without --disclosure"; fail=1; }
for k in multicasts corrupt_providers membership_auc membership_precision membership_recall \
         multicasts_to_90 source_top1 source_entropy_bits; do
  [ "$(field "$T/on.json" "disclosure_$k")" != absent ] || { echo "FAIL: no disclosure_$k"; fail=1; }
done
"$PY" - "$T/off.json" "$T/on.json" <<'PY' || fail=1
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
skip = {"job_id", "wall_s", "peak_rss_kb"}
bad = [k for k in a if k not in skip and a[k] != b.get(k)]
if bad: sys.exit("FAIL: --disclosure on changed " + ", ".join(bad))
PY

# 2. sanity: nothing observed -> AUC exactly 1/2; fan-out with every provider corrupted -> top-1 1
[ "$(field "$T/on.json" disclosure_membership_auc)" = 0.5 ] || { echo "FAIL: blind AUC $(field "$T/on.json" disclosure_membership_auc)"; fail=1; }
"$RCSIM" run "${JOB[@]}" --strategy provider-fanout --disclosure on --corrupt-providers 1 --json --quiet >"$T/fan.json" || fail=1
[ "$(field "$T/fan.json" disclosure_source_top1)" = 1.0 ] || { echo "FAIL: fan-out top-1 $(field "$T/fan.json" disclosure_source_top1)"; fail=1; }
[ "$(field "$T/fan.json" disclosure_membership_precision)" = 1.0 ] || { echo "FAIL: fan-out precision"; fail=1; }
# every provider corrupted under RC: the membership is found, and its source better than by chance
"$RCSIM" run "${JOB[@]}" --strategy rc-k2-p2 --disclosure on --corrupt-providers 1 --json --quiet >"$T/rc.json" || fail=1
"$PY" - "$T/rc.json" <<'PY' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))
if d["disclosure_membership_auc"] < 0.95: sys.exit("FAIL: RC all corrupted AUC %s" % d["disclosure_membership_auc"])
if d["disclosure_source_top1"] < 2 / 16: sys.exit("FAIL: RC all corrupted top-1 %s" % d["disclosure_source_top1"])
PY

# corrupted mixes link senders (spec §11.3): with every provider corrupted, every mix too
# finds RC's sources far better than the window counts alone, and no mix changes nothing
"$RCSIM" run "${JOB[@]}" --strategy rc-k2-p2 --disclosure on --corrupt-providers 1 --corrupt-mixes 1 --json --quiet >"$T/rcm.json" || fail=1
"$RCSIM" run "${JOB[@]}" --strategy rc-k2-p2 --disclosure on --corrupt-providers 1 --corrupt-mixes 0 --json --quiet >"$T/rc0.json" || fail=1
"$PY" - "$T/rc.json" "$T/rcm.json" "$T/rc0.json" <<'PY' || fail=1
import json, sys
rc, rcm, rc0 = (json.load(open(f)) for f in sys.argv[1:])
if rc0 != {**rc0, **{k: rc[k] for k in rc if k.startswith("disclosure_")}}:
    sys.exit("FAIL: --corrupt-mixes 0 changed the disclosure keys")
if not (rcm["disclosure_source_top1"] > 0.8 and rcm["disclosure_source_top1"] > rc["disclosure_source_top1"] + 0.2):
    sys.exit("FAIL: every mix corrupted: RC top-1 %s (providers only %s)"
             % (rcm["disclosure_source_top1"], rc["disclosure_source_top1"]))
PY

# 3. the results table's columns
"$RCSIM" run "${JOB[@]}" --strategy provider-fanout --disclosure on --corrupt-providers 1 --out "$T/r.h5" --quiet || fail=1
"$PY" - "$T/r.h5" <<'PY' || fail=1
import h5py, sys, math
t = h5py.File(sys.argv[1], "r")["table"]
if t["counter_disclosure_source_top1"][0] != 1.0: sys.exit("FAIL: h5 top-1 %s" % t["counter_disclosure_source_top1"][0])
if not t["counter_disclosure_multicasts"][0] > 0: sys.exit("FAIL: h5 multicasts")
PY

# 4. bad values
"$RCSIM" run --users 16 --duration 60 --disclosure-window 5 >"$T/o" 2>"$T/e"; [ $? = 2 ] && grep -q disclosure_window "$T/e" || { echo "FAIL: window without disclosure"; fail=1; }
"$RCSIM" run --users 16 --duration 60 --disclosure on --disclosure-group all >"$T/o" 2>"$T/e"; [ $? = 2 ] && grep -q "disclosure_group: 'all'" "$T/e" || { echo "FAIL: group all: $(cat "$T/e")"; fail=1; }
"$RCSIM" run --users 16 --duration 60 --disclosure on --disclosure-group 3 >"$T/o" 2>"$T/e"; [ $? = 2 ] && grep -q "disclosure_group: '3'" "$T/e" || { echo "FAIL: group 3 of 1: $(cat "$T/e")"; fail=1; }
"$RCSIM" run --users 16 --duration 60 --disclosure on --disclosure-window 0 >"$T/o" 2>"$T/e"; [ $? = 2 ] && grep -q "disclosure" "$T/e" || { echo "FAIL: window 0: $(cat "$T/e")"; fail=1; }
"$RCSIM" run --users 16 --duration 60 --corrupt-providers 0.5 >"$T/o" 2>"$T/e"; [ $? = 2 ] || { echo "FAIL: corrupt-providers alone accepted"; fail=1; }
"$RCSIM" run --users 16 --duration 60 --disclosure on --corrupt-mixes 0.5 --corrupt-providers 0.5 --json --quiet >"$T/o" 2>"$T/e" || { echo "FAIL: corrupt-* with disclosure alone: $(cat "$T/e")"; fail=1; }
exit $fail
