#!/bin/bash
# Device run for the grid suite (issue 6): build, the grid tests on NVIDIA, then the bench with
# phase traces and with PPI variants. Usage on the lent machine: bash tools/dev/grid_h100.sh
# (writes under $OUT). Variants: GRID_PPIS="2 4".
set -u
echo libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DCLSTAT_GIT_COMMIT=$commit -G Ninja >/dev/null && cmake --build build-gpu -j16 >/dev/null || exit 1
export CLSTAT_CACHE_DIR=$PWD/build-gpu/cache1
CLSTAT_DEVICE=nvidia timeout 200 ./build-gpu/tests/clstat-tests -tc="kde_grid.*" > $OUT/grid-tests-nvidia.txt 2>&1; echo "nvidia grid tests rc=$?"; tail -3 $OUT/grid-tests-nvidia.txt
for ppi in ${GRID_PPIS:-2}; do
  CLSTAT_GRID_PPI=$ppi CLSTAT_GRID_TRACE=1 timeout 150 ./build-gpu/bench/clstat-bench --device nvidia --suite grid --repeat 1 --no-peers --out $OUT/trace-ppi$ppi > $OUT/trace-ppi$ppi.log 2>&1
  echo "== ppi $ppi trace"; grep -E "\[grid\] (binning|upload|slab)" $OUT/trace-ppi$ppi.log | sort | uniq -c | sort -rn | head -0
  grep -E "grid\]|s-kde" $OUT/trace-ppi$ppi.log | awk 'NR%1==0' | tail -24
done
CLSTAT_GRID_PPI=${GRID_PPI_FINAL:-2} timeout 240 ./build-gpu/bench/clstat-bench --device nvidia --suite grid --repeat 5 --no-peers --out $OUT/h100-nvidia-grid-$commit > $OUT/bench.log 2>&1
echo "bench rc=$?"; grep -E "clstat-bench\]   " $OUT/bench.log
