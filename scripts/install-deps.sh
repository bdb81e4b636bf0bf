#!/usr/bin/env bash
# Installs the Debian 12 packages tevsuite builds against, only those missing.
set -euo pipefail

packages=(
  build-essential cmake clang-format-14
  librapidcheck-dev libboost-math-dev libeigen3-dev libtbb-dev libgtest-dev
  librandom123-dev libcli11-dev nlohmann-json3-dev python3-matplotlib
  libbenchmark-dev libopenmpi-dev openmpi-bin
  libsphinxbase-dev pocketsphinx-en-us pkg-config
  pybind11-dev python3-dev python3-numpy python3-pytest python3-torch
  python3-venv python3-pip python3-setuptools python3-wheel python3-build
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "install-deps: installing ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
