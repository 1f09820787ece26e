#!/usr/bin/env bash
# Run ON THE GPU MACHINE (the bench step of scripts/gpu-run.sh, or alone):
#   scripts/gpu-bench.sh [CARRY_DIR=.gpu] [OUT_DIR=$OUT] [spmv-bench options...]
# spmv-bench (fp32) over the issue's anchor matrices and over every matrix and
# graph in the carried shared data; tables in OUT_DIR/spmv-*.txt, JSON beside
# them, the anchors' table printed last.
set -uo pipefail
cd "$(dirname "$0")/.."
carry=${1:-.gpu}
out=${2:-${OUT:-/tmp/perron-out}}
shift $(( $# > 2 ? 2 : $# )) || true
source scripts/gpu-env.sh "$carry"
mkdir -p "$out"
data=$PERRON_SHARED_DATA
status=0

anchors=(synthetic:seed002:1000000 rmat:20:10000000 tridiag:100000000)
[ -f "$data/graphs/cnr-2000.mtx.gz" ] && anchors+=("$data/graphs/cnr-2000.mtx.gz")
others=()
for f in "$data"/matrices/* "$data"/graphs/*; do
  case $f in *cnr-2000*|*README*) continue ;; esac
  [ -f "$f" ] && others+=("$f")
done

if [ ${#others[@]} -gt 0 ]; then
  echo "== spmv-bench: ${#others[@]} shared matrices (fp32)"
  spmv-bench --json="$out/spmv-shared.json" "$@" "${others[@]}" >"$out/spmv-shared.txt" 2>"$out/spmv-shared.log" \
    || { status=1; tail -n 20 "$out/spmv-shared.log"; }
fi
echo "== spmv-bench: anchors (fp32)"
spmv-bench --json="$out/spmv-anchors.json" "$@" "${anchors[@]}" >"$out/spmv-anchors.txt" 2>"$out/spmv-anchors.log" \
  || { status=1; tail -n 20 "$out/spmv-anchors.log"; }
# auto vs cuSPARSE ALG1 over the shared matrices, then the anchors' full table.
grep -E "^(matrix| )|  auto " "$out/spmv-shared.txt" 2>/dev/null | cut -c1-140
cat "$out/spmv-anchors.txt"
exit $status
