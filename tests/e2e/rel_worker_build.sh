#!/bin/bash
# Every rank's build is checked, not only the master's.  A second binary is
# made by copying rcsim and patching its build id (rel_lib.sh other_build: it plans the same
# jobs), so it reports another build exactly as a rebuild would.  Then an MPMD
# launch (`mpirun -np 1 A ... : -np 2 B ...`):
#  - without --allow-other-build exits 2 before anything is written, naming the rank, its host
#    and both builds;
#  - with it, finishes; every row records the build that ran it (B: only workers run jobs under
#    mpirun) and the manifest lists both builds;
#  - a resume under a plain launch of A after that is accepted (A and B are both recorded), a
#    fresh results file resumed by an MPMD launch with a third build is refused.
source "$(dirname "$0")/rel_lib.sh"
A="$RCSIM"
id_a=$("$A" --version | sed -n 's/^build id: *\([0-9a-f]\{16\}\).*/\1/p')
B="$WORK/rcsim-b"; C="$WORK/rcsim-c"
id_b=$(other_build "$B" feedface)
id_c=$(other_build "$C" 0ddba11a)

out="$WORK/r.h5"
n=$(sweep_jobs)
mpmd() { # $1 master binary, $2 worker binary, rest: options
    local m=$1 w=$2; shift 2
    timeout 120 "$MPIEXEC" -np 1 "$m" sweep "$SWEEP" --out "$out" --progress 0 "$@" : \
        -np 2 "$w" sweep "$SWEEP" --out "$out" --progress 0 "$@"
}

# 1. Refused: exit 2, the message names rank 1 or 2, both builds; nothing written.
rc=0
mpmd "$A" "$B" > "$WORK/o1" 2> "$WORK/e1" || rc=$?
[ "$rc" = 2 ] || fail "MPMD launch of two builds: exit $rc, want 2 ($(cat "$WORK/e1"))"
grep -Eq "rank [12] \(host $(hostname)\) runs build $id_b .*rank 0 \(host $(hostname)\) runs build $id_a" "$WORK/e1" \
    || fail "the refusal does not name the rank, host and both builds: $(cat "$WORK/e1")"
grep -q -- "--allow-other-build" "$WORK/e1" || fail "the refusal does not name --allow-other-build"
for f in "$out" "$out.journal" "$out.manifest.json" "$out.lock"; do
    [ ! -e "$f" ] || fail "the refused launch wrote $f"
done
echo "ok: $(grep -o 'rank [12] (host [^)]*) runs build [0-9a-f]*' "$WORK/e1" | head -1) refused"

# 2. Allowed: every row names the build that ran it; the manifest names both.
mpmd "$A" "$B" --allow-other-build > "$WORK/o2" 2> "$WORK/e2" || fail "allowed MPMD launch: $(cat "$WORK/e2")"
grep -q "warning: rank [12] .* runs build $id_b" "$WORK/e2" || fail "no warning about the other build: $(cat "$WORK/e2")"
builds=$($PY - "$out" "$(dirname "$RESULTS_VIEW")" <<'PY'
import sys
sys.path.insert(0, sys.argv[2])
import results_view
jobs, _, _ = results_view.load(sys.argv[1])
print(" ".join(sorted({j["build_id"] for j in jobs.values()})), len(jobs))
PY
)
[ "$builds" = "$id_b $n" ] || fail "rows record builds/jobs '$builds', want '$id_b $n'"
for id in "$id_a" "$id_b"; do
    grep -q "\"$id\"" "$out.manifest.json" || fail "the manifest does not list build $id"
done

# 3. A plain resume with A: both builds are on record, nothing to run, exit 0.
"$A" sweep "$SWEEP" --out "$out" > "$WORK/o3" 2> "$WORK/e3" || fail "resume with A: $(cat "$WORK/e3")"
# 4. A resume whose workers run a third build: refused at the worker check, journal untouched.
jsum=$(md5sum < "$out.journal")
rc=0
mpmd "$A" "$C" > "$WORK/o4" 2> "$WORK/e4" || rc=$?
[ "$rc" = 2 ] || fail "resume with workers of a third build: exit $rc, want 2 ($(cat "$WORK/e4"))"
grep -q "runs build $id_c" "$WORK/e4" || fail "the refusal does not name build $id_c: $(cat "$WORK/e4")"
[ "$(md5sum < "$out.journal")" = "$jsum" ] || fail "the refused resume changed the journal"
echo PASS
