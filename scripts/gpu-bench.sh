#!/usr/bin/env bash
# Run ON THE GPU MACHINE (the bench step of scripts/gpu-run.sh, or alone):
#   scripts/gpu-bench.sh [CARRY_DIR=.gpu]
# Sections, chosen by PERRON_BENCH (default: all four, in this order):
#   spmv      spmv-bench (fp32) over the issue's anchors and every shared matrix
#   pagerank  pagerank --bench on cnr-2000 (float, double) and rmat:20:10000000,
#             and end-to-end wall times on the GPU and the CPU
#   heat      heat1d --bench at N = 1e8 (double): explicit, CN with CG, CN direct
#   read      read-bench vs scipy.io.mmread at 16 and 2 threads; .gz, cache
# Every section's output goes to <log dir>/<section>.txt (JSON beside it); a
# short table of each is printed as it ends.
set -uo pipefail
cd "$(dirname "$0")/.."
carry=${1:-.gpu}
source scripts/gpu-env.sh "$carry"
# Logs as in scripts/gpu-run.sh: a work folder, packed into $OUT/logs.tgz.
out=${PERRON_LOG_DIR:-/tmp/perron-out}; mkdir -p "$out"
[ -n "${OUT:-}" ] && trap 'tar -C "$out" -czf "$OUT/logs.tgz" .' EXIT
data=$PERRON_SHARED_DATA
cnr=$data/graphs/cnr-2000.mtx.gz
tmp=${TMPDIR:-/tmp}/perron-bench; mkdir -p "$tmp"
export XDG_CACHE_HOME=$tmp/xdg  # the apps' binary cache, away from the machine's home
status=0
run() {  # run LOG CMD...: appends the command and its output to LOG
  local log=$1; shift
  echo "\$ $*" >>"$log"
  "$@" >>"$log" 2>&1 || { status=1; echo "FAILED ($?): $*" | tee -a "$log"; }
}

for section in ${PERRON_BENCH:-spmv pagerank heat read}; do
  log=$out/$section.txt; : >"$log"
  echo "== $section ($(date +%T))"
  case $section in
    spmv)
      anchors=(synthetic:seed002:1000000 rmat:20:10000000 tridiag:100000000)
      [ -f "$cnr" ] && anchors+=("$cnr")
      others=()
      for f in "$data"/matrices/* "$data"/graphs/*; do
        case $f in *cnr-2000*|*README*) continue ;; esac
        [ -f "$f" ] && others+=("$f")
      done
      run "$log" spmv-bench --no-cache --json="$out/spmv-shared.json" "${others[@]}"
      run "$log" spmv-bench --no-cache --floors --json="$out/spmv-anchors.json" "${anchors[@]}"
      python3 scripts/spmv_summary.py "$out/spmv-shared.json" "$out/spmv-anchors.json" | tee -a "$log" ;;
    pagerank)
      run "$log" pagerank --bench --no-cache "$cnr"
      run "$log" pagerank --bench --no-cache --precision double "$cnr"
      run "$log" pagerank --bench rmat:20:10000000
      TIMEFORMAT="wall %R s"
      for dev in cuda cpu; do
        for pass in 1 2 3; do  # pass 1 writes the cache, 2 and 3 read it
          echo "pagerank --device $dev cnr-2000, pass $pass" >>"$log"
          { time run "$log" pagerank --device "$dev" "$cnr" --top 3; } 2>>"$log"
        done
      done
      grep -E "wall|speedup|per iteration|x SpMV|target" "$log" | head -40 ;;
    heat)
      n=100000000
      for op in csr stencil; do
        run "$log" heat1d -d cuda -n $n -m explicit --operator $op --bench --bench-steps 50
        for dt in 1e-15 1e-13; do
          run "$log" heat1d -d cuda -n $n -m cn -s cg --ic step:0.5 --dt $dt --operator $op --bench --bench-steps 20
        done
      done
      for dt in 1e-15 1e-13; do
        run "$log" heat1d -d cuda -n $n -m cn -s direct --ic step:0.5 --dt $dt --bench --bench-steps 20
      done
      grep -E "^\\$|bench|step:|step bytes|CG iteration" "$log" ;;
    read)
      [ -f "$tmp/cnr-2000.mtx" ] || gunzip -c "$cnr" >"$tmp/cnr-2000.mtx"
      [ -f "$tmp/rmat20.mtx" ] || read-bench --write rmat:20:10000000 "$tmp/rmat20.mtx" >>"$log"
      # (.tar.gz: the GPU bundle is built without libarchive; timed on the CPU machine)
      for th in 16 2; do
        for f in "$tmp/cnr-2000.mtx" "$tmp/rmat20.mtx" "$cnr"; do  # one file a process: peak RSS is its own
          run "$log" read-bench --threads $th --repeat 5 --cache --json "$f"
        done
        run "$log" python3 apps/read_bench_scipy.py --threads $th --repeat 5 "$tmp/cnr-2000.mtx" "$tmp/rmat20.mtx"
      done
      grep -E "^\\{" "$log" | cut -c1-400 ;;
    *) echo "unknown section $section"; status=1 ;;
  esac
done
exit $status
