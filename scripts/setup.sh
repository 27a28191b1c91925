#!/usr/bin/env bash
# Installs, with apt, whatever fusekilab needs that is missing. Safe to re-run.
set -euo pipefail

packages=(
  build-essential cmake ninja-build ccache pkg-config git python3
  clang libclang-rt-14-dev clang-format
  libtorch-dev libopenblas0-openmp libeigen3-dev libhdf5-dev libcli11-dev libgtest-dev
  nlohmann-json3-dev libtomlplusplus-dev libonnx-dev
  fairy-stockfish gpsshogi python3-h5py
  slurmctld slurmd slurm-client munge
)

# Node.js and npm run the Yari tests against ffish and Fairy-Stockfish in WebAssembly (npm) and
# the ONNX export's test against onnxruntime-web; a machine that has them from elsewhere keeps its
# own.
command -v npm >/dev/null || packages+=(nodejs npm)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  # Debian's postinst scripts start services (munge, slurmd) with invoke-rc.d; the tests run
  # their own private daemons, so keep the system ones from starting while installing.
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' | $SUDO tee /usr/sbin/policy-rc.d >/dev/null
    $SUDO chmod 755 /usr/sbin/policy-rc.d
    trap '$SUDO rm -f /usr/sbin/policy-rc.d' EXIT
  fi
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
else
  echo "setup: all packages present"
fi
