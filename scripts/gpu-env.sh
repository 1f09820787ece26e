# Source ON THE GPU MACHINE: `source scripts/gpu-env.sh .gpu`
# Points the carried binaries at the carried data and demands a GPU.
carry=${1:-.gpu}
# scripts/gpu-prepare.sh ships bin/ and shared-data/ as one tarball (xz; gzip
# from older bundles); tar finds the compression itself.
for b in "$carry/bundle.txz" "$carry/bundle.tgz"; do
  if [ -f "$b" ] && [ ! -d "$carry/bin" ]; then tar -C "$carry" -xf "$b"; fi
done
export PERRON_REQUIRE_GPU=1
export PERRON_DATA_DIR="$PWD/data"
export PERRON_SHARED_DATA="$PWD/$carry/shared-data"
export LD_LIBRARY_PATH="$PWD/$carry/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export PATH="$PWD/$carry/bin:$PATH"
