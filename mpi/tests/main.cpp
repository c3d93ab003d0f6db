// doctest main for clstat-mpi-tests, run under mpirun: every process runs every case in the same
// order (the cases are collective); the exit status is failure when any process failed. Each
// process uses clstat::mpi::rank_device.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>
#include <mpi.h>

#include <cstdio>

#include "clstat/mpi.hpp"
#include "support.hpp"

namespace clstat_test {
// This process's device (one GPU per process where there are GPUs).
const clstat::Context& ctx() {
  static const clstat::Context c{clstat::mpi::rank_device(MPI_COMM_WORLD)};
  return c;
}
}  // namespace clstat_test

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  doctest::Context dc(argc, argv);
  // Reports from every process would interleave: the others only print failures.
  if (rank != 0) dc.setOption("minimal", true);
  int rc = dc.run();
  int any = 0;
  MPI_Allreduce(&rc, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return any;
}
