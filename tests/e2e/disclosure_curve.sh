#!/bin/bash
# The long-term observer's learning curve (--disclosure on with store_raw, docs/disclosure.md,
# docs/results-layout.md "The disclosure learning curve") end to end: a real sweep under
# mpirun writes /disclosure/curve, and analysis/rcplot/results.py reads it back.  Each job's
# curve has a point after each of the target group's first multicasts, then fewer, and ends
# at the run's end with the job's table values (membership precision, recall and AUC, the
# source's top-1 and entropy, the multicasts observed); fan-out with every provider
# corrupted is certain from the first multicast on; a job without store_raw stores no curve;
# `python3 -m rcplot study-figures disclosure` draws the study's figure and table from it,
# and `python3 -m rcplot disclosure-day` the day study's, its curves read at the first hour.
set -uo pipefail
: "${RCSIM:?}" "${RCSIM_SOURCE_DIR:?}"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
PY=${PYTHON:-/usr/bin/python3}
export PYTHONPATH="$RCSIM_SOURCE_DIR/analysis${PYTHONPATH:+:$PYTHONPATH}"
unset RCSIM_DATA_DIR
fail=0
LAUNCH=()
if [ -n "${MPIEXEC:-}" ] && [ -x "${MPIEXEC}" ]; then LAUNCH=("$MPIEXEC" -np 3)
else echo "NOTE: no mpirun: the sweep runs as one process"; fi
cat >"$T/disc.yaml" <<'Y'
name: disclosure-curve
description: "e2e: the disclosure learning curve under store_raw"
defaults:
  users: 128
  groups: 8
  group_size: 16
  duration: 90m
  disclosure: true
  store_raw: true
axes:
  strategy: [rc-k2-p2-ft, provider-fanout]
  corrupt_providers: [0.5, 1]
seeds: 1
Y
"${LAUNCH[@]}" "$RCSIM" sweep "$T/disc.yaml" --out "$T/d.h5" >"$T/sweep.log" 2>&1 \
    || { echo "FAIL: sweep"; cat "$T/sweep.log"; exit 1; }
"$RCSIM" run --users 128 --groups 8 --group-size 16 --duration 30m --disclosure on \
    --corrupt-providers 1 --out "$T/noraw.h5" --quiet || fail=1
"$PY" - "$T/d.h5" "$T/noraw.h5" <<'PY' || fail=1
import math, sys
import numpy as np
from rcplot.results import load_table
from rcplot.disclosure import CURVE_FIELDS, curve, curves

t = load_table(sys.argv[1])
bad = []
if len(t) != 4:
    bad.append("%d jobs, want 4" % len(t))
for row in range(len(t)):
    st, cp = t["strategy"][row], t["corrupt_providers"][row]
    c = curve(t, row)
    name = "%s cp=%g" % (st, cp)
    if set(c) != set(CURVE_FIELDS):
        bad.append(name + ": fields " + str(sorted(c)))
        continue
    k = np.asarray(c["multicasts"], dtype=np.int64)
    kmax = int(t["counter_disclosure_multicasts"][row])
    if len(k) < 10 or kmax < 64:
        bad.append("%s: %d points, %d multicasts (too short a run to test)" % (name, len(k), kmax))
        continue
    # a point after each of the first 64 multicasts, then sparser, the last at the end
    if list(k[:64]) != list(range(1, 65)):
        bad.append(name + ": first points at " + str(k[:8]))
    if not (np.all(np.diff(k) > 0) and k[-1] == kmax):
        bad.append("%s: not increasing to %d: %s" % (name, kmax, k[-5:]))
    if not np.all(np.diff(c["time_s"]) >= 0) or c["time_s"][-1] > 90 * 60 + 1e-9:
        bad.append(name + ": times")
    if not np.array_equal(c["precision"], c["recall"]):
        bad.append(name + ": precision != recall of the top m")
    for col, key in (("precision", "membership_precision"), ("recall", "membership_recall"),
                     ("auc", "membership_auc"), ("source_top1", "source_top1"),
                     ("source_entropy_bits", "source_entropy_bits")):
        want = float(t["counter_disclosure_" + key][row])
        if not math.isclose(float(c[col][-1]), want, rel_tol=1e-12, abs_tol=1e-12):
            bad.append("%s: last %s %r, table %r" % (name, col, float(c[col][-1]), want))
    if not (np.all(c["auc"] >= 0) and np.all(c["auc"] <= 1)):
        bad.append(name + ": AUC out of [0, 1]")
    if st == "provider-fanout" and cp == 1:
        # every request is read: the membership is certain once one has arrived (by the
        # second multicast), and every source read off its request
        if not (np.all(c["precision"][1:] == 1.0) and np.all(c["auc"][1:] == 1.0)):
            bad.append(name + ": fan-out all corrupted not certain: " + str(c["precision"][:4]))
        if c["source_top1"][-1] != 1.0:
            bad.append(name + ": fan-out source top-1 %r" % c["source_top1"][-1])
    if st == "rc-k2-p2-ft" and cp == 1 and not c["precision"][-1] > c["precision"][0]:
        bad.append(name + ": RC-FT all corrupted learned nothing: %s" % c["precision"][[0, -1]])
u = load_table(sys.argv[2])
if len(u) != 1 or len(curve(u, 0)["multicasts"]) != 0:
    bad.append("a job without store_raw stored a curve")
# every row's curve at once, as the per-row reads give it
rows, allc = curves(t)
for row in range(len(t)):
    if not np.array_equal(allc["auc"][rows == row], curve(t, row)["auc"]):
        bad.append("curves() and curve() differ at row %d" % row)
if bad:
    sys.exit("FAIL: " + "; ".join(bad))
print("disclosure curves: %d jobs read back" % len(t))
PY
# the study's figure from the same file (python3 -m rcplot study-figures disclosure)
"$PY" -m rcplot study-figures disclosure "$T/d.h5" "$T/fig" >"$T/fig.log" 2>&1 \
    || { echo "FAIL: study-figures disclosure"; cat "$T/fig.log"; fail=1; }
[ -s "$T/fig/disclosure.png" ] || { echo "FAIL: no disclosure.png"; fail=1; }
# one line per job (one seed each), the fan-out with every provider corrupted certain
[ "$(grep -c '^| online | 128 | 16 |' "$T/fig/disclosure.md")" = 4 ] || { echo "FAIL: disclosure.md rows"; cat "$T/fig/disclosure.md"; fail=1; }
grep -q '^| online | 128 | 16 | provider fan-out | 100 % ([0-9]*) | 1 | 1.000 | 1.000 |' "$T/fig/disclosure.md" \
    || { echo "FAIL: disclosure.md fan-out row"; cat "$T/fig/disclosure.md"; fail=1; }
# the day study's figure and table (python3 -m rcplot disclosure-day): the curves read at
# the first hour, and the hour the 0.9 point was first reached agreeing with the table's
# multicasts to 0.9 (both never, or both reached)
"$PY" -m rcplot disclosure-day "$T/d.h5" "$T/day" >"$T/day.log" 2>&1 \
    || { echo "FAIL: disclosure-day"; cat "$T/day.log"; fail=1; }
[ -s "$T/day/disclosure-day.png" ] || { echo "FAIL: no disclosure-day.png"; fail=1; }
"$PY" - "$T/d.h5" "$T/day/disclosure-day.md" <<'PY' || fail=1
import sys
import numpy as np
from rcplot.results import load_table
from rcplot.disclosure import curve

t = load_table(sys.argv[1])
md = [ln.split(" | ") for ln in open(sys.argv[2]).read().splitlines()[2:]]
bad = []
if len(md) != len(t):
    bad.append("%d rows for %d jobs" % (len(md), len(t)))
label = {"rc-k2-p2-ft": "RC-FT", "provider-fanout": "provider fan-out"}
for row in range(len(t)):
    st, cp = str(t["strategy"][row]), float(t["corrupt_providers"][row])
    mine = [r for r in md if r[3] == label[st] and r[4].startswith("%g %%" % (100 * cp))]
    if len(mine) != 1:
        bad.append("%s cp=%g: %d table rows" % (st, cp, len(mine)))
        continue
    r = mine[0]
    c = curve(t, row)
    at = np.nonzero(c["time_s"] <= 3600)[0][-1]
    for col, key in ((13, "precision"), (14, "source_top1")):
        want = "%.3f" % c[key][at]
        if r[col].strip(" |") != want:
            bad.append("%s cp=%g: %s after 1 h %r, curve %s" % (st, cp, key, r[col], want))
    hit = np.nonzero(c["precision"] >= 0.9)[0]
    want = "never" if hit.size == 0 else "%.2f" % (c["time_s"][hit[0]] / 3600)
    if r[9] != want:
        bad.append("%s cp=%g: to 0.9 (hours) %r, curve %s" % (st, cp, r[9], want))
    if (r[8] == "never") != (r[9] == "never"):
        bad.append("%s cp=%g: to 0.9 %r multicasts but %r hours" % (st, cp, r[8], r[9]))
if bad:
    sys.exit("FAIL: disclosure-day: " + "; ".join(bad))
print("disclosure-day: %d rows checked against the curves" % len(md))
PY
exit $fail
