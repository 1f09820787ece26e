#!/usr/bin/env bash
# mpirun -np P pagerank --bench-dist with each way of sharing r (--exchange all, halo), per graph
# and P: the step and its transfer (ms, medians of the slowest rank), and the halo's share of the
# all-gather's values. One line per (graph, P); the table of docs/PERFORMANCE.md ("The halo
# exchange under mpirun").
#   scripts/mpi-exchange-bench.sh [BUILD=build] [NP list, default "2 4"]
# Graphs: the shared ones (when $PERRON_SHARED_DATA or ../shared/data is there) and generated
# shapes: a mesh, a chain, web-like, R-MAT, Erdos-Renyi, power law. One OpenMP thread a rank.
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
nps=${2:-2 4}
pr=$build/bin/pagerank
shared=${PERRON_SHARED_DATA:-../shared/data}/graphs
export OMP_NUM_THREADS=1
graphs=()
for f in cnr-2000.mtx.gz as-caida20071105.mtx.gz ca-AstroPh-cc1.mtx.gz wiki-Vote.txt p2p-Gnutella05.txt \
  wb-cs-stanford.mtx; do
  [ -f "$shared/$f" ] && graphs+=("$shared/$f")
done
graphs+=(grid:2000:2000 chain:1000000:1000000 web:1000000:10000000 rmat:20:10000000 er:1000000:10000000
  powerlaw:1000000:10000000:2.2)
echo "graph | P | all: ms/step (transfer) | halo: ms/step (transfer) | halo's share of the all-gather's values | auto"
for g in "${graphs[@]}"; do
  for np in $nps; do
    line="$(basename "$g") | $np"
    for m in all halo auto; do
      out=$(mpirun --allow-run-as-root --oversubscribe -np "$np" "$pr" "$g" --no-cache --exchange "$m" --bench-dist \
        --max-iter 40 --tol 1e-30 2>&1)
      if [ "$m" = auto ]; then
        echo "$out" | grep -q "r shared by halo" && line="$line | halo" || line="$line | all"
        continue
      fi
      step=$(echo "$out" | awk '/^per iteration/ { print $3 }')
      [ -n "$step" ] || step="failed: $(echo "$out" | grep -m1 -iE 'error|abort')"
      tr=$(echo "$out" | sed -n 's/^per iteration.*transfer at most \([0-9.]*\) ms.*/\1/p')
      line="$line | $step ($tr)"
      [ "$m" = halo ] && line="$line | $(echo "$out" | grep -o '[0-9.e+-]*% of an all-gather' | head -1 | cut -d' ' -f1)"
    done
    echo "$line"
  done
done
