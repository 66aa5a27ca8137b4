# Helpers shared by the farm and reliability end-to-end tests (sourced by
# farm_lib.sh and rel_lib.sh, which set PY, RCSIM, SWEEP and WORK first).

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
