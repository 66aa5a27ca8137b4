#!/bin/bash
# Extending a sweep: more seeds and another axis value, rerun into the same --out, run only
# the new jobs and leave the finished ones as they were; a change that alters what finished
# jobs mean (a default, the model) is refused with exit 2, the reason, and nothing touched.
source "$(dirname "$0")/farm_lib.sh"
out="$WORK/e.h5"
"$RCSIM" sweep "$SWEEP" --out "$out" > "$WORK/1.out" 2>&1 || { cat "$WORK/1.out"; fail "first run"; }
n=$(sweep_jobs)
cp "$out" "$WORK/before.h5"

# 1. More seeds and one more axis value: only the new jobs run.
sed -e 's/^seeds: 2/seeds: 3/' -e 's/users: \[16, 32\]/users: [16, 32, 24]/' "$SWEEP" > "$WORK/ext.yaml"
grep -q "seeds: 3" "$WORK/ext.yaml" && grep -q "24\]" "$WORK/ext.yaml" || fail "could not extend $SWEEP"
n2=$("$RCSIM" sweep "$WORK/ext.yaml" --out "$WORK/dry2.h5" --dry-run | sed -n 's/.*: \([0-9]*\) jobs,.*/\1/p')
"$RCSIM" sweep "$WORK/ext.yaml" --out "$out" --dry-run | grep -q "$n already done" || fail "dry run of the extension does not see the $n finished jobs"
"$MPIEXEC" -np 3 "$RCSIM" sweep "$WORK/ext.yaml" --out "$out" > "$WORK/2.out" 2> "$WORK/2.err" ||
    { cat "$WORK/2.err"; fail "extended sweep: exit $?"; }
cat "$WORK/2.out"
grep -q "$((n2 - n)) run, $n skipped" "$WORK/2.out" || fail "extension did not run exactly the $((n2 - n)) new jobs"
read -r jobs uniq < <(h5_jobs "$out")
[ "$jobs" = "$n2" ] && [ "$uniq" = "$n2" ] || fail "after the extension: $jobs jobs ($uniq unique), want $n2"
[ "$(journal_records "$out.journal")" = "$n2" ] || fail "journal does not hold every job once"
$PY - "$WORK/before.h5" "$out" "$n" <<'PY' || fail "finished jobs changed"
import sys, h5py, numpy as np
before, after, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
with h5py.File(before) as a, h5py.File(after) as b:
    ta, tb = a["table"], b["table"]
    assert int(tb.attrs["rows"]) > n
    for name, ds in ta.items():   # the first n rows are untouched, column by column
        x = ds[:n]
        assert np.array_equal(x, tb[name][:n], equal_nan=x.dtype.kind == "f"), name
    assert b.attrs["sweep_text"] != a.attrs["sweep_text"], "sweep_text not updated"
    assert int(b.attrs["sweep_jobs"]) > int(a.attrs["sweep_jobs"])
print("finished rows untouched")
PY
# The extension equals a one-shot run of the extended sweep.
"$RCSIM" sweep "$WORK/ext.yaml" --out "$WORK/oneshot.h5" > /dev/null 2>&1 || fail "one-shot run"
h5_same "$out" "$WORK/oneshot.h5" || fail "extended file differs from a one-shot run"

# 2. Changes that alter the meaning of finished jobs: refused, nothing touched.
sum_before=$(md5sum < "$out"); jsum_before=$(md5sum < "$out.journal")
refuse() { # $1 yaml, $2 expected words in the message
    local rc=0
    "$RCSIM" sweep "$1" --out "$out" > /dev/null 2> "$WORK/refuse.err" || rc=$?
    cat "$WORK/refuse.err"
    [ "$rc" = 2 ] || fail "$1: exit $rc, want 2"
    grep -q "$2" "$WORK/refuse.err" || fail "$1: the message does not name '$2'"
    [ "$(md5sum < "$out")" = "$sum_before" ] && [ "$(md5sum < "$out.journal")" = "$jsum_before" ] ||
        fail "$1: the results were modified"
}
sed 's/duration: 10m/duration: 11m/' "$WORK/ext.yaml" > "$WORK/default.yaml"
refuse "$WORK/default.yaml" "duration (finished 600, now 660)"
sed 's/model: paper/model: exact/' "$WORK/ext.yaml" > "$WORK/model.yaml"
refuse "$WORK/model.yaml" "model (finished paper, now exact)"
# Dropping jobs is refused too: the file would hold jobs the sweep no longer has.
refuse "$SWEEP" "not jobs of this sweep"
echo PASS
