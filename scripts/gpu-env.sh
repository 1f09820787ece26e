# Source ON THE GPU MACHINE: `source scripts/gpu-env.sh .gpu`
# Points the carried binaries at the carried data and demands a GPU.
carry=${1:-.gpu}
export PERRON_REQUIRE_GPU=1
export PERRON_DATA_DIR="$PWD/data"
export PERRON_SHARED_DATA="$PWD/$carry/shared-data"
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export PATH="$PWD/$carry/bin:$PATH"
