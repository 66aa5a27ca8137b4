#!/bin/bash
# rcsim writes JSON through one library (jansson), so strings holding quotes,
# backslashes, newlines or non-ASCII bytes stay valid JSON.  `rcsim run --json` with a trace
# path holding a quote and a backslash, `rcsim plan --json --list` of a sweep whose
# description and trace hold them, and `rcsim bench --json` with such a data directory all
# parse, give the strings back unchanged, and keep their keys (in order, for run).
source "$(dirname "$0")/rel_lib.sh"
odd="$WORK/q\"uo\\te d"
mkdir -p "$odd"
trace="$odd/t\"r.txt.gz"
synth_hour_trace "$trace" 3

"$RCSIM" run --users 16 --duration 10m --trace "$trace" --json > "$WORK/run.json" || fail "run --json"
$PY - "$WORK/run.json" "$trace" <<'PY' || fail "rcsim run --json: $(cat "$WORK/run.json")"
import json, sys
text = open(sys.argv[1]).read()
assert text.count("\n") == 1, "not one line"
d = json.loads(text)
assert d["trace"] == sys.argv[2], (d["trace"], sys.argv[2])
keys = ["job_id", "strategy", "users", "group_size", "groups", "trace", "model", "seed",
        "duration_s", "deliveries", "multicasts", "deliveries_all", "duplicates",
        "expected_deliveries", "undelivered", "payload_packets", "ack_packets", "repair_packets",
        "reassignments", "timeouts", "joins", "leaves", "repairs", "payload_slots",
        # bandwidth and unobservability (docs/spec.md §1.12); the anon_* keys appear only
        # with --anonymity on
        "bw_online_client_s", "bw_payload_pps", "bw_cover_pps", "bw_cover_used",
        "bw_bytes_per_client_s", "bw_mix_load_mean_pps", "bw_mix_load_max_pps",
        "unobs_active_gaps", "unobs_idle_gaps", "unobs_active_rate_pps", "unobs_idle_rate_pps",
        "unobs_ks", "unobs_ks_crit05", "unobs_real_per_pull_mean", "unobs_real_per_pull_max",
        "unobs_pulls_nonempty",
        "mean_s", "p1_s", "p25_s", "median_s", "p75_s", "p90_s", "p99_s", "max_s",
        "packet_size", "events", "wall_s", "peak_rss_kb"]
assert list(d) == keys, list(d)
assert isinstance(d["users"], int) and isinstance(d["deliveries"], int) and d["deliveries"] > 0
assert isinstance(d["mean_s"], float) and d["mean_s"] == round(d["mean_s"], 6)
print("ok: run --json parses; trace =", d["trace"])
PY

cat > "$WORK/odd.yaml" <<YAML
name: odd.name-x
description: "quote \" backslash \\\\ tab \t newline \n unicode é"
defaults: {duration: 10m, users: 16}
axes:
  trace: [online, '$trace']
YAML
"$RCSIM" plan --json --list "$WORK/odd.yaml" > "$WORK/plan.json" 2> "$WORK/plan.err" || fail "plan --json: $(cat "$WORK/plan.err")"
$PY - "$WORK/plan.json" "$trace" <<'PY' || fail "rcsim plan --json: $(cat "$WORK/plan.json")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["name"] == "odd.name-x", d["name"]
assert d["description"] == 'quote " backslash \\ tab \t newline \n unicode é', repr(d["description"])
assert d["jobs"] == 2 and [j["params"]["trace"] for j in d["list"]] == ["online", sys.argv[2]]
assert list(d)[:5] == ["name", "path", "description", "hash", "jobs"], list(d)
print("ok: plan --json parses; name =", d["name"])
PY

# A data directory that does not exist: the configuration is skipped with a note naming it.
"$RCSIM" bench --quick --only gen_os15 --no-sweep --data-dir "$odd/none" -q --json "$WORK/bench.json" > /dev/null 2>&1 || true
$PY - "$WORK/bench.json" "$odd/none" <<'PY' || fail "rcsim bench --json: $(cat "$WORK/bench.json")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["format"] == "rcsim-bench/1" and d["jobs"], d
note = d["jobs"][0]["note"]
assert sys.argv[2] in note, (note, sys.argv[2])
print("ok: bench --json parses; note:", note)
PY
echo PASS
