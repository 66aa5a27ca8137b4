#!/bin/bash
# The README's first command: install what is missing, build, and run the
# default sweep (experiments/quick.yaml) with MPI, then print its results.
# Usage: scripts/quickstart.sh [--np N] [--out FILE.h5] [--build DIR] [--configure-only]
# (--configure-only: configure DIR as below and stop; it installs nothing.)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
# quick.yaml needs no trace; this only lets `rcsim` find the paper's traces afterwards too.
# shellcheck source=scripts/traces-env.sh
source scripts/traces-env.sh
NP=3
OUT=results/quick.h5
BUILD=build
CONFIGURE_ONLY=0
while [ $# -gt 0 ]; do
  case "$1" in
    --np) NP="$2"; shift 2 ;;
    --out) OUT="$2"; shift 2 ;;
    --build) BUILD="$2"; shift 2 ;;
    --configure-only) CONFIGURE_ONLY=1; shift ;;
    -h|--help) sed -n '2,5p' "$0"; exit 0 ;;
    *) echo "quickstart: unknown option $1" >&2; exit 2 ;;
  esac
done
[ "$CONFIGURE_ONLY" = 1 ] || scripts/deps.sh
# Every option the build depends on is given, so a build directory configured before with
# other options (tests on, sanitizers, LTO off) is reconfigured to the same result.
cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DRCSIM_BUILD_TESTING=OFF -DRCSIM_SANITIZE=OFF \
    -DRCSIM_FUZZ=OFF -DRCSIM_LTO=ON >/dev/null
[ "$CONFIGURE_ONLY" = 1 ] && exit 0
cmake --build "$BUILD" -j"$(nproc)"
mkdir -p "$(dirname "$OUT")"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
"$BUILD/rcsim" plan experiments/quick.yaml
time mpirun -np "$NP" "$BUILD/rcsim" sweep experiments/quick.yaml --out "$OUT"
"$BUILD/rcsim" summarize "$OUT"
