// The runtime rows of clstat-bench (--suite runtime and all): independent calls on the queues of
// one Context overlap on the device.
//  Work: stable pdf (the device-buffer evaluate_async) of n points of one law (alpha 1.5, beta 0.5),
//  n = 1e4 (a call that fills a fraction of a GPU) and 1e6, first as one call, then as four
//  independent calls on queues 0..3 enqueued together.
//  Times: kernel_ms of the single call is its kernel's device time; of the four, the device span
//  from the first kernel's start to the last one's end. Throughput: million points per second.
//  The "overlap" row's throughput is 4 x (one call's time) / (the four calls' span): above 1 when
//  they overlap.
//  The same without event profiling: a Context adopted (clstat/interop/opencl.hpp) over four
//  queues made without CL_QUEUE_PROFILING_ENABLE, timed by the wall clock (some drivers serialise
//  the kernels of profiling queues).
//  Check: each of the four results is bit-identical to the single call's.
#pragma once

#include <vector>

#include "report.hpp"

namespace bench {

std::vector<Row> run_runtime(const clstat::Context& ctx, int repeats, bool large);

}  // namespace bench
