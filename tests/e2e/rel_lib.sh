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

# Valid journal records (after the 16-byte header); 0 for a missing file.
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

# "<jobs> <unique ids>" of a results file, every job complete; fails if it does not open.
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

# A tmpfs of $2 at $1 (root only); skips the test when mounting is not permitted.
mount_small() {
    mkdir -p "$1"
    mount -t tmpfs -o "size=$2" tmpfs "$1" 2>/dev/null || skip "cannot mount a tmpfs (needs root / CAP_SYS_ADMIN)"
    MOUNTS+=("$1")
}

# "N" of the sweep summary's "N run" on stdout file $1.
summary_run() { sed -n 's/.* jobs: \([0-9]*\) run, .*/\1/p' "$1"; }
