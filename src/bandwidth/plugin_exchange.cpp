// The plug-in bandwidth over processes (clstat/exchange.hpp): the shards gathered into the whole
// data on every process, each pass's tiles of the pair triangle dealt to the processes in rank
// order, every process's tile partials gathered by all, merged by each and rank 0's merge taken by
// every process. Every tile's partial depends on the tile alone (and the tile shape is rank 0's),
// so on one device type the bandwidths are those of one process holding all the data, bit for bit.
#include <algorithm>
#include <cstring>
#include <exception>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "bandwidth/bandwidth_input.hpp"
#include "bandwidth/pair_sums.hpp"
#include "bandwidth/plugin_steps.hpp"
#include "clstat/exchange.hpp"
#include "runtime/exchange_values.hpp"
#include "runtime/lease.hpp"

namespace clstat::bandwidth {

using namespace bandwidth_detail;

namespace {

enum class ExchangeScratch { columns, scale, sums, partials };

template <class T>
std::vector<unsigned char> bytes_of(const T* p, std::size_t count) {
  const auto* b = reinterpret_cast<const unsigned char*>(p);
  return std::vector<unsigned char>(b, b + count * sizeof(T));
}

}  // namespace

std::vector<double> plugin(const Context& ctx, Exchange& ex, const double* x, std::size_t n_local, std::size_t d,
                           const PluginOptions& o) {
  const std::string op = "clstat::bandwidth::plugin (processes)";
  const int P = ex.size();
  // 1. Every process's shard, checked where it is, then all of them on every process.
  std::exception_ptr err;
  try {
    if (d == 0) throw std::invalid_argument(op + ": d = 0");
    if (n_local > 0 && !x) throw std::invalid_argument(op + ": null data pointer with n_local = " + std::to_string(n_local));
    if (o.stages != 1 && o.stages != 2) throw std::invalid_argument(op + ": stages must be 1 or 2");
    if (!ctx.info().fp64) throw UnsupportedFeature(op, ctx.info().name, "needs a device with fp64 (cl_khr_fp64)");
  } catch (...) {
    err = std::current_exception();
  }
  std::uint64_t args = hash_bytes(hash_seed, &d, sizeof d);
  args = hash_bytes(args, &o.stages, sizeof o.stages);
  args = hash_bytes(args, &o.scale, sizeof o.scale);
  const std::vector<double> all = detail::gather_values(ex, op, err, args, x, n_local * d);
  const std::size_t n = all.size() / d;
  check_data(op.c_str(), all.data(), n, d);  // the same data on every process: all throw alike
  const std::vector<double> xs = plugin_columns(all.data(), n, d);
  const double* cols = d > 1 ? xs.data() : all.data();
  std::vector<double> g1(d), g2(d), scale_h(2 * d), out_h(3 * d);
  const std::string error = plugin_pilots(op.c_str(), cols, n, d, o, g1, g2, scale_h);
  if (!error.empty()) throw std::invalid_argument(error);

  // 2. Rank 0's tile shape on every process, and this process's passes and buffers.
  std::unique_ptr<PairSumPass> pass4, pass6;
  detail::Lease lease = detail::Lease::any(ctx);
  const Queue q = lease.queue();
  cl::Buffer colb, scale, out, partials;
  PairSumPass::Shape shape{0, 0};
  try {
    shape = PairSumPass(ctx, op.c_str(), PairTerm::psi4, 1, n).shape();
  } catch (...) {
    err = std::current_exception();
  }
  const auto shapes = agree_before(ex, op, err, 0, bytes_of(&shape, 1));
  std::memcpy(&shape, shapes[0].data(), sizeof shape);
  std::uint64_t tiles = 0;
  try {
    detail::cl_guard(op.c_str(), *ctx.impl(), [&] {
      pass4 = std::make_unique<PairSumPass>(ctx, op.c_str(), PairTerm::psi4, 1, n, &shape);
      if (o.stages == 2) pass6 = std::make_unique<PairSumPass>(ctx, op.c_str(), PairTerm::psi6, 1, n, &shape);
      tiles = pass4->tiles(n);
      if (pass4->partial_bytes(n) > ctx.info().max_alloc_bytes)
        throw std::invalid_argument(op + ": n = " + std::to_string(n) + " needs more bytes of tile partials than one allocation of " +
                                    ctx.info().name + " allows");
      colb = detail::scratch(q, ExchangeScratch::columns, n * d * sizeof(double));
      scale = detail::scratch(q, ExchangeScratch::scale, d * sizeof(double));
      out = detail::scratch(q, ExchangeScratch::sums, out_h.size() * sizeof(double));
      partials = detail::scratch(q, ExchangeScratch::partials, pass4->partial_bytes(n));
      detail::write_wait(detail::queue_of(q), colb, 0, n * d * sizeof(double), cols);
    });
  } catch (...) {
    err = std::current_exception();
  }
  agree_before(ex, op, err, 0, {});
  // This process's tiles: an equal share in rank order (the first tiles % P processes one more).
  const std::uint64_t r = static_cast<std::uint64_t>(ex.rank()), base = tiles / static_cast<std::uint64_t>(P),
                      extra = tiles % static_cast<std::uint64_t>(P);
  const std::uint64_t first = r * base + std::min(r, extra), count = base + (r < extra ? 1 : 0);
  const std::size_t state = 2 * sizeof(double);

  // 3. One pass: the tiles here, every process's partials to all, the merge; rank 0's sums
  // (3 values a column, then the psi_4 pass's scale) to all.
  auto pass = [&](bool psi6, std::size_t k, double scale_value, const PairSumPass::Pilot* pilot, unsigned out_at) {
    std::vector<unsigned char> mine(count * state);
    try {
      detail::cl_guard(op.c_str(), *ctx.impl(), [&] {
        PairSumPass& p = psi6 ? *pass6 : *pass4;
        if (count > 0) {
          p.enqueue_tiles(q, colb, k * n, n, scale, PairSumPass::k_scale_value, scale_value, partials, first, count, {});
          detail::read_wait(detail::queue_of(q), partials, first * state, mine.size(), mine.data());
        }
      });
    } catch (...) {
      err = std::current_exception();
    }
    const auto parts = agree_before(ex, op, err, 0, mine);
    std::vector<double> sums(out_h.size() + 1);
    try {
      detail::cl_guard(op.c_str(), *ctx.impl(), [&] {
        std::uint64_t at = 0;
        for (const auto& pr : parts) {
          if (!pr.empty()) detail::write_wait(detail::queue_of(q), partials, at, pr.size(), pr.data());
          at += pr.size();
        }
        PairSumPass& p = psi6 ? *pass6 : *pass4;
        p.enqueue_finish(q, partials, n, scale, out, out_at, {}, pilot);
        detail::read_wait(detail::queue_of(q), out, 0, out_h.size() * sizeof(double), sums.data());
        detail::read_wait(detail::queue_of(q), scale, k * sizeof(double), sizeof(double), sums.data() + out_h.size());
      });
    } catch (...) {
      err = std::current_exception();
    }
    const std::vector<double> merged = detail::gather_values(ex, op, err, 0, sums.data(), sums.size());
    std::copy(merged.begin(), merged.begin() + static_cast<std::ptrdiff_t>(sums.size()), sums.begin());  // rank 0's
    std::copy(sums.begin(), sums.begin() + static_cast<std::ptrdiff_t>(out_h.size()), out_h.begin());
    return sums.back();
  };
  for (std::size_t k = 0; k < d; ++k) {
    const auto kk = static_cast<unsigned>(k);
    double s4 = scale_h[2 * k + 1];
    if (o.stages == 2) {
      const PairSumPass::Pilot pilot{g1[k], kk};
      s4 = pass(true, k, scale_h[2 * k], &pilot, 3 * kk);  // the psi_4 scale the merge wrote
    }
    pass(false, k, s4, nullptr, 3 * kk + 2);
  }
  return plugin_h(op.c_str(), out_h, g1, g2, n, d, o);
}

}  // namespace clstat::bandwidth
