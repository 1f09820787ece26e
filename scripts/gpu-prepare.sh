#!/usr/bin/env bash
# Run HERE (no GPU needed): builds everything for the H100 (sm_90, static cudart,
# static Boost.Program_options and libstdc++) and gathers what a GPU run needs
# into an ignored folder that the device tool carries:
#   scripts/gpu-prepare.sh [CARRY_DIR=.gpu] [BUILD_DIR=build-gpu] [ninja targets...]
# then on the device machine (one call):
#   run(command="scripts/gpu-run.sh .gpu", carry=[".gpu"])
set -euo pipefail
cd "$(dirname "$0")/.."
carry=${1:-.gpu}
build=${2:-build-gpu}
shift $(( $# > 2 ? 2 : $# )) || true
scripts/install-deps.sh
# One build at a time: two ninjas in one build folder each compile the same
# objects and read the same depfiles, which the first deletes, so the second
# records no header dependencies for them, and a later header change leaves
# those objects stale (session 62: six CUDA objects with no dependencies, the
# host and device halves of the solver then disagreed on a struct's layout).
mkdir -p "$build"
exec 9>"$build/.gpu-prepare.lock"
if ! flock -n 9; then
  echo "gpu-prepare: another run is building $build; wait for it" >&2
  exit 1
fi
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DPERRON_CUDA=ON -DPERRON_STATIC_RUNTIME=ON -DPERRON_LIBARCHIVE=OFF -DPERRON_PYTHON=OFF -DPERRON_MPI=OFF >/dev/null
ninja -C "$build" "$@"
rm -rf "$carry"
mkdir -p "$carry/bin" "$carry/shared-data" "$carry/lib"
for f in "$build"/bin/*; do
  [ -x "$f" ] && [ -f "$f" ] && strip -o "$carry/bin/$(basename "$f")" "$f"
done
# Shared libraries Debian ships without a static archive (ISA-L's inflater)
# travel beside the binaries; scripts/gpu-env.sh puts them on the library path.
for so in $(ldd "$build"/bin/pagerank 2>/dev/null | awk '/libisal/ {print $3}'); do cp -L "$so" "$carry/lib/"; done
# The real matrices the GPU tests and benchmarks read (../shared does not travel).
if [ -d ../shared/data ]; then
  cp -r ../shared/data/. "$carry/shared-data/"
fi
# Static runtimes make each binary a few MB: ship one xz tarball (the carried
# tree, the repository's own files included, is limited to 64 MiB); scripts/gpu-env.sh
# unpacks it there. Every test binary holds the same device code (13-17 MB
# each, 250 MB in all), so a dictionary that spans the whole tar stores it about
# once: 24 MB against 53 with xz -6's 8 MiB window (session 42; about 3 minutes
# on 2 cores, one thread: a block as large as the dictionary).
XZ_OPT="--lzma2=preset=6,dict=256MiB" tar -C "$carry" -cJf "$carry/bundle.txz" bin lib shared-data
rm -rf "$carry/bin" "$carry/lib" "$carry/shared-data"
du -sh "$carry/bundle.txz"
