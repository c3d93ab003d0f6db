// Internal: the fused fp64 pair sums of the bandwidth selectors (cl/bandwidth/pair_sums.cl): one
// pass over the pairs i < j, then a fixed-order merge of the tile partials, all enqueued, so a
// chain of passes (the plug-in's two stages, an LSCV_H evaluation) costs one wait at its end.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "clstat/runtime.hpp"
#include "runtime/impl.hpp"

namespace clstat::bandwidth_detail {

enum class PairTerm { psi4 = 1, psi6 = 2, lscv = 3, hermite = 4 };

/// The outputs of a PairTerm::hermite pass (pair_sums.cl, TERM 4): the Laplacian cubed first when
/// `radial6`, then one sum per multi-index of `counts` (each `dim` counts, at most 10 each).
struct HermiteTerms {
  bool radial6 = false;
  std::vector<std::vector<unsigned>> counts;
  std::size_t outputs() const { return counts.size() + (radial6 ? 1 : 0); }
};

class PairSumPass {
 public:
  /// The tile: work-group size and rows per work-item (TILE = wg rows fixes the rounding).
  struct Shape {
    std::size_t wg, rows;
  };
  /// Builds (or finds) the program for `term`; `dim` is the LSCV dimension (1 for the psi terms),
  /// n_hint the number of points the passes will see (it picks the tile size).
  /// Work-group size and rows per work-item are constants per device type, since their product,
  /// the tile, fixes the rounding: results depend on n_hint's side of 65536 at the rounding level.
  /// `shape` (when given) replaces them: a device group gives every member its first member's
  /// shape, so that every tile's partial is the one that member would compute.
  /// `hermite` names the outputs of PairTerm::hermite (required for it, ignored otherwise).
  PairSumPass(const Context& ctx, const char* op, PairTerm term, std::size_t dim = 1, std::size_t n_hint = 0,
              const Shape* shape = nullptr, const HermiteTerms* hermite = nullptr);
  Shape shape() const;
  /// Tiles of the pass over n points, and the bytes of their partials (all outputs).
  std::uint64_t tiles(std::size_t n) const;
  std::uint64_t partial_bytes(std::size_t n) const;
  ~PairSumPass();
  /// Doubles per prepared row (LSCV: even, at least dim + 1; Hermite: even, at least dim).
  std::size_t row_stride() const;
  /// Sums the pass writes (psi: 1, LSCV: 2, Hermite: hermite->outputs()).
  std::size_t outputs() const;

  /// The psi_6 pass can hand the psi_4 pass its pilot on the device (pair_finish's `pilot`).
  struct Pilot {
    double g;             // the psi_6 pass's bandwidth
    unsigned scale_next;  // where 1 / (g_2 sqrt 2) goes in the scale buffer
  };
  /// Enqueues the pass over the n points starting at element v_at of v (psi: n values scaled by
  /// scale[scale_at], or by scale_value when scale_at is k_scale_value; LSCV and Hermite: n
  /// prepared rows) and writes the sums to out[out_at ..] (psi: 1 value, then g_2 with a pilot;
  /// LSCV: S4, S2; Hermite: its outputs in order). O(n^2 dim) work; no host wait.
  static constexpr unsigned k_scale_value = 0xffffffffu;
  /// q is a queue the caller holds (runtime/lease.hpp).
  Event enqueue(const Queue& q, const cl::Buffer& v, std::size_t v_at, std::size_t n, const cl::Buffer& scale, unsigned scale_at,
                double scale_value,
                const cl::Buffer& out, unsigned out_at, const std::vector<Event>& deps,
                const Pilot* pilot = nullptr);

  /// enqueue's two steps, for passes split across devices. enqueue_tiles: the partials of tiles
  /// [first, first + count) of the pass over n points into `partials` (partial_bytes(n), each
  /// tile's at its place among all the tiles). enqueue_finish: their fixed-order merge into
  /// out[out_at ..] (as enqueue writes it). Every tile's partial depends on the tile alone, so
  /// partials made on several devices of one type and gathered into one buffer merge to the
  /// single-device sums bit for bit.
  Event enqueue_tiles(const Queue& q, const cl::Buffer& v, std::size_t v_at, std::size_t n, const cl::Buffer& scale,
                      unsigned scale_at, double scale_value, const cl::Buffer& partials, std::uint64_t first,
                      std::uint64_t count, const std::vector<Event>& deps);
  Event enqueue_finish(const Queue& q, const cl::Buffer& partials, std::size_t n, const cl::Buffer& scale,
                       const cl::Buffer& out, unsigned out_at, const std::vector<Event>& deps,
                       const Pilot* pilot = nullptr);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace clstat::bandwidth_detail
