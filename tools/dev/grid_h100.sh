#!/bin/bash
# Device run for the grid suite (issue 6). On the lent machine:
#   COMMIT=<hash> STEPS="tests trace bench file" bash tools/dev/grid_h100.sh
# tests: the grid tests on NVIDIA; trace: the grid bench once with phase times (GRID_PPIS lists
# points-per-item variants, default the library's choice); bench: the grid suite, 5 repeats;
# file: a FILE_SIZE^3-point grid (default 2048^3 = 2^33) into a .f32 file by `clstat grid` with a 1 GiB slab budget,
# its peak memory measured; pocl: the grid suite at the paper's shapes on PoCL (the host's CPU).
# Everything lands under $OUT.
set -u
echo libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
commit=${COMMIT:-unknown}
steps=${STEPS:-tests trace bench}
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DCLSTAT_GIT_COMMIT=$commit -G Ninja >/dev/null && cmake --build build-gpu -j16 >/dev/null || exit 1
export CLSTAT_CACHE_DIR=$PWD/build-gpu/cache1
for step in $steps; do
  case $step in
  tests)
    CLSTAT_DEVICE=nvidia timeout 200 ./build-gpu/tests/clstat-tests -tc="kde_grid.*" > $OUT/grid-tests-nvidia-$commit.txt 2>&1
    echo "nvidia grid tests rc=$?"; tail -3 $OUT/grid-tests-nvidia-$commit.txt ;;
  trace)
    for ppi in ${GRID_PPIS:-lib}; do
      [ "$ppi" = lib ] && unset CLSTAT_GRID_PPI || export CLSTAT_GRID_PPI=$ppi
      CLSTAT_GRID_TRACE=1 timeout 150 ./build-gpu/bench/clstat-bench --device nvidia --suite grid --repeat 2 --no-peers --out $OUT/trace-$ppi > $OUT/trace-$ppi.log 2>&1
      echo "== ppi $ppi"; grep -E "grid\]|s-kde" $OUT/trace-$ppi.log | grep -v "ep-kde\|upload\|binning" | awk '!seen[$0]++' | tail -9
    done
    unset CLSTAT_GRID_PPI ;;
  bench)
    timeout 240 ./build-gpu/bench/clstat-bench --device nvidia --suite grid --repeat 5 --no-peers --out $OUT/h100-nvidia-grid-$commit > $OUT/bench-$commit.log 2>&1
    echo "bench rc=$?"; grep -E "clstat-bench\]   " $OUT/bench-$commit.log ;;
  file)
    fs=${FILE_SIZE:-2048}  # points per dimension: 2048^3 = 2^33; 2304^3 = 1.22e10 (97.8 GB as doubles)
    df -h . /tmp | tail -2
    python3 -c "
import numpy as np
r = np.random.default_rng(5)
z = r.standard_normal((100000, 3)); c = r.standard_normal((100000, 1))
np.savetxt('/tmp/x3.csv', np.sqrt(0.5) * (z + c), delimiter=',', header='a,b,c', comments='', fmt='%.17g')"
    /usr/bin/time -v ./build-gpu/tools/clstat/clstat grid --device nvidia --data /tmp/x3.csv --lower -4.5,-4.5,-4.5 --upper 4.5,4.5,4.5 \
      --size $fs,$fs,$fs --memory 1073741824 --out /tmp/grid$fs.f32 > $OUT/file-$fs-$commit.log 2>&1
    echo "file rc=$?"; ls -l /tmp/grid$fs.f32; grep -E "clstat grid|Maximum resident|Elapsed" $OUT/file-$fs-$commit.log | tail -3
    rm -f /tmp/grid$fs.f32 ;;
  pocl)
    timeout 500 ./build-gpu/bench/clstat-bench --device pocl --suite grid --repeat 1 --grid-large --no-peers --out $OUT/h100host-pocl-grid-$commit > $OUT/pocl-$commit.log 2>&1
    echo "pocl rc=$?"; grep -E "clstat-bench\]   " $OUT/pocl-$commit.log ;;
  esac
done
