#!/usr/bin/env bash
# The batched mode's device choice (docs/PERFORMANCE.md, "`pagerank --sources`
# and `pagerank_batched` by the device model (session 72)"): the wall time of
# `pagerank GRAPH --sources FILE --device cpu | cuda | auto` (and auto-first: auto
# without the count an earlier run kept, so with the bound) for S random
# single-vertex source sets (seed 1) per graph and S, from the binary cache
# (one run fills it first; XDG_CACHE_HOME is a fresh folder), ROUNDS rounds
# (default 2), the device order turning each round. Each run's stderr
# summary (device, load, solve, why auto chose) is kept in OUTDIR.
# On the GPU machine, after `source scripts/gpu-env.sh .gpu`:
#   [PRECISION=double] [SOURCES="1 8 64 256"] scripts/batched-device-bench.sh OUTDIR [GRAPH...]
# prints "graph S device round exit wall_s" lines (also OUTDIR/walls.txt).
# A graph is a Matrix Market file or a generated spec (vertices named 1..n).
set -uo pipefail
out=${1:?usage: batched-device-bench.sh OUTDIR [GRAPH...]}
shift
mkdir -p "$out"
XDG_CACHE_HOME=$(mktemp -d)
export XDG_CACHE_HOME
d=${PERRON_SHARED_DATA:-../shared/data}
graphs=("$@")
if [ ${#graphs[@]} -eq 0 ]; then
  graphs=("$d/graphs/karate.mtx" "$d/graphs/wb-cs-stanford.mtx" "$d/graphs/facebook-combined.mtx.gz"
          "$d/graphs/ca-AstroPh-cc1.mtx.gz" "$d/matrices/cage11.mtx.gz" "$d/graphs/cnr-2000.mtx.gz"
          rmat:18:2000000 rmat:20:10000000 er:1000000:10000000)
fi
prec=()
[ "${PRECISION:-float}" = double ] && prec=(--precision double)
now() { date +%s.%N; }
# The vertex count: a Matrix Market size line, or a spec's (rmat: 2^scale; grid:R:C
# R * C; bip:U:I U + I; the others their second field).
vertices() {
  case $1 in
    rmat:*) echo $((1 << $(echo "$1" | cut -d: -f2))) ;;
    grid:* | bip:*) echo "$1" | awk -F: '{ print ($1 == "grid") ? $2 * $3 : $2 + $3 }' ;;
    *:*) echo "$1" | cut -d: -f2 ;;
    *.gz) zcat "$1" | grep -v '^%' | head -n 1 | awk '{print $1}' ;;
    *) grep -v '^%' "$1" | head -n 1 | awk '{print $1}' ;;
  esac
}
for g in "${graphs[@]}"; do
  name=$(basename "$g")
  n=$(vertices "$g")
  pagerank --top 0 "${prec[@]}" "$g" >/dev/null 2>&1  # fills the cache
  for s in ${SOURCES:-1 8 64 256}; do
    src="$out/$name.$s.sources"
    awk -v n="$n" -v s="$s" 'BEGIN { srand(1); for (i = 0; i < s; ++i) print 1 + int(rand() * n) }' >"$src"
    for round in $(seq 1 "${ROUNDS:-2}"); do
      # auto-first: auto without the count a set took in an earlier run (it predicts with the bound)
      devs=(cpu cuda auto auto-first)
      for k in 0 1 2 3; do
        dev=${devs[$(( (k + round - 1) % 4 ))]}
        for _ in $(seq 50); do pgrep -x pagerank >/dev/null || break; sleep 0.05; done
        sleep 0.1
        [ "$dev" = auto-first ] && rm -f "$XDG_CACHE_HOME"/perron/*.iterations-batched-*
        t0=$(now)
        pagerank --top 0 "${prec[@]}" --device "${dev%-first}" --sources "$src" "$g" \
          >/dev/null 2>"$out/$name.$s.$dev.$round.err"
        rc=$?
        t1=$(now)
        echo "$name $s $dev $round $rc $(awk "BEGIN {printf \"%.4f\", $t1 - $t0}")"
      done
    done
  done
done | tee "$out/walls.txt"
