#!/bin/bash
# `rcsim merge` refuses what a resume of `rcsim sweep` refuses.
#  - shards stored with store_raw=true and =false (the hash does not change with it): exit 2,
#    naming both files, nothing written -- also when the parts' manifests are gone (the rows
#    show it: per-delivery records or none);
#  - shards run by two builds (a copy of the binary with its build id patched): exit 2 naming
#    both builds, unless --allow-other-build; then every row keeps the build that ran it;
#  - shards of one setting and one build merge as before (exit 0).
source "$(dirname "$0")/rel_lib.sh"
A="$RCSIM"
id_a=$("$A" --version | sed -n 's/^build id: *\([0-9a-f]\{16\}\).*/\1/p')
B="$WORK/rcsim-b"
id_b=$(other_build "$B" feedface)
cd "$WORK"
shard() { # $1 binary, $2 shard, $3 out, rest: options
    local bin=$1 s=$2 o=$3; shift 3
    "$bin" sweep "$SWEEP" --shard "$s/2" --out "$o" "$@" > /dev/null 2> "$WORK/e" || fail "shard $s: $(cat "$WORK/e")"
}
refused() { # $1 what, $2 pattern, rest: merge arguments
    local what=$1 pat=$2; shift 2
    local rc=0
    "$A" merge "$@" > "$WORK/o" 2> "$WORK/e" || rc=$?
    [ "$rc" = 2 ] || fail "$what: merge exit $rc, want 2 ($(cat "$WORK/e"))"
    grep -q -- "$pat" "$WORK/e" || fail "$what: no '$pat' in: $(cat "$WORK/e")"
    [ ! -e all.h5 ] && [ ! -e all.h5.journal ] || fail "$what: the refused merge wrote all.h5"
    echo "ok: $what: $(cut -c1-160 "$WORK/e")"
}
# store_raw, with and without the manifests.
shard "$A" 0 raw0.h5
shard "$A" 1 raw1.h5 --set store_raw=true
refused "store_raw mixed" "store_raw=true .* store_raw=false" raw0.h5 raw1.h5 --out all.h5
rm -f raw0.h5.manifest.json raw1.h5.manifest.json
refused "store_raw mixed, no manifests" "stored both ways" raw0.h5 raw1.h5 --out all.h5
# Two builds.
shard "$A" 0 b0.h5
shard "$B" 1 b1.h5
refused "two builds" "run by build $id_a, those in b1.h5 by build $id_b" b0.h5 b1.h5 --out all.h5
"$A" merge b0.h5 b1.h5 --out all.h5 --allow-other-build > /dev/null 2> "$WORK/e" || fail "--allow-other-build: $(cat "$WORK/e")"
got=$($PY - all.h5 "$(dirname "$RESULTS_VIEW")" <<'PY'
import sys
sys.path.insert(0, sys.argv[2])
import results_view
jobs, _, _ = results_view.load(sys.argv[1])
print(" ".join(sorted({j["build_id"] for j in jobs.values()})), len(jobs))
PY
)
[ "$got" = "$id_b $id_a 8" ] || [ "$got" = "$id_a $id_b 8" ] || fail "allowed merge: rows record '$got', want both builds and 8 jobs"
rm -f all.h5 all.h5.journal all.h5.manifest.json
# One setting, one build: as before.
"$A" merge b0.h5 raw0.h5 --out all.h5 > /dev/null 2> "$WORK/e" && fail "b0 and raw0 are the same shard: merge should refuse the duplicate jobs"
shard "$A" 1 ok1.h5
"$A" merge b0.h5 ok1.h5 --out all.h5 > /dev/null 2> "$WORK/e" || fail "plain merge: $(cat "$WORK/e")"
[ "$(h5_jobs all.h5)" = "8 8" ] || fail "plain merge holds $(h5_jobs all.h5)"
echo PASS
