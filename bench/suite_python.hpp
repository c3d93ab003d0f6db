// The python rows of clstat-bench (--suite python and all): clstat's Python package against the
// C++ call it wraps and against the Python function it replaces, on the same data and device.
//  Work: gaussian_kde of n = m float64 values in 1-d (2^16 on GPUs, 2^13 on CPUs; Scott's
//  bandwidth); the median of 2^27 float32 values already on the device (2^23 on CPUs); stable
//  pdf (alpha 1.5, beta 0.5, S0) of 1e5 points (1e4 on CPUs); and that pdf on 8 chunks of 1e4
//  points (1e3 on CPUs), called one after another, then from 8 Python threads at once.
//  Each workload gives a "(C++)" row, the library's host-level call (the median's device-buffer
//  form) timed by the wall clock, and a "(Python)" row, the same through `import clstat`, timed by
//  bench/peers/python_api.py in the Python the package was built for. Both rows carry the peer:
//  scipy.stats.gaussian_kde, the faster of cupy.median and torch.median (both in the check), and
//  scipy.stats.levy_stable.pdf in S0 (timed on 1000 points, its rate per point).
//  Check: the Python row states its overhead over the C++ call; the threads row checks that the
//  8 threads' results equal the sequential calls' and states the speed-up.
//  Skipped (a row that says why) when the package was not built (CLSTAT_PYTHON off).
#pragma once

#include <string>
#include <vector>

#include "report.hpp"

namespace bench {

struct PythonBenchOptions {
  int repeats = 5;
  bool large = true;  // the GPU sizes
  std::string peers_dir;
};

std::vector<Row> run_python(const clstat::Context& ctx, const PythonBenchOptions& o);

}  // namespace bench
