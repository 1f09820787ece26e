#!/usr/bin/env bash
# Run ON THE GPU MACHINE: a whole solve's wall time for several builds,
# interleaved per graph (A B ... A B ...), so that a change to a solve's fixed
# costs (launches, the result's copy and widening) is judged against its base
# in the same lease:
#   scripts/gpu-wall-ab.sh BIN_DIR... (each holds a pagerank binary)
# Each figure is from `pagerank G --bench --json --bench-runs $WALL_RUNS`
# (bench/pagerank_suite.hpp: medians of the runs), for auto's pull in each
# precision: wall ms, device ms, the solve's phases (launch / wait / receive)
# and the speedup over the same run's cuSPARSE-loop baseline. Environment:
# WALL_GRAPHS, WALL_RUNS (7), WALL_ROUNDS (1).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
[ $# -ge 1 ] || { echo "usage: scripts/gpu-wall-ab.sh BIN_DIR..." >&2; exit 2; }
source scripts/gpu-env.sh "${CARRY:-.gpu}"
D=$PERRON_SHARED_DATA
export XDG_CACHE_HOME=${TMPDIR:-/tmp}/perron-wall-xdg
graphs=${WALL_GRAPHS:-"dangling:100000:1000000:0.9 er:100000:1000000 powerlaw:100000:1000000:2.2
  chain:1000000:1000000 dangling:1000000:1000000:0.99 $D/graphs/wiki-Vote.txt $D/graphs/ca-AstroPh-cc1.mtx.gz
  $D/graphs/cnr-2000.mtx.gz er:1000000:10000000"}
summary='
import json, sys
d = json.load(sys.stdin)
out = []
for p in ("float", "double"):
    f = d.get(p) or {}
    a = f.get("auto")
    if not a:
        out.append(p + " -")
        continue
    q = [x for x in f["pulls"] if x["pull"] == a["pull"]][0]
    ph = q.get("solve_phases_ms", {})
    out.append("%s %s %.3f dev %.3f (%.3f/%.3f/%.3f) %.2fx" % (p, a["pull"], q["wall_ms"], q["device_ms"],
               ph.get("launch", 0), ph.get("wait", 0), ph.get("receive", 0), a["speedup"]))
print(" | ".join(out))
'
echo "builds: $* (wall ms, device ms (launch/wait/receive ms), speedup)"
for g in $graphs; do
  for _ in $(seq "${WALL_ROUNDS:-1}"); do
    for b in "$@"; do
      line=$("$b/pagerank" "$g" --bench --json --bench-runs "${WALL_RUNS:-7}" 2>/dev/null | python3 -c "$summary" 2>&1)
      echo "$(basename "$g") $(basename "$b"): $line"
    done
  done
done
