#!/bin/bash
# Builds the libFuzzer harnesses with clang (tests/fuzz/fuzz.cmake) and runs
# each for a bounded time.  Usage: scripts/fuzz.sh [SECONDS_PER_HARNESS] [HARNESS...]
# Defaults: 60 s each; harnesses trace, trace_gz, sweep.  Exits non-zero if any
# harness finds a crash, leak, UB, timeout or out-of-memory; the reproducer is
# left in build-fuzz/findings/<harness>/ (see docs/fuzzing.md).
set -euo pipefail
SECONDS_EACH=${1:-60}
shift || true
HARNESSES=("$@")
[ ${#HARNESSES[@]} -gt 0 ] || HARNESSES=(trace trace_gz sweep)
SRC=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${RCSIM_FUZZ_BUILD:-$SRC/build-fuzz}
JOBS=${JOBS:-2}

cmake -S "$SRC" -B "$BUILD" -DCMAKE_C_COMPILER=clang -DRCSIM_FUZZ=ON \
      -DRCSIM_BUILD_TESTING=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$BUILD" -j"$JOBS" --target $(printf 'fuzz_%s ' "${HARNESSES[@]}") >/dev/null

status=0
for h in "${HARNESSES[@]}"; do
    # The working corpus grows in the build tree; the committed seeds stay small.
    work="$BUILD/corpus/$h"
    findings="$BUILD/findings/$h"
    mkdir -p "$work" "$findings"
    seeds="$SRC/tests/fuzz/corpus/$h"
    dict=()
    [ -f "$SRC/tests/fuzz/$h.dict" ] && dict=(-dict="$SRC/tests/fuzz/$h.dict")
    echo "fuzz_$h: ${SECONDS_EACH}s (corpus $work, seeds $seeds)"
    if ! "$BUILD/fuzz_$h" "${dict[@]}" -max_total_time="$SECONDS_EACH" -timeout=10 \
            -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 \
            -artifact_prefix="$findings/" "$work" "$seeds" \
            >"$BUILD/fuzz_$h.log" 2>&1; then
        echo "fuzz_$h: FAILED, see $BUILD/fuzz_$h.log and $findings/" >&2
        grep -E 'ERROR|SUMMARY|Test unit written' "$BUILD/fuzz_$h.log" | head -5 >&2 || true
        status=1
    else
        grep -E '^Done [0-9]+ runs|^stat::peak_rss_mb' "$BUILD/fuzz_$h.log" | sed "s/^/  /" || true
    fi
done
exit $status
