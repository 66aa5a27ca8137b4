#!/bin/bash
# Labels that must not lie: a sweep file with another name over a finished results file is
# refused (exit 2; the file, its manifest and journal untouched); the recorded run_command is
# shell-quoted, so a command with spaces in its paths reruns as written; a duration in
# hexadecimal ('0x10') is refused with exit 2, not read as 16 s; `rcsim plan --data-dir`
# finds traces as `rcsim sweep --data-dir` does.
source "$(dirname "$0")/rel_lib.sh"
D="$WORK/dir with space"
mkdir -p "$D"
cp "$SWEEP" "$D/s w.yaml"
(cd "$WORK" && "$RCSIM" sweep "dir with space/s w.yaml" --out "dir with space/r 1.h5" --set duration=1m > /dev/null 2> "$WORK/e") || fail "sweep: $(cat "$WORK/e")"
n=$(sweep_jobs --set duration=1m)
cmd=$($PY -c 'import h5py, sys; print(h5py.File(sys.argv[1], "r").attrs["run_command"])' "$D/r 1.h5")
echo "run_command: $cmd"
[ "$cmd" = "rcsim sweep 'dir with space/s w.yaml' --out 'dir with space/r 1.h5' --set duration=1m" ] || fail "run_command is not shell-quoted: $cmd"
# Rerun as written (rcsim on PATH): the same file, nothing to run.
mkdir -p "$WORK/bin"; ln -s "$RCSIM" "$WORK/bin/rcsim"
(cd "$WORK" && PATH="$WORK/bin:$PATH" eval "$cmd") > "$WORK/o" 2> "$WORK/e" || fail "the recorded command does not rerun: $(cat "$WORK/e")"
[ "$(summary_run "$WORK/o")" = 0 ] || fail "the rerun ran jobs: $(cat "$WORK/o")"

# Another name over the finished file: refused, nothing touched.
sed 's/^name: ci-small$/name: renamed/' "$D/s w.yaml" > "$WORK/renamed.yaml"
grep -q "^name: renamed" "$WORK/renamed.yaml" || fail "cannot rename the sweep"
sums() { md5sum "$D/r 1.h5" "$D/r 1.h5.journal" "$D/r 1.h5.manifest.json"; }
before=$(sums)
rc=0
"$RCSIM" sweep "$WORK/renamed.yaml" --out "$D/r 1.h5" --set duration=1m > "$WORK/o" 2> "$WORK/e" || rc=$?
cat "$WORK/e"
[ "$rc" = 2 ] || fail "another sweep name over a finished file: exit $rc, want 2"
grep -q "holds sweep 'ci-small'; the sweep file names it 'renamed'" "$WORK/e" || fail "no reason: $(cat "$WORK/e")"
[ "$(sums)" = "$before" ] || fail "the refused run changed the results file, journal or manifest"
[ "$(h5_jobs "$D/r 1.h5")" = "$n $n" ] || fail "the results file changed"

# Hexadecimal durations are refused, in a sweep's --set and in rcsim run.
for args in "sweep $SWEEP --out $WORK/hex.h5 --set duration=0x10" "run --users 16 --duration 0x10" \
            "run --users 16 --duration 0x1p4"; do
    rc=0
    # shellcheck disable=SC2086  # a word list
    "$RCSIM" $args > /dev/null 2> "$WORK/e" || rc=$?
    [ "$rc" = 2 ] || fail "rcsim $args: exit $rc, want 2"
    grep -q "duration.*'0x1.*' is not a duration" "$WORK/e" || fail "rcsim $args: no message naming the value: $(cat "$WORK/e")"
done
[ ! -e "$WORK/hex.h5" ] || fail "a refused sweep wrote its results file"

# rcsim plan --data-dir: a trace found there gives the ids `rcsim sweep --data-dir` runs.
mkdir -p "$WORK/traces"
synth_trace "$WORK/traces/mytrace.txt.gz"
printf 'name: traced\ndefaults: {users: 16, duration: 1m, trace: mytrace}\nseeds: 2\n' > "$WORK/t.yaml"
env -u RCSIM_DATA_DIR "$RCSIM" plan "$WORK/t.yaml" --data-dir "$WORK/traces" --list > "$WORK/plan" 2> "$WORK/e" || fail "plan --data-dir: $(cat "$WORK/e")"
[ ! -s "$WORK/e" ] || fail "plan --data-dir did not find the trace: $(cat "$WORK/e")"
env -u RCSIM_DATA_DIR "$RCSIM" sweep "$WORK/t.yaml" --data-dir "$WORK/traces" --out "$WORK/t.h5" > /dev/null 2> "$WORK/e" || fail "sweep --data-dir: $(cat "$WORK/e")"
for id in $($PY "$RESULTS_VIEW" ids "$WORK/t.h5"); do grep -q "$id" "$WORK/plan" || fail "job $id of the sweep is not in the plan: $(cat "$WORK/plan")"; done
echo PASS
