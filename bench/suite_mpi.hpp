// The MPI rows of clstat-bench (--suite mpi, run under mpirun; built when CMake finds MPI, as
// libclstat_mpi is): one call split across the processes (clstat/mpi.hpp) against one process
// holding all the data, every process making the same data from one seed and taking its shard.
//  Devices: process r takes the r-th SPEC of --device (cycled), else clstat::mpi::rank_device's
//  choice (the local rank modulo the GPUs). Shards: by --weights (cycled over the processes;
//  default equal).
//  Work (the scaling suite's sizes, by process 0's device type; --max-log2, --kde-max-log2 and
//  --pair-max-log2 override the first three): the median of 2^30 doubles in host memory (2^24 on
//  a CPU); KDE 1-d fp32 at n = m = 2^22 (2^14), the samples sharded and every point on every
//  process; the stable pdf of one law at 1e8 points (2e4), each process the densities of its own
//  points; the two-stage plug-in bandwidth of 2^18 doubles (2^13), the tiles of pairs dealt to
//  the processes; LTS of 10^6 rows, p = 10 (10^5), 30% of them shifted, the rows staying on
//  their processes. Every process makes all the data (8 GiB for the median with a GPU).
//  Timing: wall clock from a barrier to the slowest process's return, one warm-up, the median
//  of --repeat runs (default 3); the one-process time is process 0's with all the data while the
//  others wait.
//  Rows: "<op> on 1 process" (the reference) and "<op> on P processes": speed-up in the check
//  text; efficiency (speed-up / P) as the fraction of the ceiling "P times one process".
//  Check: the median and the plug-in equal to one process's; KDE within 2e-5 of the largest
//  density; every shard's pdf against process 0's within 1e-9; LTS coefficients within 1e-9.
#pragma once

#include <string>
#include <vector>

#include "report.hpp"

namespace bench {

struct MpiBenchOptions {
  std::vector<std::string> devices;  // per process, cycled; empty: clstat::mpi::rank_device
  std::vector<double> weights{1};    // shard shares per process, cycled
  int repeats = 3;
  int median_log2 = -1, kde_log2 = -1, plugin_log2 = -1;  // -1: by process 0's device type
};

/// Collective over MPI_COMM_WORLD (MPI initialised by the caller): every process runs every row.
/// On process 0 returns its device's report with the rows; elsewhere an empty report. A row
/// whose check fails has pass = false on process 0.
DeviceReport run_mpi(const MpiBenchOptions& o);

}  // namespace bench
