#!/usr/bin/env bash
# Installs what clstat needs on Debian 12 / Ubuntu 22.04+ (run as root or with sudo).
set -euo pipefail
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update
$SUDO apt-get install -y --no-install-recommends \
  build-essential cmake ninja-build pkg-config git ca-certificates \
  ocl-icd-opencl-dev opencl-c-headers opencl-clhpp-headers clinfo \
  libboost-dev libeigen3-dev doctest-dev nlohmann-json3-dev libxml2-utils pocl-opencl-icd \
  python3-dev pybind11-dev python3-numpy python3-scipy python3-pytest python3-sklearn \
  libopenmpi-dev openmpi-bin
