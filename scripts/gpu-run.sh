#!/usr/bin/env bash
# Run ON THE GPU MACHINE over a folder made by scripts/gpu-prepare.sh:
#   scripts/gpu-run.sh [CARRY_DIR=.gpu] [tests] [sanitize] [bench]   (default: all three)
# Logs go to $OUT (the device tool brings them back) when it is set.
set -uo pipefail
cd "$(dirname "$0")/.."
carry=${1:-.gpu}; shift || true
steps=${*:-tests sanitize bench}
source scripts/gpu-env.sh "$carry"
out=${OUT:-/tmp/perron-out}; mkdir -p "$out"
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
          compute-sanitizer --tool "$tool" --error-exitcode 9 "$t" --gtest_brief=1 \
            --gtest_filter="${PERRON_SANITIZE_FILTER:-*}" >"$out/sanitize-$tool-$(basename "$t").log" 2>&1 \
            || { status=1; tail -n 30 "$out/sanitize-$tool-$(basename "$t").log"; }
          tail -n 2 "$out/sanitize-$tool-$(basename "$t").log"
        done
      done ;;
    bench)
      [ -x scripts/gpu-bench.sh ] && { scripts/gpu-bench.sh "$carry" "$out" || status=1; } ;;
  esac
done
exit $status
