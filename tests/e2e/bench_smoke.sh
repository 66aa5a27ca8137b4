#!/bin/bash
# `rcsim bench --quick`: runs, prints its table, writes JSON with the expected keys
# (provenance, per-job numbers, sweep throughput), the event counts are positive,
# bench/compare.py reads it back, and bad options exit 2.  Needs RCSIM (the binary).
# The sweep part needs /usr/bin/mpirun; without it the bench notes the skip.
set -uo pipefail
: "${RCSIM:?set RCSIM to the rcsim binary}"
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
"$RCSIM" bench --quick --json "$tmp/x.json" --sweep-jobs 6 -q >"$tmp/out.txt" 2>"$tmp/err.txt"
rc=$?
[ $rc -eq 0 ] || { echo "FAIL: rcsim bench --quick exited $rc"; cat "$tmp/out.txt" "$tmp/err.txt"; fail=1; }
grep -q "Mevents/s" "$tmp/out.txt" || { echo "FAIL: no table header"; fail=1; }
grep -q "rc-k2-p2-u128-online" "$tmp/out.txt" || { echo "FAIL: table lacks rc-k2-p2-u128-online"; fail=1; }
/usr/bin/python3 - "$tmp/x.json" <<'PY' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))
bad = []
for k in ("format", "rcsim_version", "git_revision", "host", "date", "cpu_model", "ncpu",
          "loadavg_start", "quick", "repeat", "sim_duration_s", "jobs", "sweep"):
    if k not in d: bad.append("top-level key " + k)
if d.get("format") != "rcsim-bench/1": bad.append("format")
if d.get("quick") is not True or d.get("sim_duration_s") != 7200: bad.append("quick/duration")
names = {j["name"] for j in d.get("jobs", [])}
for n in ("unicast-u32-online", "rc-k2-p2-u128-online", "exact-rc-k2-p2-u128-online",
          "multigroup-g16x128-u128-rc-k2-p2-ft-dropoffline"):
    if n not in names: bad.append("job " + n)
for j in d.get("jobs", []):
    if j["status"] == "skipped":
        if "gen_os15" not in j["name"]: bad.append("unexpected skip " + j["name"])
        continue
    if j["status"] != "ok": bad.append("%s status %s" % (j["name"], j["status"])); continue
    for k in ("events", "wall_s", "cpu_s", "events_per_s", "peak_rss_kb", "job_id", "deterministic"):
        if k not in j: bad.append("%s lacks %s" % (j["name"], k))
    if not (j.get("events", 0) > 0 and j.get("wall_s", 0) > 0 and j.get("peak_rss_kb", 0) > 0):
        bad.append("%s: non-positive numbers" % j["name"])
s = d["sweep"]
if s.get("status") == "ran":
    if [r["workers"] for r in s["runs"]] != [1, 2]: bad.append("sweep runs")
    for r in s["runs"]:
        if r["exit_status"] != 0 or not r["jobs_per_s"] or r["jobs_per_s"] <= 0:
            bad.append("sweep run %r" % r)
elif "note" not in s:
    bad.append("sweep skipped without a note")
if bad:
    print("FAIL: bench JSON: " + "; ".join(bad)); sys.exit(1)
PY
/usr/bin/python3 "$here/../../bench/compare.py" "$tmp/x.json" "$tmp/x.json" >"$tmp/cmp.txt" ||
  { echo "FAIL: compare.py"; fail=1; }
grep -q "rc-k2-p2-u128-online .*+0.0%" "$tmp/cmp.txt" || { echo "FAIL: compare.py output"; cat "$tmp/cmp.txt"; fail=1; }
"$RCSIM" bench --help | grep -- "--np-list" >/dev/null || { echo "FAIL: --help lacks --np-list"; fail=1; }
for bad in "--repeat 0" "--np-list 1,x" "--bogus" "extra"; do
  # shellcheck disable=SC2086
  "$RCSIM" bench $bad >/dev/null 2>&1; rc=$?
  [ $rc -eq 2 ] || { echo "FAIL: rcsim bench $bad exited $rc, want 2"; fail=1; }
done
"$RCSIM" bench --only no-such-config --no-sweep >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] || { echo "FAIL: --only with no match exited $rc, want 2"; fail=1; }
[ $fail -eq 0 ] && echo "bench_smoke: all passed"
exit $fail
