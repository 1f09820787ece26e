#!/usr/bin/env bash
# pagerank under mpirun -np NP against the single-process CPU solve, and its
# fault cases. Run from the source folder (ctest does).
#
#   mpi_pagerank_check.sh PAGERANK MPIEXEC NP compare GRAPH   ranks equal (double, |diff| <= 1e-10, and
#                                                            byte-identical), also with --exchange all and
#                                                            halo; exit 77 if GRAPH is absent
#   mpi_pagerank_check.sh PAGERANK MPIEXEC NP weighted        --weighted on real-valued files
#   mpi_pagerank_check.sh PAGERANK MPIEXEC NP undirected      --undirected read in parts, streamed, drawn,
#                                                            generated whole, weighted, and from the per-rank
#                                                            cache beside the directed graph's
#   mpi_pagerank_check.sh PAGERANK MPIEXEC NP uneven          10007 vertices (also with --personalize and
#                                                            --initial); a graph whose links all enter
#                                                            the first 4096 vertices (ranks with no vertices,
#                                                            a rank with vertices but no links)
#   mpi_pagerank_check.sh PAGERANK MPIEXEC NP cache           the per-rank cache (io/cache.hpp, rank_part) on a
#                                                            plain .mtx (read in parts) and a SNAP .txt.gz (read
#                                                            whole): the second run reads it ("from_cache"), same
#                                                            ranks; a corrupt or truncated part, a changed file
#                                                            and a change of NP make every rank read again;
#                                                            a distributed run keeps the single-process run's
#                                                            CSR of A^T; an unusable --cache-dir: one warning
#   mpi_pagerank_check.sh PAGERANK MPIEXEC NP stream          .gz, .tar.gz and SNAP text streamed by rank 0 in
#                                                            small windows (PERRON_DIST_WINDOW) so that every
#                                                            rank parses some: ranks bitwise those of one
#                                                            process (pattern, --weighted, symmetric, SNAP);
#                                                            a bad line, one entry too many deep in a .gz (the
#                                                            last rank's windows), too few, a bad line in a
#                                                            .tar.gz's member, a bad SNAP line, a truncated
#                                                            .gz: one message with the true line; junk after
#                                                            a streamed .tar.gz's gzip data: refused; comments
#                                                            longer than a window before the size line or an
#                                                            edge list's first line
#   mpi_pagerank_check.sh PAGERANK MPIEXEC NP faults          a missing file, a graph without vertices (named),
#                                                            procfs files (size 0, read to their end), a named
#                                                            pipe (read by rank 0 alone; as --personalize:
#                                                            refused), a bad
#                                                            line and too many entries
#                                                            in the last rank's bytes, too few, out of memory
#                                                            on the last rank, options refused under mpirun
#                                                            (--gpus, --reorder, --pull fused|persistent), an
#                                                            unwritable output, ranks started with different
#                                                            arguments, the same arguments refused on one rank
#                                                            only, files of one name that differ between ranks
#                                                            (the graph, --personalize): one
#                                                            message naming the rank, the documented exit
#                                                            code, no output file, no hang
set -u
pr=$1 mpiexec=$2 np=$3 mode=$4
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
mpirun=("$mpiexec" --allow-run-as-root --oversubscribe)
# Open MPI 4 keeps a session folder per host and user, /tmp/ompi.<host>.<uid>, which concurrent
# mpiruns create and remove: one that loses the race fails in orte_init ("A call to mkdir was
# unable to create the desired directory ... File exists"; open-mpi/ompi#8510), which made these
# tests flaky when ctest or other jobs ran mpirun beside them. Each test gets its own.
export OMPI_MCA_orte_tmpdir_base="$dir"
export OMP_NUM_THREADS=1
fail() {
  echo "FAIL: $*" >&2
  exit 1
}

# Single-process and distributed ranks of one graph agree. Extra args go to both runs, and
# --accelerate none: the distributed solve takes plain steps, and the single-process one (-np 1
# included) would extrapolate where it pays by default (a different vector within tol).
compare() {
  local graph=$1
  shift
  set -- "$@" --accelerate none
  timeout 240 "$pr" "$graph" --precision double --device cpu --tol 1e-10 --no-cache -o "$dir/one.tsv" "$@" \
    >"$dir/one.out" 2>&1 || fail "single-process run on $graph: $(cat "$dir/one.out")"
  timeout 240 "${mpirun[@]}" -np "$np" "$pr" "$graph" --precision double --device cpu --tol 1e-10 --no-cache \
    -o "$dir/dist.tsv" "$@" >"$dir/dist.out" 2>&1 || fail "mpirun -np $np on $graph: $(cat "$dir/dist.out")"
  awk -F'\t' 'NR == FNR { id[FNR] = $1; r[FNR] = $2; n = FNR; next }
              { if ($1 != id[FNR]) { print "vertex " $1 " at line " FNR ", expected " id[FNR]; bad = 1; exit }
                d = $2 - r[FNR]; if (d < 0) d = -d
                if (d > 1e-10) { print "vertex " $1 ": " $2 " vs " r[FNR]; bad = 1; exit } m = FNR }
              END { if (!bad && m != n) { print m " lines, expected " n; bad = 1 } exit bad }' \
    "$dir/one.tsv" "$dir/dist.tsv" || fail "$graph: ranks differ beyond 1e-10 (np $np)"
  cmp -s "$dir/one.tsv" "$dir/dist.tsv" || fail "$graph: ranks within 1e-10 but not bitwise equal (np $np)"
  if [ "$np" -gt 1 ]; then
    grep -q "^distributed *$np MPI ranks" "$dir/dist.out" || fail "$graph: no 'distributed' summary line"
    # A generated graph of draws: every rank draws its share, none generates it whole.
    case $graph in rmat:* | er:* | powerlaw:* | hub:* | dangling:* | web:*)
      grep -q "generated by every rank" "$dir/dist.out" || fail "$graph: not generated by every rank" ;;
    esac
    # Whichever way r travels (auto took one of them above), the same bytes.
    local how
    for how in all halo; do
      timeout 240 "${mpirun[@]}" -np "$np" "$pr" "$graph" --precision double --device cpu --tol 1e-10 --no-cache \
        --exchange "$how" -o "$dir/how.tsv" "$@" >"$dir/how.out" 2>&1 || fail "--exchange $how on $graph: $(cat "$dir/how.out")"
      grep -q "r shared by $([ $how = all ] && echo all-gather || echo halo exchange)" "$dir/how.out" ||
        fail "--exchange $how on $graph: not said in the summary: $(grep distributed "$dir/how.out")"
      cmp -s "$dir/one.tsv" "$dir/how.tsv" || fail "$graph: --exchange $how changed the ranks (np $np)"
    done
  fi
}

# A run that must fail: exit code, exactly one error line matching a pattern, no output file.
expect_failure() {
  local code=$1 pattern=$2
  shift 2
  rm -f "$dir/out.tsv"
  timeout 120 "$@" >"$dir/fail.out" 2>"$dir/fail.err"
  local got=$?
  [ "$got" -ne 124 ] || fail "hung (killed after 120 s): $*"
  [ "$got" -eq "$code" ] || fail "exit $got, expected $code: $* : $(cat "$dir/fail.err")"
  local lines
  lines=$(grep -c "pagerank: error:" "$dir/fail.err")
  [ "$lines" -eq 1 ] || fail "$lines error lines, expected 1: $(cat "$dir/fail.err")"
  grep -q -- "pagerank: error: $pattern" "$dir/fail.err" || fail "no 'pagerank: error: $pattern' in: $(cat "$dir/fail.err")"
  ! ls -a "$dir" | grep -q 'out\.tsv' || fail "an output file was left: $(ls -a "$dir")"
}

# An uneven graph: n vertices, every fifth dangling, three out-arcs of the others.
write_uneven() {
  awk -v n="$2" 'BEGIN { m = 0; for (j = 1; j <= n; j++) if (j % 5) m += 3
    print "%%MatrixMarket matrix coordinate pattern general"; print n, n, m
    for (j = 1; j <= n; j++) if (j % 5) { print j, (j * 1 + 3) % n + 1; print j, (j * 7 + 3) % n + 1; print j, (j * 13 + 3) % n + 1 } }' >"$1"
}

# Every link into vertices 1..4096 of n = 3 * 4096 + 5.
write_first_block() {
  awk 'BEGIN { n = 3 * 4096 + 5; print "%%MatrixMarket matrix coordinate pattern general"; print n, n, n
    for (j = 1; j <= n; j++) print j, (j - 1) % 4096 + 1 }' >"$1"
}

# One cached run: its --json's from_cache must be $1, its ranks those of $dir/ref.tsv, and its
# stderr must match $2 ('' for no warning at all).
cached_run() {
  local want=$1 warning=$2 n=$3 graph=$4
  shift 4
  timeout 240 "${mpirun[@]}" -np "$n" "$pr" "$graph" --precision double --device cpu --tol 1e-10 \
    --cache-dir "$dir/cache" --json --accelerate none -o "$dir/cached.tsv" "$@" >"$dir/cached.out" 2>"$dir/cached.err" ||
    fail "mpirun -np $n on $graph: $(cat "$dir/cached.err")"
  grep -q "\"from_cache\": $want" "$dir/cached.out" ||
    fail "$graph, np $n: from_cache is not $want: $(cat "$dir/cached.out" "$dir/cached.err")"
  if [ "$n" -gt 1 ] && [ "$want" = true ]; then
    grep -q '"distributed": ".*from the per-rank cache' "$dir/cached.out" || fail "$graph: no per-rank cache note"
  fi
  if [ -z "$warning" ]; then
    [ ! -s "$dir/cached.err" ] || fail "$graph, np $n: unexpected stderr: $(cat "$dir/cached.err")"
  else
    grep -q -- "$warning" "$dir/cached.err" || fail "$graph, np $n: no warning '$warning' in: $(cat "$dir/cached.err")"
  fi
  cmp -s "$dir/ref.tsv" "$dir/cached.tsv" || fail "$graph, np $n: ranks differ from the single-process solve"
}

# Overwrites the last 4 bytes of a file (its payload) in place.
corrupt_tail() {
  local size
  size=$(stat -c %s "$1")
  printf '\377\377\377\177' | dd of="$1" bs=1 seek=$((size - 4)) conv=notrunc 2>/dev/null
}

case $mode in
  cache)
    # np 1 under mpirun is the single-process program and its cache (one .perron-cache file of
    # the arcs, and one .perron-part: the CSR of A^T it builds P^T from next time); np > 1 writes
    # one .perron-part per rank.
    [ "$np" -gt 1 ] && ext=perron-part || ext=perron-cache
    [ "$np" -gt 1 ] && who="rank $((np - 1)): " || who=""
    cp data/cage8.mtx "$dir/graph.mtx"
    cp data/email-Eu-core.txt.gz "$dir/graph.txt.gz"
    for g in "$dir/graph.mtx" "$dir/graph.txt.gz"; do
      rm -rf "$dir/cache"
      "$pr" "$g" --precision double --device cpu --tol 1e-10 --no-cache --accelerate none -o "$dir/ref.tsv" >/dev/null ||
        fail "single-process run on $g"
      cached_run false "" "$np" "$g"
      # --json's text_bytes: the whole input's text, as one process counts it (not rank 0's part).
      grep -q "\"text_bytes\": $(gzip -dcf "$g" | wc -c)}" "$dir/cached.out" ||
        fail "$g, np $np: text_bytes is not the input's $(gzip -dcf "$g" | wc -c): $(grep -o '"text_bytes": [0-9]*' "$dir/cached.out")"
      [ "$(ls "$dir/cache" | grep -c "\.$ext\$")" -eq "$([ "$np" -gt 1 ] && echo "$np" || echo 1)" ] ||
        fail "$g: cache files after the first run: $(ls "$dir/cache")"
      cached_run true "" "$np" "$g"
      # The last rank's part corrupt, then truncated (np 1: the arcs' entry and the part): a
      # warning naming it, the input read again, rewritten.
      if [ "$np" -gt 1 ]; then
        broken=$(ls "$dir/cache"/*."$ext" | sort -V | tail -1)
      else
        [ "$(ls "$dir/cache" | grep -c '\.np1\.r0\.perron-part$')" -eq 1 ] ||
          fail "$g: no kept CSR of A^T after the first run: $(ls "$dir/cache")"
        broken=$(ls "$dir/cache"/*.perron-cache "$dir/cache"/*.perron-part)
      fi
      for f in $broken; do corrupt_tail "$f"; done
      cached_run false "warning: ${who}ignoring the cache .*checksum mismatch (corrupt)" "$np" "$g"
      cached_run true "" "$np" "$g"
      for f in $broken; do truncate -s 50 "$f"; done
      cached_run false "warning: ${who}ignoring the cache .*truncated" "$np" "$g"
      cached_run true "" "$np" "$g"
      # The file changed (its modification time): stale everywhere, re-read without a warning.
      touch -d '2001-01-01' "$g"
      cached_run false "" "$np" "$g"
      cached_run true "" "$np" "$g"
      # Another number of ranks: not served by these parts, which it removes (np + 1 > 1 always
      # runs distributed); back at np, read again.
      cached_run false "" $((np + 1)) "$g"
      [ "$(ls "$dir/cache" | grep -c "\.np$((np + 1))\.r[0-9]*\.perron-part\$")" -eq $((np + 1)) ] ||
        fail "$g: parts after np $((np + 1)): $(ls "$dir/cache")"
      # Only the single-process run's kept CSR of A^T (np1.r0) is left beside them.
      [ "$(ls "$dir/cache" | grep -c '\.perron-part$')" -eq $((np + 1 + (np == 1))) ] ||
        fail "$g: parts of np $np left after np $((np + 1)): $(ls "$dir/cache")"
      cached_run true "" $((np + 1)) "$g"
      if [ "$np" -gt 1 ]; then
        cached_run false "" "$np" "$g"
        cached_run true "" "$np" "$g"
      else  # the single-process entry is another file, still valid
        cached_run true "" 1 "$g"
      fi
    done
    # A distributed run leaves the single-process run's kept CSR of A^T (the part of one rank of
    # one) in place: it removed it with the parts of other rank counts, so the next single-process
    # run converted the arcs again.
    rm -rf "$dir/cache"
    cp data/cage8.mtx "$dir/graph.mtx"
    single_cached() {
      timeout 120 "$pr" "$dir/graph.mtx" --device cpu --cache-dir "$dir/cache" --json -o "$dir/single.tsv" \
        >"$dir/single.out" 2>&1 || fail "single-process cached run: $(cat "$dir/single.out")"
    }
    single_cached
    single_cached
    grep -q '"cache_transposed": true' "$dir/single.out" || fail "no kept CSR of A^T: $(cat "$dir/single.out")"
    timeout 240 "${mpirun[@]}" -np $((np > 1 ? np : 2)) "$pr" "$dir/graph.mtx" --device cpu --cache-dir "$dir/cache" \
      -o "$dir/dist.tsv" >"$dir/dist.out" 2>&1 || fail "mpirun beside the kept CSR: $(cat "$dir/dist.out")"
    single_cached
    grep -q '"cache_transposed": true' "$dir/single.out" ||
      fail "the distributed run dropped the kept CSR of A^T: $(ls "$dir/cache"; cat "$dir/single.out")"
    # --weighted keeps its own parts (summed weights) beside the pattern ones.
    rm -rf "$dir/cache"
    cp data/cage8.mtx "$dir/graph.mtx"
    "$pr" "$dir/graph.mtx" --weighted --precision double --device cpu --tol 1e-10 --no-cache --accelerate none -o "$dir/ref.tsv" \
      >/dev/null || fail "single-process --weighted run"
    cached_run false "" "$np" "$dir/graph.mtx" --weighted
    cached_run true "" "$np" "$dir/graph.mtx" --weighted
    # --names keeps its own parts too: an edge list of integers read by name is another graph
    # (numbered by first appearance, "07" apart from "7") than the same list read by its ids.
    rm -rf "$dir/cache"
    { echo "7 07"; echo "07 7"; gzip -dc data/email-Eu-core.txt.gz; } >"$dir/ints.txt"
    for names in --names ""; do
      "$pr" "$dir/ints.txt" $names --precision double --device cpu --tol 1e-10 --no-cache --accelerate none \
        -o "$dir/ref.tsv" >/dev/null || fail "single-process run on ints.txt $names"
      cached_run false "" "$np" "$dir/ints.txt" $names
      cached_run true "" "$np" "$dir/ints.txt" $names
    done
    grep -q "^07	" "$dir/cached.tsv" && fail "ints.txt read by ids named a vertex 07"
    # --bipartite likewise (rank 0 reads the graph whole and splits it into its two sets), its
    # parts keeping where the second set starts: the summary says it from the cache too.
    { echo "% bip unweighted"; gzip -dc data/email-Eu-core.txt.gz | grep -v '^#'; } >"$dir/out.bip"
    "$pr" "$dir/out.bip" --bipartite --precision double --device cpu --tol 1e-10 --no-cache --accelerate none \
      -o "$dir/ref.tsv" >/dev/null || fail "single-process run on out.bip --bipartite"
    cached_run false "" "$np" "$dir/out.bip" --bipartite
    cached_run true "" "$np" "$dir/out.bip" --bipartite
    grep -q '"bipartite": {"first_set": [1-9]' "$dir/cached.out" ||
      fail "out.bip --bipartite from the cache: no first set in $(grep -o '"bipartite": [^,]*' "$dir/cached.out")"
    # A --cache-dir that no rank can create (a file): one warning naming the ranks, not one a rank.
    if [ "$np" -gt 1 ]; then
      timeout 240 "${mpirun[@]}" -np "$np" "$pr" "$dir/graph.mtx" --device cpu --cache-dir "$dir/ref.tsv" --top 0 \
        >/dev/null 2>"$dir/warn.err" || fail "mpirun with a file as --cache-dir: $(cat "$dir/warn.err")"
      [ "$(grep -c warning "$dir/warn.err")" -eq 1 ] &&
        grep -q "^perron: warning: ranks 0-$((np - 1)): cannot create the cache directory $dir/ref.tsv" "$dir/warn.err" ||
        fail "not one warning for ranks 0-$((np - 1)): $(cat "$dir/warn.err")"
    fi
    ;;
  compare)
    graph=$5
    case $graph in *:*) ;; *) [ -e "$graph" ] || { echo "skipped: $graph is absent"; exit 77; } ;; esac
    compare "$graph"
    ;;
  undirected)
    # --undirected: each rank mirrors the arcs it is sent as the single process does (after every
    # arc): read in parts (a general .mtx), streamed (SNAP text, .gz), drawn by every rank (rmat:),
    # generated whole (chain:), weighted; the ranks of one process, bitwise.
    compare data/cage8.mtx --undirected
    compare data/cage8.mtx --undirected --weighted
    PERRON_DIST_WINDOW=4096 compare data/wiki-Vote.txt --undirected
    compare data/email-Eu-core.txt.gz --undirected
    compare rmat:12:40000 --undirected
    compare chain:300:300 --undirected
    # The per-rank cache keeps the directed and the undirected graph apart.
    for u in "" --undirected "" --undirected; do
      "$pr" data/wiki-Vote.txt $u --precision double --device cpu --tol 1e-10 --no-cache --accelerate none \
        -o "$dir/ref.tsv" >/dev/null || fail "single-process run on wiki-Vote.txt $u"
      timeout 240 "${mpirun[@]}" -np "$np" "$pr" data/wiki-Vote.txt $u --precision double --device cpu --tol 1e-10 \
        --cache-dir "$dir/ucache" --accelerate none -o "$dir/u.tsv" >"$dir/u.out" 2>&1 ||
        fail "mpirun -np $np on wiki-Vote.txt $u: $(cat "$dir/u.out")"
      cmp -s "$dir/ref.tsv" "$dir/u.tsv" || fail "wiki-Vote.txt $u from the per-rank cache: ranks differ (np $np)"
    done
    ;;
  weighted)
    # A .gz is read whole by rank 0, which sends the weights with the arcs.
    gzip -c data/cage8.mtx >"$dir/cage8.mtx.gz"
    compare "$dir/cage8.mtx.gz" --weighted
    # The same arcs as a weighted CSV edge list with a header, streamed to every rank in small
    # windows (the header goes with rank 0's first one): the ranks of the Matrix Market file.
    awk 'BEGIN { print "source,target,weight" } /^%/ { next } !size { size = 1; next } { print $1 "," $2 "," $3 }' \
      data/cage8.mtx >"$dir/cage8.csv"
    PERRON_DIST_WINDOW=4096 compare "$dir/cage8.csv" --weighted
    "$pr" data/cage8.mtx --weighted --precision double --device cpu --tol 1e-10 --no-cache --accelerate none \
      -o "$dir/mtx.tsv" >/dev/null || fail "single-process --weighted run on cage8.mtx"
    cmp -s "$dir/one.tsv" "$dir/mtx.tsv" || fail "cage8.csv: ranks differ from cage8.mtx's"
    # Graph files (GML with Newman's weights, Pajek, GraphML gzipped): read whole by rank 0, the
    # names broadcast, the undirected edges both ways.
    gzip -c data/karate.graphml >"$dir/karate.graphml.gz"
    for g in data/lesmis.gml data/netscience.net "$dir/karate.graphml.gz"; do
      compare "$g" --weighted
    done
    for g in data/cage8.mtx data/netscience.mtx data/west0067.mtx; do
      # west0067 has negative values: both runs must refuse it alike
      if [ "$g" = data/west0067.mtx ]; then
        single=$("$pr" "$g" --weighted --device cpu --no-cache 2>&1 >/dev/null)
        want=${single#pagerank: error: }
        [ "$np" -gt 1 ] && want="rank [0-9]*: $want"
        expect_failure 65 "$want" "${mpirun[@]}" -np "$np" "$pr" "$g" --weighted --device cpu --no-cache \
          -o "$dir/out.tsv"
      else
        compare "$g" --weighted
      fi
    done
    ;;
  uneven)
    write_uneven "$dir/uneven.mtx" 10007
    compare "$dir/uneven.mtx"
    # --personalize and --initial on a plain .mtx read in parts (their vertices were checked against
    # a graph of 0 vertices there: 'vertex 1 is not in the graph (vertices are numbered 1..0)').
    printf '1 1\n17 2.5\n10007 0.5\n' >"$dir/vertices.txt"
    compare "$dir/uneven.mtx" --personalize "$dir/vertices.txt"
    compare "$dir/uneven.mtx" --initial "$dir/vertices.txt"
    write_uneven "$dir/small.mtx" 100
    compare "$dir/small.mtx"
    write_first_block "$dir/first-block.mtx"
    compare "$dir/first-block.mtx"
    # --bench-dist: a row per rank and the per-iteration line
    timeout 120 "${mpirun[@]}" -np "$np" "$pr" "$dir/uneven.mtx" --bench-dist --no-cache >"$dir/bench.out" 2>&1 ||
      fail "--bench-dist: $(cat "$dir/bench.out")"
    [ "$(grep -c '^ *[0-9]\+ \+[0-9]\+ ' "$dir/bench.out")" -eq "$np" ] || fail "--bench-dist rows: $(cat "$dir/bench.out")"
    grep -q "^per iteration: .* GTEPS" "$dir/bench.out" || fail "--bench-dist: $(cat "$dir/bench.out")"
    ;;
  faults)
    prefix=""
    last=$((np - 1))
    [ "$np" -gt 1 ] && prefix="rank $last: "
    run=("${mpirun[@]}" -np "$np" "$pr" --device cpu --no-cache)
    # A missing file: every rank fails; the lowest speaks.
    [ "$np" -gt 1 ] && p0="rank 0: " || p0=""
    expect_failure 66 "${p0}$dir/missing.mtx: no such file" "${run[@]}" "$dir/missing.mtx" -o "$dir/out.tsv"
    # A graph without vertices: one line naming the file or spec, as the single process says it
    # (was "the graph is empty (0 vertices)" alone under mpirun).
    printf '# no edges\n' >"$dir/comments.txt"
    printf '%%%%MatrixMarket matrix coordinate pattern general\n0 0 0\n' >"$dir/zero.mtx"
    gzip -c "$dir/zero.mtx" >"$dir/zero.mtx.gz"
    for g in "$dir/comments.txt" "$dir/zero.mtx" "$dir/zero.mtx.gz" grid:0:5 er:0:10; do
      expect_failure 65 "${p0}$g: the graph is empty (0 vertices)" "${run[@]}" "$g" -o "$dir/out.tsv"
    done
    # A file whose size reads 0 but which has content (procfs) is read to its end, as by one process
    # (was 'empty file' under mpirun); a truly empty file is still empty.
    expect_failure 65 "${p0}/proc/self/status:1: unrecognized format" "${run[@]}" /proc/self/status -o "$dir/out.tsv"
    : >"$dir/empty.txt"
    expect_failure 65 "${p0}$dir/empty.txt: empty file" "${run[@]}" "$dir/empty.txt" -o "$dir/out.tsv"
    # A named pipe: read by rank 0 alone, as one process reads it (every rank opened it to see
    # whether it could be read in parts, the opens waited for a writer, and the job hung).
    mkfifo "$dir/pipe.mtx"
    timeout 60 cp data/karate.mtx "$dir/pipe.mtx" &
    timeout 60 "${run[@]}" "$dir/pipe.mtx" --precision double --tol 1e-10 --accelerate none -o "$dir/pipe.tsv" \
      >"$dir/pipe.out" 2>&1 || fail "a named pipe (exit $?, 124: hung): $(cat "$dir/pipe.out")"
    wait
    "$pr" data/karate.mtx --device cpu --no-cache --precision double --tol 1e-10 --accelerate none -o "$dir/one.tsv" \
      >/dev/null || fail "single-process run on karate"
    cmp -s "$dir/one.tsv" "$dir/pipe.tsv" || fail "a named pipe: ranks differ from the file's"
    # A named pipe as --personalize, which every rank reads itself: refused before any rank opens
    # it (a writer's text went to one rank, 'all weights are zero' on another; with no writer yet
    # every open waited: hung).
    if [ "$np" -gt 1 ]; then
      mkfifo "$dir/v.pipe"
      expect_failure 66 "${p0}$dir/v.pipe: not a regular file: under mpirun every rank reads it, so --personalize must name a file" \
        "${run[@]}" data/karate.mtx --personalize "$dir/v.pipe" -o "$dir/out.tsv"
    fi
    ports=/proc/sys/net/ipv4/ip_local_port_range  # two ids: a graph of one link, where it is there
    if [ "$(stat -c %s $ports 2>/dev/null)" = 0 ] && grep -q '^[0-9]*[[:space:]]*[0-9]*$' $ports; then
      compare $ports
    fi
    # A bad line at the end of the file: in the last rank's byte range.
    write_uneven "$dir/bad.mtx" 10007
    m=$(sed -n 2p "$dir/bad.mtx" | awk '{ print $3 }')
    echo "17 x" >>"$dir/bad.mtx"
    sed -i "2s/ [0-9]*\$/ $((m + 1))/" "$dir/bad.mtx"
    line=$(wc -l <"$dir/bad.mtx")
    expect_failure 65 "${prefix}$dir/bad.mtx:$line: column index 'x' is not a positive integer" \
      "${run[@]}" "$dir/bad.mtx" -o "$dir/out.tsv"
    # One entry more than declared, in the last rank's bytes; then fewer.
    write_uneven "$dir/many.mtx" 10007
    echo "17 18" >>"$dir/many.mtx"
    line=$(wc -l <"$dir/many.mtx")
    expect_failure 65 "${prefix}$dir/many.mtx:$line: entry $((m + 1)) is one more than the $m the size line (line 2) declares" \
      "${run[@]}" "$dir/many.mtx" -o "$dir/out.tsv"
    write_uneven "$dir/few.mtx" 10007
    sed -i "2s/ [0-9]*\$/ $((m + 2))/" "$dir/few.mtx"
    expect_failure 65 "${prefix}$dir/few.mtx:2: the size line declares $((m + 2)) entries, but the file ends after $m entries (line $((m + 2)))" \
      "${run[@]}" "$dir/few.mtx" -o "$dir/out.tsv"
    # Out of memory on the last rank only (its limit 1 kB): every rank stops.
    if [ "$np" -gt 1 ]; then
      expect_failure 65 "${prefix}.*PERRON_MEMORY_LIMIT allows" "${mpirun[@]}" -np "$last" "$pr" data/cage8.mtx \
        --device cpu --no-cache -o "$dir/out.tsv" : -np 1 env PERRON_MEMORY_LIMIT=1000 "$pr" data/cage8.mtx \
        --device cpu --no-cache -o "$dir/out.tsv"
    fi
    # Ranks on one host share its memory: their shares are summed. Each share of 10^6 vertices
    # (48 MB while built) passes a 60 MB limit alone; 3 or more ranks together (24 MB each held
    # to the end) do not (each had passed against the whole host's memory).
    if [ "$np" -gt 2 ]; then
      printf '%%%%MatrixMarket matrix coordinate pattern general\n1000000 1000000 3\n1 2\n2 3\n3 1\n' >"$dir/wide.mtx"
      expect_failure 65 "rank 0: $dir/wide.mtx: the sum of the shares of the $np ranks on this host" \
        "${mpirun[@]}" -np "$np" env PERRON_MEMORY_LIMIT=60000000 "$pr" "$dir/wide.mtx" --device cpu --no-cache \
        -o "$dir/out.tsv"
    fi
    # A SNAP list of 10^6 hashed ids (26 MB) whose parts parse within the last rank's memory
    # (35 MB) but whose renumbering (every rank holds the 2 * 10^6 distinct ids) does not: every
    # rank stops, with one line naming it (was unchecked until PageRank's own check).
    if [ "$np" -gt 1 ]; then
      awk 'BEGIN { srand(1); for (i = 0; i < 1000000; ++i)
                   printf "%.0f\t%.0f\n", int(rand() * 1099511627776), int(rand() * 1099511627776) }' \
        >"$dir/hashed.txt"
      expect_failure 65 "${prefix}$dir/hashed.txt: renumbering the vertex ids of its 1000000 edges" \
        "${mpirun[@]}" -np "$last" "$pr" "$dir/hashed.txt" --device cpu --no-cache -o "$dir/out.tsv" : \
        -np 1 env PERRON_MEMORY_LIMIT=35000000 "$pr" "$dir/hashed.txt" --device cpu --no-cache -o "$dir/out.tsv"
    fi
    # --gpus is one process's GPUs: refused under mpirun with several ranks.
    if [ "$np" -gt 1 ]; then
      expect_failure 64 "--gpus drives the GPUs of one process" "${mpirun[@]}" -np "$np" "$pr" data/cage8.mtx \
        --gpus 1 --no-cache -o "$dir/out.tsv"
    fi
    # --exchange: a way r travels, or the command line is refused (on every rank, with one message).
    expect_failure 64 "--exchange must be auto, all or halo, got 'sideways'" "${mpirun[@]}" -np "$np" "$pr" \
      data/cage8.mtx --exchange sideways --no-cache -o "$dir/out.tsv"
    # --reorder relabels one process's graph: refused under mpirun with several ranks.
    if [ "$np" -gt 1 ]; then
      expect_failure 64 "--reorder runs in the single-process solve" "${mpirun[@]}" -np "$np" "$pr" data/cage8.mtx \
        --reorder rcm --no-cache -o "$dir/out.tsv"
    fi
    # Both GPU pulls are refused under mpirun with several ranks, as with --device cpu (--pull
    # persistent was taken and solved on the CPU without a word).
    if [ "$np" -gt 1 ]; then
      for pull in fused persistent; do
        expect_failure 64 "--pull $pull is a GPU step; mpirun runs on the CPU" "${mpirun[@]}" -np "$np" "$pr" \
          data/cage8.mtx --pull "$pull" --no-cache -o "$dir/out.tsv"
      done
    fi
    if [ "$np" -gt 1 ]; then
      # Ranks started with different arguments (mpirun's MPMD form): one line naming two of them, exit
      # 64 on every rank, before any rank reads (different graphs hit to_csr unnamed, a different --tol
      # aborted, --precision double beside float solved on garbage, a refused --bogus left the others
      # waiting).
      one=(--device cpu --no-cache -o "$dir/out.tsv")
      expect_failure 64 "the ranks were started with different arguments (rank 0: data/cage8.mtx .*; rank 1: data/1138_bus.mtx " \
        "${mpirun[@]}" -np 1 "$pr" data/cage8.mtx "${one[@]}" : -np "$last" "$pr" data/1138_bus.mtx "${one[@]}"
      for extra in "--tol 1e-3" "--alpha 0.5" "--precision double" "--bogus" "--output $dir/other.tsv"; do
        # shellcheck disable=SC2086
        expect_failure 64 "the ranks were started with different arguments (rank 0: .*; rank $last: .* ${extra%% *}[ )]" \
          "${mpirun[@]}" -np "$last" "$pr" data/cage8.mtx "${one[@]}" : -np 1 "$pr" data/cage8.mtx "${one[@]}" $extra
      done
      # The same arguments read differently on one host (its g.mtx is its out.tsv): refused there,
      # every rank stops with that rank's message.
      mkdir -p "$dir/host-a" "$dir/host-b"
      cp data/cage8.mtx "$dir/host-a/g.mtx"
      cp data/cage8.mtx "$dir/host-b/g.mtx"
      ln -f "$dir/host-b/g.mtx" "$dir/host-b/out.tsv"
      expect_failure 64 "rank $last: --output out.tsv is the input file g.mtx" "${mpirun[@]}" \
        -np "$last" -wdir "$dir/host-a" "$pr" g.mtx --device cpu --no-cache -o out.tsv : \
        -np 1 -wdir "$dir/host-b" "$pr" g.mtx --device cpu --no-cache -o out.tsv
      rm -f "$dir/host-b/out.tsv" "$dir/host-a/out.tsv"
      # Files of one name whose contents differ between the ranks (hosts): the file named, both ranks'
      # views, exit 65 on every rank (was 'to_csr: entry ... outside the 1015 x 1015 matrix'). Another
      # size line, then the same size line and another last entry (with the cache on), then another
      # weight of the same length: the same size and header, told apart by the sampled bytes (was
      # solved as one mixed graph).
      for change in other-size last-entry same-size; do
        if [ $change = other-size ]; then
          cp data/1138_bus.mtx "$dir/host-b/g.mtx"
        elif [ $change = last-entry ]; then
          cp data/cage8.mtx "$dir/host-b/g.mtx"
          sed -i '$s/.*/1 1 0.5/' "$dir/host-b/g.mtx"
        else
          cp data/cage8.mtx "$dir/host-b/g.mtx"
          sed -i '$s/.166666666666667/.266666666666667/' "$dir/host-b/g.mtx"
        fi
        expect_failure 65 "rank 0: g.mtx: the ranks read different files under this name (rank 0: 283808 bytes, 1015 x 1015, 11003 entries, real general, sampled bytes hashing to [0-9a-f]*; rank $last: " \
          "${mpirun[@]}" -np "$last" -wdir "$dir/host-a" "$pr" g.mtx --device cpu --cache-dir "$dir/cache" -o out.tsv : \
          -np 1 -wdir "$dir/host-b" "$pr" g.mtx --device cpu --cache-dir "$dir/cache" -o out.tsv
        [ ! -e "$dir/host-a/out.tsv" ] || fail "an output was written from different files"
      done
      # A --personalize file that differs between the ranks.
      cp data/cage8.mtx "$dir/host-b/g.mtx"
      printf '1 1\n' >"$dir/host-a/v.txt"
      printf '2 1\n' >"$dir/host-b/v.txt"
      expect_failure 65 "rank 0: v.txt: the ranks read different files under this name (rank 0: 4 bytes, weights hashing to [0-9a-f]*; rank $last: 4 bytes" \
        "${mpirun[@]}" -np "$last" -wdir "$dir/host-a" "$pr" g.mtx --personalize v.txt --device cpu --no-cache -o out.tsv : \
        -np 1 -wdir "$dir/host-b" "$pr" g.mtx --personalize v.txt --device cpu --no-cache -o out.tsv
    fi
    # The output cannot be written (rank 0's phase): every rank stops.
    expect_failure 66 "${p0}$dir/no-such-folder/out.tsv" "${run[@]}" data/cage8.mtx -o "$dir/no-such-folder/out.tsv"
    ;;
  stream)
    export PERRON_DIST_WINDOW=4096
    gzip -c data/cage8.mtx >"$dir/cage8.mtx.gz"
    gzip -c data/1138_bus.mtx >"$dir/bus.mtx.gz"
    for g in "$dir/cage8.mtx.gz" "$dir/bus.mtx.gz" data/email-Eu-core.txt.gz data/wiki-Vote.txt; do
      compare "$g"
      if [ "$np" -gt 1 ]; then
        grep -q "^distributed *$np MPI ranks, the input read by rank 0 as a stream" "$dir/dist.out" ||
          fail "$g: not streamed: $(cat "$dir/dist.out")"
      fi
    done
    compare "$dir/cage8.mtx.gz" --weighted
    gzip -c data/netscience.mtx >"$dir/netscience.mtx.gz"
    compare "$dir/netscience.mtx.gz" --weighted
    # Comments longer than a window before a .mtx.gz's size line and before an edge list's first
    # (weighted) line: the header was parsed from the first window alone ('missing size line' in
    # the comments; the list's field count taken from a comment, its 3-field lines refused).
    comments() { awk -v c="$1" 'BEGIN { for (i = 1; i <= 300; i++) print c " comment " i ", together longer than a window" }'; }
    { sed -n 1p data/cage8.mtx && comments % && sed 1d data/cage8.mtx; } | gzip >"$dir/long-header.mtx.gz"
    compare "$dir/long-header.mtx.gz" --weighted
    { comments '#' && sed '/^%/d' data/cage8.mtx | sed 1d; } >"$dir/long-header.txt"
    gzip -c "$dir/long-header.txt" >"$dir/long-header.txt.gz"
    compare "$dir/long-header.txt" --weighted
    compare "$dir/long-header.txt.gz" --weighted
    # A SuiteSparse .tar.gz (when built with libarchive): its member streamed too.
    mkdir -p "$dir/cage8" && cp data/cage8.mtx "$dir/cage8/" && tar -czf "$dir/cage8.tar.gz" -C "$dir" cage8
    archives=false
    if "$pr" "$dir/cage8.tar.gz" --device cpu --no-cache -o "$dir/probe.tsv" >/dev/null 2>&1; then
      archives=true
      compare "$dir/cage8.tar.gz"
      if [ "$np" -gt 1 ]; then
        grep -q "the input read by rank 0 as a stream" "$dir/dist.out" || fail ".tar.gz not streamed"
      fi
    fi
    prefix=""
    last=$((np - 1))
    [ "$np" -gt 1 ] && prefix="rank $last: "
    [ "$np" -gt 1 ] && p0="rank 0: " || p0=""
    run=("${mpirun[@]}" -np "$np" "$pr" --device cpu --no-cache)
    # A bad line near the end of a .gz: in the last rank's windows, at its line in the file.
    write_uneven "$dir/bad.mtx" 10007
    m=$(sed -n 2p "$dir/bad.mtx" | awk '{ print $3 }')
    line=$(($(wc -l <"$dir/bad.mtx") - 30))
    sed -i "${line}s/.*/17 x/" "$dir/bad.mtx"
    gzip "$dir/bad.mtx"
    expect_failure 65 "${prefix}$dir/bad.mtx.gz:$line: column index 'x' is not a positive integer" \
      "${run[@]}" "$dir/bad.mtx.gz" -o "$dir/out.tsv"
    write_uneven "$dir/many.mtx" 10007
    echo "17 18" >>"$dir/many.mtx"
    line=$(wc -l <"$dir/many.mtx")
    gzip "$dir/many.mtx"
    expect_failure 65 "${prefix}$dir/many.mtx.gz:$line: entry $((m + 1)) is one more than the $m the size line (line 2) declares" \
      "${run[@]}" "$dir/many.mtx.gz" -o "$dir/out.tsv"
    write_uneven "$dir/few.mtx" 10007
    sed -i "2s/ [0-9]*\$/ $((m + 2))/" "$dir/few.mtx"
    gzip "$dir/few.mtx"
    expect_failure 65 "${p0}$dir/few.mtx.gz:2: the size line declares $((m + 2)) entries, but the file ends after $m entries (line $((m + 2)))" \
      "${run[@]}" "$dir/few.mtx.gz" -o "$dir/out.tsv"
    if $archives; then  # the same bad line in an archive's member: named path:member
      write_uneven "$dir/bad.mtx" 10007
      line=$(($(wc -l <"$dir/bad.mtx") - 30))
      sed -i "${line}s/.*/17 x/" "$dir/bad.mtx"
      mkdir -p "$dir/bad" && mv "$dir/bad.mtx" "$dir/bad/" && tar -czf "$dir/bad.tar.gz" -C "$dir" bad
      expect_failure 65 "${prefix}$dir/bad.tar.gz:bad/bad.mtx:$line: column index 'x' is not a positive integer" \
        "${run[@]}" "$dir/bad.tar.gz" -o "$dir/out.tsv"
      # Junk after the gzip data of a streamed archive: refused as by one process (libarchive
      # ignored it, and the windows solved the graph).
      mkdir -p "$dir/junk" && cp "$dir/cage8.tar.gz" "$dir/junk/cage8.tar.gz" && echo junk >>"$dir/junk/cage8.tar.gz"
      expect_failure 66 "${p0}$dir/junk/cage8.tar.gz: unexpected data after the end of the gzip stream" \
        "${run[@]}" "$dir/junk/cage8.tar.gz" -o "$dir/out.tsv"
    fi
    # A SNAP list with a bad line near its end.
    gzip -dc data/email-Eu-core.txt.gz >"$dir/snap.txt"
    line=$(($(wc -l <"$dir/snap.txt") - 5))
    sed -i "${line}s/.*/12 -3/" "$dir/snap.txt"
    gzip "$dir/snap.txt"
    expect_failure 65 "${prefix}$dir/snap.txt.gz:$line: target id '-3' is negative" \
      "${run[@]}" "$dir/snap.txt.gz" -o "$dir/out.tsv"
    # Gephi's edge table (columns by name, the others skipped) with a short line near its end.
    {
      echo 'Source,Target,Type,Id,Label,timeset,Weight'
      gzip -dc data/email-Eu-core.txt.gz | grep -v '^#' | awk '{ printf "%s,%s,Directed,%d,\"v, %s\",,1.5\n", $1, $2, NR, $1 }'
    } >"$dir/gephi.csv"
    line=$(($(wc -l <"$dir/gephi.csv") - 5))
    sed -i "${line}s/,Directed,.*/,Directed/" "$dir/gephi.csv"
    expect_failure 65 "${prefix}$dir/gephi.csv:$line: found 3 fields where the header names 7" \
      "${run[@]}" "$dir/gephi.csv" -o "$dir/out.tsv"
    # An edge list of vertex names (weighted, networkx's data dicts): rank 0 reads it whole and
    # sends the names; every output names the vertices as one process does.
    gzip -dc data/email-Eu-core.txt.gz | grep -v '^#' |
      awk '{ printf "v%s u%s {\x27weight\x27: %d}\n", $1, $2, NR % 3 + 1 }' | gzip >"$dir/names.edgelist.gz"
    compare "$dir/names.edgelist.gz" --weighted
    grep -q "^v0	" "$dir/dist.tsv" || fail "names.edgelist.gz: no vertex named v0 in $(head -2 "$dir/dist.tsv")"
    # --names: integer ids first, a name later; rank 0 reads it by name as one process does.
    { gzip -dc data/email-Eu-core.txt.gz | grep -v '^#'; echo '0 zed'; } >"$dir/mixed.txt"
    compare "$dir/mixed.txt" --names
    grep -q "^zed	" "$dir/dist.tsv" || fail "mixed.txt --names: no vertex named zed"
    # --bipartite: a rectangular matrix and a KONECT-like list as two sets, read whole by rank 0.
    compare data/lp_afiro.mtx --bipartite
    { echo "% bip unweighted"; cat data/wiki-Vote.txt; } >"$dir/wiki.bip"
    compare "$dir/wiki.bip" --bipartite --undirected
    # Without it, the note a single process prints, once, from rank 0.
    compare "$dir/wiki.bip"
    [ "$(grep -c "header says it is a bipartite graph" "$dir/dist.out")" -eq 1 ] ||
      fail "wiki.bip under mpirun: not one note: $(cat "$dir/dist.out")"
    # --names on a file that is no edge list: the one note a single process prints, from rank 0.
    compare data/lesmis.gml --names
    [ "$(grep -c 'is no edge list' "$dir/dist.out")" = 1 ] ||
      fail "lesmis.gml --names under mpirun: not one note: $(cat "$dir/dist.out")"
    # A truncated .gz: rank 0 cannot read on; every rank stops.
    write_uneven "$dir/cut.mtx" 10007
    gzip "$dir/cut.mtx"
    truncate -s $(($(stat -c %s "$dir/cut.mtx.gz") - 100)) "$dir/cut.mtx.gz"
    expect_failure 66 "${p0}$dir/cut.mtx.gz" "${run[@]}" "$dir/cut.mtx.gz" -o "$dir/out.tsv"
    ;;
  *)
    fail "unknown mode $mode"
    ;;
esac
echo "ok: np $np $mode ${5:-}"
