#!/bin/bash
# `rcsim run --out` replaces only an earlier `rcsim run` file of the same job
# (or of another job with --force); everything else is refused with exit 2 and the reason,
# before simulating, the file untouched:
#  - a sweep's results file (finished, with its journal and manifest; and without them: its
#    sweep name and job count say so), also through a symbolic link and with --force;
#  - a file whose lock a running sweep holds (the lock is held here by a stand-in process);
#  - a plain text file, an empty file, a directory.
source "$(dirname "$0")/rel_lib.sh"
HOLDER=""
trap 'if [ -n "$HOLDER" ]; then kill "$HOLDER" 2>/dev/null || true; fi; cleanup' EXIT
cd "$WORK"
RUN=(--users 2 --duration 1s --quiet)
refused() { # $1 what, $2 message pattern, $3 file whose bytes must not change, rest: run args
    local what=$1 pat=$2 file=$3; shift 3
    local before rc=0
    before=$(md5sum < "$file" 2>/dev/null || echo none)
    "$RCSIM" run "${RUN[@]}" "$@" > "$WORK/o" 2> "$WORK/e" || rc=$?
    [ "$rc" = 2 ] || fail "$what: exit $rc, want 2 ($(cat "$WORK/e"))"
    grep -q -- "$pat" "$WORK/e" || fail "$what: no '$pat' in: $(cat "$WORK/e")"
    [ "$(md5sum < "$file" 2>/dev/null || echo none)" = "$before" ] || fail "$what: $file changed"
    echo "ok: $what: $(cut -c1-150 "$WORK/e")"
}
"$RCSIM" sweep "$SWEEP" --out s.h5 > /dev/null 2>&1 || fail "sweep"
refused "a finished sweep's file" "belongs to a sweep (.*s.h5.journal exists)" s.h5 --out s.h5
refused "... with --force" "belongs to a sweep" s.h5 --out s.h5 --force
ln -s s.h5 link.h5
refused "... through a symbolic link" "belongs to a sweep" s.h5 --out link.h5
mv s.h5.journal j.keep; mv s.h5.manifest.json m.keep
refused "a sweep's file without journal and manifest" "results file of sweep 'ci-small' (8 job(s))" s.h5 --out s.h5 --force
echo "some notes" > notes.txt
refused "a text file" "not an HDF5 results file" notes.txt --out notes.txt --force
: > empty.h5
refused "an empty file" "not an HDF5 results file" empty.h5 --out empty.h5
mkdir adir
refused "a directory" "not a regular file" s.h5 --out adir
# A lock held by a running sweep (a stand-in holding the POSIX record lock on x.h5.lock).
$PY -c 'import fcntl, sys, time
f = open("x.h5.lock", "w"); f.write("host h pid 1 since now\n"); f.flush()
fcntl.lockf(f, fcntl.LOCK_EX | fcntl.LOCK_NB); print("locked", flush=True); time.sleep(60)' > lock.out &
HOLDER=$!
t=0; until grep -q locked lock.out 2>/dev/null; do sleep 0.05; t=$((t + 1)); [ $t -lt 400 ] || fail "no lock holder"; done
refused "a file locked by a sweep" "in use by another rcsim sweep" x.h5.lock --out x.h5
[ ! -e x.h5 ] || fail "run wrote x.h5 under another's lock"
kill "$HOLDER"; wait "$HOLDER" 2> /dev/null || true; HOLDER=""

# Earlier run files: the same job is replaced, another job only with --force.
"$RCSIM" run "${RUN[@]}" --out r.h5 || fail "first run"
"$RCSIM" run "${RUN[@]}" --out r.h5 2> "$WORK/e" || fail "the same run again: $(cat "$WORK/e")"
refused "another job's run file" "holds the result of another run" r.h5 --out r.h5 --seed 7
"$RCSIM" run "${RUN[@]}" --seed 7 --out r.h5 --force 2> "$WORK/e" || fail "--force over a run file: $(cat "$WORK/e")"
[ "$(h5_jobs r.h5)" = "1 1" ] || fail "r.h5 holds $(h5_jobs r.h5)"
[ ! -e r.h5.lock ] && [ ! -e r.h5.journal ] || fail "run left a lock or a journal"
echo PASS
