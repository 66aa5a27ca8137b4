#!/bin/bash
# Prints the markdown table of docs/traces.md: statistics of each reference
# trace next to a synthetic trace fitted to it (rcsim trace synth --like).
# Usage: scripts/trace-table.sh [RCSIM] [SEED]   (needs the paper's traces in RCSIM_DATA_DIR
# or data/availability: scripts/get-traces.sh, data/README.md)
set -euo pipefail
RCSIM=${1:-${RCSIM:-./build/rcsim}}
case "$RCSIM" in */*) RCSIM=$(cd "$(dirname "$RCSIM")" && pwd)/$(basename "$RCSIM") ;; esac
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
# shellcheck source=scripts/traces-env.sh
source scripts/traces-env.sh
missing=$(echo "gen_os05 gen_os10 gen_os15 gen_os20 gen_os25 gen_os30" | rcsim_traces_missing /dev/stdin)
if [ -n "$missing" ]; then rcsim_traces_hint "trace-table.sh" "$missing"; exit 1; fi
SEED=${2:-1}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "| trace | lines | mean online | first-16 online | per-line sd | offline periods/line | median offline (s) | sd ln(online period) |"
echo "|---|---|---|---|---|---|---|---|"
for x in os05 os10 os15 os20 os25 os30; do
    "$RCSIM" trace synth --like "$x" --seed "$SEED" -o "$tmp/synth-$x.txt.gz" >/dev/null
    "$RCSIM" trace stats --tsv "$x" "$tmp/synth-$x.txt.gz" | tail -n +2 |
        awk -F'\t' -v x="$x" '{
            name = (NR == 1) ? x : "synth(" x ")";
            printf "| %s | %d | %.1f %% | %.1f %% | %.3f | %.2f | %.0f | %.2f |\n",
                   name, $2, 100 * $4, 100 * $5, $6, $7, int($8 + 0.5), $9 }'
done
