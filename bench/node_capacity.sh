#!/bin/bash
# Where provider fan-out's burst and RC-FT's ACKs queue at nodes of finite capacity
# (docs/network.md, "Nodes of finite capacity"; docs/spec.md §1.14): 128 users, 3 x 3 mixes,
# 10 minutes, seed 1; unicast, RC k = p = 2 with and without FT, provider fan-out; at the
# paper's rates and at 10x them (--lambda-div 0.1); capacity at no node, at the providers
# (5,000 /s), at the mixes (6,000 /s) or at both.  Prints a Markdown table.
#
# usage: bench/node_capacity.sh RCSIM OUT.jsonl      (about 10 minutes on one core)
set -uo pipefail
B=${1:?usage: bench/node_capacity.sh RCSIM OUT.jsonl}
OUT=${2:?usage: bench/node_capacity.sh RCSIM OUT.jsonl}
: >"$OUT"
for div in 1 0.1; do
  for s in unicast rc-k2-p2 rc-k2-p2-ft provider-fanout; do
    for place in none prov mix both; do
      case $place in
        none) opt=(--cover full) ;;
        prov) opt=(--node-service serve --provider-capacity 5000) ;;
        mix) opt=(--node-service serve --mix-capacity 6000) ;;
        both) opt=(--node-service serve --mix-capacity 6000 --provider-capacity 5000) ;;
      esac
      line=$("$B" run --users 128 --duration 10m --strategy "$s" --lambda-div "$div" "${opt[@]}" \
        --json --quiet) || exit 1
      echo "{\"div\": $div, \"strategy\": \"$s\", \"place\": \"$place\", \"r\": $line}" >>"$OUT"
    done
  done
done
/usr/bin/python3 - "$OUT" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
print("| load | strategy | capacity at | mean latency (s) | p99 (s) | wait, all packets (ms) "
      "| wait, real packets (ms) | longest wait (ms) | undelivered |")
print("|---|---|---|---|---|---|---|---|---|")
for x in rows:
    r = x["r"]
    n, nr = r.get("node_served", 0), r.get("node_real_served", 0)
    w = "%.3f" % (r["node_wait_us"] / n / 1e3) if n else "—"
    wr = "%.3f" % (r["node_real_wait_us"] / nr / 1e3) if nr else "—"
    mx = "%.1f" % (r["node_wait_max_us"] / 1e3) if n else "—"
    place = {"none": "none", "prov": "providers", "mix": "mixes", "both": "both"}[x["place"]]
    print("| %s | %s | %s | %.3f | %.3f | %s | %s | %s | %d |"
          % ("paper" if x["div"] == 1 else "10x", x["strategy"], place, r["mean_s"], r["p99_s"],
             w, wr, mx, r["undelivered"]))
PY
