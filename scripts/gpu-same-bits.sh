#!/usr/bin/env bash
# Run ON THE GPU MACHINE: whether two builds give byte-identical rank files
# (`pagerank G --device cuda -p P --top 0 --no-cache -o FILE`), in float and
# double, with auto's choices and with the persistent pull's resident mode:
#   scripts/gpu-same-bits.sh OLD_BIN_DIR NEW_BIN_DIR
# A change meant to keep the bits (a kernel's speed, a refactor) must print
# "same bits: N of N". SAME_GRAPHS replaces the graphs, SAME_MODES the
# modes (PERRON_PERSISTENT's values; auto: the solver's own choice).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
[ $# -eq 2 ] || { echo "usage: scripts/gpu-same-bits.sh OLD_BIN_DIR NEW_BIN_DIR" >&2; exit 2; }
source scripts/gpu-env.sh "${CARRY:-.gpu}"
D=$PERRON_SHARED_DATA
export XDG_CACHE_HOME=${TMPDIR:-/tmp}/perron-same-xdg
graphs=${SAME_GRAPHS:-"chain:1000000:1000000 grid:500:500 hub:1000000:200000 $D/graphs/wiki-Vote.txt
  $D/graphs/as-caida20071105.mtx.gz $D/matrices/cage11.mtx.gz $D/graphs/cnr-2000.mtx.gz
  $D/graphs/p2p-Gnutella05.txt $D/graphs/karate.mtx $D/graphs/wb-cs-stanford.mtx"}
tmp=$(mktemp -d)
n=0 bad=0
for g in $graphs; do
  for P in float double; do
    for mode in ${SAME_MODES:-auto resident}; do
      [ "$mode" = auto ] && mode=
      PERRON_PERSISTENT=$mode "$1/pagerank" "$g" --device cuda -p $P --top 0 --no-cache -o "$tmp/a.txt" >/dev/null 2>&1
      PERRON_PERSISTENT=$mode "$2/pagerank" "$g" --device cuda -p $P --top 0 --no-cache -o "$tmp/b.txt" >/dev/null 2>&1
      n=$((n + 1))
      cmp -s "$tmp/a.txt" "$tmp/b.txt" || { bad=$((bad + 1)); echo "DIFFER: $(basename "$g") $P mode=${mode:-auto}"; }
    done
  done
done
rm -rf "$tmp"
echo "same bits: $((n - bad)) of $n"
[ $bad -eq 0 ]
