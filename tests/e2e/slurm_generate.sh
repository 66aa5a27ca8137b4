#!/bin/bash
# e2e: `rcsim slurm` as a generator, without a SLURM cluster (the cluster test is slurm_sweep.sh).
# Checks the directives, absolute paths, quoting of --set values, optional lines, the
# launcher/requeue switches, bash syntax of the result, and the usage errors (exit 2, no script);
# the partition check against stub `scontrol`/`sinfo` programs (first on PATH) that describe a
# made-up cluster; and --array (the array job, the merge job, and the commands they run).
set -uo pipefail
: "${RCSIM:?RCSIM must point at the rcsim binary}"
: "${RCSIM_SOURCE_DIR:?RCSIM_SOURCE_DIR must point at the source tree}"
SWEEP="$RCSIM_SOURCE_DIR/experiments/ci-small.yaml"
WORK=$(mktemp -d /tmp/rcsim-slurm-gen.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
fail() { echo "FAIL: $*" >&2; [ -f "$WORK/s" ] && sed -n '1,60p' "$WORK/s" >&2; exit 1; }
has() { grep -qx -- "$1" "$WORK/s" || fail "script lacks the line: $1"; }
lacks() { ! grep -q -- "$1" "$WORK/s" || fail "script should not contain: $1"; }

cd "$WORK" || exit 1
"$RCSIM" slurm --help | grep "usage: rcsim slurm FILE" >/dev/null || fail "--help"

# Whatever SLURM this machine has (none, or a local test cluster) must not change the results
# below: stubs that fail like an unreachable controller come first on PATH.
mkdir -p "$WORK/noslurm"
for t in scontrol sinfo; do printf '#!/bin/sh\necho "%s: error: no controller" >&2\nexit 1\n' "$t" >"$WORK/noslurm/$t"; done
chmod +x "$WORK/noslurm/"*
REAL_PATH=$PATH
export PATH="$WORK/noslurm:$REAL_PATH"

# Defaults: stdout, srun, requeue, ntasks = jobs + 1, no --time/--partition/--account lines.
"$RCSIM" slurm "$SWEEP" >"$WORK/s" 2>"$WORK/err" || fail "default generation failed"
grep -q "could not ask SLURM about the partition" "$WORK/err" || fail "no note that the partition was not checked: $(cat "$WORK/err")"
bash -n "$WORK/s" || fail "default script: bash syntax error"
N=$("$RCSIM" plan "$SWEEP" --json | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["jobs"])')
has "#SBATCH --ntasks=$((N + 1))"
has "#SBATCH --nodes=1"
has "#SBATCH --signal=B:TERM@300"
has "#SBATCH --requeue"
has "#SBATCH --open-mode=append"
has "#SBATCH --dependency=singleton"
has "#SBATCH --job-name=rcsim-ci-small"
has "#SBATCH --output=$WORK/rcsim-ci-small-%j.log"
has "OUT=$WORK/ci-small.h5"
has "RCSIM=$(realpath "$RCSIM")"
has "SWEEP=$(realpath "$SWEEP")"
has "LAUNCHER=srun"
has "REQUEUE=1"
has "# jobs:     $N"
grep -q '^# partition: not checked (scontrol could not ask a SLURM controller' "$WORK/s" || fail "header lacks the partition line"
lacks "^#SBATCH --array"
lacks "ARRAY_SETUP"
lacks "#SBATCH --time"
lacks "#SBATCH --partition"
lacks "#SBATCH --account"
lacks "{{"

# Everything set; a --set value with a quote and a space survives bash quoting.
mkdir -p "$WORK/res dir" "$WORK/data"
"$RCSIM" slurm "$SWEEP" --out "res dir/r.h5" -o "$WORK/s" --nodes 2 --ntasks 9 --cpus-per-task 2 \
    --time 1-12:00 --partition short --account p42 --job-name myjob --launcher mpirun \
    --no-requeue --max-requeues 7 --signal-lead 600 --grace 100 --progress 30 \
    --set "strategy=rc-k2-p2" --data-dir data --log "$WORK/my.log" 2>/dev/null || fail "full generation failed"
bash -n "$WORK/s" || fail "full script: bash syntax error"
has "#SBATCH --nodes=2"
has "#SBATCH --ntasks=9"
has "#SBATCH --cpus-per-task=2"
has "#SBATCH --time=1-12:00"
has "#SBATCH --partition=short"
has "#SBATCH --account=p42"
has "#SBATCH --job-name=myjob"
has "#SBATCH --output=$WORK/my.log"
has "#SBATCH --signal=B:TERM@600"
has "#SBATCH --no-requeue"
has "LAUNCHER=mpirun"
has "REQUEUE=0"
has "MAX_REQUEUES=7"
has "OUT='$WORK/res dir/r.h5'"
[ -x "$WORK/s" ] || fail "-o script is not executable"
# The arguments rcsim sweep will get, as bash parses them.
got=$(bash -c "$(grep -E '^(RCSIM|SWEEP|OUT)=' "$WORK/s"); $(grep '^SWEEP_ARGS=' "$WORK/s"); printf '%s\n' \"\${SWEEP_ARGS[@]}\"")
want=$(printf '%s\n' sweep "$(realpath "$SWEEP")" --out "$WORK/res dir/r.h5" --set strategy=rc-k2-p2 \
    --data-dir "$WORK/data" --grace 100 --progress 30)
[ "$got" = "$want" ] || fail "sweep arguments: got [$got], want [$want]"

# Usage errors: exit 2 and no script written.
expect2() {
    rm -f "$WORK/e.sbatch"
    "$RCSIM" slurm "$@" -o "$WORK/e.sbatch" 2>"$WORK/err"
    local rc=$?
    [ "$rc" = 2 ] || fail "rcsim slurm $*: exit $rc, expected 2 ($(cat "$WORK/err"))"
    [ ! -e "$WORK/e.sbatch" ] || fail "rcsim slurm $*: wrote a script despite the error"
    [ -s "$WORK/err" ] || fail "rcsim slurm $*: no message on stderr"
}
printf 'name: bad\naxes:\n  no_such_key: [1, 2]\n' >"$WORK/bad.yaml"
expect2 "$WORK/bad.yaml"
expect2 "$WORK/missing.yaml"
expect2 "$SWEEP" --set users=0
expect2 "$SWEEP" --set nokey
expect2 "$SWEEP" --time abc
expect2 "$SWEEP" --time 0
expect2 "$SWEEP" --time 5 --signal-lead 300
expect2 "$SWEEP" --signal-lead 30
expect2 "$SWEEP" --grace 500
expect2 "$SWEEP" --launcher foo
expect2 "$SWEEP" --ntasks 0
expect2 "$SWEEP" --nodes 4 --ntasks 2
expect2 "$SWEEP" --out /nonexistent-dir/r.h5
expect2 "$SWEEP" --data-dir /nonexistent-dir
expect2 "$SWEEP" --partition "a b"
expect2 "$SWEEP" --no-such-option
expect2 "$SWEEP" --array 0
expect2 "$SWEEP" --array $((N + 1))
expect2 "$SWEEP" --array 2 --ntasks 4
expect2
# --array without -o: the error names -o, and nothing goes to stdout.
"$RCSIM" slurm "$SWEEP" --array 2 >"$WORK/stdout" 2>"$WORK/err" && fail "--array without -o succeeded"
grep -q -- "give -o SCRIPT" "$WORK/err" || fail "--array without -o: $(cat "$WORK/err")"
[ ! -s "$WORK/stdout" ] || fail "--array without -o wrote to stdout"

# ---- The partition check, against a made-up cluster ------------------------------------------
# debug (default): 1 node x 2 CPUs, MaxTime 1 h; big: 4 nodes x 8 CPUs, at most 2 per job;
# mixed: 3 nodes of 4 and 8 CPUs; down: State=DOWN.  MaxArraySize 5.
mkdir -p "$WORK/fakeslurm"
cat >"$WORK/fakeslurm/scontrol" <<'STUB'
#!/bin/sh
case "$*" in
"show partition -o")
  echo "PartitionName=debug AllowGroups=ALL Default=YES MaxNodes=UNLIMITED MaxTime=01:00:00 MinNodes=0 MaxCPUsPerNode=UNLIMITED Nodes=n1 State=UP TotalCPUs=2 TotalNodes=1 TRES=cpu=2,node=1"
  echo "PartitionName=big AllowGroups=ALL Default=NO MaxNodes=2 MaxTime=2-00:00:00 MinNodes=0 MaxCPUsPerNode=UNLIMITED Nodes=b[1-4] State=UP TotalCPUs=32 TotalNodes=4"
  echo "PartitionName=mixed AllowGroups=ALL Default=NO MaxNodes=UNLIMITED MaxTime=UNLIMITED MaxCPUsPerNode=UNLIMITED Nodes=m[1-3] State=UP TotalCPUs=16 TotalNodes=3"
  echo "PartitionName=down AllowGroups=ALL Default=NO MaxNodes=UNLIMITED MaxTime=UNLIMITED MaxCPUsPerNode=UNLIMITED Nodes=d1 State=DOWN TotalCPUs=64 TotalNodes=1" ;;
"show config")
  echo "Configuration data as of 2024-01-01T00:00:00"
  echo "MaxArraySize            = 5"
  echo "MaxJobCount             = 10000" ;;
*) echo "scontrol stub: unexpected arguments: $*" >&2; exit 1 ;;
esac
STUB
cat >"$WORK/fakeslurm/sinfo" <<'STUB'
#!/bin/sh
[ "$*" = "-h -o %R %c" ] || { echo "sinfo stub: unexpected arguments: $*" >&2; exit 1; }
printf 'debug 2\nbig 8\nmixed 4\nmixed 8\ndown 64\n'
STUB
chmod +x "$WORK/fakeslurm/"*
export PATH="$WORK/fakeslurm:$REAL_PATH"

# The default --ntasks fits the default partition, and the header says what was found.
"$RCSIM" slurm "$SWEEP" -o "$WORK/s" 2>"$WORK/err" || fail "generation on the fake cluster failed: $(cat "$WORK/err")"
has "#SBATCH --ntasks=2"
has "# partition: debug (default), UP: 1 node x 2 CPUs, 2 CPUs in all, MaxTime 01:00:00 (asked scontrol/sinfo)"
"$RCSIM" slurm "$SWEEP" --partition big --nodes 2 -o "$WORK/s" 2>/dev/null || fail "big --nodes 2"
has "#SBATCH --ntasks=$((N + 1))"
"$RCSIM" slurm "$SWEEP" --partition big --cpus-per-task 4 -o "$WORK/s" 2>/dev/null || fail "big --cpus-per-task 4"
has "#SBATCH --ntasks=2"
"$RCSIM" slurm "$SWEEP" --partition mixed --nodes 2 --ntasks 16 -o "$WORK/s" 2>"$WORK/err" || fail "mixed: $(cat "$WORK/err")"
grep -q "warning: 16 tasks of 1 CPU(s) may not fit on 2 nodes" "$WORK/err" || fail "mixed: no warning: $(cat "$WORK/err")"
"$RCSIM" slurm "$SWEEP" --partition down --ntasks 4 -o "$WORK/s" 2>"$WORK/err" || fail "down: $(cat "$WORK/err")"
grep -q "warning: partition 'down' is DOWN" "$WORK/err" || fail "down: no warning: $(cat "$WORK/err")"
"$RCSIM" slurm "$SWEEP" --ntasks 16 --no-partition-check -o "$WORK/s" 2>/dev/null || fail "--no-partition-check"
has "#SBATCH --ntasks=16"
has "# partition: not checked (--no-partition-check)"

# Requests that could never start: exit 2, no script, and a message with the numbers.
refuse() {  # refuse "needle" args...
    local needle="$1"; shift
    expect2 "$SWEEP" "$@"
    grep -qF -- "$needle" "$WORK/err" || fail "rcsim slurm $*: message lacks '$needle': $(cat "$WORK/err")"
}
refuse "--ntasks 16 x --cpus-per-task 1 = 16 CPUs, but partition 'debug' has 2 CPUs in all (1 node): the job would stay pending forever (Reason=PartitionConfig); use --ntasks 2 or fewer" --ntasks 16
refuse "--cpus-per-task 4, but the nodes of partition 'debug' have 2 CPUs" --cpus-per-task 4 --ntasks 1
refuse "--nodes 2, but partition 'debug' has 1 node" --nodes 2 --ntasks 2
refuse "allows at most 2 per job (MaxNodes)" --partition big --nodes 3 --ntasks 3
refuse "do not fit on --nodes 1 of partition 'big' (8 CPUs each): use --ntasks 8 or fewer" --partition big --ntasks 9
refuse "--time 2:00:00 is longer than the MaxTime 01:00:00 of partition 'debug'" --time 2:00:00 --ntasks 2
refuse "no partition 'nope' on this cluster (partitions: debug*, big, mixed, down" --partition nope
refuse "MaxArraySize is 5" --array 6
expect2 "$SWEEP" --partition nope --no-partition-check --ntasks 0
"$RCSIM" slurm "$SWEEP" --partition nope --no-partition-check -o "$WORK/s" 2>/dev/null || fail "--no-partition-check with an unknown partition"
has "#SBATCH --partition=nope"

# ---- --array: an array job of single-rank shards and a merge job ------------------------------
A="$WORK/arr-dir"
mkdir -p "$A"
"$RCSIM" slurm "$SWEEP" --array 4 --out "$A/res.h5" -o "$A/fig.sbatch" --time 30:00 --set users=16 \
    2>"$WORK/err" || fail "--array generation failed: $(cat "$WORK/err")"
[ -f "$A/fig.sbatch" ] && [ -f "$A/fig-merge.sbatch" ] || fail "--array did not write fig.sbatch and fig-merge.sbatch"
grep -qF 'jid=$(sbatch --parsable '"$A/fig.sbatch"') && sbatch --dependency=afterok:${jid%%;*} '"$A/fig-merge.sbatch" "$WORK/err" ||
    fail "--array: no submit command on stderr: $(cat "$WORK/err")"
cp "$A/fig.sbatch" "$WORK/s"
bash -n "$WORK/s" || fail "array script: bash syntax error"
has "#SBATCH --array=0-3"
has "#SBATCH --ntasks=1"
has "#SBATCH --nodes=1"
has "#SBATCH --time=30:00"
has "#SBATCH --output=$A/rcsim-ci-small-%A_%a.log"
has "#SBATCH --requeue"
has "PARTS=$A/res.parts"
has "NSHARDS=4"
grep -qxF 'OUT="$PARTS/part-$TASK.h5"' "$WORK/s" || fail "array script lacks the per-task OUT line"
lacks "{{"
# Task 2's command line, as bash parses it.
got=$(cd "$WORK" && bash -c "$(grep -E '^(RCSIM|SWEEP|PARTS|NSHARDS)=' "$WORK/s"); TASK=2; $(grep '^OUT=' "$WORK/s"); $(grep '^SWEEP_ARGS=' "$WORK/s"); printf '%s\n' \"\${SWEEP_ARGS[@]}\"")
want=$(printf '%s\n' sweep "$(realpath "$SWEEP")" --shard 2/4 --out "$A/res.parts/part-2.h5" --set users=16)
[ "$got" = "$want" ] || fail "array task arguments: got [$got], want [$want]"
# Outside SLURM the array script refuses to run (it is not a plain script).
(unset SLURM_ARRAY_TASK_ID; bash "$WORK/s" >"$WORK/out" 2>&1); rc=$?
[ "$rc" = 2 ] && grep -q "this is an array job script" "$WORK/out" || fail "array script outside SLURM: exit $rc: $(cat "$WORK/out")"

cp "$A/fig-merge.sbatch" "$WORK/s"
bash -n "$WORK/s" || fail "merge script: bash syntax error"
has "#SBATCH --job-name=rcsim-ci-small-merge"
has "#SBATCH --ntasks=1"
has "#SBATCH --time=30:00"
has "#SBATCH --kill-on-invalid-dep=yes"
has "#SBATCH --output=$A/rcsim-ci-small-merge-%j.log"
has "OUT=$A/res.h5"
has "PARTS=$A/res.parts"
has "NSHARDS=4"
grep -qxF '"$RCSIM" merge "${parts[@]}" --out "$NEW"' "$WORK/s" || fail "merge script lacks the rcsim merge line"
lacks "{{"
# Run the merge script outside SLURM with a stand-in rcsim that records its arguments and, as
# a real merge does, writes the --out file and its journal (the script installs the merged file
# only when both are there): it must refuse while a part is missing, then call `rcsim merge`
# with the parts in shard order and install what it wrote.
cat >"$WORK/stand-in" <<'STUB'
#!/bin/sh
printf '%s\n' "$@" >"$(dirname "$0")/merge-args"
for a in "$@"; do out=$a; done
: >"$out"; : >"$out.journal"
STUB
chmod +x "$WORK/stand-in"
sed "s|^RCSIM=.*|RCSIM='$WORK/stand-in'|" "$A/fig-merge.sbatch" >"$WORK/m.sh"
mkdir -p "$A/res.parts"
for i in 0 1 3; do : >"$A/res.parts/part-$i.h5"; done
bash "$WORK/m.sh" >"$WORK/out" 2>&1 && fail "merge script ran with part-2 missing"
grep -q "part-2.h5 is missing" "$WORK/out" || fail "merge script: no message about part-2: $(cat "$WORK/out")"
[ ! -e "$WORK/merge-args" ] || fail "merge script called rcsim with a part missing"
: >"$A/res.parts/part-2.h5"
bash "$WORK/m.sh" >"$WORK/out" 2>&1 || fail "merge script failed: $(cat "$WORK/out")"
want=$(printf '%s\n' merge "$A/res.parts/part-0.h5" "$A/res.parts/part-1.h5" "$A/res.parts/part-2.h5" \
    "$A/res.parts/part-3.h5" --out "$A/res.h5.merging")
[ "$(cat "$WORK/merge-args")" = "$want" ] || fail "merge arguments: got [$(cat "$WORK/merge-args")], want [$want]"
[ -e "$A/res.h5" ] && [ -e "$A/res.h5.journal" ] && [ ! -e "$A/res.h5.merging" ] ||
    fail "merge script did not install the merged file and its journal as $A/res.h5"
# A second --array generation with -o NAME (no .sbatch) names the merge script NAME-merge.
"$RCSIM" slurm "$SWEEP" --array 2 -o "$WORK/plain" 2>/dev/null || fail "--array -o plain"
[ -f "$WORK/plain-merge" ] || fail "--array -o plain did not write plain-merge"
echo "PASS: slurm generator"
