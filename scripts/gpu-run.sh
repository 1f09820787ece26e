#!/usr/bin/env bash
# Run ON THE GPU MACHINE over a folder made by scripts/gpu-prepare.sh:
#   scripts/gpu-run.sh [CARRY_DIR=.gpu] [tests] [sanitize] [bench]   (default: all three)
set -uo pipefail
cd "$(dirname "$0")/.."
carry=${1:-.gpu}; shift || true
steps=${*:-tests sanitize bench}
source scripts/gpu-env.sh "$carry"
# Logs go to a work folder; with the device tool's $OUT set they come back as
# one tarball ($OUT returns at most 8 files), packed even when a step fails.
out=${PERRON_LOG_DIR:-/tmp/perron-out}; mkdir -p "$out"
[ -n "${OUT:-}" ] && trap 'tar -C "$out" -czf "$OUT/logs.tgz" .' EXIT
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem --format=csv | tee "$out/gpu.txt"
status=0
for step in $steps; do
  case $step in
    tests)
      # Every test binary: GPU ones must pass (PERRON_REQUIRE_GPU=1), CPU ones too.
      for t in "$carry"/bin/*_test; do
        echo "== $(basename "$t")"
        "$t" --gtest_brief=1 >"$out/$(basename "$t").log" 2>&1 || { status=1; tail -n 40 "$out/$(basename "$t").log"; }
        tail -n 3 "$out/$(basename "$t").log"
      done ;;
    sanitize)
      for t in "$carry"/bin/gpu_*_test; do
        for tool in memcheck racecheck; do
          echo "== compute-sanitizer --tool $tool $(basename "$t")"
          timeout "${PERRON_SANITIZE_TIMEOUT:-600}" compute-sanitizer --tool "$tool" --error-exitcode 9 "$t" --gtest_brief=1 \
            --gtest_filter="${PERRON_SANITIZE_FILTER:-*}" >"$out/sanitize-$tool-$(basename "$t").log" 2>&1 \
            || { status=1; tail -n 30 "$out/sanitize-$tool-$(basename "$t").log"; }
          tail -n 2 "$out/sanitize-$tool-$(basename "$t").log"
        done
      done ;;
    bench)
      [ -x scripts/gpu-bench.sh ] && { PERRON_LOG_DIR=$out scripts/gpu-bench.sh "$carry" || status=1; } ;;
  esac
done
exit $status
