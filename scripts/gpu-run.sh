#!/usr/bin/env bash
# Run ON THE GPU MACHINE over a folder made by scripts/gpu-prepare.sh:
#   scripts/gpu-run.sh [CARRY_DIR=.gpu] [tests] [sanitize] [bench] [python [networkx]]
#   (default: tests sanitize bench)
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
# One sanitizer TOOL over the test binary T, its tests FILTER, logged as
# sanitize-TOOL-LOG.log: a failure's tail shown and the step failed.
# API calls that return an error are not reported by memcheck where the
# binary makes them on purpose or a library does inside itself:
# gpu_device_test's absurd allocation (its test: a cuda_error, not a crash),
# and NCCL's start on one GPU (cudaErrorNoKernelImageForDevice from inside
# libnccl, 148 of them, session 108). Their accesses are checked as any.
sanitize_test() {
  local tool=$1 t=$2 filter=$3 log="$out/sanitize-$1-$4.log" api=()
  case "$tool:$(basename "$t")" in memcheck:gpu_device_test | memcheck:gpu_dist_nccl_test) api=(--report-api-errors no) ;; esac
  timeout "${PERRON_SANITIZE_TIMEOUT:-600}" compute-sanitizer --tool "$tool" "${api[@]}" --error-exitcode 9 "$t" \
    --gtest_brief=1 --gtest_filter="$filter" >"$log" 2>&1 || { status=1; tail -n 30 "$log"; }
  tail -n 2 "$log"
}
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
      # One sanitizer process at a time and nothing else on the GPU: beside any
      # other process using it (another sanitizer, or a plain pagerank run),
      # memcheck flags accesses "inside the nearest allocation" (live buffers)
      # within a second and the context is lost; alone, the same tests give 0
      # errors (H100, session 20: the fused and persistent tests, 12 s alone).
      # gpu_spmv_test is filtered to a representative set of matrices (every
      # kernel, both precisions); the full set takes over 10 minutes under memcheck.
      # A pagerank run hands its context's teardown to a child that outlives the
      # command (apps/common/detached_exit.hpp): here each one ends whole, and
      # the tests' last ones are gone before the first sanitizer starts.
      export PERRON_TEARDOWN=wait
      for _ in $(seq 100); do pgrep -x pagerank >/dev/null || break; sleep 0.1; done
      spmv_filter=${PERRON_SANITIZE_SPMV:-'*huge_row*:*varied_rows*:*empty_rows*:*narrow*:*rmat_16*:*zero*:*one_by_one*:*wiki_Vote*:*band_11*:*seed002*:SpmvPlan*'}
      for t in "$carry"/bin/gpu_*_test; do
        name=$(basename "$t")
        f='*'; [ "$name" = gpu_spmv_test ] && f=$spmv_filter
        # gpu_pagerank_test's launches serialized: its tests build solver after
        # solver, each given the last one's addresses, and memcheck called the
        # accesses of their conditional CUDA graphs out of bounds "inside the
        # nearest allocation" of the very buffer's size (thousands a test),
        # which plain runs with the freed buffers poisoned and memcheck with
        # launches serialized do not report (docs/PERFORMANCE.md, session 89).
        serial=0; [ "$name" = gpu_pagerank_test ] && serial=1
        echo "== compute-sanitizer --tool memcheck $name (CUDA_LAUNCH_BLOCKING=$serial)"
        CUDA_LAUNCH_BLOCKING=$serial sanitize_test memcheck "$t" "$f" "$name"
        # racecheck: not on cuSPARSE's own kernels (it reports hazards inside
        # csrmv_v3_kernel, library code), and not on gpu_pagerank_test, whose
        # solves run in a conditional WHILE graph that this racecheck cannot
        # follow (a 40-line WHILE-node program crashes it too): PageRank's kernels
        # are racechecked below through the app's check-every loop instead.
        # Its interrupt test's endless solves skip under CUDA_LAUNCH_BLOCKING=1
        # (the wait that runs the check starts only when a whole graph has
        # run): memchecked here with launches as a user's run has them.
        if [ "$name" = gpu_pagerank_test ]; then
          echo "== compute-sanitizer --tool memcheck $name '*InterruptEnds*' (launches not serialized)"
          sanitize_test memcheck "$t" '*InterruptEnds*' "$name-interrupt"
          continue
        fi
        # gpu_dist_nccl_test: every GPU's SpMV plan is auto's, which may pick
        # cuSPARSE (hazards inside csrmv_v3_kernel, session 108); its kernels
        # are the SpMV kernels racechecked through gpu_spmv_test.
        [ "$name" = gpu_dist_nccl_test ] && continue
        rf="$f-*cusparse*:*auto*"; [ "$f" = '*' ] && rf='-*cusparse*'  # auto may pick cuSPARSE
        echo "== compute-sanitizer --tool racecheck $name"
        sanitize_test racecheck "$t" "$rf" "$name"
      done
      for k in csr-vector csr-adaptive merge csr-cte csr-scalar; do
        for p in float double; do
          echo "== compute-sanitizer --tool racecheck pagerank --loop check-every --kernel $k -p $p"
          compute-sanitizer --tool racecheck --error-exitcode 9 pagerank --no-cache --device cuda --loop check-every \
            --kernel "$k" -p "$p" --top 0 data/wb-cs-stanford.mtx >"$out/sanitize-racecheck-pagerank-$k-$p.log" 2>&1 \
            || { status=1; tail -n 20 "$out/sanitize-racecheck-pagerank-$k-$p.log"; }
          tail -n 1 "$out/sanitize-racecheck-pagerank-$k-$p.log"
        done
      done
      # The persistent pull: one cooperative kernel per solve (no CUDA graph).
      for p in float double; do
        echo "== compute-sanitizer --tool racecheck pagerank --pull persistent -p $p"
        compute-sanitizer --tool racecheck --error-exitcode 9 pagerank --no-cache --device cuda --pull persistent \
          -p "$p" --top 0 data/wb-cs-stanford.mtx >"$out/sanitize-racecheck-pagerank-persistent-$p.log" 2>&1 \
          || { status=1; tail -n 20 "$out/sanitize-racecheck-pagerank-persistent-$p.log"; }
        tail -n 1 "$out/sanitize-racecheck-pagerank-persistent-$p.log"
      done ;;
    python)
      # `pip install .` there (that machine's Python is not the build machine's),
      # then the module's tests, which add device="cuda" cases when a GPU is seen.
      site=/tmp/perron-py; rm -rf "$site"
      echo "== pip install . (CUDA, sm_90)"
      PATH=/usr/local/cuda/bin:$PATH CMAKE_BUILD_PARALLEL_LEVEL=$(nproc) CMAKE_ARGS="-DCMAKE_CUDA_ARCHITECTURES=90 -DPERRON_MPI=OFF" \
        python3 -m pip install -q --no-build-isolation --no-deps --target "$site" . >"$out/python-install.log" 2>&1 \
        || { status=1; tail -n 30 "$out/python-install.log"; }
      echo "== pytest tests/python (GPU required)"
      PYTHONPATH=$site python3 -c 'import perron, sys; sys.exit(0 if perron.gpu_available() else "perron sees no GPU")' \
        && PYTHONPATH=$site python3 -m pytest -q -p no:cacheprovider tests/python >"$out/python-tests.log" 2>&1 \
        || status=1
      tail -n 3 "$out/python-tests.log" ;;
    networkx)
      # perron from Python against networkx and a SciPy loop (after `python`,
      # whose module it imports): every shared graph and three generated ones
      # (networkx skipped past 4 M links), perron on the CPU, the GPU and auto.
      echo "== apps/pagerank_networkx_bench.py"
      PYTHONPATH=/tmp/perron-py python3 apps/pagerank_networkx_bench.py --devices cpu,cuda,auto \
        "$PERRON_SHARED_DATA"/graphs/* rmat:18:2500000 er:1000000:10000000 web:1048576:16777216 \
        >"$out/networkx-bench.jsonl" 2>"$out/networkx-bench.txt" || status=1
      cat "$out/networkx-bench.txt" ;;
    bench)
      [ -x scripts/gpu-bench.sh ] && { PERRON_LOG_DIR=$out scripts/gpu-bench.sh "$carry" || status=1; } ;;
  esac
done
exit $status
