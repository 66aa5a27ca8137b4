#!/bin/bash
# The lock belongs to the results file, not to the spelling of --out.  While a
# sweep holds r.h5, a second sweep whose --out is a symbolic link to it (or a link to a link,
# relative or absolute) exits 2 naming the holder, and writes no journal of its own; a hard link
# to the results file is refused (its name would get its own lock and journal).  After the
# holder is gone, a sweep through the link resumes the same file: nothing runs twice.
source "$(dirname "$0")/rel_lib.sh"
HOLDER=""
trap 'if [ -n "$HOLDER" ]; then kill -9 "$HOLDER" 2>/dev/null || true; fi; cleanup' EXIT
out="$WORK/r.h5"
SWEEP="$WORK/lock.yaml"
printf 'name: lock\ndefaults: {users: 16, duration: 30d, trace: online}\nseeds: 2\n' > "$SWEEP"
"$RCSIM" sweep "$SWEEP" --out "$out" > "$WORK/o1" 2> "$WORK/e1" &
HOLDER=$!
t=0
until grep -q "master pid" "$WORK/e1" 2>/dev/null; do
    sleep 0.05; t=$((t + 1)); [ $t -lt 1200 ] || fail "the holder did not start: $(cat "$WORK/e1")"
done
kill -STOP "$HOLDER"
jsum=$(md5sum < "$out.journal")

mkdir "$WORK/sub"
ln -s "$out" "$WORK/abs.h5"
ln -s ../r.h5 "$WORK/sub/rel.h5"
ln -s "$WORK/sub/rel.h5" "$WORK/chain.h5"
for link in "$WORK/abs.h5" "$WORK/sub/rel.h5" "$WORK/chain.h5"; do
    rc=0
    timeout 60 "$RCSIM" sweep "$SWEEP" --out "$link" > "$WORK/o2" 2> "$WORK/e2" || rc=$?
    [ "$rc" = 2 ] || fail "sweep into $link (a link to the running sweep's file): exit $rc, want 2 ($(cat "$WORK/e2"))"
    grep -q "in use by another rcsim sweep (host $(hostname) pid $HOLDER " "$WORK/e2" \
        || fail "no 'in use' message naming pid $HOLDER for $link: $(cat "$WORK/e2")"
    [ ! -e "$link.journal" ] || fail "the refused sweep left its own journal $link.journal"
    [ "$(md5sum < "$out.journal")" = "$jsum" ] || fail "the refused sweep changed the journal"
    echo "ok: $(basename "$link"): $(grep -o '[^ ]* (a symbolic link to [^)]*) is in use' "$WORK/e2")"
done

# A hard link: another name for the same inode, refused whether or not a sweep runs.

kill -9 "$HOLDER"; wait "$HOLDER" 2>/dev/null || true; HOLDER=""
"$RCSIM" sweep "$SWEEP" --out "$out" > /dev/null 2> "$WORK/e3" || fail "finishing run: $(cat "$WORK/e3")"
ln "$out" "$WORK/hard.h5"
rc=0
"$RCSIM" sweep "$SWEEP" --out "$WORK/hard.h5" > /dev/null 2> "$WORK/e4" || rc=$?
[ "$rc" = 2 ] || fail "sweep into a hard link: exit $rc, want 2 ($(cat "$WORK/e4"))"
grep -q "has 2 hard links" "$WORK/e4" || fail "no hard-link message: $(cat "$WORK/e4")"
[ ! -e "$WORK/hard.h5.journal" ] || fail "the refused sweep left a journal"
rm -f "$WORK/hard.h5"

# Through the link after the holder: the same file, journal and manifest; nothing reruns.
"$RCSIM" sweep "$SWEEP" --out "$WORK/chain.h5" > "$WORK/o5" 2> "$WORK/e5" || fail "resume via link: $(cat "$WORK/e5")"
[ "$(summary_run "$WORK/o5")" = 0 ] || fail "the resume through the link ran jobs again: $(cat "$WORK/o5")"
[ ! -e "$WORK/chain.h5.journal" ] || fail "the resume through the link made its own journal"
[ -L "$WORK/chain.h5" ] || fail "the link was replaced"
[ "$(h5_jobs "$out")" = "2 2" ] || fail "r.h5 holds $(h5_jobs "$out"), want 2 2"
echo PASS
