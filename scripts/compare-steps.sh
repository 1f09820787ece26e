#!/usr/bin/env bash
# Step counts and result bytes of one pagerank binary on the CPU, for a before /
# after comparison of a change to the solver's automatic rules (--accelerate):
#   scripts/compare-steps.sh BIN DATA_DIR > before.txt   (then the other binary)
#   paste -d' ' before.txt after.txt | awk '$5 != $11 || $6 != $12'
# Every graph of DATA_DIR/graphs and DATA_DIR/matrices plus seven generated
# families, at alpha 0.85 / 0.99 / 0.999, float and double, uniform and
# personalized to vertex 1. One line each: graph alpha precision v iterations
# md5-prefix-of-the-ranks ("ERR" where the run refused the input). Unlike
# scripts/compare-pagerank.sh (ranks within a tolerance), this shows which
# solves took other steps (docs/PERFORMANCE.md, session 109).
set -uo pipefail
bin=$1 data=$2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
printf '1 1\n' >"$tmp/v.txt"
for g in "$data"/graphs/* "$data"/matrices/* rmat:16:1000000 er:100000:1000000 powerlaw:100000:1000000:2.2 \
  chain:100000:1000 hub:1000:200 grid:300:300 dangling:100000:1000000:0.9; do
  case $g in *README*) continue ;; esac
  for a in 0.85 0.99 0.999; do for p in float double; do for v in none p1; do
    extra=(); [ $v = p1 ] && extra=(--personalize "$tmp/v.txt")
    rm -f "$tmp/r.tsv"
    it=$(timeout 120 "$bin" "$g" --alpha $a -p $p --device cpu --cache-dir "$tmp/cache" --top 0 -o "$tmp/r.tsv" \
      "${extra[@]}" 2>&1 | awk '/^iterations/ {print $2}')
    sum=$([ -f "$tmp/r.tsv" ] && md5sum <"$tmp/r.tsv" | cut -c1-8)
    echo "$(basename "$g") $a $p $v ${it:-ERR} $sum"
  done; done; done
done
