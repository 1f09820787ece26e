#!/usr/bin/env bash
# Device choice (issue 17, item 4; docs/PERFORMANCE.md "Device choice"): the
# wall time of `pagerank --device cpu | cuda | auto` per graph (and cuda-wait:
# cuda without the detached teardown), from the binary
# cache (one run fills it first; XDG_CACHE_HOME is a fresh folder), ROUNDS
# rounds (default 3) of the three devices; each run's --json (phases, the CUDA context's
# own duration, the model's predictions) is kept in OUTDIR.
# On the GPU machine, after `source scripts/gpu-env.sh .gpu`:
#   scripts/device-choice-bench.sh OUTDIR [GRAPH...]
# prints "graph device round exit wall_s" lines (also OUTDIR/walls.txt).
set -uo pipefail
out=${1:?usage: device-choice-bench.sh OUTDIR [GRAPH...]}
shift
mkdir -p "$out"
XDG_CACHE_HOME=$(mktemp -d)
export XDG_CACHE_HOME
d=${PERRON_SHARED_DATA:-../shared/data}
graphs=("$@")
if [ ${#graphs[@]} -eq 0 ]; then
  graphs=("$d/graphs/karate.mtx" "$d/graphs/wiki-Vote.txt" "$d/graphs/wb-cs-stanford.mtx"
          "$d/graphs/email-Eu-core.txt.gz" "$d/matrices/cage11.mtx.gz" "$d/graphs/cnr-2000.mtx.gz"
          rmat:20:10000000)
fi
now() { date +%s.%N; }
for g in "${graphs[@]}"; do
  name=$(basename "$g")
  pagerank --top 0 --json "$g" >"$out/$name.fill.json" 2>&1
  for round in $(seq 1 "${ROUNDS:-3}"); do
    # cuda-wait: --device cuda in one process, the context's teardown waited for
    # (PERRON_TEARDOWN=wait; apps/common/detached_exit.hpp), beside cuda's split run.
    # Each run on a quiet machine: a split GPU run's child tears its context
    # down after the run's end (0.05-0.2 s), beside whatever runs next, and
    # the driver goes on freeing a context's memory after its process has
    # ended. The order turns each round, and runs backwards every other
    # round: turned alone, a device always followed the same one (session
    # 104: auto always came right after cuda-wait's teardown, and its CPU
    # solve measured up to 20% over cpu's, the same work).
    devs=(cpu cuda cuda-wait auto)
    for k in 0 1 2 3; do
      j=$(( (k + round - 1) % 4 ))
      [ $(( round % 2 )) -eq 0 ] && j=$(( 3 - j ))
      dev=${devs[$j]}
      for _ in $(seq 50); do pgrep -x pagerank >/dev/null || break; sleep 0.05; done
      sleep 0.3
      t0=$(now)
      if [ "$dev" = cuda-wait ]; then
        PERRON_TEARDOWN=wait pagerank --top 0 --json --device cuda "$g" >"$out/$name.$dev.$round.json" 2>&1
      else
        pagerank --top 0 --json --device "$dev" "$g" >"$out/$name.$dev.$round.json" 2>&1
      fi
      rc=$?
      t1=$(now)
      echo "$name $dev $round $rc $(awk "BEGIN {printf \"%.4f\", $t1 - $t0}")"
    done
  done
done | tee "$out/walls.txt"
