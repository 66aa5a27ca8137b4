#!/bin/bash
# The build identity is computed when the binary is BUILT.  A copy of the
# source tree (its own git repository) is built; a sweep is stopped after 4 jobs; one source
# file is edited and the binary rebuilt WITHOUT re-running CMake's configure step.  Then:
#  - the new binary reports the new revision (…-dirty) and another build id; the rebuild
#    compiled only the edited file and the generated build_info.c, and a no-op build compiles
#    nothing (incremental);
#  - resuming the sweep with it is refused (exit 2) naming both builds, journal untouched;
#  - with --allow-other-build it finishes, and every job records the build that ran it.
# Builds rcsim once (label slow: about a minute on two cores).
source "$(dirname "$0")/rel_lib.sh"
command -v git > /dev/null || skip "git not found"
command -v cmake > /dev/null || skip "cmake not found"
SRC="$WORK/src"
mkdir -p "$SRC"
for p in CMakeLists.txt cmake src slurm bench; do
    [ -e "$RCSIM_SOURCE_DIR/$p" ] && cp -r "$RCSIM_SOURCE_DIR/$p" "$SRC/"
done
git -C "$SRC" init -q
git -C "$SRC" add -A
git -C "$SRC" -c user.name=rcsim-test -c user.email=test@localhost commit -qm "test tree"
nice cmake -S "$SRC" -B "$WORK/b" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRCSIM_BUILD_TESTING=OFF \
    > "$WORK/configure.log" 2>&1 || fail "configure: $(tail -20 "$WORK/configure.log")"
nice cmake --build "$WORK/b" -j2 --target rcsim > "$WORK/build1.log" 2>&1 || fail "build: $(tail -20 "$WORK/build1.log")"
B="$WORK/b/rcsim"

# "<git_revision> <build_id>" that a binary stamps on a job it runs.
stamp() {
    "$1" run --users 16 --duration 1m --quiet --out "$WORK/stamp.h5" > /dev/null || fail "$1 run --out"
    $PY - "$WORK/stamp.h5" "$(dirname "$RESULTS_VIEW")" <<'PY'
import sys
sys.path.insert(0, sys.argv[2])
import results_view
jobs, _, _ = results_view.load(sys.argv[1])
(j,) = jobs.values()
print(j["git_revision"], j["build_id"] or "none")
PY
}
read -r rev0 id0 <<< "$(stamp "$B")"
want0=$(git -C "$SRC" describe --always --dirty --tags)
[ "$rev0" = "$want0" ] || fail "first build reports revision $rev0, git says $want0"

out="$WORK/r.h5"
n=$(RCSIM="$B" sweep_jobs)
"$B" sweep "$SWEEP" --out "$out" > /dev/null 2> "$WORK/e0" || fail "sweep: $(cat "$WORK/e0")"
journal_keep "$out.journal" 4
rm -f "$out"

# Edit a source file and rebuild, without configuring again.
echo "/* edited by rel_build_identity */" >> "$SRC/src/core/sim.c"
nice cmake --build "$WORK/b" -j2 --target rcsim > "$WORK/build2.log" 2>&1 || fail "rebuild: $(tail -20 "$WORK/build2.log")"
grep -q "Re-running CMake" "$WORK/build2.log" && fail "the rebuild re-ran CMake's configure step"
read -r rev1 id1 <<< "$(stamp "$B")"
want1=$(git -C "$SRC" describe --always --dirty --tags)
[ "$rev1" = "$want1" ] || fail "after edit + rebuild the binary reports revision $rev1, git says $want1"
case "$rev1" in *-dirty) ;; *) fail "revision $rev1 does not say dirty" ;; esac
[ "$id1" != "$id0" ] || fail "the build id did not change ($id0) after editing a source"
compiled=$(grep -c "Building C object" "$WORK/build2.log" || true)
[ "$compiled" -le 2 ] || fail "the rebuild compiled $compiled files, want 2: $(grep 'Building C' "$WORK/build2.log")"
nice cmake --build "$WORK/b" -j2 --target rcsim > "$WORK/build3.log" 2>&1 || fail "no-op build"
! grep -q "Building C object" "$WORK/build3.log" || fail "a no-op build compiled: $(grep 'Building C' "$WORK/build3.log")"
echo "ok: $rev0 ($id0) -> $rev1 ($id1), rebuild compiled $compiled file(s), no-op build compiled none"

jsum=$(md5sum < "$out.journal")
rc=0; "$B" sweep "$SWEEP" --out "$out" > "$WORK/o1" 2> "$WORK/e1" || rc=$?
[ "$rc" = 2 ] || fail "resume with the rebuilt binary: exit $rc, want 2 ($(cat "$WORK/e1"))"
grep -q "$id0" "$WORK/e1" && grep -q "$id1" "$WORK/e1" || fail "the refusal does not name both builds: $(cat "$WORK/e1")"
grep -q -- "--allow-other-build" "$WORK/e1" || fail "the refusal does not name --allow-other-build"
[ "$(md5sum < "$out.journal")" = "$jsum" ] || fail "the refused resume changed the journal"
echo "ok: $(cat "$WORK/e1")"

"$B" sweep "$SWEEP" --out "$out" --allow-other-build > "$WORK/o2" 2> "$WORK/e2" || fail "--allow-other-build: $(cat "$WORK/e2")"
[ "$(summary_run "$WORK/o2")" = $((n - 4)) ] || fail "resume ran $(summary_run "$WORK/o2"), want $((n - 4))"
$PY - "$out" "$id0" "$id1" "$n" "$(dirname "$RESULTS_VIEW")" <<'PY' || fail "per-job builds"
import collections, json, sys
out, id0, id1, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
sys.path.insert(0, sys.argv[5])
import results_view
jobs, _, _ = results_view.load(out)
c = collections.Counter(j["build_id"] for j in jobs.values())
assert c == {id0: 4, id1: n - 4}, c
m = json.load(open(out + ".manifest.json"))
assert [b["id"] for b in m["builds"]] == [id0, id1], m["builds"]
print("ok: jobs per build", dict(c))
PY
echo PASS
