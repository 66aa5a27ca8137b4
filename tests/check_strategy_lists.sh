#!/bin/bash
# check_strategy_lists: the strategy lists kept in prose agree with the strategy table.
#
# The table (src/multicast/strategy_table.c) is what the binary runs; `rcsim strategies
# --json` prints its families.  Two documents list them for readers:
#   README.md             the "### Strategies" table: one row per family, family key first
#   docs/architecture.md  the map's lines "family KEY   file...", one per family
# This fails when a family is missing from either list, or a list names a family the table
# does not have (a row added, renamed or removed without the docs).
# Usage: tests/check_strategy_lists.sh RCSIM REPO_ROOT
# It checks itself first: a list with a family taken out must fail.
set -uo pipefail
RCSIM=${1:?usage: check_strategy_lists.sh RCSIM REPO_ROOT}
ROOT=${2:?usage: check_strategy_lists.sh RCSIM REPO_ROOT}

table=$("$RCSIM" strategies --json | grep -o '"family": *"[^"]*"' | sed 's/.*"\([^"]*\)"$/\1/' | sort)
[ -n "$table" ] || { echo "check_strategy_lists: '$RCSIM strategies --json' listed no family"; exit 1; }

# readme FILE: the family keys of the first column of the "### Strategies" table.
readme() {
    awk '/^### Strategies/ { on = 1; next } on && /^#/ { on = 0 } on' "$1" |
        sed -n 's/^| `\([^`]*\)` |.*/\1/p' | sort
}
# arch FILE: the keys of the map's "family KEY" lines.
arch() { sed -n 's/^[ │├└─]*family \([a-z0-9-]*\) .*/\1/p' "$1" | sort; }

# compare WHAT LISTED: prints the differences with the table, returns 1 if any.
compare() {
    local what=$1 listed=$2 bad=0
    local missing extra
    missing=$(comm -23 <(echo "$table") <(echo "$listed"))
    extra=$(comm -13 <(echo "$table") <(echo "$listed"))
    for f in $missing; do echo "$what: family '$f' of the strategy table is not listed"; bad=1; done
    for f in $extra; do echo "$what: lists family '$f', which the strategy table does not have"; bad=1; done
    return $bad
}

# Self-check: the lists with the table's first family taken out must fail.
first=$(echo "$table" | head -1)
if compare self "$(echo "$table" | grep -vx -- "$first")" >/dev/null; then
    echo "check_strategy_lists: the self-check did not catch a missing family"; exit 1
fi

fail=0
compare README.md "$(readme "$ROOT/README.md")" || fail=1
compare docs/architecture.md "$(arch "$ROOT/docs/architecture.md")" || fail=1
[ $fail = 0 ] && echo "strategy lists agree with the table: $(echo $table)"
exit $fail
