// clstat/exchange.hpp: calls split between processes. Each process holds a part of the data (its
// shard) and calls the same function with the same arguments otherwise; the processes combine
// what they learn through an Exchange, which names the other processes and moves small integer
// sums and byte strings between them. clstat/mpi.hpp makes one of an MPI communicator
// (libclstat_mpi); any other transport can implement the two operations.
//
// Every process gets the same answer, and it is the answer one process holding all the data would
// get (order statistics: the same value; sums of floating-point parts: combined in rank order, as
// each function states). A process whose input is bad or whose device fails makes every process
// throw: its own error on it, std::runtime_error naming it on the others; no process is left
// waiting in a collective. The calls are collective: every process of the exchange must make the
// same sequence of them, each on its own thread of control.
#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <string>
#include <vector>

#include "clstat/bandwidth.hpp"
#include "clstat/export.hpp"
#include "clstat/order.hpp"
#include "clstat/robust.hpp"
#include "clstat/runtime.hpp"
#include "clstat/stable_fit.hpp"

namespace clstat {

class CLSTAT_EXPORT Exchange {
 public:
  virtual ~Exchange();
  /// This process's number, 0 <= rank() < size(), and the number of processes.
  virtual int rank() const = 0;
  virtual int size() const = 0;
  /// Replaces v, which has the same length on every process, by its element-wise sum over the
  /// processes (integers: exact, whatever the order). Collective.
  virtual void sum(std::vector<std::uint64_t>& v) = 0;
  /// Every process's bytes, concatenated in rank order; the same on every process. Collective.
  virtual std::vector<unsigned char> gather(const std::vector<unsigned char>& mine) = 0;
};

/// FNV-1a of the `bytes` bytes at p, continuing from h (start from hash_seed): the processes of
/// a split call compare their arguments by it. O(bytes).
constexpr std::uint64_t hash_seed = 1469598103934665603ull;
inline std::uint64_t hash_bytes(std::uint64_t h, const void* p, std::size_t bytes) {
  for (std::size_t i = 0; i < bytes; ++i) h = (h ^ static_cast<const unsigned char*>(p)[i]) * 1099511628211ull;
  return h;
}

/// The agreement before a split call does its work, collective: every process passes the error
/// its own preparation raised (or none), the hash of the arguments that must be the same on every
/// process, and its own bytes (its shard's size, a partial result). Returns every process's bytes,
/// in rank order, when no process failed. Otherwise throws on every process: on a failed one its
/// own exception; on the others std::invalid_argument naming each process whose input was bad
/// (its error was a std::invalid_argument) or whose arguments differ, else std::runtime_error
/// naming the failed processes. `op` names the call in the messages. Thread safety: as ex.
/// O(processes + bytes) on each process; one gather.
CLSTAT_EXPORT std::vector<std::vector<unsigned char>> agree_before(Exchange& ex, const std::string& op,
                                                                  std::exception_ptr err, std::uint64_t args,
                                                                  const std::vector<unsigned char>& mine);

namespace order {

/// The order statistics of clstat/order.hpp over the union of every process's shard: x holds this
/// process's n_local values (0 allowed; x may then be null), ks/probs are global and the same on
/// every process, and so are type and o. The values are the single-process ones for any shard
/// sizes (R and NumPy's). Each process uploads its shard to ctx's device and runs the radix passes
/// on it; per pass the processes sum one histogram of at most 4096 counts (32 KB), and at the end
/// gather their remaining candidates (at most 2^18 keys over all). Options::method must be radix or
/// automatic. Throws on every process: std::invalid_argument for bad input on any process (or
/// arguments that differ between processes), naming the process; std::out_of_range for a k past
/// the global n; clstat::Error and UnsupportedFeature as on one device. Thread safety: as ctx;
/// the exchange is used by one call at a time. Work: two or three reads of each shard on its
/// device, plus its candidates; each process sends O(4096) counts per pass.
template <class T>
CLSTAT_EXPORT std::vector<T> kth_smallest(const Context& ctx, Exchange& ex, const T* x, std::size_t n_local,
                                          const std::vector<std::uint64_t>& ks, const Options& o = {});
template <class T>
CLSTAT_EXPORT double median(const Context& ctx, Exchange& ex, const T* x, std::size_t n_local, const Options& o = {});
template <class T>
CLSTAT_EXPORT std::vector<double> quantiles(const Context& ctx, Exchange& ex, const T* x, std::size_t n_local,
                                            const std::vector<double>& probs, int type = 7, const Options& o = {});

}  // namespace order

namespace bandwidth {

/// The plug-in bandwidths of clstat/bandwidth.hpp (plugin) of the union of every process's shard
/// (x: this process's n_local rows of d values, row-major; 0 rows allowed, x may then be null),
/// the rows in rank order: the bandwidths of one process holding all the data. The shards are
/// gathered on every process (8 n d bytes to each); each pass's tiles of the pair triangle (the
/// TILE x TILE blocks of pairs, rank 0's TILE) are dealt to the processes in rank order, each
/// computes its tiles' partial sums on ctx's device, every process gathers all the partials (16
/// bytes a tile, about n^2 / (2 TILE^2) tiles) and merges them in the pass's fixed order, and rank
/// 0's sums go to every process. Every tile's partial depends on the tile alone, so on devices of
/// one type the result is one process's bit for bit, for any shard sizes; across types, within
/// rounding. d, options must be the same on every process. Throws on every process as plugin does
/// (std::invalid_argument for bad data, naming the process where it is that process's shard;
/// UnsupportedFeature without fp64). Thread safety: as ctx; the exchange is used by one call at a
/// time. Work: stages n^2 d / 2 pair terms over the processes; per pass and column, one gather of
/// the partials and one of the sums.
CLSTAT_EXPORT std::vector<double> plugin(const Context& ctx, Exchange& ex, const double* x, std::size_t n_local,
                                         std::size_t d, const PluginOptions& options = {});

/// LSCV over full bandwidth matrices (lscv_H of clstat/bandwidth.hpp) of the union of every
/// process's shard (rows in rank order; 0 rows allowed): the shards gathered on every process
/// (8 n d bytes to each), every process running the same Nelder-Mead search, each evaluation's
/// pair pass split by tiles in rank order as plugin's passes are, with rank 0's sums taken by
/// every process. On one device type each evaluation's sums, and so H, are one process's bit
/// for bit; every process returns the same result. d and options (but progress) must be the
/// same on every process. Throws on every process as lscv_H does. Thread safety: as ctx; the
/// exchange is used by one call at a time. Work: n^2 d / 2 pair terms per
/// evaluation over the processes; per evaluation two gathers (the partials, 32 bytes a tile, and
/// the sums).
CLSTAT_EXPORT LscvMatrixResult lscv_H(const Context& ctx, Exchange& ex, const double* x, std::size_t n_local,
                                      std::size_t d, const LscvMatrixOptions& options = {});

/// LSCV over the scalar multiplier (lscv_h of clstat/bandwidth.hpp) of the union of every
/// process's shard (rows in rank order; 0 rows allowed): the shards gathered on every process
/// (8 n d bytes to each), the rows of the pair triangle dealt to the processes by equal shares of
/// the pairs in rank order (whatever the shard sizes), each process keeping its rows' squared
/// distances on its device; per pass every process's sums (16 bytes per h value) go to all and are
/// added in rank order, and every process runs the same search with the zoom's brackets chosen on
/// the host. So every process returns the same result, for any shard sizes; against one process
/// the sums add in another order: the objective within rounding (1e-12 relative in the tests) and
/// h as far as the objective's flat bottom lets rounding choose (the tests allow 1e-5). d and
/// options must be the same on every process. Throws on every process as lscv_h does. Thread
/// safety: as ctx; the exchange is used by one call at a time. Work: the single-device passes
/// over the processes, each over its share of the pairs; one gather per pass.
CLSTAT_EXPORT LscvResult lscv_h(const Context& ctx, Exchange& ex, const double* x, std::size_t n_local, std::size_t d,
                                const LscvOptions& options = {});

}  // namespace bandwidth

namespace stable {

/// The fit of clstat/stable_fit.hpp (fit) to the union of every process's shard (n_local values
/// here, 0 allowed; the values in rank order): the shards gathered on every process (8 n bytes to
/// each), which all make the same start, grid and Newton steps, with every log-likelihood the sum
/// over the processes of their shards' log-likelihoods on their own devices, added in rank order.
/// Every process returns the same result. It agrees with one process's fit to the fit's
/// tolerance (the sums round differently), and is that fit bit for bit when one process holds
/// every value. options must be the same on every process (progress excepted). Throws on every
/// process as fit does. Thread safety: as ctx; the exchange is used by one call at a time. Work: each process's shard's likelihood passes (33 laws a Newton
/// stencil), one gather of the shards and one gather of a few sums per batch of laws.
CLSTAT_EXPORT FitResult fit(const Context& ctx, Exchange& ex, const double* x, std::size_t n_local,
                            const FitOptions& options = {});

}  // namespace stable

namespace robust {

/// Least trimmed squares (lts of clstat/robust.hpp) of the rows of every process, each holding
/// its own n_local rows of x (row-major, p values each) and y, the rows in rank order (0 rows
/// allowed; x and y may then be null). The rows stay where they are:
///   - the design's centres and scales merge every process's column moments in rank order;
///   - the nested search's 1500 random rows (drawn from the global row numbers, as on one process)
///     are gathered on every process, which all run the same starts on their own devices;
///   - each final C-step selects the h-th smallest squared residual exactly over every process's
///     rows (order statistics across processes: one histogram sum per radix pass), sums each
///     process's Gram matrix of the rows below it in rank order, and gives ties to lower rows;
///   - the final least-squares fits add each process's cross products in rank order (and, in the
///     rare case that needs it, gather the chosen rows for the pivoted QR); the objective, MAD of y
///     and the scales are combined the same way.
/// With at most 2048 rows over all processes the rows are gathered and every process makes the
/// one-process fit, bit for bit. Otherwise the fit is the one-process fit up to the rounding of
/// the combined sums: the same h-subset and weights unless residuals tie within that rounding,
/// coefficients within about 1e-12 relative on well-conditioned data; with one process holding
/// every row it is bit for bit. Every process returns the same coefficients, scales, objective,
/// counts and search record (n is the total); residuals, weights and raw_weights cover this
/// process's rows; best and outliers list this process's rows among them, numbered over all
/// processes (rank order). p and o must be the same on every process. Throws on every process as
/// lts does, naming the process where the input is bad (a non-finite value by its global row).
/// Thread safety: as ctx; the exchange is used by one call at a time. Work: each process's
/// rows' passes (O(n_local q^2) per C-step on its device); per C-step of each of the 10 final
/// runs, the radix passes' histogram sums (32 KB each) and one gather of (q + 1)(q + 2)/2 + 3
/// doubles from each process; once, 1500 rows and O(q^2) sums.
CLSTAT_EXPORT LtsFit lts(const Context& ctx, Exchange& ex, const double* x, std::size_t n_local, std::size_t p,
                         const double* y, const LtsOptions& o = {});

}  // namespace robust
}  // namespace clstat
