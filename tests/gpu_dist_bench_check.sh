#!/usr/bin/env bash
# On the GPU machine, in the folder holding scripts/ and the bundle of
#   scripts/gpu-prepare.sh DIR build-gpu pagerank gpu_dist_nccl_test
# (docs/PERFORMANCE.md, "--gpus N --bench-dist"): gpu_dist_nccl_test with NCCL required; pagerank
# --gpus 1 against the one-GPU SpMV pull in double on rmat:20 and cnr-2000; --gpus 1 --bench-dist on
# both graphs, float and double, 200 iterations; compute-sanitizer memcheck of the --gpus loop.
# Logs go to $OUT when set.
mkdir -p .gpu && { [ ! -f bundle.txz ] || mv bundle.txz .gpu/; } && source scripts/gpu-env.sh .gpu
export NCCL_NVLS_ENABLE=0
nl=$(python3 -c 'import nvidia.nccl; print(list(nvidia.nccl.__path__)[0])' 2>/dev/null) &&
  export LD_LIBRARY_PATH=$nl/lib:$LD_LIBRARY_PATH
out=${OUT:-.}
nvidia-smi -L
PERRON_REQUIRE_NCCL=1 timeout 120 gpu_dist_nccl_test --gtest_brief=1 2>&1 | tail -8
diff_of() {
  awk -F'\t' 'NR == FNR { a[FNR] = $2; next } { d = $2 - a[FNR]; if (d < 0) d = -d; if (d > m) m = d }
              END { printf "max |diff| %.3g over %d vertices\n", m, FNR }' "$1" "$2"
}
cnr=.gpu/shared-data/graphs/cnr-2000.mtx.gz
for g in rmat:20:10000000 $cnr; do
  timeout 60 pagerank $g --gpus 1 --precision double --tol 1e-10 --no-cache -o n.tsv --json >n.json
  echo "--gpus 1 rc $?"
  timeout 60 pagerank $g --device cuda --pull spmv --precision double --tol 1e-10 --no-cache -o o.tsv --json >o.json
  echo "one GPU rc $?"
  python3 -c "import json; n = json.load(open('n.json')); o = json.load(open('o.json'))
print('$g double: --gpus 1', n['iterations'], 'iterations,', n['host_syncs'], 'host syncs; one GPU', o['iterations'])"
  diff_of o.tsv n.tsv
done
for g in rmat:20:10000000 $cnr; do
  for p in float double; do
    timeout 60 pagerank $g --gpus 1 --bench-dist --precision $p --tol 1e-30 --max-iter 200 --no-cache \
      2>&1 | tee -a "$out/bench.txt" | grep -v '^ *gpu '
  done
done
cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
timeout 120 "$cs" --tool memcheck --report-api-errors no pagerank rmat:12:20000 --gpus 1 --tol 1e-8 \
  --check-every 3 --no-cache >"$out/memcheck.txt" 2>&1
echo "memcheck rc $?: $(grep -E 'ERROR SUMMARY' "$out/memcheck.txt")"
