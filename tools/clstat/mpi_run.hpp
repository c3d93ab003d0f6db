// The CLI's verbs under mpirun (--mpi): one MPI run around a verb's work.
#pragma once

#ifdef CLSTAT_CLI_MPI
#include <mpi.h>

#include <iostream>
#include <stdexcept>
#include <string>

namespace clstat_cli {

/// Runs f(rank, size) of MPI_COMM_WORLD (returning the exit status) under MPI_Init /
/// MPI_Finalize; an error on any process is printed by that process, prefixed by `verb` and its
/// rank, and makes the status 1 on every process (the library raises a split call's error on
/// every process).
template <class F>
int with_mpi(const char* verb, F&& f) {
  int argc = 0;
  char** argv = nullptr;
  MPI_Init(&argc, &argv);
  int rc = 0, rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  try {
    rc = f(rank, size);
  } catch (const std::exception& e) {
    std::cerr << verb << " (process " << rank << "): " << e.what() << "\n";
    rc = 1;
  }
  MPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return rc;
}

}  // namespace clstat_cli
#endif
