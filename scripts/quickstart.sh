#!/bin/bash
# The README's first command: install what is missing, build, and run the
# default sweep (experiments/quick.yaml) with MPI, then print its results.
# Usage: scripts/quickstart.sh [--np N] [--out FILE.h5]
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
# quick.yaml needs no trace; this only lets `rcsim` find the paper's traces afterwards too.
# shellcheck source=scripts/traces-env.sh
source scripts/traces-env.sh
NP=3
OUT=results/quick.h5
while [ $# -gt 0 ]; do
  case "$1" in
    --np) NP="$2"; shift 2 ;;
    --out) OUT="$2"; shift 2 ;;
    -h|--help) sed -n '2,4p' "$0"; exit 0 ;;
    *) echo "quickstart: unknown option $1" >&2; exit 2 ;;
  esac
done
scripts/deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DRCSIM_BUILD_TESTING=OFF >/dev/null
cmake --build build -j"$(nproc)"
mkdir -p "$(dirname "$OUT")"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
./build/rcsim plan experiments/quick.yaml
time mpirun -np "$NP" ./build/rcsim sweep experiments/quick.yaml --out "$OUT"
/usr/bin/python3 analysis/summarize.py "$OUT"
