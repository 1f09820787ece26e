#!/usr/bin/env bash
# (Kept in the tree: docs/PERFORMANCE.md "Locality reordering" cites it.)
# Issue 18 item 2 on the GPU: pagerank --reorder none | rcm | dbg, --device cuda,
# on cnr-2000, rmat:20:10000000 and web:1000000:10000000, with the automatic
# pull and with --pull spmv. Prints per run: iterations, device microseconds per
# iteration (CUDA events around the loop / iterations), the solve, the reorder's
# host time and the gathers' locality before -> after (mean |i - j|, share
# within 32768, share hitting a simulated 1 MiB cache). Run after
# `source scripts/gpu-env.sh .gpu` (binaries on PATH, PERRON_SHARED_DATA set);
# logs under $OUT. About 60 s on an H100; stops starting runs after 80 s.
set -uo pipefail
out=${OUT:-/tmp}/reorder-bench
mkdir -p "$out"
graphs=("$PERRON_SHARED_DATA/graphs/cnr-2000.mtx.gz" rmat:20:10000000 web:1000000:10000000)
field() {  # field NAME FILE: the first number after "NAME":
  grep -o "\"$1\": [0-9][-0-9.e+]*" "$2" | head -1 | sed 's/.*: //'
}
printf "%-22s %-5s %-6s %-16s %5s %9s %9s %9s %19s %13s %13s\n" graph order pull kernel iters us/iter solve_s reorder_s \
  gap_b-\>a win_b-\>a hits_b-\>a
for g in "${graphs[@]}"; do
  for pull in auto spmv; do
    for order in none rcm dbg; do
      if [ "$SECONDS" -gt 80 ]; then
        echo "stopping at 80 s: $g $pull $order and after not run"
        break 3
      fi
      name=$(basename "$g" | sed 's/:/_/g')
      log="$out/$name.$pull.$order.json"
      if ! timeout 25 pagerank "$g" --device cuda --reorder "$order" --pull "$pull" --pull-trial off \
          --json --top 0 >"$log" 2>"$out/$name.$pull.$order.err"; then
        echo "$g $pull $order: failed ($(head -c 300 "$out/$name.$pull.$order.err"))"
        continue
      fi
      iters=$(field iterations "$log")
      device=$(grep -o '"device": [0-9][0-9.e+-]*' "$log" | tail -1 | sed 's/.*: //')
      solve=$(grep -o '"solve": [0-9][0-9.e+-]*' "$log" | head -1 | sed 's/.*: //')
      reorder=$(grep -o '"seconds": {[^}]*' "$log" | grep -o '"reorder": [0-9][0-9.e+-]*' | sed 's/.*: //')
      kernel=$(grep -o '"kernel": "[^"]*"' "$log" | head -1 | sed 's/.*: "//; s/"//')
      gap=$(grep -o '"mean_gap": \[[^]]*\]' "$log" | sed 's/.*\[//; s/\]//; s/, /->/')
      win=$(grep -o '"within_window": \[[^]]*\]' "$log" | sed 's/.*\[//; s/\]//; s/, /->/')
      hits=$(grep -o '"cache_hits": \[[^]]*\]' "$log" | sed 's/.*\[//; s/\]//; s/, /->/')
      us=$(awk -v d="$device" -v k="$iters" 'BEGIN { printf "%.1f", (k > 0 ? d / k * 1e6 : 0) }')
      printf "%-22s %-5s %-6s %-16s %5s %9s %9s %9s %19s %13s %13s\n" "$name" "$order" "$pull" "$kernel" \
        "$iters" "$us" "$solve" "${reorder:-0}" "${gap:--}" "${win:--}" "${hits:--}"
    done
  done
done
