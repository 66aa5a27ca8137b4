#!/bin/bash
# The README's second command (and what CI runs): install what is missing,
# build with warnings as errors, run the whole test suite (RelWithDebInfo), then
# the build-sensitive part of it in a Release (LTO) build; then rebuild with
# AddressSanitizer + UndefinedBehaviorSanitizer and run the unit tests and the
# end-to-end tests again under the sanitizers (that build also checks that the
# observer's events come in order: RCSIM_CHECK_ORDER).
# Usage: scripts/test.sh [--no-sanitize] [--no-slurm]
# Passes on a clone with no traces anywhere: the tests that check the paper's own numbers
# (label "traces") need the artefact's traces and are reported SKIPPED without them; fetch
# them with scripts/get-traces.sh (into data/availability/, found there) or set RCSIM_DATA_DIR.
set -euo pipefail
cd "$(dirname "$0")/.."
SANITIZE=1
SLURM=1
for arg in "$@"; do
  case "$arg" in
    --no-sanitize) SANITIZE=0 ;;
    --no-slurm) SLURM=0 ;;
    -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
    *) echo "test.sh: unknown option $arg" >&2; exit 2 ;;
  esac
done
if [ "$SLURM" = 1 ]; then scripts/deps.sh --slurm --browser --notebook; else scripts/deps.sh --browser --notebook; fi
JOBS=$(nproc)
start=$(date +%s)
ROOT=$(pwd)
# shellcheck source=scripts/traces-env.sh
source scripts/traces-env.sh
if [ -n "$(rcsim_traces_missing <(echo gen_os05 gen_os10 gen_os15 gen_os20 gen_os25 gen_os30))" ]; then
  traces_note="test.sh: the paper's traces are not in RCSIM_DATA_DIR (${RCSIM_DATA_DIR:-unset}) nor in data/availability: the tests of the paper's own numbers (label traces) are SKIPPED; run scripts/get-traces.sh to include them"
  echo "$traces_note"
else
  traces_note="test.sh: the paper's traces: ${RCSIM_DATA_DIR:-$ROOT/data/availability}"
fi

cmake -S . -B build-test -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRCSIM_WERROR=ON \
      -DRCSIM_BUILD_TESTING=ON >/dev/null
cmake --build build-test -j"$JOBS"
(cd build-test && ctest --output-on-failure -j"$JOBS" --timeout 900)
echo "test.sh: RelWithDebInfo suite passed in $(( $(date +%s) - start )) s"
echo "$traces_note"

# The build users make (README quickstart, reproduce.sh): Release, -O3 with LTO.  What differs
# from the suite above is the optimiser and the link: the layout of the binary (a build id
# folded into a constant image by LTO) and the speed of jobs (how many results one journal
# commit carries, whether a kill lands mid-sweep).  So it runs the unit tests (fast, compiled
# by the other optimiser) and the end-to-end tests of the runner, the results' integrity, the
# command line and SLURM (e2e_rel_*, e2e_farm_*, e2e_run_*, e2e_cli_*, e2e_slurm_*), not the
# analysis and figure tests (Python over results files, whatever build wrote them) nor the
# slow ones (valgrind, a second build from source): about a third of the suite's time.
cmake -S . -B build-release -DCMAKE_BUILD_TYPE=Release -DRCSIM_WERROR=ON \
      -DRCSIM_BUILD_TESTING=ON >/dev/null
cmake --build build-release -j"$JOBS"
(cd build-release && ctest --output-on-failure -j"$JOBS" --timeout 900 \
   -R '^(unit_|e2e_rel_|e2e_farm_|e2e_run_|e2e_cli_|e2e_slurm_)' -LE slow)
echo "test.sh: Release suite passed; $(( $(date +%s) - start )) s so far"

if [ "$SANITIZE" = 1 ]; then
  cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS_DEBUG="-g -O1" \
        -DRCSIM_WERROR=ON -DRCSIM_SANITIZE=ON -DRCSIM_CHECK_ORDER=ON \
        -DRCSIM_BUILD_TESTING=ON >/dev/null
  cmake --build build-asan -j"$JOBS"
  export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
  # Unit tests with leak checking; end-to-end tests without it, because OpenMPI's own
  # start-up allocations (MPI_Init) are reported as leaks that are not ours to fix.
  (cd build-asan && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
     ctest --output-on-failure -j"$JOBS" --timeout 1500 -R '^unit_')
  (cd build-asan && ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 \
     ctest --output-on-failure -j"$JOBS" --timeout 1500 -R '^e2e_' -LE "slurm|slow")
  echo "test.sh: sanitizer suite passed; total $(( $(date +%s) - start )) s"
  echo "$traces_note"
fi
