// clstat::mpi::fit: clstat::stable's exchange form of the fit over a communicator.
#include "clstat/mpi.hpp"

namespace clstat::mpi {

stable::FitResult fit(const Context& ctx, MPI_Comm comm, const double* x, std::size_t n_local,
                      const stable::FitOptions& options) {
  Comm c(comm);
  return stable::fit(ctx, c, x, n_local, options);
}

}  // namespace clstat::mpi
