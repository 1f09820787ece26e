# Source ON THE GPU MACHINE: `source scripts/gpu-env.sh .gpu`
# Points the carried binaries at the carried data and demands a GPU.
carry=${1:-.gpu}
# scripts/gpu-prepare.sh ships bin/ and shared-data/ as one tarball.
if [ -f "$carry/bundle.tgz" ] && [ ! -d "$carry/bin" ]; then
  tar -C "$carry" -xzf "$carry/bundle.tgz"
fi
export PERRON_REQUIRE_GPU=1
export PERRON_DATA_DIR="$PWD/data"
export PERRON_SHARED_DATA="$PWD/$carry/shared-data"
export LD_LIBRARY_PATH="$PWD/$carry/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export PATH="$PWD/$carry/bin:$PATH"
