// clstat/ceilings.hpp: a device's own throughput ceilings, measured with micro-kernels, so that
// benchmark results can be reported as a fraction of what the device can do.
#pragma once

#include "clstat/export.hpp"
#include "clstat/runtime.hpp"

namespace clstat {

struct Ceilings {
  double copy_gbs = 0;          ///< device-to-device copy kernel: (bytes read + written) / s, in GB/s
  double read_gbs = 0;          ///< a kernel that only reads a buffer (summing it): bytes read / s, in
                                ///< GB/s; the ceiling of one pass over data that writes little (a
                                ///< reduction, a selection). A CPU's copy also reads each written
                                ///< line first, so its read rate is well above copy_gbs
  double fp32_fma_gflops = 0;   ///< fp32 FMA chains, 2 flops per FMA, GFLOP/s
  double fp64_fma_gflops = 0;   ///< 0 without fp64
  double exp32_gps = 0;         ///< exp() or exp2() on float, whichever is faster, 1e9 evaluations
                                ///< per second (each with one multiply); on CPU devices the higher
                                ///< of scalar and 16-wide vector calls
  double native_exp32_gps = 0;  ///< native_exp2() on float (CPUs: also as vectors)
  double exp64_gps = 0;         ///< exp() or exp2() on double, as exp32; 0 without fp64
};

/// Runs each micro-kernel `repeats` times after a warm-up and keeps the best (the ceiling is
/// what the device can reach). Uses about 2 * copy_bytes of device memory (default 512 MiB each,
/// capped by the largest allocation). Takes a fraction of a second on a GPU and a few seconds on
/// a CPU device; the work is fixed (about 2^20 work-items x 256 steps per rate, and one copy and
/// one read of copy_bytes), so the time does not grow with anything else. Throws std::invalid_argument for
/// repeats < 1 or copy_bytes < 1 MiB, clstat::Error on OpenCL failure.
CLSTAT_EXPORT Ceilings measure_ceilings(const Context& ctx, std::size_t copy_bytes = std::size_t(512) << 20,
                                        int repeats = 5);

}  // namespace clstat
