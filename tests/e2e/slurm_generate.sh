#!/bin/bash
# e2e: `rcsim slurm` as a generator, without a SLURM cluster (the cluster test is slurm_sweep.sh).
# Checks the directives, absolute paths, quoting of --set values, optional lines, the
# launcher/requeue switches, bash syntax of the result, and the usage errors (exit 2, no script).
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
"$RCSIM" slurm --help | grep -q "usage: rcsim slurm FILE" || fail "--help"

# Defaults: stdout, srun, requeue, ntasks = jobs + 1, no --time/--partition/--account lines.
"$RCSIM" slurm "$SWEEP" >"$WORK/s" || fail "default generation failed"
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
expect2
echo "PASS: slurm generator"
