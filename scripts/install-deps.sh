#!/usr/bin/env bash
# Installs the Debian packages perron builds against, if any is missing.
# Idempotent: does nothing (and needs no network) when everything is present.
set -euo pipefail
pkgs=(cmake ninja-build g++ zlib1g-dev libisal-dev libboost-program-options-dev libgtest-dev libarchive-dev libexpat1-dev clang-format
      libopenmpi-dev openmpi-bin pybind11-dev python3-dev python3-numpy python3-scipy python3-pytest python3-networkx)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "install-deps: installing ${missing[*]}" >&2
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
