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

# Keeps the first $2 records of journal $1 (a sweep stopped after $2 jobs); the format is
# the one journal_records reads.
journal_keep() {
    $PY - "$1" "$2" <<'PY'
import struct, sys
path, keep = sys.argv[1], int(sys.argv[2])
b = open(path, "rb").read()
pos, n = 16, 0
while n < keep and pos + 24 <= len(b):
    magic, ln = struct.unpack_from("<II", b, pos)
    if magic != 0x52434a52 or pos + 24 + ln > len(b): break
    pos += 24 + ln; n += 1
assert n == keep, f"{path}: only {n} records"
open(path, "r+b").truncate(pos)
PY
}

# A small synthetic trace (one hour per line): $1 output, $2 seed, $3 lines (default 40).
synth_hour_trace() {
    "$RCSIM" trace synth --online 0.8 --gaps 2 --gap-median 300 --period 3600 \
        --lines "${3:-40}" --seed "$2" -o "$1" > /dev/null
}
