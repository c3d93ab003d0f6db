#include "bandwidth/pair_sums.hpp"

#include <algorithm>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "build/program_cache.hpp"
#include "runtime/launch.hpp"
#include "runtime/lease.hpp"

namespace clstat::bandwidth_detail {
namespace {

constexpr std::size_t k_chunk = 32;         // columns summed in double before the compensated fold
constexpr std::size_t k_finish_wg = 256;    // fixed: the merge order of the tile partials
constexpr std::uint64_t k_max_tiles = std::uint64_t(1) << 22;  // tiles per launch

// The tile partials of one pass.
enum class PairSumScratch { partials };

}  // namespace

struct PairSumPass::Impl {
  // Constructed from the caller's context: a default Context would open a new OpenCL context
  // (170 ms on the H100's driver).
  Impl(const Context& c, const char* o, PairTerm t, std::size_t d) : ctx(c), op(o), term(t), dim(d) {}
  Context ctx;
  const char* op;
  PairTerm term;
  std::size_t dim, rs = 1, wg = 1, rows = 1, tile = 1, nout = 1;
  std::shared_ptr<detail::BuiltProgram> prog;
};

PairSumPass::PairSumPass(const Context& ctx, const char* op, PairTerm term, std::size_t dim, std::size_t n_hint,
                         const Shape* shape, const HermiteTerms* hermite)
    : impl_(std::make_unique<Impl>(ctx, op, term, dim)) {
  Impl& m = *impl_;
  const bool herm = term == PairTerm::hermite;
  if (herm && (!hermite || hermite->outputs() == 0)) throw std::logic_error(std::string(op) + ": no Hermite outputs");
  m.rs = term == PairTerm::lscv ? (dim + 2) / 2 * 2 : herm ? (dim + 1) / 2 * 2 : 1;
  m.nout = term == PairTerm::lscv ? 2 : herm ? hermite->outputs() : 1;
  auto ci = ctx.impl();
  const bool gpu = ctx.info().type == DeviceType::gpu;
  // GPU: rows held in registers serve every column read from local memory; at d = 16 two rows
  // of 18 doubles are what the registers hold without spilling. CPU (PoCL): smaller groups.
  const bool lscv = term == PairTerm::lscv;
  // psi on a GPU: 128-row tiles up to n = 65536 (at n = 32768, 32896 tiles leave no half-empty
  // last wave; 1.59 ms against 1.68 ms with 512-row tiles, and 0.09 ms against 0.28 ms at 1024),
  // 512-row tiles (64 x 8) beyond (1.48 s at 2^20 against 1.58 s): the sweep in
  // bench/results/sweeps/2026-11-22-h100-nvidia-bandwidth-psi-wg*.json in git history (up to a10d6fa).
  const bool small = n_hint <= 65536;
  m.wg = gpu ? (lscv ? 64 : herm ? 128 : small ? 32 : 64) : 32;
  // Hermite: one row a work-item, as its outputs (up to 16), their compensated sums and the
  // Hermite table already hold about 100 doubles in registers.
  m.rows = lscv ? (dim <= 16 ? 2 : 1) : herm ? 1 : (gpu && !small ? 8 : 4);
  if (shape) m.wg = shape->wg, m.rows = shape->rows;
  m.tile = m.wg * m.rows;
  if (m.tile < k_chunk) m.rows = (k_chunk + m.wg - 1) / m.wg, m.tile = m.wg * m.rows;
  detail::cl_guard(op, *ci, [&] {
    std::string o = build::base_options(*ci, true, op) + " -DTERM=" + std::to_string(static_cast<int>(term)) +
                    " -DWG=" + std::to_string(m.wg) + " -DROWS=" + std::to_string(m.rows) +
                    " -DCHUNK=" + std::to_string(k_chunk) + " -DFWG=" + std::to_string(k_finish_wg);
    if (lscv || herm) o += " -DDIM=" + std::to_string(dim) + " -DRS=" + std::to_string(m.rs);
    if (herm) {
      unsigned kmax = 0;
      std::string hc;
      for (const auto& c : hermite->counts) {
        if (c.size() != dim) throw std::logic_error(std::string(op) + ": a Hermite multi-index of the wrong length");
        for (unsigned v : c) {
          if (v > 10) throw std::logic_error(std::string(op) + ": a Hermite count above 10");
          kmax = std::max(kmax, v);
          hc += (hc.empty() ? "" : ",") + std::to_string(v);
        }
      }
      o += " -DRAD=" + std::string(hermite->radial6 ? "1" : "0") + " -DNHERM=" + std::to_string(hermite->counts.size()) +
           " -DKMAX=" + std::to_string(kmax) + (hc.empty() ? "" : " -DHC=" + hc);
    }
    m.prog = build::program(*ci, "bandwidth/pair_sums", o);
  });
}

PairSumPass::~PairSumPass() = default;

std::size_t PairSumPass::row_stride() const { return impl_->rs; }

std::size_t PairSumPass::outputs() const { return impl_->nout; }

PairSumPass::Shape PairSumPass::shape() const { return {impl_->wg, impl_->rows}; }

std::uint64_t PairSumPass::tiles(std::size_t n) const {
  const std::uint64_t nb = (n + impl_->tile - 1) / impl_->tile;
  return nb * (nb + 1) / 2;
}

std::uint64_t PairSumPass::partial_bytes(std::size_t n) const {
  return impl_->nout * tiles(n) * 2 * sizeof(double);
}

Event PairSumPass::enqueue(const Queue& q, const cl::Buffer& v, std::size_t v_at, std::size_t n, const cl::Buffer& scale,
                           unsigned scale_at, double scale_value,
                           const cl::Buffer& out, unsigned out_at, const std::vector<Event>& deps,
                           const Pilot* pilot) {
  detail::require_lease(q, impl_->op);
  const std::uint64_t bytes = partial_bytes(n);
  if (bytes > impl_->ctx.info().max_alloc_bytes)
    throw std::invalid_argument(std::string(impl_->op) + ": n = " + std::to_string(n) + " needs " +
                                std::to_string(bytes) + " bytes of tile partials, more than one device allocation allows");
  const cl::Buffer partials =
      detail::cl_guard(impl_->op, *impl_->ctx.impl(), [&] { return detail::scratch(q, PairSumScratch::partials, bytes); });
  const Event ev = enqueue_tiles(q, v, v_at, n, scale, scale_at, scale_value, partials, 0, tiles(n), deps);
  return enqueue_finish(q, partials, n, scale, out, out_at, {ev}, pilot);
}

Event PairSumPass::enqueue_tiles(const Queue& q, const cl::Buffer& v, std::size_t v_at, std::size_t n,
                                 const cl::Buffer& scale, unsigned scale_at, double scale_value,
                                 const cl::Buffer& partials, std::uint64_t first, std::uint64_t count,
                                 const std::vector<Event>& deps) {
  Impl& m = *impl_;
  detail::require_lease(q, m.op);
  const std::uint64_t nb = (n + m.tile - 1) / m.tile, all = tiles(n);
  if (first > all || count > all - first) throw std::logic_error(std::string(m.op) + ": tiles out of range");
  return detail::cl_guard(m.op, *m.ctx.impl(), [&] {
    cl::Kernel sums = build::kernel(*m.prog, "pair_sums", q.index());
    // Launches of at most k_max_tiles tiles; every tile keeps its own partial, so the split does
    // not change the merge.
    Event ev;
    std::vector<Event> wait = deps;
    for (std::uint64_t t0 = first; t0 < first + count; t0 += k_max_tiles) {
      const std::uint64_t c = std::min(k_max_tiles, first + count - t0);
      sums.setArg(0, v);
      sums.setArg(1, static_cast<cl_ulong>(v_at));
      sums.setArg(2, static_cast<cl_uint>(n));
      sums.setArg(3, static_cast<cl_uint>(nb));
      sums.setArg(4, static_cast<cl_ulong>(t0));
      sums.setArg(5, scale);
      sums.setArg(6, static_cast<cl_uint>(scale_at));
      sums.setArg(7, static_cast<cl_double>(scale_value));
      sums.setArg(8, partials);
      sums.setArg(9, static_cast<cl_ulong>(all));
      ev = detail::launch(q, sums, cl::NDRange(c * m.wg), cl::NDRange(m.wg), wait, m.op);
      wait = {ev};
    }
    return ev;
  });
}

Event PairSumPass::enqueue_finish(const Queue& q, const cl::Buffer& partials, std::size_t n, const cl::Buffer& scale,
                                  const cl::Buffer& out, unsigned out_at, const std::vector<Event>& deps,
                                  const Pilot* pilot) {
  Impl& m = *impl_;
  detail::require_lease(q, m.op);
  const std::uint64_t all = tiles(n);
  return detail::cl_guard(m.op, *m.ctx.impl(), [&] {
    cl::Kernel finish = build::kernel(*m.prog, "pair_finish", q.index());
    finish.setArg(0, partials);
    finish.setArg(1, static_cast<cl_ulong>(all));
    finish.setArg(2, static_cast<cl_ulong>(all));
    finish.setArg(3, out);
    finish.setArg(4, static_cast<cl_uint>(out_at));
    finish.setArg(5, static_cast<cl_uint>(pilot ? 1 : 0));
    finish.setArg(6, static_cast<cl_double>(n));
    finish.setArg(7, static_cast<cl_double>(pilot ? pilot->g : 0.0));
    finish.setArg(8, scale);
    finish.setArg(9, static_cast<cl_uint>(pilot ? pilot->scale_next : 0));
    return detail::launch(q, finish, cl::NDRange(k_finish_wg), cl::NDRange(k_finish_wg), deps, m.op);
  });
}

}  // namespace clstat::bandwidth_detail
