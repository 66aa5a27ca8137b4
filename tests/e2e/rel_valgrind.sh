#!/bin/bash
# valgrind memcheck, end to end: `rcsim sweep` (one process, no launcher; jobs in forked
# children and, with --no-fork, in the process itself) and `rcsim run` on a few
# configurations.  No memcheck error and no definite/indirect leak in any process.
# tests/valgrind.supp hides only Open MPI's own MPI_Init allocations.  Label "slow".
source "$(dirname "$0")/rel_lib.sh"
command -v valgrind > /dev/null || skip "valgrind is not installed"
SUPP="$RCSIM_SOURCE_DIR/tests/valgrind.supp"
VG=(valgrind --leak-check=full --error-exitcode=1 --errors-for-leak-kinds=definite,indirect
    --num-callers=40 --suppressions="$SUPP")
n=$(sweep_jobs)

# Every process valgrind reported on (forked job children too) must show 0 errors.
check_log() { # $1 log, $2 what
    local total bad
    total=$(grep -c "ERROR SUMMARY:" "$1" || true)
    bad=$(grep "ERROR SUMMARY:" "$1" | grep -vc "ERROR SUMMARY: 0 errors" || true)
    [ "$total" -ge 1 ] || fail "$2: no valgrind summary in $1"
    if [ "$bad" != 0 ]; then
        grep -B2 -A30 "definitely lost in\|indirectly lost in\|Invalid\|uninitialised" "$1" | head -150 >&2
        fail "$2: $bad of $total processes have memcheck errors"
    fi
    echo "$2: $total process(es), 0 errors"
}

for mode in fork no-fork; do
    extra=(); [ "$mode" = no-fork ] && extra=(--no-fork)
    rc=0
    "${VG[@]}" "$RCSIM" sweep "$SWEEP" --out "$WORK/$mode.h5" "${extra[@]}" > "$WORK/$mode.out" 2> "$WORK/$mode.log" || rc=$?
    cat "$WORK/$mode.out"
    check_log "$WORK/$mode.log" "sweep ($mode)"
    [ "$rc" = 0 ] || fail "sweep ($mode) under valgrind: exit $rc"
    read -r jobs uniq < <(h5_jobs "$WORK/$mode.h5")
    [ "$jobs" = "$n" ] || fail "sweep ($mode): $jobs jobs in the file, want $n"
done

runs=("--users 32 --strategy unicast --duration 30m"
      "--users 32 --groups 3 --group-size 12 --strategy rc-k2-p2 --gossip-interval 60 --membership-rate 0.002 --duration 30m --out $WORK/run.h5")
synth_trace "$WORK/synth80.txt.gz"
runs+=("--users 48 --strategy rc-k2-p2-ft-dropoffline --trace $WORK/synth80.txt.gz --duration 1h --model paper")
i=0
for args in "${runs[@]}"; do
    i=$((i + 1))
    rc=0
    # shellcheck disable=SC2086  # the configuration is a word list
    "${VG[@]}" "$RCSIM" run $args --json --quiet > "$WORK/run$i.json" 2> "$WORK/run$i.log" || rc=$?
    check_log "$WORK/run$i.log" "run $args"
    [ "$rc" = 0 ] || fail "rcsim run $args under valgrind: exit $rc"
    grep -q '"deliveries":[1-9]' "$WORK/run$i.json" || fail "rcsim run $args: no deliveries"
done
echo PASS
