#!/bin/bash
# Runs a test that checks the paper's own numbers, which needs the artefact's real traces
# (schedules_gen_os{05,...,30}.txt.gz, data/README.md).  They are looked for in
# $RCSIM_DATA_DIR, else in the checkout's data/availability/ (scripts/get-traces.sh's
# default).  Absent: the test is reported SKIPPED, loudly, with the command that fetches
# them (exit 77, ctest's SKIP_RETURN_CODE).  Present but not byte-identical to the
# artefact's (scripts/get-traces.sh --check): the test fails.  Otherwise runs "$@" with
# RCSIM_DATA_DIR pointing at them.
# Usage (from ctest): need_real_traces.sh COMMAND [ARGS...]   Needs RCSIM_SOURCE_DIR.
set -uo pipefail
: "${RCSIM_SOURCE_DIR:?RCSIM_SOURCE_DIR must point at the source tree}"
[ $# -gt 0 ] || { echo "need_real_traces.sh: no command" >&2; exit 2; }
dir=${RCSIM_DATA_DIR:-$RCSIM_SOURCE_DIR/data/availability}
missing=()
for x in 05 10 15 20 25 30; do
    [ -f "$dir/schedules_gen_os$x.txt.gz" ] || missing+=("schedules_gen_os$x.txt.gz")
done
if [ ${#missing[@]} -gt 0 ]; then
    cat <<EOF
************************************************************************************
SKIPPED: real traces not found: ${missing[*]} not in $dir
This test checks the paper's own numbers and needs the artefact's traces.  Run
    scripts/get-traces.sh                  (downloads them into data/availability/)
and set RCSIM_DATA_DIR=$RCSIM_SOURCE_DIR/data/availability (or the directory you chose).
************************************************************************************
EOF
    exit 77
fi
if ! "$RCSIM_SOURCE_DIR/scripts/get-traces.sh" --check "$dir" > /dev/null; then
    echo "FAIL: the traces in $dir are not the artefact's (scripts/get-traces.sh --check $dir)"
    exit 1
fi
RCSIM_DATA_DIR=$(cd "$dir" && pwd)
export RCSIM_DATA_DIR
exec "$@"
