#!/usr/bin/env bash
# Run ON THE GPU MACHINE: the PageRank development corpus of issue 17.
#   scripts/pagerank-corpus.sh [CARRY_DIR=.gpu] [GRAPH...]
# Every graph and matrix of the shared data ($PERRON_SHARED_DATA, packed by
# scripts/gpu-prepare.sh) and the generated families at several sizes (or
# only the GRAPHs given), each through `pagerank --bench --json` (one process
# per graph: float and double, every SpMV kernel, each pull, auto's choice,
# the cuSPARSE-loop baseline; bench/pagerank_suite.hpp), one JSON line per
# graph into corpus.jsonl, then one table (scripts/pagerank_corpus_summary.py).
# Knobs: PERRON_CORPUS_RUNS (--bench-runs, default 10), PERRON_CORPUS_BUDGET
# (seconds after which no new graph starts, default 200), PERRON_CORPUS_TIMEOUT
# (seconds per graph, default 60), PERRON_CORPUS_ARGS (more pagerank options, e.g.
# "--accelerate none" for plain steps). Output: $OUT (or /tmp/perron-corpus).
set -uo pipefail
cd "$(dirname "$0")/.."
carry=${1:-.gpu}
shift $(( $# > 0 ? 1 : 0 ))
source scripts/gpu-env.sh "$carry"
out=${OUT:-/tmp/perron-corpus}; mkdir -p "$out"
runs=${PERRON_CORPUS_RUNS:-10}
budget=${PERRON_CORPUS_BUDGET:-200}
per_graph=${PERRON_CORPUS_TIMEOUT:-60}
export XDG_CACHE_HOME=${TMPDIR:-/tmp}/perron-corpus-xdg  # no binary cache written beside the data

graphs=("$@")
if [ ${#graphs[@]} -eq 0 ]; then
  for f in "$PERRON_SHARED_DATA"/graphs/* "$PERRON_SHARED_DATA"/matrices/*; do
    case $f in *README*) continue ;; esac
    [ -f "$f" ] && graphs+=("$f")
  done
  # Generated shapes, smallest first (links after merging duplicates, roughly),
  # one 1e8 graph before the 1e7 group so that a spent budget still leaves one:
  graphs+=(
    er:2000:10000 rmat:10:12000 grid:50:50 chain:10000:10000 hub:8000:2000           # ~1e4
    powerlaw:3000:12000:2.5 dangling:3000:10000:0.9
    rmat:16:1000000 rmat:16:1000000:0.45,0.15,0.15 rmat:16:1000000:0.7,0.1,0.1       # ~1e6
    er:100000:1000000 powerlaw:100000:1000000:2.2 powerlaw:100000:1000000:3
    grid:500:500 hub:1000000:200000 dangling:100000:1000000:0.9 dangling:1000000:1000000:0.99
    chain:1000000:1000000 ws:100000:10:0.01 cite:100000:1000000:0.8
    sbm:100000:1000000:100 bip:100000:20000:500000                                   # since session 62
    er:10000000:100000000                                                            # ~1e8
    rmat:20:10000000 rmat:20:10000000:0.45,0.15,0.15 rmat:20:10000000:0.7,0.1,0.1    # ~1e7
    er:1000000:10000000 powerlaw:1000000:10000000:2.2 powerlaw:1000000:10000000:2.7
    grid:1600:1600 hub:10000000:2000000 dangling:1000000:10000000:0.9
    chain:10000000:10000000 chain:10000000:100
    ws:2000000:6:0.01 ws:1000000:16:0.3 cite:1000000:10000000                         # since session 61
    sbm:4000000:40000000:400:0.1 sbm:4000000:48000000:40000:0.1 bip:5000000:500000:20000000  # session 62
    web:1048576:16777216 web:1048576:16777216:0.3 web:4194304:67108864               # local orders
    rmat:24:100000000
  )
fi

jsonl=$out/corpus.jsonl; : >"$jsonl"
log=$out/corpus-errors.txt; : >"$log"
start=$SECONDS
for g in "${graphs[@]}"; do
  name=${g#"$PERRON_SHARED_DATA"/}
  if (( SECONDS - start > budget )); then
    echo "{\"graph\": \"$name\", \"skipped\": \"budget of ${budget} s spent\"}" >>"$jsonl"
    continue
  fi
  t0=$SECONDS
  # shellcheck disable=SC2086  # PERRON_CORPUS_ARGS: words on purpose
  line=$(timeout "$per_graph" pagerank --bench --json --no-cache --bench-runs "$runs" ${PERRON_CORPUS_ARGS:-} "$g" 2>>"$log")
  rc=$?
  if [ $rc -eq 0 ] && [ -n "$line" ]; then
    echo "$line" >>"$jsonl"
  else
    echo "{\"graph\": \"$name\", \"error\": \"exit $rc\"}" >>"$jsonl"
    echo "^ $name: exit $rc" >>"$log"
  fi
  echo "$(date +%T) $name: exit $rc, $((SECONDS - t0)) s"
done
python3 scripts/pagerank_corpus_summary.py --strip "$PERRON_SHARED_DATA/" "$jsonl" | tee "$out/corpus.txt"
