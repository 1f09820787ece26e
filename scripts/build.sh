#!/usr/bin/env bash
# Installs missing Debian packages, then configures and builds perron in ./build
# (CUDA backend included when nvcc is found: PERRON_CUDA=AUTO). Extra arguments
# go to cmake, e.g. scripts/build.sh -DPERRON_CUDA=OFF
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
build=${PERRON_BUILD_DIR:-build}
if [ -x /usr/local/cuda/bin/nvcc ] && ! command -v nvcc >/dev/null; then
  export PATH=/usr/local/cuda/bin:$PATH  # let PERRON_CUDA=AUTO find the toolkit
fi
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release "$@"
cmake --build "$build" --parallel "$(nproc)"
