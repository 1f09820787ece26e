#!/usr/bin/env bash
# Run ON THE GPU MACHINE: the same benchmarks with two builds in one session,
# interleaved (A, B, A, B), so that a refactor's speed is judged against its
# base on the same machine rather than against figures from another day:
#   scripts/gpu-ab.sh OLD_BIN_DIR NEW_BIN_DIR [DATA_DIR=$PERRON_SHARED_DATA]
# Each bin dir holds pagerank and spmv-bench. Output: one log per build and
# round under $PERRON_LOG_DIR (default /tmp/perron-out)/ab/, and a table of the
# headline figures of each. PERRON_AB=pagerank skips the SpMV runs.
set -uo pipefail
old=$1 new=$2 data=${3:-${PERRON_SHARED_DATA:-../shared/data}}
out=${PERRON_LOG_DIR:-/tmp/perron-out}/ab; mkdir -p "$out"
export XDG_CACHE_HOME=$out/xdg
cnr=$data/graphs/cnr-2000.mtx.gz
for round in 1 2; do
  for side in old new; do
    bin=$old; [ $side = new ] && bin=$new
    log=$out/$side-$round.txt; : >"$log"
    for args in "--bench --no-cache $cnr" "--bench --no-cache --precision double $cnr" "--bench rmat:20:10000000"; do
      echo "\$ pagerank $args" >>"$log"
      # shellcheck disable=SC2086
      "$bin/pagerank" $args >>"$log" 2>&1 || echo "FAILED: pagerank $args" | tee -a "$log"
    done
    [ "${PERRON_AB:-pagerank spmv}" = pagerank ] && continue
    echo "\$ spmv-bench anchors" >>"$log"
    "$bin/spmv-bench" --no-cache --kernel auto,cusparse rmat:20:10000000 synthetic:seed002:1000000 "$cnr" \
      >>"$log" 2>&1 || echo "FAILED: spmv-bench" | tee -a "$log"
  done
done
# The headline lines of each log (the lines gpu-bench.sh summarizes), per round and side.
for round in 1 2; do
  for side in old new; do
    echo "== round $round, $side"
    grep -E "speedup|per iteration|x SpMV|target|^ +(auto|cusparse) " "$out/$side-$round.txt" | cut -c1-140
  done
done
