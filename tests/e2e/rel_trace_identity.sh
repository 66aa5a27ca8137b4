#!/bin/bash
# A trace is identified by its content.  Four spellings of one file give one
# job id; two spellings of one file on a sweep axis are one job (refused as a duplicate); each
# job's results say which trace it read (name, SHA-256 of the decompressed text, lines); a sweep
# stopped after 2 of 6 jobs and resumed with --data-dir pointing at ANOTHER file of the same
# name is refused with exit 2 naming both files and checksums, and the journal is untouched.
# Synthetic traces only (no real trace files needed).
source "$(dirname "$0")/rel_lib.sh"
mkdir -p "$WORK/A" "$WORK/B"
synth_hour_trace "$WORK/A/schedules_gen_syn.txt.gz" 1
synth_hour_trace "$WORK/B/schedules_gen_syn.txt.gz" 2
sha_a=$(gzip -dc "$WORK/A/schedules_gen_syn.txt.gz" | sha256sum | cut -d' ' -f1)
sha_b=$(gzip -dc "$WORK/B/schedules_gen_syn.txt.gz" | sha256sum | cut -d' ' -f1)
[ "$sha_a" != "$sha_b" ] || fail "the two synthetic traces are identical"

# 1. One job id for every spelling of the same file.
ids=()
for t in syn gen_syn schedules_gen_syn.txt.gz "$WORK/A/schedules_gen_syn.txt.gz"; do
    id=$("$RCSIM" run --users 16 --duration 10m --data-dir "$WORK/A" --trace "$t" --json |
         $PY -c 'import json,sys; print(json.load(sys.stdin)["job_id"])') || fail "run --trace $t"
    ids+=("$id")
done
[ "$(printf '%s\n' "${ids[@]}" | sort -u | wc -l)" = 1 ] || fail "spellings give several job ids: ${ids[*]}"
# ... and another content under the same name gives another id.
idb=$("$RCSIM" run --users 16 --duration 10m --data-dir "$WORK/B" --trace syn --json |
      $PY -c 'import json,sys; print(json.load(sys.stdin)["job_id"])')
[ "$idb" != "${ids[0]}" ] || fail "two different files named gen_syn gave one job id $idb"
echo "ok: one id ${ids[0]} for 4 spellings, another ($idb) for another file"

# 2. Two spellings of one file on an axis are the same job.
cat > "$WORK/dup.yaml" <<YAML
name: dup
defaults: {duration: 10m, users: 16}
axes:
  trace: [syn, gen_syn]
YAML
rc=0; "$RCSIM" sweep "$WORK/dup.yaml" --out "$WORK/dup.h5" --data-dir "$WORK/A" 2> "$WORK/e_dup" || rc=$?
[ "$rc" = 2 ] || fail "axis [syn, gen_syn]: exit $rc, want 2"
grep -q "are the same job" "$WORK/e_dup" || fail "no 'same job' message: $(cat "$WORK/e_dup")"
[ ! -e "$WORK/dup.h5" ] && [ ! -e "$WORK/dup.h5.journal" ] || fail "dup sweep wrote files"
echo "ok: $(cat "$WORK/e_dup")"

# 3. Provenance: every job names its trace by content.
cat > "$WORK/t.yaml" <<YAML
name: traced
defaults: {duration: 10m, users: 16, trace: syn}
axes:
  strategy: [unicast, rc-k2-p2]
seeds: 3
YAML
out="$WORK/r.h5"
"$RCSIM" sweep "$WORK/t.yaml" --out "$out" --data-dir "$WORK/A" > "$WORK/o1" 2> "$WORK/e1" || fail "sweep on A: $(cat "$WORK/e1")"
$PY - "$out" "$sha_a" "$WORK/A/schedules_gen_syn.txt.gz" "$out.manifest.json" "$(dirname "$RESULTS_VIEW")" <<'PY' || fail "provenance"
import json, sys
out, sha, path, manifest, here = sys.argv[1:]
sys.path.insert(0, here)
import results_view
jobs, _, _ = results_view.load(out)
assert len(jobs) == 6, len(jobs)
for a in jobs.values():
    assert a["trace_sha256"] == sha, (a["trace_sha256"], sha)
    assert int(a["trace_lines"]) == 40 and a["trace_name"] == "gen_syn" and a["trace"] == "syn"
    assert f"trace_sha256={sha}" in a["canonical"], a["canonical"]
m = json.load(open(manifest))
t = m["traces"]
assert len(t) == 1 and t[0]["sha256"] == sha and t[0]["path"] == path and t[0]["lines"] == 40, t
print("ok: 6 jobs carry trace gen_syn sha256", sha[:12], "40 lines; manifest names", path)
PY

# 4. Stopped after 2 jobs, resumed against another file of the same name: refused.
journal_keep "$out.journal" 2
rm -f "$out"
jsum=$(md5sum < "$out.journal")
rc=0; "$RCSIM" sweep "$WORK/t.yaml" --out "$out" --data-dir "$WORK/B" > "$WORK/o2" 2> "$WORK/e2" || rc=$?
[ "$rc" = 2 ] || fail "resume with another trace file: exit $rc, want 2 ($(cat "$WORK/e2"))"
for w in "$WORK/A/schedules_gen_syn.txt.gz" "$WORK/B/schedules_gen_syn.txt.gz" "$sha_a" "$sha_b"; do
    grep -qF "$w" "$WORK/e2" || fail "the refusal does not name $w: $(cat "$WORK/e2")"
done
[ "$(md5sum < "$out.journal")" = "$jsum" ] || fail "the refused resume changed the journal"
[ ! -e "$out" ] || fail "the refused resume wrote $out"
echo "ok: $(cat "$WORK/e2")"

# 5. The same resume against the original file runs the 4 missing jobs.
"$RCSIM" sweep "$WORK/t.yaml" --out "$out" --data-dir "$WORK/A" > "$WORK/o3" 2> "$WORK/e3" || fail "resume on A: $(cat "$WORK/e3")"
[ "$(summary_run "$WORK/o3")" = 4 ] || fail "resume ran $(summary_run "$WORK/o3") jobs, want 4"
[ "$(h5_jobs "$out")" = "6 6" ] || fail "after the resume: $(h5_jobs "$out")"
echo PASS
