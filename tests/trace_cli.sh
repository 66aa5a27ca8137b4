#!/bin/bash
# End-to-end test of `rcsim trace`: help, determinism of synth for a seed,
# stats output, and usage errors (exit code 2 with a message naming the input).
set -uo pipefail
RCSIM=${RCSIM:?RCSIM must point at the rcsim binary}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

for sub in "" " stats" " synth"; do
    $RCSIM trace$sub --help >"$tmp/help" 2>&1 || fail "trace$sub --help exited $?"
    grep -q "usage: rcsim trace" "$tmp/help" || fail "trace$sub --help prints no usage"
done

args=(--online 0.7 --gaps 3 --gap-median 120 --period 3600 --lines 20)
$RCSIM trace synth "${args[@]}" --seed 3 -o "$tmp/a.txt.gz" >/dev/null || fail "synth a"
$RCSIM trace synth "${args[@]}" --seed 3 -o "$tmp/b.txt.gz" >/dev/null || fail "synth b"
$RCSIM trace synth "${args[@]}" --seed 4 -o "$tmp/c.txt.gz" >/dev/null || fail "synth c"
cmp -s <(zcat "$tmp/a.txt.gz") <(zcat "$tmp/b.txt.gz") || fail "same seed, different traces"
cmp -s <(zcat "$tmp/a.txt.gz") <(zcat "$tmp/c.txt.gz") && fail "different seeds, same trace"
[ "$(zcat "$tmp/a.txt.gz" | wc -l)" = 20 ] || fail "expected 20 lines"
[ "$(zcat "$tmp/a.txt.gz" | head -1 | tr -d '\n' | wc -c)" = 3600 ] || fail "expected 3600 s lines"

$RCSIM trace stats --tsv "$tmp/a.txt.gz" >"$tmp/stats" || fail "stats exited $?"
awk -F'\t' 'NR == 2 && $2 == 20 && $3 == 3600 && $4 > 0.4 && $4 < 0.95 { ok = 1 } END { exit !ok }' \
    "$tmp/stats" || { cat "$tmp/stats"; fail "stats columns"; }

# --like a synthetic trace: fits and writes one with the same line count.
$RCSIM trace synth --like "$tmp/a.txt.gz" -o "$tmp/d.txt.gz" >/dev/null || fail "synth --like"
[ "$(zcat "$tmp/d.txt.gz" | wc -l)" = 20 ] || fail "--like keeps the line count"

expect_usage() {  # expect_usage NEEDLE CMD...
    local needle=$1; shift
    "$@" >"$tmp/out" 2>&1
    local rc=$?
    [ $rc = 2 ] || { cat "$tmp/out"; fail "'$*' exited $rc, expected 2"; }
    grep -q -- "$needle" "$tmp/out" || { cat "$tmp/out"; fail "'$*' does not mention $needle"; }
}
expect_usage "no_such_file" $RCSIM trace stats "$tmp/no_such_file.txt.gz"
expect_usage "-o OUT" $RCSIM trace synth "${args[@]}"
expect_usage "bad number" $RCSIM trace synth --online x --gaps 3 --gap-median 9 -o "$tmp/x.gz"
expect_usage "not in (0, 1)" $RCSIM trace synth --online 1.5 --gaps 3 --gap-median 9 -o "$tmp/x.gz"
printf '0101\n011\n' | gzip >"$tmp/bad.txt.gz"
expect_usage "bad.txt.gz:2:" $RCSIM trace stats "$tmp/bad.txt.gz"
expect_usage "unknown subcommand" $RCSIM trace frobnicate
echo "trace_cli: ok"
