#!/usr/bin/env bash
# On the GPU machine, in the folder holding scripts/ and the bundle of
#   scripts/gpu-prepare.sh DIR build-gpu pagerank gpu_dist_nccl_test gpu_pagerank_test
# (docs/PERFORMANCE.md, "pagerank --gpus N"): gpu_dist_nccl_test with NCCL required, then
# pagerank --gpus 1 against the one-GPU SpMV pull on rmat:20 and cnr-2000, float and double.
mkdir -p .gpu && { [ ! -f bundle.tgz ] || mv bundle.tgz .gpu/; } && source scripts/gpu-env.sh .gpu
# libnccl.so.2: on the lent H100 it is on the path gpu-env.sh sets; the Python package
# nvidia-nccl-cu13 has one too (a namespace package: no __file__).
nl=$(python3 -c 'import nvidia.nccl; print(list(nvidia.nccl.__path__)[0])' 2>/dev/null) &&
  export LD_LIBRARY_PATH=$nl/lib:$LD_LIBRARY_PATH
nvidia-smi -L
PERRON_REQUIRE_NCCL=1 timeout 120 gpu_dist_nccl_test --gtest_brief=1 2>&1 | tail -15
diff_of() {
  awk -F'\t' 'NR == FNR { a[FNR] = $2; next } { d = $2 - a[FNR]; if (d < 0) d = -d; if (d > m) m = d }
              END { printf "max |diff| %.3g over %d vertices\n", m, FNR }' "$1" "$2"
}
for g in rmat:20:10000000 .gpu/shared-data/graphs/cnr-2000.mtx.gz; do
  for p in double float; do
    timeout 60 pagerank $g --gpus 1 --precision $p --tol 1e-10 --no-cache -o n.tsv --json >n.json
    echo "--gpus 1 rc $?"
    timeout 60 pagerank $g --device cuda --pull spmv --precision $p --tol 1e-10 --no-cache -o o.tsv --json >o.json
    echo "one GPU rc $?"
    python3 -c "import json; n = json.load(open('n.json')); o = json.load(open('o.json'))
print('$g $p: --gpus 1', n['iterations'], 'iterations; one GPU', o['iterations'])"
    diff_of o.tsv n.tsv
  done
done
