// The tunables every area reads, with the ranges that can work: a value outside (a work-group of
// 1 for a reduction whose passes must shrink, a tile that is not a power of two) is rejected with
// a message, never run. None changes result bits: where a size fixes the rounding (the reduction
// slot count, the pairwise TILE and CHUNK, the bandwidth tiles) it is a constant of the algorithm.
#include <stdexcept>
#include <string>

#include "runtime/tuning.hpp"

namespace clstat::detail {
namespace {

struct Range {
  std::size_t lo, hi;
  bool pow2;
};

bool is_pow2(std::size_t v) { return v && (v & (v - 1)) == 0; }

bool ends_with(const std::string& s, const std::string& e) {
  return s.size() >= e.size() && s.compare(s.size() - e.size(), e.size(), e) == 0;
}

// The range of `key`, or false when it is not a tunable.
bool range_of(const std::string& key, Range& r) {
  static const struct {
    const char* key;
    Range r;
  } fixed[] = {
      {"reduce.wg", {2, 1024, true}},          // the passes shrink the states by wg: 1 never ends
      {"reduce.rows", {0, 1, false}},          // first stage walks rows (CPU default) or a slot an item
      {"reduce.row_slots", {1, 1u << 18, true}},  // its contiguous slots a work-item (a subtree of the tree)
      {"pair.wg", {16, 1024, true}},           // rows = TILE / pair_wg >= 1
      {"pair.batch_tiles", {1, 1u << 24, true}},
      {"pair.native_exp", {0, 1, false}},
      {"points.wg", {16, 1024, true}},
      {"points.rows", {1, 16, false}},
      {"order.wg", {32, 1024, true}},          // the histogram kernels' local scans
      {"order.items", {1, 64, false}},
      {"order.groups_per_cu", {1, 64, false}},
      {"order.filter_groups_per_cu", {1, 64, false}},  // the bracket pass (no histogram)
      {"order.filter_load_bytes", {4, 16, true}},      // the bracket pass's loads (an element at least)
      {"order.filter_items", {1, 64, false}},          // and loads per step
      {"order.filter_blocks_per_cu", {0, 64, false}},  // CPU shape of the bracket pass (0: off)
      {"order.sample2", {0, 1u << 20, false}},  // the bracket's second sample (0: none)
      {"order.sample2_multi", {1, 64, false}},  // its least size for spread targets, in order.sample2's
      {"order.planned_passes", {1, 12, false}},  // passes behind the device plan per look
      {"order.plan_spread", {0, 1, false}},      // spread targets' passes planned on the device
      {"order.rows_items", {1, 32, true}},       // keys a work-item of select_rows aims to hold
      {"order.rows_seq", {0, 1, false}},         // rows a work-item each (select_rows_seq.cl; CPU default)
      {"order.rows_bucket_ranks", {1, 65, false}},  // the least ranks a row for select_rows_buckets (65: never)
      {"order.rows_cand", {0, 4, false}},        // its candidate keys a work-item (0: one-rank searches)
      {"order.weighted_items", {1, 32, false}},  // a work-item's elements a round of the weighted pass
      {"order.weighted_groups_per_cu", {1, 64, false}},
      {"order.weighted_sample2", {0, 1u << 20, false}},  // the one-cluster bracket's second sample (0: the host's bracket)
      {"order.weighted_staged", {0, 1, false}},  // the first pass of one narrow bracket staged (GPU default)
      {"order.weighted_planned_passes", {0, 12, false}},  // planned candidate passes a look (0: enough, and one more)
      {"stable.wg", {1, 1024, true}},
      // From this many points of one law, its interpolant answers (src/stable/evaluate.cpp): the one
      // tunable that moves result bits, within the accuracy stable.hpp states for both paths.
      {"stable.interp_points", {1, std::size_t{1} << 62, false}},
      {"grid.ppi", {1, 8, false}},             // points per work-item along the last dimension
      {"grid.rows_max", {1, 256, false}},      // rows staged together (at most the tile's items)
      {"grid.max_cells", {1, 1u << 24, false}},  // cells the samples are binned into, at most
      // The device's rate beside others in a DeviceGroup (clstat-bench --tune group: float 1-d
      // KDE in Mpairs/s); a group whose members all have one takes them as its default weights.
      {"group.rate", {1, std::size_t{1} << 40, false}},
  };
  for (const auto& f : fixed)
    if (key == f.key) return r = f.r, true;
  if (key.rfind("kde.", 0) == 0) {
    static const struct {
      const char* suffix;
      Range r;
    } kde[] = {{".variant", {1, 4, false}}, {".wg", {1, 1024, true}}, {".ppt", {1, 16, false}},
               {".lanes", {2, 16, true}},
               {".tile", {16, 4096, true}}, {".unroll", {1, 16, false}}, {".dot", {0, 1, false}},
               {".vec", {0, 1, false}},     {".fill", {1, 64, false}},   {".exp_poly", {0, 8, false}}};
    for (const auto& k : kde)
      if (ends_with(key, k.suffix)) return r = k.r, true;
  }
  return false;
}

}  // namespace

void check_tunable(const std::string& key, std::size_t value, const std::string& where) {
  Range r{};
  if (!range_of(key, r)) throw std::invalid_argument("clstat: " + where + ": unknown tunable '" + key + "'");
  if (value < r.lo || value > r.hi || (r.pow2 && !is_pow2(value)))
    throw std::invalid_argument("clstat: " + where + ": " + key + " = " + std::to_string(value) + " is outside " +
                                (r.pow2 ? "the powers of two in [" : "[") + std::to_string(r.lo) + ", " +
                                std::to_string(r.hi) + "]");
}

}  // namespace clstat::detail
