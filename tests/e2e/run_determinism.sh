#!/bin/bash
# `rcsim run --json`: the same seed gives the same JSON (minus wall time and
# memory), another seed differs, and --help documents every strategy form.
set -uo pipefail
: "${RCSIM:?}"
fail=0
strip() { sed -E 's/"wall_s":[^,}]*,?//; s/,?"peak_rss_kb":[0-9]+//'; }
for model in paper exact; do
  for st in unicast rc-k2-p2-ft-dropoffline; do
    a=$("$RCSIM" run --json --model "$model" --strategy "$st" --users 48 --duration 2h --seed 4 | strip)
    b=$("$RCSIM" run --json --model "$model" --strategy "$st" --users 48 --duration 2h --seed 4 | strip)
    c=$("$RCSIM" run --json --model "$model" --strategy "$st" --users 48 --duration 2h --seed 5 | strip)
    [ "$a" = "$b" ] || { echo "FAIL: $model $st: same seed, different JSON"; echo "$a"; echo "$b"; fail=1; }
    [ "$a" != "$c" ] || { echo "FAIL: $model $st: seeds 4 and 5 identical"; fail=1; }
    for key in deliveries mean_s median_s p90_s p99_s max_s events wall_s; do
      "$RCSIM" run --json --model "$model" --strategy "$st" --users 16 --duration 600 | grep -q "\"$key\":" ||
        { echo "FAIL: JSON lacks $key"; fail=1; }
    done
  done
done
help=$("$RCSIM" run --help)
for s in "rc-kK-pP[-ft[M]][-dropoffline]" "provider-fanout" "unicast" "--duration" "--trace" "--rate-payload"; do
  grep -qF -- "$s" <<<"$help" || { echo "FAIL: run --help lacks $s"; fail=1; }
done
[ $fail -eq 0 ] && echo "run_determinism: all passed"
exit $fail
