#!/usr/bin/env bash
# Compares the ranks of two pagerank binaries (e.g. before and after a refactor)
# on every graph of a data folder, in double at tol 1e-10, on each device given:
#   scripts/compare-pagerank.sh OLD_BIN NEW_BIN DATA_DIR [devices="cpu cuda"] [pulls="auto"]
# Prints one line per graph, device and pull with the largest |rank difference|;
# exits 1 when any exceeds PERRON_COMPARE_TOL (default 1e-12) or a run fails.
set -uo pipefail
old=$1 new=$2 data=$3 devices=${4:-cpu cuda} pulls=${5:-auto}
limit=${PERRON_COMPARE_TOL:-1e-12}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
status=0
for g in "$data"/graphs/* "$data"/matrices/*; do
  case $g in *README*) continue ;; esac
  for dev in $devices; do
    for pull in $pulls; do
      args=(--device "$dev" --precision double --tol 1e-10 --top 0 --no-cache)
      [ "$dev" = cuda ] && args+=(--pull "$pull")
      "$old" "${args[@]}" --output "$tmp/old.tsv" "$g" >"$tmp/old.log" 2>&1; rc_old=$?
      "$new" "${args[@]}" --output "$tmp/new.tsv" "$g" >"$tmp/new.log" 2>&1; rc_new=$?
      if [ $rc_old -ne 0 ] || [ $rc_new -ne 0 ]; then
        # Both refusing the same input (e.g. a non-square matrix) is agreement.
        if [ $rc_old -eq $rc_new ] && grep -q error "$tmp/old.log" && grep -q error "$tmp/new.log"; then
          echo "both refuse  $(basename "$g") $dev $pull"; continue
        fi
        echo "FAILED       $(basename "$g") $dev $pull"; tail -n 2 "$tmp/old.log" "$tmp/new.log"; status=1; continue
      fi
      d=$(paste "$tmp/old.tsv" "$tmp/new.tsv" | awk -v OFS=' ' '
        !/^#/ { if ($1 != $3) { bad = 1 } x = $2 - $4; if (x < 0) x = -x; if (x > m) m = x }
        END { if (bad) print "ids-differ"; else printf "%.3g\n", m }')
      ok=$(awk -v d="$d" -v l="$limit" 'BEGIN { print (d != "ids-differ" && d + 0 <= l + 0) ? "ok" : "OVER" }')
      [ "$ok" = ok ] || status=1
      printf '%-5s %-28s %-5s %-6s max|diff| %s\n' "$ok" "$(basename "$g")" "$dev" "$pull" "$d"
    done
  done
done
exit $status
