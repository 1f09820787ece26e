#!/bin/sh
# Distributed PageRank under mpirun -np NP: ranks byte-identical to the single-process CPU solve.
# usage: mpi_pagerank_check.sh PAGERANK MPIEXEC NP GRAPH
set -e
pr=$1 mpiexec=$2 np=$3 graph=$4
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$pr" "$graph" --precision double --device cpu --tol 1e-10 -o "$dir/one.tsv" >/dev/null
"$mpiexec" --allow-run-as-root --oversubscribe -np "$np" "$pr" "$graph" --precision double --device cpu \
  --tol 1e-10 -o "$dir/dist.tsv" >/dev/null
cmp "$dir/one.tsv" "$dir/dist.tsv"
