// clstat::mpi::lts: clstat::robust's exchange form of least trimmed squares over a communicator.
#include "clstat/mpi.hpp"

namespace clstat::mpi {

robust::LtsFit lts(const Context& ctx, MPI_Comm comm, const double* x, std::size_t n_local, std::size_t p,
                   const double* y, const robust::LtsOptions& o) {
  Comm c(comm);
  return robust::lts(ctx, c, x, n_local, p, y, o);
}

}  // namespace clstat::mpi
