#!/bin/bash
# --out into a directory that is missing, not a directory, or read-only is
# refused before any job runs, with exit 2 and a message naming the path (serial and under
# mpirun -np 2).  The read-only case needs a read-only mount (root); it is skipped otherwise.
source "$(dirname "$0")/rel_lib.sh"
MPIEXEC=${MPIEXEC:-mpirun}
touch "$WORK/afile"
check() { # $1 name, $2 --out, $3 words, launcher...
    local name=$1 out=$2 words=$3 rc=0
    shift 3
    "$@" sweep "$SWEEP" --out "$out" > "$WORK/o_$name" 2> "$WORK/e_$name" || rc=$?
    [ "$rc" = 2 ] || fail "$name: exit $rc, want 2 ($(cat "$WORK/e_$name"))"
    grep -qF "$words" "$WORK/e_$name" || fail "$name: message lacks '$words': $(cat "$WORK/e_$name")"
    grep -q "jobs:" "$WORK/o_$name" && fail "$name: jobs ran"
    grep -q "to run on" "$WORK/e_$name" && fail "$name: the sweep started"
    echo "ok: $name -> $(head -1 "$WORK/e_$name")"
}
check missing "$WORK/no/such/dir/r.h5" "directory $WORK/no/such/dir does not exist" "$RCSIM"
check missing-mpi "$WORK/nodir/r.h5" "directory $WORK/nodir does not exist" timeout 120 "$MPIEXEC" -np 2 "$RCSIM"
check not-a-dir "$WORK/afile/r.h5" "$WORK/afile is not a directory" "$RCSIM"
mkdir -p "$WORK/ro"
if mount -t tmpfs -o size=1m,ro tmpfs "$WORK/ro" 2>/dev/null; then
    MOUNTS+=("$WORK/ro")
    check read-only "$WORK/ro/r.h5" "directory $WORK/ro is not writable" "$RCSIM"
elif [ "$(id -u)" != 0 ]; then
    chmod 555 "$WORK/ro"
    check read-only "$WORK/ro/r.h5" "directory $WORK/ro is not writable" "$RCSIM"
else
    echo "skip: read-only case (cannot mount a read-only tmpfs)"
fi
echo PASS
