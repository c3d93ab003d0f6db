#!/bin/bash
# device run helper (not committed)
set -x
echo libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
clinfo -l
export CLSTAT_CACHE_DIR=$PWD/build-gpu/cacheX
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DCLSTAT_GIT_COMMIT=$(git rev-parse --short HEAD 2>/dev/null || echo $COMMIT) -G Ninja > $OUT/cmake.log 2>&1 || { tail -30 $OUT/cmake.log; exit 1; }
cmake --build build-gpu -j16 > $OUT/build.log 2>&1 || { grep -E "error" $OUT/build.log | head -30; exit 1; }
echo BUILD OK
