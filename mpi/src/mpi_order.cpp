// clstat::mpi order statistics: clstat::order's exchange forms over a communicator.
#include "clstat/mpi.hpp"

namespace clstat::mpi {

template <class T>
std::vector<T> kth_smallest(const Context& ctx, MPI_Comm comm, const T* x, std::size_t n_local,
                            const std::vector<std::uint64_t>& ks, const order::Options& o) {
  Comm c(comm);
  return order::kth_smallest(ctx, c, x, n_local, ks, o);
}

template <class T>
double median(const Context& ctx, MPI_Comm comm, const T* x, std::size_t n_local, const order::Options& o) {
  Comm c(comm);
  return order::median(ctx, c, x, n_local, o);
}

template <class T>
std::vector<double> quantiles(const Context& ctx, MPI_Comm comm, const T* x, std::size_t n_local,
                              const std::vector<double>& probs, int type, const order::Options& o) {
  Comm c(comm);
  return order::quantiles(ctx, c, x, n_local, probs, type, o);
}

#define CLSTAT_MPI_INSTANTIATE(T)                                                                                    \
  template CLSTAT_MPI_EXPORT std::vector<T> kth_smallest(const Context&, MPI_Comm, const T*, std::size_t,          \
                                                         const std::vector<std::uint64_t>&, const order::Options&);  \
  template CLSTAT_MPI_EXPORT double median(const Context&, MPI_Comm, const T*, std::size_t, const order::Options&); \
  template CLSTAT_MPI_EXPORT std::vector<double> quantiles(const Context&, MPI_Comm, const T*, std::size_t,        \
                                                           const std::vector<double>&, int, const order::Options&);
CLSTAT_MPI_INSTANTIATE(float)
CLSTAT_MPI_INSTANTIATE(double)
CLSTAT_MPI_INSTANTIATE(std::int32_t)
CLSTAT_MPI_INSTANTIATE(std::int64_t)
#undef CLSTAT_MPI_INSTANTIATE

}  // namespace clstat::mpi
