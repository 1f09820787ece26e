#!/usr/bin/env bash
# Builds everything (scripts/build.sh) and runs every test through ctest.
# GPU tests skip on machines without a GPU (set PERRON_REQUIRE_GPU=1 to make them fail instead).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh "$@"
ctest --test-dir "${PERRON_BUILD_DIR:-build}" --output-on-failure --parallel "$(nproc)"
