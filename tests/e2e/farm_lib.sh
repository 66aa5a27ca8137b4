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

# Jobs in the journal (records after the 16-byte header), via the Python reader below.
journal_records() {
    $PY - "$1" <<'PY'
import struct, sys
try:
    b = open(sys.argv[1], "rb").read()
except FileNotFoundError:
    print(0); sys.exit()
pos, n = 16, 0
while pos + 24 <= len(b):
    magic, ln = struct.unpack_from("<II", b, pos)
    if magic != 0x52434a52 or pos + 24 + ln > len(b): break
    pos += 24 + ln; n += 1
print(n)
PY
}

# Prints "<jobs> <unique ids>" of a results file; fails if it does not open.
h5_jobs() {
    $PY - "$1" <<'PY'
import h5py, sys
with h5py.File(sys.argv[1], "r") as f:
    assert f.attrs["layout"] == "rcsim-results/1", f.attrs["layout"]
    ids = list(f["jobs"].keys())
    for k in ids:
        g = f["jobs"][k]
        assert g.attrs["status"] == "ok" and "hist_online" in g and "summary_online" in g, k
    print(len(ids), len(set(ids)))
PY
}

sweep_jobs() { "$RCSIM" sweep "$SWEEP" --out "$WORK/dry.h5" --dry-run "$@" | sed -n 's/.*: \([0-9]*\) jobs,.*/\1/p'; }

# Waits until the journal has >= $2 records (or $3 seconds pass).
wait_records() {
    local t=0
    while [ "$(journal_records "$1")" -lt "$2" ]; do
        sleep 0.2; t=$((t + 1))
        [ $t -lt $(( ${3:-120} * 5 )) ] || fail "no $2 journal records after ${3:-120} s"
    done
}

master_pid() { sed -n 's/.*master pid \([0-9]*\).*/\1/p' "$1" | head -1; }
