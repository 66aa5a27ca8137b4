#!/bin/bash
# What each reference quirk (docs/spec.md §9.1) does to a result: runs a configuration
# in paper mode, in paper mode with one quirk switched off at a time, and in
# exact mode, and prints a Markdown table of mean / median / p90 / p99.
# Usage: scripts/quirk-effects.sh [--rcsim BIN] [--seeds N] [--users M] [--trace T]
#                                 [--lambda-div X] STRATEGY...
set -euo pipefail
cd "$(dirname "$0")/.."
RCSIM=build/rcsim
SEEDS=3
USERS=128
TRACE=online
LDIV=1
STRATS=()
while [ $# -gt 0 ]; do
  case "$1" in
    --rcsim) RCSIM=$2; shift 2 ;;
    --seeds) SEEDS=$2; shift 2 ;;
    --users) USERS=$2; shift 2 ;;
    --trace) TRACE=$2; shift 2 ;;
    --lambda-div) LDIV=$2; shift 2 ;;
    -h|--help) sed -n '2,6p' "$0"; exit 0 ;;
    *) STRATS+=("$1"); shift ;;
  esac
done
[ ${#STRATS[@]} -gt 0 ] || STRATS=(unicast rc-k2-p2)
ROOT=$(pwd)
# shellcheck source=scripts/traces-env.sh
source scripts/traces-env.sh
missing=$(echo "trace: $TRACE" | rcsim_traces_missing /dev/stdin)
if [ -n "$missing" ]; then rcsim_traces_hint "quirk-effects.sh --trace $TRACE" "$missing"; exit 1; fi
PY=/usr/bin/python3
variants=("paper|--model paper"
          "paper, q_lattice off|--model paper --q-lattice off"
          "paper, q_trace16 off|--model paper --q-trace16 off"
          "paper, q_frozen_pull off|--model paper --q-frozen-pull off"
          "paper, q_ingress_delay off|--model paper --q-ingress-delay off"
          "paper, q_arm_once off|--model paper --q-arm-once off"
          "paper, q_acks_always off|--model paper --q-acks-always off"
          "paper, q_seed0_groups off|--model paper --q-seed0-groups off"
          "paper, q_nonce0_plain off|--model paper --q-nonce0-plain off"
          "paper, q_nonce_perm off|--model paper --q-nonce-perm off"
          "exact|--model exact")
echo "Configuration: users=$USERS trace=$TRACE lambda/$LDIV duration=24h, mean over $SEEDS seeds of each statistic (s)."
echo
echo "| strategy | variant | mean | median | p90 | p99 | change of mean vs paper |"
echo "|---|---|---|---|---|---|---|"
for st in "${STRATS[@]}"; do
  base=""
  for v in "${variants[@]}"; do
    label=${v%%|*}; args=${v#*|}
    out=$(for s in $(seq 1 "$SEEDS"); do
            # shellcheck disable=SC2086
            "$RCSIM" run --json --users "$USERS" --trace "$TRACE" --lambda-div "$LDIV" --strategy "$st" --seed "$s" $args
          done | $PY -c '
import json, sys
rows = [json.loads(l) for l in sys.stdin if l.strip()]
m = lambda k: sum(r[k] for r in rows) / len(rows)
print(" ".join("%.3f" % m(k) for k in ("mean_s", "median_s", "p90_s", "p99_s")))')
    read -r mean med p90 p99 <<<"$out"
    [ -z "$base" ] && base=$mean
    change=$($PY -c "print(f'{(float($mean)/float($base)-1)*100:+.1f} %')")
    echo "| $st | $label | $mean | $med | $p90 | $p99 | $change |"
  done
done
