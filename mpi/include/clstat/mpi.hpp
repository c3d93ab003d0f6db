// clstat/mpi.hpp (libclstat_mpi): clstat calls split across the processes of an MPI
// communicator, one device per process. Each process holds its part of the data (its shard) and
// calls the same function with the same other arguments; every process gets the whole answer.
//
// What moves between the processes, and why the answer does not depend on the split:
// - Order statistics: per radix pass one histogram of at most 4096 counts (MPI_Allreduce of
//   64-bit integers, so the sum is exact in any order), at the end the last candidates (at most
//   2^18 keys over all processes). The value is the one a single device gets from all the data.
// - KDE: every process evaluates the m points against its own samples; the m partial densities
//   of every process are gathered (8 m bytes each) and added in rank order on every process, not
//   by a floating MPI_SUM whose order MPI may choose, so the result is the same bits on every
//   process and for every run with the same shards.
// - Plug-in bandwidth: the shards gathered on every process, each pass's tiles of the pair
//   triangle dealt to the processes, the tiles' partial sums (16 bytes a tile) gathered by all
//   and merged in the pass's fixed order: one process's bandwidths bit for bit on one device type;
//   LSCV over full H the same for every evaluation of its search.
// - Stable fit: every log-likelihood of the search summed over the processes' shards in rank
//   order (a few doubles per batch of laws); the shards gathered once for the start.
// Bad input or a device failure on any process raises on every process (clstat/exchange.hpp);
// none is left waiting. MPI errors raise std::runtime_error with MPI's message.
//
// Build: libclstat_mpi is built when CMake finds MPI (Debian: libopenmpi-dev); link
// clstat::clstat_mpi (find_package(clstat COMPONENTS mpi)). MPI must be initialised by the
// caller, with MPI_THREAD_SERIALIZED or more if several threads make clstat MPI calls.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "clstat/exchange.hpp"
#include "clstat/bandwidth.hpp"
#include "clstat/kde.hpp"
#include "clstat/stable_fit.hpp"
#include "clstat/mpi_export.hpp"
#include "clstat/order.hpp"
#include "clstat/runtime.hpp"

namespace clstat::mpi {

/// An Exchange (clstat/exchange.hpp) over a communicator, which must outlive it: sum is one
/// MPI_Allreduce of MPI_UINT64_T, gather one MPI_Allgather of the sizes and one
/// MPI_Allgatherv. Not thread-safe (one call at a time, as MPI collectives on a communicator).
class CLSTAT_MPI_EXPORT Comm final : public Exchange {
 public:
  explicit Comm(MPI_Comm comm);
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  void sum(std::vector<std::uint64_t>& v) override;
  std::vector<unsigned char> gather(const std::vector<unsigned char>& mine) override;
  MPI_Comm comm() const { return comm_; }

 private:
  MPI_Comm comm_;
  int rank_ = 0, size_ = 1;
};

/// This process's device: select_device(spec) when spec is not empty (each process may pass its
/// own); else, with GPUs present, GPU number (rank on this host) modulo the host's GPUs, so that
/// the processes of a host share its GPUs evenly; else default_device(). Collective (it splits
/// comm by host). Throws as select_device and default_device.
CLSTAT_MPI_EXPORT Device rank_device(MPI_Comm comm, const std::string& spec = "");

/// The order statistics of clstat/order.hpp over every process's shard (x: n_local values of
/// this process, 0 allowed), on ctx's device: clstat::order's exchange forms
/// (clstat/exchange.hpp) over Comm(comm); the same values as one device with all the data.
/// Collective; errors as described there.
template <class T>
CLSTAT_MPI_EXPORT std::vector<T> kth_smallest(const Context& ctx, MPI_Comm comm, const T* x, std::size_t n_local,
                                              const std::vector<std::uint64_t>& ks, const order::Options& o = {});
template <class T>
CLSTAT_MPI_EXPORT double median(const Context& ctx, MPI_Comm comm, const T* x, std::size_t n_local,
                                const order::Options& o = {});
template <class T>
CLSTAT_MPI_EXPORT std::vector<double> quantiles(const Context& ctx, MPI_Comm comm, const T* x, std::size_t n_local,
                                                const std::vector<double>& probs, int type = 7,
                                                const order::Options& o = {});

/// The density at m points y (the same on every process, m x d row-major) of the samples of all
/// processes together: x holds this process's n_local x d samples (0 allowed). Each process
/// computes clstat::kde of its samples at all m points on ctx's device, the parts are weighted
/// by n_local / n and added in rank order on every process (see the top of this header): within
/// kde's stated accuracy of the one-device result, and the same bits for the same shards; one
/// process holding every sample gives kde's bits. Options as kde (the bandwidth is given, not
/// estimated); options.weights are this process's samples' weights (every process with samples
/// passes weights, or none does), and each part then counts in proportion to its weights' sum;
/// log_density is the log of the added densities (-inf where they underflow). Collective; throws on every process when any
/// has bad input (std::invalid_argument) or fails (its error there, std::runtime_error on the
/// others). Work: each process n_local m pair terms; moves 8 m bytes per process to every
/// process.
CLSTAT_MPI_EXPORT std::vector<double> kde(const Context& ctx, MPI_Comm comm, const double* x, std::size_t n_local,
                                          std::size_t d, const double* y, std::size_t m,
                                          const KdeOptions& options = {});

/// The plug-in bandwidths (clstat/bandwidth.hpp) of the rows of all processes together, in rank
/// order: x holds this process's n_local rows of d values (0 allowed). The exchange form of
/// clstat/exchange.hpp over comm: the shards gathered on every process, the pair triangle's tiles
/// dealt to the processes, the tile partials gathered and merged in the pass's order, so on one
/// device type every process gets one process's bandwidths bit for bit, for any shard sizes.
/// Collective; errors as there. Work: stages n^2 d / 2 pair terms over the processes; moves the
/// data (8 n d bytes) and, per pass and column, the partials (16 bytes a tile) to every process.
CLSTAT_MPI_EXPORT std::vector<double> plugin(const Context& ctx, MPI_Comm comm, const double* x, std::size_t n_local,
                                             std::size_t d, const bandwidth::PluginOptions& options = {});

/// LSCV over full bandwidth matrices of the rows of all processes together (rank order): the
/// exchange form of clstat/exchange.hpp over comm (every process runs the same search on the same
/// sums: one process's H bit for bit on one device type). Collective; errors as there.
CLSTAT_MPI_EXPORT bandwidth::LscvMatrixResult lscv_H(const Context& ctx, MPI_Comm comm, const double* x,
                                                     std::size_t n_local, std::size_t d,
                                                     const bandwidth::LscvMatrixOptions& options = {});

/// LSCV over the scalar multiplier of the rows of all processes together (rank order): the
/// exchange form of clstat/exchange.hpp over comm (the pair triangle's rows dealt to the ranks,
/// every process the same result for any shard sizes). Collective; errors as there.
CLSTAT_MPI_EXPORT bandwidth::LscvResult lscv_h(const Context& ctx, MPI_Comm comm, const double* x,
                                               std::size_t n_local, std::size_t d,
                                               const bandwidth::LscvOptions& options = {});

/// The alpha-stable fit (clstat/stable_fit.hpp) of the values of all processes together (rank
/// order): the exchange form of clstat/exchange.hpp over comm; every log-likelihood is the sum of
/// the processes' shards' log-likelihoods, each on its own device, added in rank order, and every
/// process takes the same steps and returns the same result (one process's fit to the fit's
/// tolerance; bit for bit when one process holds every value). Collective; errors as there.
CLSTAT_MPI_EXPORT stable::FitResult fit(const Context& ctx, MPI_Comm comm, const double* x, std::size_t n_local,
                                        const stable::FitOptions& options = {});

/// Least trimmed squares (clstat/robust.hpp) of the rows of all processes together (rank order):
/// x and y hold this process's n_local rows (0 allowed). The exchange form of clstat/exchange.hpp
/// over comm: the rows stay on their processes; each C-step selects over all of them and adds
/// the processes' Gram sums in rank order. Every process returns the same coefficients, scales
/// and objective (one process's fit up to the rounding of those sums; bit for bit at most 2048
/// rows or with one process holding every row); the per-row results are this process's rows.
/// Collective; errors as there.
CLSTAT_MPI_EXPORT robust::LtsFit lts(const Context& ctx, MPI_Comm comm, const double* x, std::size_t n_local,
                                     std::size_t p, const double* y, const robust::LtsOptions& o = {});

}  // namespace clstat::mpi
