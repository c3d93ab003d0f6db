// clstat::mpi::plugin, lscv_h and lscv_H: clstat::bandwidth's exchange forms over a communicator.
#include "clstat/mpi.hpp"

namespace clstat::mpi {

std::vector<double> plugin(const Context& ctx, MPI_Comm comm, const double* x, std::size_t n_local, std::size_t d,
                           const bandwidth::PluginOptions& options) {
  Comm c(comm);
  return bandwidth::plugin(ctx, c, x, n_local, d, options);
}

bandwidth::LscvMatrixResult lscv_H(const Context& ctx, MPI_Comm comm, const double* x, std::size_t n_local, std::size_t d,
                                   const bandwidth::LscvMatrixOptions& options) {
  Comm c(comm);
  return bandwidth::lscv_H(ctx, c, x, n_local, d, options);
}

bandwidth::LscvResult lscv_h(const Context& ctx, MPI_Comm comm, const double* x, std::size_t n_local, std::size_t d,
                             const bandwidth::LscvOptions& options) {
  Comm c(comm);
  return bandwidth::lscv_h(ctx, c, x, n_local, d, options);
}

}  // namespace clstat::mpi
