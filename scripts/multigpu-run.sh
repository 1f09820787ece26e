#!/usr/bin/env bash
# Issue 20's run, ON A MACHINE WITH SEVERAL GPUs (nvidia-h200-x2 / -x4 / -x8), over a folder made
# by scripts/gpu-prepare.sh (the device tool: run(command="bash scripts/multigpu-run.sh .gpu",
# carry=[".gpu"], kind=...)):
#   scripts/multigpu-run.sh [CARRY_DIR=.gpu] [parts...]
#            parts: tests correct scaling chunks cost big shapes order (default: tests correct scaling)
#   tests    gpu_dist_nccl_test on every GPU present, PERRON_REQUIRE_GPU=1 PERRON_REQUIRE_NCCL=1 (when
#            the bundle has it: scripts/gpu-prepare.sh .gpu build-gpu pagerank gpu_dist_nccl_test),
#            then its chunked, matching, pieces and halo cases under compute-sanitizer memcheck; a failure ends the
#            run (no device time spent timing a wrong solver); PERRON_MG_MEMCHECK=0 skips memcheck
#   correct  the ranks of every shared graph and of rmat:20 on P GPUs (pagerank --gpus P) against
#            the one-GPU solve (--device cuda --pull spmv), double, tol 1e-10: iterations and the
#            largest |difference| (the issue's bound: 1e-12); $PERRON_MG_GRAPHS names a subset of
#            the shared graphs (file names; rmat:20 always runs); $PERRON_MG_CORRECT_ARGS go to each
#            --gpus run (e.g. "--exchange-chunks 3": chunked on graphs auto would not chunk)
#   scaling  pagerank rmat:S --gpus P --bench-dist: strong scaling at S = $PERRON_MG_STRONG (26) on
#            every P, weak scaling at S = $PERRON_MG_WEAK (25) + log2 P; float, tol 1e-30, a fixed
#            $PERRON_MG_ITER (60) iterations
#   chunks   rmat:$PERRON_MG_STRONG on the most GPUs (and 2) with --exchange-chunks K for K in
#            $PERRON_MG_CHUNK_LIST (1 2 4 8): the overlap of the exchange against none (K = 1)
#   cost     --row-cost L for L in $PERRON_MG_ROW_COSTS (0.5 1 2) on the most GPUs: rmat:$PERRON_MG_STRONG
#            and the weak-scaling graph there (the cut's balance)
#   big      issue 20 item 4: the R-MAT graph the memory model puts on the GPUs present and not on
#            one (rmat:30, 17.2 G draws, on GPUs of >= 130 GB; else rmat:29, 8.6 G), generated in
#            pieces (past 2^31 links): first `--gpus 1` (refused by the memory check before the
#            generation, with the bytes), then `--gpus P --bench-dist` on all P, peak memory per GPU;
#            $PERRON_MG_BIG overrides the spec
#   shapes   other graph shapes on every P (web-like, grid, Erdos-Renyi: $PERRON_MG_SHAPES), automatic
#            chunks: the cut by cost and the overlap beyond R-MAT
#   order    --reorder O for O in $PERRON_MG_ORDERS (none dbg) on the weak-scaling graphs on every P,
#            and rmat:$PERRON_MG_STRONG on one GPU: a link's gather cost as r grows past L2
# P runs over 1 and the powers of two up to the GPUs present ($PERRON_MG_GPUS overrides, e.g.
# "1 2"); `correct` skips P = 1 on a machine of several GPUs ($PERRON_MG_CORRECT_GPUS overrides: the
# one-GPU case was checked on every shared graph in session 20). An R-MAT spec draws 16 arcs a vertex,
# capped at 2^31 - 1 (perron's 32-bit indices: R-MAT 27 draws one arc less than 16 a vertex). Results: one TSV line per run in results.tsv (then scripts/multigpu_summary.py makes
# the tables, the model's predictions beside them and the SVG); logs beside it, all in $OUT as
# multigpu.tgz. Each part is timed; the whole run is sized for the device tool's 10 minutes on an
# H200 host (generation and P^T on the host take most of it: rmat:26 35 s on the H100 host), and a
# run that would end past $PERRON_MG_BUDGET seconds (540) is skipped and named instead.
set -uo pipefail
cd "$(dirname "$0")/.."
carry=${1:-.gpu}; shift || true
parts=${*:-tests correct scaling}
source scripts/gpu-env.sh "$carry"
export NCCL_NVLS_ENABLE=0  # NVLink multicast stays off on these machines (KINDS.md)
export XDG_CACHE_HOME=${XDG_CACHE_HOME:-/tmp/perron-mg-cache}
nl=$(python3 -c 'import nvidia.nccl; print(list(nvidia.nccl.__path__)[0])' 2>/dev/null) &&
  export LD_LIBRARY_PATH=$nl/lib:$LD_LIBRARY_PATH
log=${PERRON_LOG_DIR:-/tmp/perron-mg}; mkdir -p "$log"
res=$log/results.tsv
# The logs go back as $OUT/multigpu.tgz, rewritten after every run: a command the device tool stops
# at its limit (or at the session's last device second) still brings back what had finished.
snapshot() {
  if [ -n "${OUT:-}" ]; then tar -C "$log" -czf "$OUT/multigpu.tgz.tmp" . && mv "$OUT/multigpu.tgz.tmp" "$OUT/multigpu.tgz"; fi
}
trap snapshot EXIT
printf 'part\tgraph\tgpus\tvertices\tlinks\titerations\tstep_ms\tcompute_ms\tcomm_ms\tloop_ms\tsent_mb\tmax_diff\trc\tseconds\tpeak_gpu_mib\n' >"$res"
nvidia-smi --query-gpu=index,name,memory.total --format=csv,noheader | tee "$log/gpus.txt"
have=$(wc -l <"$log/gpus.txt")
if [ -n "${PERRON_MG_GPUS:-}" ]; then
  counts=$PERRON_MG_GPUS
else
  counts=1; p=2; while [ $p -le "$have" ]; do counts="$counts $p"; p=$((p * 2)); done
fi
correct_counts=${PERRON_MG_CORRECT_GPUS:-$(for p in $counts; do [ "$p" = 1 ] && [ "$have" -gt 1 ] || printf '%s ' "$p"; done)}
echo "GPUs present: $have; runs on: $counts (correct: $correct_counts)"
t0=$(date +%s)
# The device tool stops a command at 10 minutes, and a killed run brings nothing back: every run
# below first checks that it can still finish inside $PERRON_MG_BUDGET seconds (default 540).
budget=${PERRON_MG_BUDGET:-540}
fits() {  # fits SECONDS WHAT: true if SECONDS more stay inside the budget, else says what is skipped
  if [ $(($(date +%s) - t0 + $1)) -gt "$budget" ]; then
    echo "skipped (the ${budget} s budget): $2"
    return 1
  fi
}

# The largest |a - b| over two rank files (vertex<TAB>rank, same order).
max_diff() {
  awk -F'\t' 'NR == FNR { a[FNR] = $2; next } { d = $2 - a[FNR]; if (d < 0) d = -d; if (d > m) m = d }
              END { printf "%.3g", m + 0 }' "$1" "$2"
}
# A field of pagerank --json's output.
json_field() { python3 -c "import json,sys; print(json.load(open(sys.argv[1])).get(sys.argv[2], ''))" "$1" "$2" 2>/dev/null; }

correct() {
  local graphs=(rmat:20:10000000) g name ref p out rc t
  for g in "$PERRON_SHARED_DATA"/graphs/*; do
    [ -z "${PERRON_MG_GRAPHS:-}" ] || [[ " $PERRON_MG_GRAPHS " == *" $(basename "$g") "* ]] && graphs+=("$g")
  done
  for g in "${graphs[@]}"; do
    name=$(basename "$g")
    fits 20 "$name" || continue
    ref=$log/one-$name
    t=$(date +%s)
    timeout 120 pagerank "$g" --device cuda --pull spmv -p double --tol 1e-10 -o "$ref.tsv" --json >"$ref.json" 2>"$ref.err"
    rc=$?
    if [ $rc -ne 0 ] && [ $rc -ne 2 ]; then
      echo "$name: one GPU rc $rc: $(head -c 300 "$ref.err")"
      continue
    fi
    for p in $correct_counts; do
      fits 20 "$name on $p GPU(s)" || continue
      out=$log/gpus$p-$name
      t=$(date +%s)
      timeout 120 pagerank "$g" --gpus "$p" -p double --tol 1e-10 ${PERRON_MG_CORRECT_ARGS:-} -o "$out.tsv" --json >"$out.json" 2>"$out.err"
      rc=$?
      local d=nan
      [ -s "$out.tsv" ] && d=$(max_diff "$ref.tsv" "$out.tsv")
      printf 'correct\t%s\t%s\t%s\t%s\t%s\t\t\t\t\t\t%s\t%s\t%s\n' "$name" "$p" "$(json_field "$out.json" vertices)" \
        "$(json_field "$out.json" links)" "$(json_field "$out.json" iterations)" "$d" "$rc" $(($(date +%s) - t)) >>"$res"
      echo "$name on $p GPU(s): rc $rc, $(json_field "$out.json" iterations) iterations (one GPU: $(json_field "$ref.json" iterations)), max |diff| $d"
      rm -f "$out.tsv"  # the ranks: compared, not brought back
      snapshot
    done
    rm -f "$ref.tsv"
  done
}

# One --bench-dist run: its per-iteration figures into results.tsv (further arguments go to pagerank).
bench() {
  local part=$1 spec=$2 p=$3 need=$4 f t rc
  shift 4
  fits "$need" "$part $spec on $p GPU(s) (about $need s)" || return 0
  f=$log/$part-$p-${spec//:/_}.txt
  t=$(date +%s)
  # The GPUs' memory in use, sampled every 0.2 s while the run lasts: its peak on the fullest GPU
  # (issue 20 item 4's bytes per GPU, the CUDA context's ~0.5 GB included).
  nvidia-smi --query-gpu=index,memory.used --format=csv,noheader,nounits -lms 200 >"$f.mem" 2>/dev/null &
  local sampler=$!
  timeout "${PERRON_MG_TIMEOUT:-400}" pagerank "$spec" --gpus "$p" --bench-dist --tol 1e-30 --max-iter "${PERRON_MG_ITER:-60}" "$@" >"$f" 2>&1
  rc=$?
  kill "$sampler" 2>/dev/null; wait "$sampler" 2>/dev/null
  local peak
  peak=$(awk -F', *' '$2 + 0 > m { m = $2 + 0 } END { print m + 0 }' "$f.mem")
  # "distributed PageRank: G, P GPUs through NCCL, float, V vertices, L links, I iterations, ..."
  # per GPU: gpu compute_ms comm_ms step_ms sent_MB recv_MB; "per iteration: X ms (events, slowest
  # GPU: compute at most C ms, communication at most M ms), W ms (the whole loop ...)"
  awk -v part="$part" -v graph="$spec" -v p="$p" -v rc="$rc" -v peak="$peak" -v secs=$(($(date +%s) - t)) '
    /^distributed PageRank/ { for (i = 1; i <= NF; ++i) { if ($(i+1) ~ /^vertices/) v = $i; if ($(i+1) ~ /^links/) l = $i;
                                                           if ($(i+1) ~ /^iterations/ && it == "") it = $i } }
    /^ +[0-9]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+$/ { if ($5 > sent) sent = $5 }
    /^per iteration:/ { step = $3; c = $11; m = $16; loop = $18 }
    END { printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\t%s\t%s\t%s\n", part, graph, p, v, l, it, step, c, m, loop, sent, rc, secs, peak }
  ' "$f" >>"$res"
  echo "$part $spec on $p GPU(s): rc $rc, $(($(date +%s) - t)) s, peak $peak MiB on a GPU: $(grep '^per iteration' "$f" | cut -c1-200)"
  [ $rc -eq 0 ] || [ $rc -eq 2 ] || tail -n 5 "$f"
  snapshot
}

# rmat:S with 16 arcs a vertex, at most 2^31 - 1 arcs (the 32-bit index limit).
rmat() { awk -v s="$1" 'BEGIN { m = 16 * 2 ^ s; if (m > 2147483647) m = 2147483647; printf "rmat:%d:%d", s, m }'; }
# A run's seconds, guessed from the hosts seen (rmat:26 --gpus 1 end to end: 35 s on a 16-core H100
# host; on the 64-core 4-H200 host 19-21 s at S = 26, 43 s at S = 27), doubling per scale.
guess() { awk -v s="$1" 'BEGIN { printf "%d", 15 + 20 * 2 ^ (s - 26) }'; }

# The one-GPU solver (no --gpus: its automatic pull, the fused one where it chooses it) on GRAPH:
# ms per iteration from its device seconds, the best one GPU does, beside --gpus 1.
one_gpu() {
  local spec=$1 need=$2 f t rc
  fits "$need" "one-GPU solver on $spec" || return 0
  f=$log/onegpu-${spec//:/_}.json
  t=$(date +%s)
  timeout 300 pagerank "$spec" --device cuda --tol 1e-30 --max-iter "${PERRON_MG_ITER:-60}" --json >"$f" 2>"$f.err"
  rc=$?
  python3 - "$f" "$spec" "$rc" $(($(date +%s) - t)) >>"$res" <<'PY'
import json, sys
f, spec, rc, secs = sys.argv[1:]
try:
    j = json.load(open(f))
    it = j["iterations"]; step = j["seconds"]["device"] / it * 1e3
    print(f"onegpu\t{spec}\t1\t{j['vertices']}\t{j['links']}\t{it}\t{step:.4f}\t{step:.4f}\t0\t{step:.4f}\t0\t{j['pull_choice']['pull']}\t{rc}\t{secs}\t")
except Exception as e:
    print(f"onegpu\t{spec}\t1\t\t\t\t\t\t\t\t\t{e}\t{rc}\t{secs}\t")
PY
  echo "one-GPU solver $spec: rc $rc, $(tail -1 "$res" | cut -f6,7,12)"
  snapshot
}

scaling() {
  local strong=${PERRON_MG_STRONG:-26} weak=${PERRON_MG_WEAK:-25} p s
  one_gpu "$(rmat "$strong")" "$(guess "$strong")"
  for p in $counts; do bench strong "$(rmat "$strong")" "$p" "$(guess "$strong")"; done
  for p in $counts; do
    s=$((weak + $(awk -v p="$p" 'BEGIN { print int(log(p) / log(2) + 0.5) }')))
    # The strong run already measured this graph on p GPUs: reuse it.
    if [ "$s" = "$strong" ]; then
      local reused
      reused=$(awk -F'\t' -v p="$p" -v g="$(rmat "$strong")" \
        '$1 == "strong" && $2 == g && $3 == p { $1 = "weak"; print }' OFS='\t' "$res")
      [ -n "$reused" ] && echo "$reused" >>"$res" && echo "weak rmat:$s on $p GPU(s): the strong run's"
    else
      bench weak "$(rmat "$s")" "$p" "$(guess "$s")"
    fi
  done
}

# --reorder ORDER (PERRON_MG_ORDERS, default "none dbg") on the weak-scaling graphs, and the strong
# graph on one GPU: whether packing the most-gathered entries of r together (dbg) makes a link's
# gather cheaper as the graph, and r, grow past L2.
order() {
  local weak=${PERRON_MG_WEAK:-25} strong=${PERRON_MG_STRONG:-26} p s o
  for o in ${PERRON_MG_ORDERS:-none dbg}; do
    for p in $counts; do
      s=$((weak + $(awk -v p="$p" 'BEGIN { print int(log(p) / log(2) + 0.5) }')))
      bench "order-$o" "$(rmat "$s")" "$p" "$(guess "$s")" --reorder "$o"
    done
    [ "$strong" = "$((weak + 1))" ] && [[ " $counts " == *" 2 "* ]] || continue
    bench "order-$o" "$(rmat "$strong")" 1 "$(guess "$strong")" --reorder "$o"
  done
}

tests() {
  local t rc
  for t in gpu_dist_nccl_test; do
    command -v "$t" >/dev/null || { echo "$t: not in the bundle"; continue; }
    fits 60 "$t" || continue
    PERRON_REQUIRE_GPU=1 PERRON_REQUIRE_NCCL=1 timeout 300 "$t" --gtest_brief=1 >"$log/$t.txt" 2>&1
    rc=$?
    echo "$t: rc $rc ($(grep -E '^\[  (PASSED|FAILED|SKIPPED)' "$log/$t.txt" | tr '\n' ' '))"
    snapshot
    if [ $rc -ne 0 ]; then grep -E '(Failure|error|Expected|Which is|FAILED)' "$log/$t.txt" | head -20; exit 1; fi
    [ "${PERRON_MG_MEMCHECK:-1}" = 1 ] && command -v compute-sanitizer >/dev/null || continue
    fits 150 "$t under memcheck" || continue
    # NCCL's own start-up probes make API errors (session 20): not ours, not reported.
    PERRON_REQUIRE_GPU=1 PERRON_REQUIRE_NCCL=1 timeout 150 compute-sanitizer --tool memcheck --report-api-errors no \
      "$t" --gtest_brief=1 --gtest_filter='*Chunked*:*MatchesOneGpu*:*Pieces*:*Halo*' >"$log/$t.memcheck.txt" 2>&1
    echo "$t memcheck: rc $? ($(grep -E 'ERROR SUMMARY|^\[  (PASSED|FAILED)' "$log/$t.memcheck.txt" | tr '\n' ' '))"
    snapshot
  done
}

# --exchange-chunks K against K = 1 (no overlap) on the strong-scaling graph.
chunks() {
  local strong=${PERRON_MG_STRONG:-26} p k top
  top=$(echo $counts | awk '{ print $NF }')
  for p in $( [ "$top" -gt 2 ] && echo 2) $top; do
    [ "$p" -gt 1 ] || continue
    for k in ${PERRON_MG_CHUNK_LIST:-1 2 4 8}; do
      bench "chunks$k" "$(rmat "$strong")" "$p" "$(guess "$strong")" --exchange-chunks "$k"
    done
  done
}

# The row's weight in the cut, on the most GPUs, strong and weak graphs.
cost() {
  local strong=${PERRON_MG_STRONG:-26} weak=${PERRON_MG_WEAK:-25} top l s
  top=$(echo $counts | awk '{ print $NF }')
  s=$((weak + $(awk -v p="$top" 'BEGIN { print int(log(p) / log(2) + 0.5) }')))
  for l in ${PERRON_MG_ROW_COSTS:-0.5 1 2}; do
    bench "cost$l" "$(rmat "$strong")" "$top" "$(guess "$strong")" --row-cost "$l"
    [ "$s" = "$strong" ] || bench "cost$l" "$(rmat "$s")" "$top" "$(guess "$s")" --row-cost "$l"
  done
}

big() {
  local top mem spec f rc t
  top=$(echo $counts | awk '{ print $NF }')
  mem=$(awk -F', *' 'NR == 1 { print $3 + 0 }' "$log/gpus.txt")  # MiB of GPU 0 ("143771 MiB")
  if [ "$mem" -ge 130000 ]; then spec=rmat:30:17179869184; else spec=rmat:29:8589934592; fi
  spec=${PERRON_MG_BIG:-$spec}
  f=$log/big-1-${spec//:/_}.txt
  timeout 60 pagerank "$spec" --gpus 1 >"$f" 2>&1
  rc=$?
  printf 'big-one\t%s\t1\t\t\t\t\t\t\t\t\t%s\t%s\t0\t\n' "$spec" "$(tail -1 "$f" | tr '\t' ' ' | cut -c1-300)" "$rc" >>"$res"
  echo "big $spec on 1 GPU: rc $rc: $(tail -1 "$f" | cut -c1-300)"
  # Generation on the host takes most of it: R-MAT 29 158 s on the 32-core 2-H200 host (session 23).
  PERRON_MG_ITER=${PERRON_MG_BIG_ITER:-20} PERRON_MG_TIMEOUT=${PERRON_MG_BIG_TIMEOUT:-520} bench big "$spec" "$top" 525
}

# Graph shapes beyond R-MAT on every P: the cut by cost (links + 2 x rows, fitted on rmat:26) and the
# automatic chunks where rows are not R-MAT's (web-like sites, a road-like grid, uniform arcs).
shapes() {
  local spec p
  for spec in ${PERRON_MG_SHAPES:-web:40000000:640000000 grid:6000:6000 er:33554432:536870912}; do
    for p in $counts; do bench "shape" "$spec" "$p" 30; done
  done
}

for part in $parts; do
  ts=$(date +%s)
  case $part in
    tests) tests ;;
    correct) correct ;;
    scaling) scaling ;;
    chunks) chunks ;;
    cost) cost ;;
    big) big ;;
    shapes) shapes ;;
    order) order ;;
    *) echo "unknown part '$part' (tests, correct, scaling, chunks, cost, big, shapes, order)"; exit 64 ;;
  esac
  echo "== $part: $(($(date +%s) - ts)) s"
done
echo "== total: $(($(date +%s) - t0)) s; results in $res"
python3 scripts/multigpu_summary.py "$res" --svg "$log/efficiency.svg" | tee "$log/summary.md"
