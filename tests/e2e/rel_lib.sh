# Shared helpers of the reliability end-to-end tests (sourced).  Environment from
# tests/CMakeLists.txt: RCSIM, RCSIM_SOURCE_DIR, RCSIM_DATA_DIR, MPIEXEC and the Open MPI
# root/oversubscribe variables.  Exit code 77 means "skipped" (SKIP_RETURN_CODE).
set -euo pipefail
: "${RCSIM:?RCSIM must point at the rcsim binary}"
: "${RCSIM_SOURCE_DIR:?}"
MPIEXEC=${MPIEXEC:-mpirun}
PY=/usr/bin/python3
SWEEP="$RCSIM_SOURCE_DIR/experiments/ci-small.yaml"
WORK=$(mktemp -d /tmp/rcsim-rel-XXXXXX)
MOUNTS=()
cleanup() {
    local m
    for m in "${MOUNTS[@]+"${MOUNTS[@]}"}"; do umount "$m" 2>/dev/null || true; done
    rm -rf "$WORK"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "SKIP: $*"; exit 77; }

# shellcheck source=results_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/results_lib.sh"

# A tmpfs of $2 at $1 (root only); skips the test when mounting is not permitted.
mount_small() {
    mkdir -p "$1"
    mount -t tmpfs -o "size=$2" tmpfs "$1" 2>/dev/null || skip "cannot mount a tmpfs (needs root / CAP_SYS_ADMIN)"
    MOUNTS+=("$1")
}

# A synthetic availability trace at $1 (`rcsim trace synth`, the statistics of the paper's
# "80 %" trace, as data/synthetic/schedules_gen_synth80.txt.gz; 256 lines, seed 1): trace-like
# input without the artefact's files.
synth_trace() {
    "$RCSIM" trace synth --online 0.800 --gaps 4.58 --gap-median 855 --concentration 2.42 \
        --sigma-on 1.79 --lines 256 --seed 1 -o "$1" > /dev/null || fail "rcsim trace synth failed"
}

# "N" of the sweep summary's "N run" on stdout file $1.
summary_run() { sed -n 's/.* jobs: \([0-9]*\) run, .*/\1/p' "$1"; }

# A copy of the rcsim binary that differs only in its build id, as a rebuild would: writes
# the copy to $1 with the first 8 hex digits of the id replaced by $2 (8 hex digits) and
# prints the new id.  The last 8 are kept because the linker may share the tail of the id
# string with shorter literals (a default "3"); the copy must plan the same job ids.  Every
# copy of the id is patched: an optimised build (Release, LTO) may also fold the id into a
# constant image of a struct that holds it (the farm's rc_farm_build), so it appears there
# too, followed by the sources' hash instead of a NUL.
other_build() {
    local id new
    id=$("$RCSIM" --version | sed -n 's/^build id: *\([0-9a-f]\{16\}\).*/\1/p')
    [ -n "$id" ] || fail "no build id in rcsim --version"
    new="$2${id:8}"
    [ "$new" != "$id" ] || new="0badc0de${id:8}"
    $PY - "$RCSIM" "$1" "$id" "$new" <<'PY' || fail "cannot patch the build id"
import sys
src, dst, old, new = sys.argv[1:]
b = open(src, "rb").read()
assert b.count(old.encode()) >= 1, "the build id is not in the binary"
assert b.count(new.encode()) == 0, "the new build id is already in the binary"
open(dst, "wb").write(b.replace(old.encode(), new.encode()))
PY
    chmod +x "$1"
    "$1" --version | grep -q "build id:  $new" || fail "the patched copy does not report build $new"
    [ "$("$1" plan "$SWEEP" --json)" = "$("$RCSIM" plan "$SWEEP" --json)" ] || fail "the patched copy plans other jobs"
    echo "$new"
}
