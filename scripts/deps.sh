#!/bin/bash
# Installs the Debian 12 packages rcsim needs, skipping those already present.
# Usage: scripts/deps.sh [--slurm] [--fuzz] [--browser] [--notebook]  (run as root; apt-get)
# --browser adds headless Chromium, used only by the tests of `rcsim report`
# (tests/e2e/report_browser.sh renders the HTML page and checks the charts; skipped
# without it).  libjs-chart.js is always installed: `rcsim report` inlines its Chart.js
# into the HTML page it writes.
# --notebook adds Jupyter's nbconvert and the Python kernel: tests/e2e/analysis_api.sh then
# executes analysis/examples/explore.ipynb (without them it runs the notebook's code cells
# as a script).
set -euo pipefail

pkgs=(build-essential cmake pkg-config git openmpi-bin libopenmpi-dev libgsl-dev libhdf5-dev
      hdf5-tools libcriterion-dev libyaml-dev zlib1g-dev nettle-dev libjansson-dev python3-h5py
      python3-numpy python3-matplotlib python3-pandas libjs-chart.js valgrind gdb lmod tcl)
for arg in "$@"; do
  case "$arg" in
    --slurm) pkgs+=(slurm-wlm munge) ;;
    --fuzz) pkgs+=(clang libclang-rt-14-dev) ;;
    --browser) pkgs+=(chromium) ;;
    --notebook) pkgs+=(python3-nbconvert python3-ipykernel) ;;
    *) echo "deps.sh: unknown option $arg" >&2; exit 2 ;;
  esac
done

missing=()
for p in "${pkgs[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "deps: all ${#pkgs[@]} packages present"
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "deps: missing packages: ${missing[*]}" >&2
  echo "deps: run as root (or: sudo apt-get install ${missing[*]})" >&2
  exit 1
fi
echo "deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends "${missing[@]}"
