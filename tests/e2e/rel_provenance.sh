#!/bin/bash
# The results file says what actually ran, not only the sweep file as
# written.  `mpirun -np 3 rcsim sweep ci-small.yaml --set duration=2m --set seed=1` (the file
# says 10 min and 2 seeds): the root attributes run_overrides, run_command, run_layout (ranks
# and hosts) and run_effective (the parameters after the overrides) hold them; `rcsim
# summarize` prints the command and the overrides; `rcsim report` shows the overrides and the
# parameters as run beside the stored sweep file.
source "$(dirname "$0")/rel_lib.sh"
out="$WORK/q.h5"
host=$(hostname)
timeout 120 "$MPIEXEC" -np 3 "$RCSIM" sweep "$SWEEP" --out "$out" --set duration=2m --set seed=1 \
    > /dev/null 2> "$WORK/e" || fail "sweep: $(tail -5 "$WORK/e")"
$PY - "$out" "$SWEEP" "$host" <<'PY' || fail "provenance attributes"
import sys
import h5py
path, sweep, host = sys.argv[1:]
with h5py.File(path, "r") as f:
    a = {k: (v.decode() if isinstance(v, bytes) else str(v)) for k, v in f.attrs.items()}
need = ("run_overrides", "run_command", "run_layout", "run_effective")
missing = [k for k in need if k not in a]
if missing:
    sys.exit("missing root attributes: %s" % ", ".join(missing))
assert a["run_overrides"].split() == ["--set", "duration=2m", "--set", "seed=1"], a["run_overrides"]
assert a["run_command"] == "rcsim sweep %s --out %s --set duration=2m --set seed=1" % (sweep, path), a["run_command"]
assert a["run_layout"] == "3 ranks: 0 (master) on %s, 1-2 on %s" % (host, host), a["run_layout"]
eff = a["run_effective"].splitlines()
for want in ("jobs: 4", "  duration: 120", "  seed: 1", "  users: 16, 32", "  strategy: unicast, rc-k2-p2"):
    assert want in eff, (want, eff)
assert "duration: 10m" in a["sweep_text"] and "seeds: 2" in a["sweep_text"]
print("ok: " + a["run_layout"] + "; " + " ".join(a["run_overrides"].split()))
PY
"$RCSIM" summarize "$out" > "$WORK/s" 2>&1 || fail "summarize: $(cat "$WORK/s")"
grep -q "^ran: rcsim sweep .* --set duration=2m --set seed=1 (3 ranks: 0 (master) on $host, 1-2 on $host)$" "$WORK/s" \
    || fail "summarize does not say what ran: $(head -4 "$WORK/s")"
grep -q "^overrides: --set duration=2m --set seed=1$" "$WORK/s" || fail "summarize does not show the overrides"
MPLBACKEND=Agg "$RCSIM" report "$out" --out "$WORK/rep" > /dev/null 2>&1 || fail "report"
grep -q "Overrides: \`--set duration=2m --set seed=1\`" "$WORK/rep/report.md" || fail "report.md lacks the overrides"
grep -q "^  duration: 120$" "$WORK/rep/report.md" || fail "report.md lacks the parameters as run"
echo PASS
