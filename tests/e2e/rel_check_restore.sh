#!/bin/bash
# Issue 27, item 13: rc_run_job gives the run-time checks back on every return path.  A job
# whose model cannot be built (rc_mc_new fails: forced here with gdb, as valid input never
# reaches that path) must leave the process's checks as it found them, or every later job of
# the same process (a forked chunk, a --no-fork worker) runs with checks it did not ask for.
# The sweep runs two jobs with check=true in one process (--no-fork); gdb makes the first
# rc_mc_new return NULL and prints rc_check_enabled when the failed job's result is freed (the
# first thing run_here does after rc_run_job returns).  Needs gdb and a build with symbols and
# the checks off by default (NDEBUG: RelWithDebInfo, Release); skipped otherwise.
source "$(dirname "$0")/rel_lib.sh"
command -v gdb > /dev/null || skip "gdb not found"
printf 'name: checks\ndefaults: {users: 16, duration: 2m, trace: online, check: true}\nseeds: 2\n' > "$WORK/c.yaml"
cat > "$WORK/inject.gdb" <<'GDB'
set confirm off
set pagination off
set $injected = 0
set $reported = 0
break rc_run_job
commands
silent
printf "RUN check=%d checks_before=%d\n", job_in->check, rc_check_enabled
continue
end
break rc_mc_new
commands
silent
if $injected == 0
  set $injected = 1
  printf "INJECT rc_mc_new returns NULL\n"
  return (struct rc_mc *) 0
end
continue
end
break rc_result_free
commands
silent
if $injected == 1 && $reported == 0
  set $reported = 1
  printf "AFTER the failed job: checks=%d\n", rc_check_enabled
end
continue
end
run
GDB
rc=0
timeout 120 gdb -q -batch -x "$WORK/inject.gdb" --args "$RCSIM" sweep "$WORK/c.yaml" --out "$WORK/r.h5" \
    --no-fork --progress 0 > "$WORK/gdb.out" 2>&1 || rc=$?
grep -q "INJECT" "$WORK/gdb.out" || skip "gdb could not break in rc_mc_new (no symbols?): $(tail -5 "$WORK/gdb.out")"
first=$(grep -m1 "^RUN" "$WORK/gdb.out")
[ "$first" = "RUN check=1 checks_before=0" ] || skip "checks are on by default in this build ($first)"
grep -q "FAILED on rank 0" "$WORK/gdb.out" || fail "the injected failure did not fail the job: $(cat "$WORK/gdb.out")"
after=$(grep "^AFTER" "$WORK/gdb.out") || fail "no AFTER line: $(cat "$WORK/gdb.out")"
[ "$after" = "AFTER the failed job: checks=0" ] || fail "rc_run_job left the checks on after rc_mc_new failed: $after"
# The second job started with the process's own setting and ran.
[ "$(grep -c "^RUN check=1 checks_before=0" "$WORK/gdb.out")" = 2 ] \
    || fail "the second job did not start with the checks as the process set them: $(grep ^RUN "$WORK/gdb.out")"
grep -q "jobs: 1 run, 0 skipped (already done), 1 failed" "$WORK/gdb.out" || fail "summary: $(grep 'jobs:' "$WORK/gdb.out")"
echo "ok: $after"
echo PASS
