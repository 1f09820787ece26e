#!/usr/bin/env bash
# Run ON THE GPU MACHINE: us a step of the persistent pull (or another, with
# AB_PULL) for several builds, interleaved per graph (A B ... A B ...), so that
# a kernel change is judged against its base in the same lease:
#   scripts/gpu-step-ab.sh BIN_DIR... (each holds a pagerank binary)
# A figure is device time / steps of `PERRON_PERSISTENT=$AB_MODE pagerank G
# --device cuda --pull $AB_PULL -p P --accelerate $AB_ACC --tol 1e-30
# --max-iter $AB_ITERS --json --top 0 --no-cache` (docs/PERFORMANCE.md's
# same-lease A/B tables). Environment: AB_GRAPHS, AB_PREC (float), AB_ROUNDS
# (2), AB_MODE (resident; empty: the trial's pick), AB_PULL (persistent),
# AB_ACC (none), AB_ITERS (300), AB_EXTRA (more pagerank options).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
[ $# -ge 1 ] || { echo "usage: scripts/gpu-step-ab.sh BIN_DIR..." >&2; exit 2; }
source scripts/gpu-env.sh "${CARRY:-.gpu}"
D=$PERRON_SHARED_DATA
export XDG_CACHE_HOME=${TMPDIR:-/tmp}/perron-ab-xdg
graphs=${AB_GRAPHS:-"chain:1000000:1000000 grid:500:500 $D/graphs/wiki-Vote.txt $D/graphs/as-caida20071105.mtx.gz
  $D/graphs/facebook-combined.mtx.gz $D/graphs/ca-CondMat-cc1.mtx.gz $D/graphs/ca-AstroPh-cc1.mtx.gz
  $D/matrices/cage11.mtx.gz powerlaw:100000:1000000:2.2 rmat:16:1000000 hub:1000000:200000
  $D/graphs/cnr-2000.mtx.gz"}
err=$(mktemp)
step() {  # bin graph precision -> us a step
  # shellcheck disable=SC2086
  # (not converging to 1e-30 exits non-zero: the figure stands)
  { PERRON_PERSISTENT=${AB_MODE-resident} "$1/pagerank" "$2" --device cuda --pull "${AB_PULL:-persistent}" \
    -p "$3" --accelerate "${AB_ACC:-none}" ${AB_EXTRA:-} --tol 1e-30 --max-iter "${AB_ITERS:-300}" --json \
    --top 0 --no-cache 2>"$err" || true; } |
    python3 -c "import json,sys; d=json.load(sys.stdin); print('%.2f' % (d['seconds']['device']/d['iterations']*1e6))" \
      2>/dev/null || { echo "FAIL($(head -c 120 "$err" | tr '\n' ' '))"; }
}
echo "builds: $*"
for P in ${AB_PREC:-float}; do
  for g in $graphs; do
    line="$(basename "$g") $P:"
    for _ in $(seq "${AB_ROUNDS:-2}"); do
      line="$line |"
      for b in "$@"; do line="$line $(step "$b" "$g" "$P")"; done
    done
    echo "$line"
  done
done
rm -f "$err"
