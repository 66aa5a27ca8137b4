#!/bin/bash
# Studies beyond the paper: runs experiments/reconcile.yaml and
# experiments/membership.yaml into results/study/ (resuming), then draws the
# reconciliation figure (figures/study/reconcile.{png,pdf,md}) and prints the
# membership table (figures/study/membership.md).  Needs the paper's traces (gen_os10,
# gen_os15): scripts/get-traces.sh, data/README.md.
# Usage: scripts/study.sh [--quick] [--np N] [--build-dir DIR] [--no-build]
#   --quick  2 h simulated, one seed (a smoke run in a minute)
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
PY=/usr/bin/python3
export PYTHONPATH="$ROOT/analysis${PYTHONPATH:+:$PYTHONPATH}"  # the package rcplot
NP=$(( $(nproc) + 1 ))
BUILD=build
DO_BUILD=1
SETS=()
TAG=study
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) SETS+=(--set duration=2h --set seed=1 --set source_offline=1800:3600); TAG=study-quick ;;
    --np) NP=$2; shift ;;
    --build-dir) BUILD=$2; shift ;;
    --no-build) DO_BUILD=0 ;;
    -h|--help) sed -n '2,7p' "$0"; exit 0 ;;
    *) echo "study.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
# shellcheck source=scripts/traces-env.sh
source "$ROOT/scripts/traces-env.sh"
missing=$(rcsim_traces_missing experiments/reconcile.yaml experiments/membership.yaml)
if [ -n "$missing" ]; then rcsim_traces_hint "study.sh" "$missing"; exit 1; fi
if [ "$DO_BUILD" = 1 ]; then
  [ -f "$BUILD/CMakeCache.txt" ] || cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$BUILD" -j"$(nproc)" --target rcsim
fi
LAUNCH=()
if [ "$NP" -gt 1 ] && command -v mpirun >/dev/null; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
  LAUNCH=(mpirun -np "$NP")
fi
mkdir -p "results/$TAG" "figures/$TAG"
for s in reconcile membership; do
  "${LAUNCH[@]}" "$BUILD/rcsim" sweep "experiments/$s.yaml" --out "results/$TAG/$s.h5" "${SETS[@]}"
done
"$PY" -m rcplot study-figures reconcile "results/$TAG/reconcile.h5" "figures/$TAG"
"$PY" -m rcplot summarize "results/$TAG/membership.h5" | tee "figures/$TAG/membership.md"
