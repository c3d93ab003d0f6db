// The plug-in bandwidth over a device group (clstat/group.hpp): each pass's tiles of the pair
// triangle dealt to the members by the weights, every member computing its tiles' partials with
// the first member's tile shape; the partials gathered into the first member's buffer (16 bytes a
// tile) and merged there in the pass's fixed order. So on devices of one type the sums, and the
// bandwidths, are the first member's alone bit for bit.
#include <algorithm>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "bandwidth/bandwidth_input.hpp"
#include "bandwidth/pair_sums.hpp"
#include "bandwidth/plugin_steps.hpp"
#include "clstat/group.hpp"
#include "runtime/lease.hpp"

namespace clstat::bandwidth {

using namespace bandwidth_detail;

namespace {

enum class GroupScratch { columns, scale, sums, partials };

// One member's part: its queue, its passes (with the first member's shape), its buffers.
struct Member {
  Context ctx;
  detail::Lease lease;
  std::unique_ptr<PairSumPass> pass4, pass6;
  cl::Buffer cols, scale, out, partials;
};

}  // namespace

std::vector<double> plugin(const DeviceGroup& g, const double* x, std::size_t n, std::size_t d,
                           const PluginOptions& o) {
  const char* op = "clstat::bandwidth::plugin";
  check_data(op, x, n, d);
  if (o.stages != 1 && o.stages != 2) throw std::invalid_argument(std::string(op) + ": stages must be 1 or 2");
  for (std::size_t i = 0; i < g.size(); ++i)
    if (!g.member(i).info().fp64) throw UnsupportedFeature(op, g.member(i).info().name, "needs a device with fp64 (cl_khr_fp64)");
  // The tile shape and count are the first member's; the members' shares are shares of the tiles.
  const PairSumPass::Shape shape = PairSumPass(g.member(0), op, PairTerm::psi4, 1, n).shape();
  const std::uint64_t tiles = PairSumPass(g.member(0), op, PairTerm::psi4, 1, n, &shape).tiles(n);
  const std::vector<std::size_t> share = g.split(static_cast<std::size_t>(tiles));
  if (std::count_if(share.begin(), share.end(), [](std::size_t s) { return s > 0; }) == 1) {
    const std::size_t i = static_cast<std::size_t>(std::find_if(share.begin(), share.end(), [](std::size_t s) { return s > 0; }) -
                                                   share.begin());
    if (i == 0) return plugin(g.member(0), x, n, d, o);  // the first member alone: its own call
  }
  const std::vector<double> xs = plugin_columns(x, n, d);
  const double* cols = d > 1 ? xs.data() : x;
  std::vector<double> g1(d), g2(d), scale_h(2 * d), out_h(3 * d);
  const std::string error = plugin_pilots(op, cols, n, d, o, g1, g2, scale_h);
  if (!error.empty()) throw std::invalid_argument(error);

  // Every member that computes tiles, and the first (which merges), gets the columns.
  std::vector<Member> m;
  std::vector<std::uint64_t> first, count;
  std::uint64_t at = 0;
  for (std::size_t i = 0; i < g.size(); ++i) {
    if (i == 0 || share[i] > 0) {
      const Context& c = g.member(i);
      Member mb{c, detail::Lease::any(c), nullptr, nullptr, {}, {}, {}, {}};
      detail::cl_guard(op, *c.impl(), [&] {
        const Queue q = mb.lease.queue();
        mb.pass4 = std::make_unique<PairSumPass>(c, op, PairTerm::psi4, 1, n, &shape);
        if (o.stages == 2) mb.pass6 = std::make_unique<PairSumPass>(c, op, PairTerm::psi6, 1, n, &shape);
        if (mb.pass4->partial_bytes(n) > c.info().max_alloc_bytes)
          throw std::invalid_argument(std::string(op) + ": n = " + std::to_string(n) +
                                      " needs more bytes of tile partials than one allocation of " + c.info().name +
                                      " allows");
        mb.cols = detail::scratch(q, GroupScratch::columns, n * d * sizeof(double));
        mb.scale = detail::scratch(q, GroupScratch::scale, d * sizeof(double));
        mb.out = detail::scratch(q, GroupScratch::sums, out_h.size() * sizeof(double));
        mb.partials = detail::scratch(q, GroupScratch::partials, mb.pass4->partial_bytes(n));
        detail::queue_of(q).enqueueWriteBuffer(mb.cols, CL_FALSE, 0, n * d * sizeof(double), cols);
      });
      m.push_back(std::move(mb));
      first.push_back(at);
      count.push_back(share[i]);
    }
    at += share[i];
  }

  // One pass: every member's tiles, then the others' partials copied into the first member's
  // buffer, then the merge there.
  std::vector<unsigned char> staged;
  auto pass = [&](bool psi6, std::size_t k, double scale_value, const PairSumPass::Pilot* pilot, unsigned out_at) {
    for (std::size_t j = 0; j < m.size(); ++j) {
      if (count[j] == 0) continue;
      detail::cl_guard(op, *m[j].ctx.impl(), [&] {
        const Queue q = m[j].lease.queue();
        PairSumPass& p = psi6 ? *m[j].pass6 : *m[j].pass4;
        p.enqueue_tiles(q, m[j].cols, k * n, n, m[j].scale, PairSumPass::k_scale_value, scale_value, m[j].partials,
                        first[j], count[j], {});
        detail::queue_of(q).flush();
      });
    }
    const std::size_t state = 2 * sizeof(double);
    for (std::size_t j = 1; j < m.size(); ++j) {
      if (count[j] == 0) continue;
      staged.resize(count[j] * state);
      detail::cl_guard(op, *m[j].ctx.impl(), [&] {
        detail::read_wait(detail::queue_of(m[j].lease.queue()), m[j].partials, first[j] * state, staged.size(), staged.data());
      });
      detail::cl_guard(op, *m[0].ctx.impl(), [&] {
        detail::write_wait(detail::queue_of(m[0].lease.queue()), m[0].partials, first[j] * state, staged.size(), staged.data());
      });
    }
    detail::cl_guard(op, *m[0].ctx.impl(), [&] {
      const Queue q = m[0].lease.queue();
      PairSumPass& p = psi6 ? *m[0].pass6 : *m[0].pass4;
      p.enqueue_finish(q, m[0].partials, n, m[0].scale, m[0].out, out_at, {}, pilot);
    });
  };
  for (std::size_t k = 0; k < d; ++k) {
    const auto kk = static_cast<unsigned>(k);
    double s4 = scale_h[2 * k + 1];
    if (o.stages == 2) {
      const PairSumPass::Pilot pilot{g1[k], kk};
      pass(true, k, scale_h[2 * k], &pilot, 3 * kk);
      // The psi_4 pass's scale as the merge wrote it (the one-device pass reads that same double
      // from the buffer).
      detail::cl_guard(op, *m[0].ctx.impl(), [&] {
        detail::read_wait(detail::queue_of(m[0].lease.queue()), m[0].scale, k * sizeof(double), sizeof(double), &s4);
      });
    }
    pass(false, k, s4, nullptr, 3 * kk + 2);
  }
  detail::cl_guard(op, *m[0].ctx.impl(), [&] {
    detail::read_wait(detail::queue_of(m[0].lease.queue()), m[0].out, 0, out_h.size() * sizeof(double), out_h.data());
  });
  return plugin_h(op, out_h, g1, g2, n, d, o);
}

}  // namespace clstat::bandwidth
