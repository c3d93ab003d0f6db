// clstat/group.hpp: several devices as one. A DeviceGroup holds one Context per member (two
// members may be the same device: two contexts on it, which is how the tests run the group on one
// CPU) and a weight per member. The operations that take a group split their data by the weights
// into contiguous shards, one per member, and run every pass on every member at once.
//
// What moves between the members (order statistics): each member holds its shard on its own
// device; per radix pass each sends the host one histogram of at most 4096 counts (32 KB), and at
// the end the members' remaining candidates (at most 2^18 keys over all members) come to the host.
// The host adds the histograms, which are integer counts: the sum is exact and does not depend on
// the split, so the answer is the same value as on one device, for any weights.
//
// Weights that give one member everything (the others 0) run that member's single-device call,
// so such a group is as fast as the member alone: the way to not split where splitting loses.
//
// A DeviceGroup is a set of handles (cheap to copy; copies share the contexts). Its operations
// are thread-safe as the members' Contexts are (clstat/runtime.hpp): each call holds a queue of
// every member while it runs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "clstat/bandwidth.hpp"
#include "clstat/kde.hpp"
#include "clstat/kde_grid.hpp"
#include "clstat/order.hpp"
#include "clstat/robust.hpp"
#include "clstat/runtime.hpp"
#include "clstat/stable.hpp"
#include "clstat/stable_fit.hpp"

namespace clstat {

class CLSTAT_EXPORT DeviceGroup {
 public:
  /// Members and their weights. Empty weights: each member's measured rate when every member has
  /// one (the tuning entry "group.rate", float 1-d KDE Mpairs/s, which `clstat-bench --tune group`
  /// measures and stores in the tuning file, clstat/tuning.hpp), else all 1. Those rates suit the
  /// compute-bound operations (KDE, stable, the plug-in); order statistics of host data go at the
  /// speed of each member's upload: pass weights for them. Weights are finite and >= 0 with a
  /// positive sum; a member of weight 0 gets no data. Throws std::invalid_argument for no members, one Context
  /// given twice (a device twice takes two Contexts on it), a weight count that differs from the
  /// member count, or bad weights.
  explicit DeviceGroup(std::vector<Context> members, std::vector<double> weights = {});
  /// "all" (every device of devices(), one context each), or a comma-separated list of
  /// select_device() specifications ("nvidia,pocl", "0:0,1:0", "pocl,pocl": the same device
  /// twice), with the default weights above. Throws std::invalid_argument as select_device does,
  /// or for an empty list.
  static DeviceGroup from_spec(const std::string& spec);

  std::size_t size() const noexcept { return members_.size(); }
  const Context& member(std::size_t i) const { return members_.at(i); }
  const std::vector<double>& weights() const noexcept { return weights_; }
  /// The shard sizes of n elements: contiguous, in member order, proportional to the weights
  /// (floor, the remainder to the last member of positive weight). Sums to n. O(members).
  std::vector<std::size_t> split(std::size_t n) const;

 private:
  std::vector<Context> members_;
  std::vector<double> weights_;
};

/// The density at m points y from n samples x (as clstat::kde, clstat/kde.hpp), the points split
/// across the members by the weights: each member evaluates its contiguous share of the points
/// against all the samples, all members at once (a host thread each), and the parts are
/// concatenated in member order. Each point's value is the one its member computes alone, so a
/// group of one device type gives the single-device values bit for bit; across device types they
/// agree within kde's stated accuracy. Throws as kde(); when a member fails, its clstat::Error
/// (naming its device) after every member has stopped. Moves: all n samples to every member,
/// each member's points to it and its densities back. Work: n m pair terms over the members,
/// each member n times its share; wall time that of the slowest member's share.
CLSTAT_EXPORT std::vector<double> kde(const DeviceGroup& g, const double* x, std::size_t n, std::size_t d,
                                      const double* y, std::size_t m, const KdeOptions& options = {});

/// The kernel distribution function (kde_cdf of clstat/kde.hpp, d = 1) at m points y, the points
/// split across the members as kde on a group is: each point's value is its member's, so a
/// group of one device type gives the single-device values bit for bit. Throws as kde_cdf.
/// Work: n m terms over the members, each member n times its share.
CLSTAT_EXPORT std::vector<double> kde_cdf(const DeviceGroup& g, const double* x, std::size_t n, const double* y,
                                          std::size_t m, const KdeOptions& options = {});
/// The density grid of clstat/kde_grid.hpp (evaluate_grid) with the grid's first-dimension
/// indices split across the members by the weights: each member computes its contiguous rows
/// (all later dimensions) from all n samples, all members at once, straight into its part of the
/// result. A grid point's value depends on the grid and the samples alone, not on which rows a
/// call computes, so on members of one device type the grid is the single-device one bit for
/// bit; across types, within the grid's stated accuracy. Errors as evaluate_grid (each member
/// validates; the first member's error is raised). Moves: all n d samples to every member, each
/// member's rows back. Work: the single-device work of each member's rows, the rows at once.
CLSTAT_EXPORT std::vector<double> evaluate_grid(const DeviceGroup& g, const double* x, std::size_t n, std::size_t d,
                                                const GridSpec& grid, const GridOptions& options = {});

namespace bandwidth {
/// The plug-in bandwidths of clstat/bandwidth.hpp (plugin) with each pass's pair sums split
/// across the members: the tiles of the pair triangle (TILE x TILE blocks of pairs, the first
/// member's tile size) dealt to the members by the weights, each member computing its tiles'
/// partial sums, the partials (16 bytes a tile) gathered into the first member and merged there
/// in the pass's fixed order. Every tile's partial depends on the tile alone, so on members of one
/// device type the result is the first member's alone, bit for bit, for any weights; across
/// types, the members' last bits of exp and of the sums' roundings differ (within 1e-12 relative
/// of one device in the tests). Errors as plugin (a member without fp64:
/// UnsupportedFeature). Moves: all n d values to every member with tiles; per pass and column,
/// each member's partials to the first (about n^2 / (2 TILE^2) 16-byte partials in all; TILE =
/// 128 to 512 on GPUs, 128 on CPUs) and one host wait. Work: stages n^2 d / 2 pair terms over
/// the members.
CLSTAT_EXPORT std::vector<double> plugin(const DeviceGroup& g, const double* x, std::size_t n, std::size_t d,
                                         const PluginOptions& options = {});
/// LSCV over full bandwidth matrices (lscv_H of clstat/bandwidth.hpp) with every evaluation's pair
/// pass split across the members as the plug-in's passes are (the tiles dealt by the weights,
/// the first member's tile shape, the partials merged on the first member): on members of one
/// device type each evaluation's sums are the first member's alone bit for bit, so the search
/// takes the same steps and returns the same H. Errors as lscv_H. Moves: all n d values to every
/// member once; per evaluation, A (d^2 doubles) to each member and each member's partials (32
/// bytes a tile) to the first, and one host wait. Work: n^2 d / 2 pair terms per evaluation over
/// the members.
CLSTAT_EXPORT LscvMatrixResult lscv_H(const DeviceGroup& g, const double* x, std::size_t n, std::size_t d,
                                      const LscvMatrixOptions& options = {});
/// LSCV over the scalar multiplier (lscv_h of clstat/bandwidth.hpp) with the rows of the pair
/// triangle dealt to the members by the weights (member i: the rows whose first pair lies in its
/// share of the n (n - 1) / 2 pairs), each member holding its rows' squared distances. Every pass
/// runs on all members at once from the calling thread, the members' sums added in member order,
/// and the zoom passes choose their brackets on the host from those sums (on one device, the
/// device chooses). The sums differ from one device's in the order of their additions, so the
/// objective agrees with one device's to rounding (1e-12 relative in the tests), and h as far as
/// the objective's flat bottom lets that rounding choose between neighbouring h (2.5e-7 relative
/// at n = 2000, d = 1; the tests allow 1e-5). Weights that
/// give every pair to one member run its single-device call. Errors as lscv_h. Moves: all n d
/// values to every member with rows, and per pass 2 doubles per h value back from each. Work:
/// the single-device passes, each member over its share of the pairs.
CLSTAT_EXPORT LscvResult lscv_h(const DeviceGroup& g, const double* x, std::size_t n, std::size_t d,
                                const LscvOptions& options = {});
}  // namespace bandwidth

namespace stable {
/// pdf, logpdf, cdf and sf of clstat/stable.hpp at n points split across the members as kde on a
/// group is (each point's value is its member's; the single-device errors; n = 0 gives an empty
/// result). Work: the single-device cost of each member's share, the shares at once.
CLSTAT_EXPORT std::vector<double> pdf(const DeviceGroup& g, const double* x, std::size_t n, const Params& p);
CLSTAT_EXPORT std::vector<double> logpdf(const DeviceGroup& g, const double* x, std::size_t n, const Params& p);
CLSTAT_EXPORT std::vector<double> cdf(const DeviceGroup& g, const double* x, std::size_t n, const Params& p);
CLSTAT_EXPORT std::vector<double> sf(const DeviceGroup& g, const double* x, std::size_t n, const Params& p);
/// The same into caller memory, as the single-device forms with `out` (out may be x itself;
/// each member reads its values straight into its slice of out, so nothing of the result's size
/// is allocated or first touched by one thread). Errors and work as the vector forms on a group.
CLSTAT_EXPORT void pdf(const DeviceGroup& g, const double* x, std::size_t n, const Params& p, double* out);
CLSTAT_EXPORT void logpdf(const DeviceGroup& g, const double* x, std::size_t n, const Params& p, double* out);
CLSTAT_EXPORT void cdf(const DeviceGroup& g, const double* x, std::size_t n, const Params& p, double* out);
CLSTAT_EXPORT void sf(const DeviceGroup& g, const double* x, std::size_t n, const Params& p, double* out);
/// quantile and isf of clstat/stable.hpp at n probabilities split across the members as pdf is;
/// a bad probability is named by its index in p (unless nan_for_invalid), else errors as the
/// single-device forms. Each member solves its share on its own: whether its Newton iterations
/// start from the law's table, and whether its law's interpolant answers (stable.interp_points),
/// depend on its share's size, so the roots agree with one device's within the tolerance (and
/// the interpolant's stated accuracy where one of the two used it), not bit for bit. Work: the
/// single-device cost of each member's share, the shares at once.
CLSTAT_EXPORT std::vector<double> quantile(const DeviceGroup& g, const double* p, std::size_t n, const Params& params,
                                           double tol = 1e-12, bool nan_for_invalid = false);
CLSTAT_EXPORT std::vector<double> isf(const DeviceGroup& g, const double* q, std::size_t n, const Params& params,
                                      double tol = 1e-12, bool nan_for_invalid = false);
/// sample of clstat/stable.hpp, the n draws split across the members: member i draws its share
/// from counter first + (the shares before it), so the stream is the one a single device draws,
/// for any split (bit for bit on one device type; across types, up to each device's last bits of
/// sin, cos, pow and log, as sample says). Errors as sample. Work: O(n) over the members.
CLSTAT_EXPORT std::vector<double> sample(const DeviceGroup& g, std::size_t n, const Params& p, std::uint64_t seed,
                                         std::uint64_t first = 0);
/// fit of clstat/stable_fit.hpp with every log-likelihood split across the members: member i
/// holds its contiguous share of x (by the group's weights, as split), and each batch of laws is
/// evaluated on every share at once, each member on a thread of its own, the members' sums added
/// in member order. The start, the grid, the Newton steps and the standard errors are the
/// single-device fit's (host work on all of x). The result agrees with one device's fit to the
/// fit's tolerance (the likelihoods round differently), and is that fit bit for bit when one
/// member holds every value. Errors as fit, and UnsupportedFeature naming a member without fp64.
/// Work: the single-device fit's likelihood passes, each member on its share (33 laws a Newton
/// stencil); the moment and quantile methods (mcculloch, koutrouvelis) are host work.
CLSTAT_EXPORT FitResult fit(const DeviceGroup& g, const double* x, std::size_t n, const FitOptions& options = {});
}  // namespace stable

namespace order {
/// The batched forms of clstat/order.hpp (kth_smallest_rows, median_rows, quantiles_rows) with the
/// rows of the rows x cols host matrix x split across the members by the weights, each member
/// uploading and selecting its contiguous rows, all at once: the same values as one device, bit
/// for bit, for any split. Under NanPolicy::raise the host scans x for NaNs first, so the error
/// names the row's index in x; other errors as the single-device forms. Work: O(rows cols) over
/// the members; host: one pass over x under raise.
template <class T>
CLSTAT_EXPORT std::vector<T> kth_smallest_rows(const DeviceGroup& g, const T* x, std::size_t rows, std::size_t cols,
                                               const std::vector<std::uint64_t>& ks, const Options& o = {});
template <class T>
CLSTAT_EXPORT std::vector<double> median_rows(const DeviceGroup& g, const T* x, std::size_t rows, std::size_t cols,
                                              const Options& o = {});
template <class T>
CLSTAT_EXPORT std::vector<double> quantiles_rows(const DeviceGroup& g, const T* x, std::size_t rows, std::size_t cols,
                                                 const std::vector<double>& probs, int type = 7,
                                                 const Options& o = {});


/// The order statistics of clstat/order.hpp over n host values split across the group's members:
/// the same values as the single-device forms (and so as R and NumPy), for any split. Each member
/// gets its shard (one upload of its part), then the radix passes run on all of them at once
/// (see the top of this header). Options::method must be radix or automatic (the other methods
/// are single-device: std::invalid_argument); NaN policies and errors as in clstat/order.hpp,
/// and a member's failure raises its clstat::Error, which names its device. Work: O(n) over the
/// members, two or three reads of each shard plus reads of its candidates; host: one histogram
/// per member per pass.
template <class T>
CLSTAT_EXPORT std::vector<T> kth_smallest(const DeviceGroup& g, const T* x, std::size_t n,
                                          const std::vector<std::uint64_t>& ks, const Options& o = {});
template <class T>
CLSTAT_EXPORT double median(const DeviceGroup& g, const T* x, std::size_t n, const Options& o = {});
template <class T>
CLSTAT_EXPORT std::vector<double> quantiles(const DeviceGroup& g, const T* x, std::size_t n,
                                            const std::vector<double>& probs, int type = 7, const Options& o = {});

}  // namespace order
namespace robust {
/// FAST-LTS (lts of clstat/robust.hpp) with its device work dealt to the members by the weights,
/// in contiguous shares, all members at once on a thread each: the random starts' C-steps on the
/// nested blocks (or, at most 2048 rows, on all rows), then the ten survivors' final C-steps on all
/// n rows (the largest device cost at large n), each member on its own copy of the standardised
/// design. Drawing the starts, the passes after the search and the final fits run on the first
/// member of positive weight. Every start's and survivor's run depends on it alone (its C-steps'
/// sums run over rows in a fixed order whatever the batch), so on members of one device type the
/// fit is one device's bit for bit, for any weights. Errors as lts. Moves: the nested blocks' rows
/// and the design (8 n (p + 2) bytes) to every member with survivors. Work: the single-device fit,
/// its device work shared out.
CLSTAT_EXPORT LtsFit lts(const DeviceGroup& g, const double* x, std::size_t n, std::size_t p, const double* y,
                         const LtsOptions& options = {});
}  // namespace robust

}  // namespace clstat
