// clstat::mpi::plugin: clstat::bandwidth's exchange form over a communicator.
#include "clstat/mpi.hpp"

namespace clstat::mpi {

std::vector<double> plugin(const Context& ctx, MPI_Comm comm, const double* x, std::size_t n_local, std::size_t d,
                           const bandwidth::PluginOptions& options) {
  Comm c(comm);
  return bandwidth::plugin(ctx, c, x, n_local, d, options);
}

}  // namespace clstat::mpi
