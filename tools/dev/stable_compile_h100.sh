#!/bin/bash
# Cold NVIDIA build times of stable/stable_point before and after the gk15 change (one integrand
# call site, loops not unrolled), then the stable tests on NVIDIA. On the lent machine:
#   git show 96700f3~1:cl/stable/stable_point.cl > tools/dev/stable_point_before.cl  (untracked: the
#   file before the change; it travels with the working tree)
#   bash tools/dev/stable_compile_h100.sh
set -u
echo libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
rm -rf /tmp/before && mkdir -p /tmp/before && cp -r CMakeLists.txt cmake* include src cl tools tests bench /tmp/before/ 2>/dev/null
cp tools/dev/stable_point_before.cl /tmp/before/cl/stable/stable_point.cl
(cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -G Ninja >/dev/null && cmake --build build-gpu -j16 >/dev/null) &
(cd /tmp/before && cmake -S . -B b -DCMAKE_BUILD_TYPE=Release -G Ninja >/dev/null && cmake --build b -j16 --target clstat >/dev/null) &
wait
for side in after before; do
  if [ $side = after ]; then inc=build-gpu/include; lib=$PWD/build-gpu; else inc=/tmp/before/b/include; lib=/tmp/before/b; fi
  g++ -O2 -std=c++17 -Iinclude -I$inc tools/dev/compile_time.cpp -L$lib -lclstat -Wl,-rpath,$lib -o /tmp/ct-$side || exit 1
done
export CUDA_CACHE_DISABLE=1
echo "== after"; CLSTAT_CACHE_DIR=$(mktemp -d) timeout 250 /tmp/ct-after nvidia "stable/stable_point|" "stable/stable_point|-DPAIRED=0" "stable/stable_point|-DSTABLE_PANELS=64" | tee $OUT/compile-after.txt
echo "== before"; CLSTAT_CACHE_DIR=$(mktemp -d) timeout 150 /tmp/ct-before nvidia "stable/stable_point|" | tee $OUT/compile-before.txt
unset CUDA_CACHE_DISABLE
CLSTAT_CACHE_DIR=$PWD/build-gpu/cache1 CLSTAT_DEVICE=nvidia timeout 200 ./build-gpu/tests/clstat-tests -tc="stable*" > $OUT/stable-tests-nvidia.txt 2>&1
echo "stable tests rc=$?"; tail -3 $OUT/stable-tests-nvidia.txt
