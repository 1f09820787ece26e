#!/usr/bin/env bash
# The CPU tests under AddressSanitizer and UndefinedBehaviorSanitizer (gcc),
# in a build folder of their own, without CUDA, MPI or Python, so that what
# the sanitizers see is the host code: core, io, the CPU kernels and solvers,
# and the programs as the app tests run them. Any report fails its test
# (halt_on_error). About 20 minutes to build and 5 to run on 2 cores.
#   scripts/host-sanitize.sh [BUILD_DIR=build-sanitize] [ctest args...]
# Left out: fuzz_smoke (its own clang sanitizer build, tests/fuzz/) and
# example_find_package (it builds an outside project against the install,
# without these flags, so its link fails on the sanitizers' symbols).
# PERRON_SANITIZE_MPI=ON adds the mpirun tests (with ASAN_OPTIONS=detect_leaks=0:
# Open MPI's own allocations at exit read as leaks).
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-build-sanitize}
shift || true
flags="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPERRON_CUDA=OFF -DPERRON_MPI="${PERRON_SANITIZE_MPI:-OFF}" \
  -DPERRON_PYTHON=OFF -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="$flags" \
  -DCMAKE_SHARED_LINKER_FLAGS="$flags" >/dev/null
cmake --build "$dir"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
ctest --test-dir "$dir" --output-on-failure --parallel "$(nproc)" -E '^(fuzz_smoke|example_find_package)$' "$@"
