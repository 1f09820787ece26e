#!/usr/bin/env bash
# Iterations and time of `pagerank --accelerate` against plain power iteration
# (issue 18 item 4; docs/PERFORMANCE.md "PageRank --accelerate"):
#   scripts/pagerank-accel-bench.sh DEVICE SECONDS GRAPH... > table.tsv
# DEVICE cpu or cuda; for each graph, alpha 0.85 and 0.99, float at tol 1e-6
# and double at tol 1e-10 (PRECS="float:1e-6" for one), modes none, quadratic
# and aitken (MODES to choose), each with the pull auto takes, one solve each
# (the ranks of a solve do not depend on the run: iterations are exact; the
# time is the solve's, on the GPU its CUDA-event time). Stops starting solves
# after SECONDS seconds (what ran is printed). --max-iter 20000, so plain
# iteration converges at alpha 0.99 too. Needs pagerank on PATH and python3.
set -uo pipefail
device=$1
budget=$2
shift 2
start=$(date +%s)
printf 'graph\tprecision\ttol\talpha\tmode\titerations\textrapolations\trejected\tconverged\tresidual\tsolve_ms\tdevice_ms\tpull\n'
for g in "$@"; do
  for prec in ${PRECS:-float:1e-6 double:1e-10}; do
    for alpha in 0.85 0.99; do
      for mode in ${MODES:-none quadratic aitken}; do
        if [ $(($(date +%s) - start)) -ge "$budget" ]; then
          echo "# stopped after $budget s" >&2
          exit 0
        fi
        pagerank "$g" --device "$device" --json --top 0 --alpha "$alpha" --precision "${prec%:*}" \
          --tol "${prec#*:}" --max-iter 20000 --accelerate "$mode" 2>/dev/null |
          python3 -c '
import json, sys
d = json.load(sys.stdin)
s = d["seconds"]
print("\t".join(str(x) for x in [sys.argv[1].split("/")[-1], d["precision"], sys.argv[2], d["alpha"], sys.argv[3],
      d["iterations"], d["extrapolations"], d["extrapolations_rejected"], d["converged"], "%.3g" % d["residual"],
      "%.3f" % (1e3 * s["solve"]), "%.3f" % (1e3 * s["device"]), d["kernel"]]))
' "$g" "${prec#*:}" "$mode" || echo "# failed: $g $prec $alpha $mode" >&2
      done
    done
  done
done
