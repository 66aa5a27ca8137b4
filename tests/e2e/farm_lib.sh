# Shared helpers of the farm end-to-end tests (sourced).  Environment from
# tests/CMakeLists.txt: RCSIM (binary), RCSIM_SOURCE_DIR, MPIEXEC and the
# Open MPI root/oversubscribe variables.
set -euo pipefail
: "${RCSIM:?RCSIM must point at the rcsim binary}"
: "${RCSIM_SOURCE_DIR:?}"
MPIEXEC=${MPIEXEC:-mpirun}
PY=/usr/bin/python3
SWEEP="$RCSIM_SOURCE_DIR/experiments/ci-small.yaml"
[ -f "$SWEEP" ] || SWEEP="$RCSIM_SOURCE_DIR/tests/data/sweeps/farm-small.yaml"
WORK=$(mktemp -d /tmp/rcsim-farm-XXXXXX)
BG_PID=""
cleanup() {
    # Only the launcher this script started, by its pid.
    if [ -n "$BG_PID" ] && kill -0 "$BG_PID" 2>/dev/null; then kill -9 "$BG_PID" 2>/dev/null || true; fi
    rm -rf "$WORK"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# shellcheck source=results_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/results_lib.sh"

# Waits until the journal has >= $2 records (or $3 seconds pass).
wait_records() {
    local t=0
    while [ "$(journal_records "$1")" -lt "$2" ]; do
        sleep 0.2; t=$((t + 1))
        [ $t -lt $(( ${3:-120} * 5 )) ] || fail "no $2 journal records after ${3:-120} s"
    done
}

master_pid() { sed -n 's/.*master pid \([0-9]*\).*/\1/p' "$1" | head -1; }
