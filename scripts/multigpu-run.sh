#!/usr/bin/env bash
# Issue 20's run, ON A MACHINE WITH SEVERAL GPUs (nvidia-h200-x2 / -x4 / -x8), over a folder made
# by scripts/gpu-prepare.sh (the device tool: run(command="bash scripts/multigpu-run.sh .gpu",
# carry=[".gpu"], kind=...)):
#   scripts/multigpu-run.sh [CARRY_DIR=.gpu] [parts...]      parts: tests correct scaling (default all)
#   tests    gpu_dist_nccl_test on every GPU present, PERRON_REQUIRE_GPU=1 PERRON_REQUIRE_NCCL=1 (when
#            the bundle has it: scripts/gpu-prepare.sh .gpu build-gpu pagerank gpu_dist_nccl_test)
#   correct  the ranks of every shared graph and of rmat:20 on P GPUs (pagerank --gpus P) against
#            the one-GPU solve (--device cuda --pull spmv), double, tol 1e-10: iterations and the
#            largest |difference| (the issue's bound: 1e-12); $PERRON_MG_GRAPHS names a subset of
#            the shared graphs (file names; rmat:20 always runs)
#   scaling  pagerank rmat:S --gpus P --bench-dist: strong scaling at S = $PERRON_MG_STRONG (26) on
#            every P, weak scaling at S = $PERRON_MG_WEAK (25) + log2 P; float, tol 1e-30, a fixed
#            $PERRON_MG_ITER (60) iterations
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
      timeout 120 pagerank "$g" --gpus "$p" -p double --tol 1e-10 -o "$out.tsv" --json >"$out.json" 2>"$out.err"
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

# One --bench-dist run: its per-iteration figures into results.tsv.
bench() {
  local part=$1 spec=$2 p=$3 need=$4 f t rc
  fits "$need" "$part $spec on $p GPU(s) (about $need s)" || return 0
  f=$log/$part-$p-${spec//:/_}.txt
  t=$(date +%s)
  # The GPUs' memory in use, sampled every 0.2 s while the run lasts: its peak on the fullest GPU
  # (issue 20 item 4's bytes per GPU, the CUDA context's ~0.5 GB included).
  nvidia-smi --query-gpu=index,memory.used --format=csv,noheader,nounits -lms 200 >"$f.mem" 2>/dev/null &
  local sampler=$!
  timeout 400 pagerank "$spec" --gpus "$p" --bench-dist --tol 1e-30 --max-iter "${PERRON_MG_ITER:-60}" >"$f" 2>&1
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

scaling() {
  local strong=${PERRON_MG_STRONG:-26} weak=${PERRON_MG_WEAK:-25} p s
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

tests() {
  local t
  for t in gpu_dist_nccl_test; do
    command -v "$t" >/dev/null || { echo "$t: not in the bundle"; continue; }
    fits 60 "$t" || continue
    PERRON_REQUIRE_NCCL=1 timeout 300 "$t" --gtest_brief=1 >"$log/$t.txt" 2>&1
    echo "$t: rc $? ($(grep -E '^\[  (PASSED|FAILED|SKIPPED)' "$log/$t.txt" | tr '\n' ' '))"
    snapshot
  done
}

for part in $parts; do
  ts=$(date +%s)
  case $part in
    tests) tests ;;
    correct) correct ;;
    scaling) scaling ;;
    *) echo "unknown part '$part' (tests, correct, scaling)"; exit 64 ;;
  esac
  echo "== $part: $(($(date +%s) - ts)) s"
done
echo "== total: $(($(date +%s) - t0)) s; results in $res"
python3 scripts/multigpu_summary.py "$res" --svg "$log/efficiency.svg" | tee "$log/summary.md"
