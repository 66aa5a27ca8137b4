#!/bin/bash
# Refusals: a results file of another sweep (exit 2, file untouched); a bad sweep file (exit 2,
# no output created); usage errors (exit 2); --help (exit 0).
source "$(dirname "$0")/farm_lib.sh"
out="$WORK/a.h5"
"$RCSIM" sweep "$SWEEP" --out "$out" > /dev/null 2>&1
before=$(md5sum < "$out"); jbefore=$(md5sum < "$out.journal"); mbefore=$(md5sum < "$out.manifest.json")
rc=0; "$MPIEXEC" -np 2 "$RCSIM" sweep "$SWEEP" --out "$out" --set seed=99 2> "$WORK/e1" || rc=$?
[ "$rc" = 2 ] || fail "foreign results file: exit $rc, want 2"
grep -q "belongs to sweep" "$WORK/e1" || fail "no 'belongs to sweep' message: $(cat "$WORK/e1")"
[ "$(md5sum < "$out")" = "$before" ] || fail "foreign results file was modified"
[ "$(md5sum < "$out.journal")" = "$jbefore" ] || fail "its journal was modified"
[ "$(md5sum < "$out.manifest.json")" = "$mbefore" ] || fail "its manifest was modified"

printf 'name: broken\naxes:\n  users: [16, oops]\n' > "$WORK/bad.yaml"
rc=0; "$MPIEXEC" -np 2 "$RCSIM" sweep "$WORK/bad.yaml" --out "$WORK/b.h5" 2> "$WORK/e2" || rc=$?
[ "$rc" = 2 ] || fail "bad sweep file: exit $rc, want 2"
[ ! -e "$WORK/b.h5" ] && [ ! -e "$WORK/b.h5.journal" ] || fail "output created for a bad sweep file"
rc=0; "$RCSIM" sweep "$WORK/missing.yaml" --out "$WORK/c.h5" 2> /dev/null || rc=$?
[ "$rc" = 2 ] && [ ! -e "$WORK/c.h5" ] || fail "missing sweep file: exit $rc"

echo "not hdf5" > "$WORK/x.h5"
rc=0; "$RCSIM" sweep "$SWEEP" --out "$WORK/x.h5" 2> /dev/null || rc=$?
[ "$rc" = 2 ] && [ "$(cat "$WORK/x.h5")" = "not hdf5" ] || fail "non-HDF5 file without journal: exit $rc or modified"

rc=0; "$RCSIM" sweep "$SWEEP" 2> /dev/null || rc=$?; [ "$rc" = 2 ] || fail "missing --out: exit $rc"
rc=0; "$RCSIM" sweep "$SWEEP" --out "$WORK/d.h5" --grace nope 2> /dev/null || rc=$?; [ "$rc" = 2 ] || fail "bad --grace: exit $rc"
"$RCSIM" sweep --help | grep "exit codes" >/dev/null || fail "--help"
"$RCSIM" sweep "$SWEEP" --out "$WORK/e.h5" --dry-run | grep -q "to run" || fail "--dry-run output"
[ ! -e "$WORK/e.h5" ] && [ ! -e "$WORK/e.h5.journal" ] || fail "--dry-run wrote files"
echo PASS
