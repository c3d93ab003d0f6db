// The ceilings of a CPU device's cores measured by native code on the host, over all hardware
// threads: copy bandwidth, FMA rates and a vectorised exp. An OpenCL CPU driver's micro-kernels
// can understate what the cores do (PoCL does not vectorise an exp loop the way a compiler with a
// vector math library does), and a ceiling below what a kernel reaches makes "fraction of
// ceiling" meaningless. The bench reports both and takes the higher as a CPU device's ceiling.
#pragma once

#include "clstat/ceilings.hpp"

namespace bench {

/// The host's rates. Best of 5 runs each, about a second in all. Copy: 2 x 256 MiB of host memory,
/// (bytes read + written) / s. FMA: independent chains of 2 flops, in the widest vectors the CPU
/// has (function clones for AVX-512, AVX2 + FMA and the baseline, picked at run time). exp:
/// glibc's vector exp (libmvec) over arrays, one multiply each, as the device micro-kernel;
/// native_exp32_gps: the higher of that and a native-accuracy exp2 (range reduction and a
/// degree-6 polynomial, as CPU drivers build native_exp2).
clstat::Ceilings measure_host_ceilings();

/// Each rate the higher of a's and b's (a device's and its host's, or two measurements of one
/// device); a rate a leaves at 0 (no fp64) stays 0.
clstat::Ceilings higher(clstat::Ceilings a, const clstat::Ceilings& b);

}  // namespace bench
