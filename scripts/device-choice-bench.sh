#!/usr/bin/env bash
# Device choice (issue 17, item 4; docs/PERFORMANCE.md "Device choice"): the
# wall time of `pagerank --device cpu | cuda | auto` per graph (and cuda-wait:
# cuda without the detached teardown), from the binary
# cache (one run fills it first; XDG_CACHE_HOME is a fresh folder), ROUNDS
# rounds (default 3) of each device, the GPU runs apart from the CPU-path
# runs (below); each run's --json (phases, the CUDA context's
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
  # Each run on a quiet machine. A GPU run disturbs whatever runs after it:
  # a split run's child tears its context down after the run's end (0.05-0.2
  # s), and the driver goes on freeing a context's memory after its process
  # has ended, past a 0.3 s wait (session 105: CPU-path runs right after GPU
  # runs took 10-35% longer, every phase of them). So a graph's GPU runs come
  # first, cuda and cuda-wait (--device cuda in one process, the context's
  # teardown waited for: PERRON_TEARDOWN=wait, apps/common/detached_exit.hpp)
  # in pairs, then a pause, then cpu and auto in pairs, no GPU process between
  # them (auto's own context, where it takes the GPU, is its run's, and a
  # pause follows it). A pair's
  # order alternates by round: in one order, auto always ran right after
  # cuda-wait's teardown (session 104: its CPU solve up to 20% over cpu's, the
  # same work).
  for pair in "cuda cuda-wait" "cpu auto"; do
    [ "$pair" = "cpu auto" ] && sleep 1  # the last GPU run's teardown
    for round in $(seq 1 "${ROUNDS:-3}"); do
      order=$pair
      [ $(( round % 2 )) -eq 0 ] && order=$(echo "$pair" | awk '{print $2, $1}')
      for dev in $order; do
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
        # An auto run that took the GPU: the pause the GPU runs get.
        [ "$dev" = auto ] && grep -q '"device": "cuda"' "$out/$name.$dev.$round.json" && sleep 1
      done
    done
  done
done | tee "$out/walls.txt"
