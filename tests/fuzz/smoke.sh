#!/usr/bin/env bash
# The ctest `fuzz_smoke`: builds the four libFuzzer targets with clang in a
# build folder of their own and runs each for a few seconds on a scratch copy of
# its committed corpus, so that they cannot stop building or start failing
# unseen. Exits 77 (ctest: skipped) when clang or its libFuzzer is missing.
# Usage: [CMAKE=cmake] tests/fuzz/smoke.sh SOURCE_DIR BUILD_DIR [SECONDS_PER_TARGET]
set -euo pipefail
src=$1
build=$2
seconds=${3:-20}
cmake=${CMAKE:-cmake}

if ! command -v clang >/dev/null || ! command -v clang++ >/dev/null; then
  echo "fuzz_smoke: clang not found; skipped"
  exit 77
fi
mkdir -p "$build"
probe="$build/probe"
if ! echo 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long) { return 0; }' |
  clang++ -x c++ -fsanitize=fuzzer - -o "$probe" 2>/dev/null; then
  echo "fuzz_smoke: clang++ cannot link libFuzzer (-fsanitize=fuzzer); skipped"
  exit 77
fi

generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
CC=clang CXX=clang++ "$cmake" -S "$src" -B "$build" "${generator[@]}" "${launcher[@]}" -DPERRON_FUZZ=ON \
  -DPERRON_CUDA=OFF -DPERRON_BUILD_APPS=OFF -DPERRON_BUILD_TESTS=OFF >"$build/configure.log" ||
  { cat "$build/configure.log"; exit 1; }
"$cmake" --build "$build" --parallel "$(nproc)" --target fuzz_matrix_market fuzz_snap fuzz_gzip fuzz_graph_files

status=0
for target in matrix_market snap gzip graph_files; do
  corpus="$build/run/$target"
  artifacts="$build/artifacts/$target/"
  rm -rf "$corpus" "$artifacts"
  mkdir -p "$corpus" "$artifacts"
  cp "$src/tests/fuzz/corpus/$target/"* "$corpus/"
  dict=()
  [ -f "$src/tests/fuzz/$target.dict" ] && dict=(-dict="$src/tests/fuzz/$target.dict")
  log="$build/$target.log"
  if OMP_NUM_THREADS=1 "$build/bin/fuzz_$target" -max_total_time="$seconds" -timeout=10 -max_len=4096 \
    -print_final_stats=1 "${dict[@]}" -artifact_prefix="$artifacts" "$corpus" >"$log" 2>&1; then
    echo "fuzz_$target: $(grep -m1 '^Done' "$log" || echo done)"
  else
    echo "fuzz_$target FAILED; the end of $log:"
    tail -n 40 "$log"
    echo "artifacts (reproduce with $build/bin/fuzz_$target FILE): $(ls "$artifacts")"
    status=1
  fi
done
exit $status
