#!/bin/bash
# A stable_point build variant on the lent H100: its cold build time, the stable tests and the
# stable suite with it. Usage: VAR_ENV="CLSTAT_STABLE_INLINE=1" VAR_OPT="-DSTABLE_INLINE_LOGG=1" \
#   COMMIT=<c> bash tools/dev/stable_variant_h100.sh
set -u
echo libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DCLSTAT_GIT_COMMIT=${COMMIT:-unknown} -G Ninja >/dev/null && cmake --build build-gpu -j16 >/dev/null || exit 1
g++ -O2 -std=c++17 -Iinclude -Ibuild-gpu/include tools/dev/compile_time.cpp -Lbuild-gpu -lclstat -Wl,-rpath,$PWD/build-gpu -o /tmp/ct || exit 1
CUDA_CACHE_DISABLE=1 CLSTAT_CACHE_DIR=$(mktemp -d) timeout 200 /tmp/ct nvidia "stable/stable_point|$VAR_OPT" "stable/stable_point|$VAR_OPT -DPAIRED=0" | tee $OUT/compile-variant.txt
export CLSTAT_CACHE_DIR=$PWD/build-gpu/cache1
env $VAR_ENV CLSTAT_DEVICE=nvidia timeout 200 ./build-gpu/tests/clstat-tests -tc="stable*" > $OUT/stable-tests-variant.txt 2>&1
echo "tests rc=$?"; tail -2 $OUT/stable-tests-variant.txt
env $VAR_ENV timeout 250 ./build-gpu/bench/clstat-bench --device nvidia --suite stable --repeat 3 --no-peers --out $OUT/h100-nvidia-stable-variant > $OUT/stable-variant.log 2>&1
echo "bench rc=$?"
