#include "bandwidth/lscv_device.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <exception>
#include <tuple>
#include <utility>

#include "bandwidth/pair_sums.hpp"
#include "build/program_cache.hpp"
#include "clstat/primitives.hpp"
#include "runtime/launch.hpp"
#include "runtime/exchange_values.hpp"
#include "runtime/lease.hpp"

namespace clstat::bandwidth_detail {
namespace {

constexpr std::size_t k_wg = 256;
constexpr std::size_t k_kb = 4;  // scale factors per work-group row of lscv_grid (2 k_kb k_wg doubles of local memory)

std::size_t round_up(std::size_t v, std::size_t to) { return (v + to - 1) / to * to; }

constexpr std::size_t k_zw = 64;  // lscv_zoom's work-group

// LSCV_h's buffers: the uploaded rows, [A, mu], mu alone, the whitened points, the stored pair
// distances, the grid's partial sums and the search state. LSCV_H's: A, the prepared rows, the
// two sums.
enum class LscvScratch { rows_in, a_mu, mu, whitened, distances, partials, state };
enum class LscvMatrixScratch { a, rows, sums, partials };

// Work-groups per scale-factor row: about 16 pairs per work-item, from the pair count alone (at
// n = 1024 a zoom pass then has 5 x 128 groups).
std::size_t groups_for(std::uint64_t pairs) {
  return static_cast<std::size_t>(std::clamp<std::uint64_t>((pairs + k_wg * 16 - 1) / (k_wg * 16), 1, 512));
}

std::uint64_t row_start(std::uint64_t i, std::uint64_t n) { return i * n - i * (i + 1) / 2; }

std::size_t row_stride(std::size_t d) { return (d + 2) / 2 * 2; }

std::string lscv_options(detail::ContextImpl& ci, std::size_t d, const char* op) {
  return build::base_options(ci, true, op) + " -DDIM=" + std::to_string(d) + " -DWG=" + std::to_string(k_wg) +
         " -DKB=" + std::to_string(k_kb) + " -DRS=" + std::to_string(row_stride(d)) + " -DZW=" + std::to_string(k_zw);
}

}  // namespace

double lscv_value(double log_det_H, std::size_t n, std::size_t d, double s4, double s2) {
  const double nn = static_cast<double>(n), dd = static_cast<double>(d);
  const double front = std::exp(-dd / 2 * std::log(4 * M_PI) - 0.5 * log_det_H);
  return front * (1 / nn + 2 * s4 / (nn * nn) - std::pow(2.0, dd / 2 + 2) * s2 / (nn * (nn - 1)));
}

struct PairDistances::Impl {
  Queue q;
  const char* op;
  std::size_t n, d;
  cl::Buffer z, D;
  std::vector<double> am;  // [A row-major, mu], read by an upload the destructor waits for
  cl::Kernel dist, grid, finish, zoom;
  std::vector<std::size_t> cuts;  // row blocks [cuts[b], cuts[b+1])
  bool stored = false;            // D holds every pair (one block), computed once
  std::vector<double> state;      // start()'s write and read-back, finish()'s input
  std::size_t total = 0;          // h values of the search under way
  cl::Event read;                 // its read-back

  Impl(const Queue& qu, const char* o) : q(qu), op(o) {}

  Event distances(std::size_t b, const std::vector<Event>& deps) {
    const std::size_t r0 = cuts[b], rows = cuts[b + 1] - r0;
    dist.setArg(0, z);
    dist.setArg(1, static_cast<cl_uint>(n));
    dist.setArg(2, static_cast<cl_ulong>(r0));
    dist.setArg(3, static_cast<cl_uint>(rows));
    dist.setArg(4, static_cast<cl_ulong>(row_start(r0, n)));
    dist.setArg(5, D);
    return detail::launch(q, dist, cl::NDRange(round_up(n, 64), rows), cl::NDRange(64, 1), deps, op);
  }
  std::uint64_t pairs(std::size_t b) const { return row_start(cuts[b + 1], n) - row_start(cuts[b], n); }

  // Sums for the nh bandwidths h[h_at ..] over every block of pairs. Every block but the last is
  // finished into out[out_at ..] here; the last block's G partials (LscvScratch::partials) are left to
  // the caller's lscv_zoom or lscv_finish, with `accumulate` set when earlier blocks wrote out.
  struct Pending {
    Event ev;
    std::size_t G;
    bool accumulate;
  };
  Pending pass(const cl::Buffer& h, std::size_t h_at, std::size_t nh, const cl::Buffer& out, std::size_t out_at,
               Event after) {
    std::vector<Event> deps{after};
    Event ev = after;
    const std::size_t blocks = cuts.size() - 1;
    std::size_t G = 1;
    for (std::size_t b = 0; b < blocks; ++b) {
      if (!stored) deps = {distances(b, deps)};
      const std::uint64_t P = pairs(b);
      G = groups_for(P);
      cl::Buffer partial = detail::scratch(q, LscvScratch::partials, 2 * nh * G * sizeof(double));
      grid.setArg(0, D);
      grid.setArg(1, static_cast<cl_ulong>(P));
      grid.setArg(2, h);
      grid.setArg(3, static_cast<cl_uint>(h_at));
      grid.setArg(4, static_cast<cl_uint>(nh));
      grid.setArg(5, static_cast<cl_uint>(G));
      grid.setArg(6, partial);
      ev = detail::launch(q, grid, cl::NDRange(G * k_wg, (nh + k_kb - 1) / k_kb), cl::NDRange(k_wg, 1), deps, op);
      if (b + 1 < blocks) ev = finish_pass(out_at, nh, G, b > 0, out, ev);
      deps = {ev};
    }
    return {ev, G, blocks > 1};
  }

  Event finish_pass(std::size_t out_at, std::size_t nh, std::size_t G, bool accumulate, const cl::Buffer& out,
                    Event after) {
    finish.setArg(0, detail::scratch(q, LscvScratch::partials, 2 * nh * G * sizeof(double)));
    finish.setArg(1, static_cast<cl_uint>(G));
    finish.setArg(2, static_cast<cl_uint>(2 * nh));
    finish.setArg(3, out);
    finish.setArg(4, static_cast<cl_uint>(out_at));
    finish.setArg(5, static_cast<cl_uint>(accumulate ? 1 : 0));
    return detail::launch(q, finish, cl::NDRange(round_up(2 * nh, 64)), cl::NDRange(64), {after}, op);
  }
};

PairDistances::PairDistances(const Queue& q, const char* op, const double* x, std::size_t n, std::size_t d,
                             const Mat& A, const Eigen::VectorXd& mu, std::size_t budget, std::size_t row_first,
                             std::size_t row_last)
    : impl_(std::make_unique<Impl>(q, op)) {
  Impl& m = *impl_;
  m.n = n;
  m.d = d;
  detail::require_lease(q, op);
  const Context ctx = q.context();
  auto ci = ctx.impl();
  detail::cl_guard(op, *ci, [&] {
    auto prog = build::program(*ci, "bandwidth/lscv", lscv_options(*ci, m.d, op));
    m.dist = build::kernel(*prog, "lscv_distances", q.index());
    m.grid = build::kernel(*prog, "lscv_grid", q.index());
    m.finish = build::kernel(*prog, "lscv_finish", q.index());
    m.zoom = build::kernel(*prog, "lscv_zoom", q.index());
    cl::Kernel whiten = build::kernel(*prog, "lscv_whiten", q.index());
    const cl::CommandQueue& cq = detail::queue_of(q);
    // The whitening runs on the device, from the caller's rows: one upload of x and of [A, mu].
    m.am = row_major(A);
    m.am.insert(m.am.end(), mu.data(), mu.data() + mu.size());
    cl::Buffer xb = detail::scratch(q, LscvScratch::rows_in, n * d * sizeof(double));
    cl::Buffer ab = detail::scratch(q, LscvScratch::a_mu, m.am.size() * sizeof(double));
    m.z = detail::scratch(q, LscvScratch::whitened, n * d * sizeof(double));
    cq.enqueueWriteBuffer(xb, CL_FALSE, 0, n * d * sizeof(double), x);
    cq.enqueueWriteBuffer(ab, CL_FALSE, 0, m.am.size() * sizeof(double), m.am.data());
    // A and mu as two arguments into one buffer: mu starts at d * d (a sub-buffer would need
    // the device's base-address alignment).
    cl::Buffer mub = detail::scratch(q, LscvScratch::mu, d * sizeof(double));
    cq.enqueueCopyBuffer(ab, mub, d * d * sizeof(double), 0, d * sizeof(double));
    whiten.setArg(0, xb);
    whiten.setArg(1, static_cast<cl_uint>(n));
    whiten.setArg(2, ab);
    whiten.setArg(3, mub);
    whiten.setArg(4, m.z);
    detail::launch(q, whiten, cl::NDRange(round_up(n, 64)), cl::NDRange(64), {}, op);
    // Row blocks of at most `cap` pairs.
    const auto& info = ctx.info();
    std::uint64_t cap_bytes = budget ? budget : info.global_mem_bytes / 4;
    cap_bytes = std::min<std::uint64_t>(cap_bytes, info.max_alloc_bytes);
    const std::uint64_t cap = std::max<std::uint64_t>(cap_bytes / sizeof(double), m.n);
    const std::size_t r0 = std::min(row_first, m.n - 1), r1 = std::max(r0, std::min(row_last, m.n - 1));
    m.cuts = {r0};
    std::uint64_t acc = 0;
    for (std::size_t i = r0; i < r1; ++i) {
      const std::uint64_t row = m.n - 1 - i;
      if (acc + row > cap) m.cuts.push_back(i), acc = 0;
      acc += row;
    }
    m.cuts.push_back(r1);
    std::uint64_t largest = 0;
    for (std::size_t b = 0; b + 1 < m.cuts.size(); ++b) largest = std::max(largest, m.pairs(b));
    m.D = detail::scratch(q, LscvScratch::distances, std::max<std::uint64_t>(largest, 1) * sizeof(double));
    m.stored = m.cuts.size() == 2;
    if (m.stored) m.distances(0, {});
  });
}

PairDistances::~PairDistances() {
  // The uploads may still be in flight if search() never ran (an exception between).
  try {
    detail::queue_of(impl_->q).finish();
  } catch (...) {
  }
}

PairDistances::Trace PairDistances::search(const std::vector<double>& grid, std::size_t passes, std::size_t points) {
  start(grid, passes, points);
  return finish();
}

void PairDistances::start(const std::vector<double>& grid, std::size_t passes, std::size_t points) {
  Impl& m = *impl_;
  const Queue& q = m.q;
  detail::require_lease(q, m.op);
  auto ci = q.context().impl();
  const std::size_t nh = grid.size(), total = nh + passes * points;
  m.total = total;
  // One scratch buffer [bracket (2) | h (total) | sums (2 total)]: one write of the bracket and
  // the grid, one read of every h and sum (each command costs ~15 us of host time on the H100).
  m.state.assign(2 + 3 * total, 0.0);
  std::vector<double>& state = m.state;
  detail::cl_guard(m.op, *ci, [&] {
    const cl::CommandQueue& cq = detail::queue_of(q);
    state[0] = grid.front();
    state[1] = grid.back();
    std::copy(grid.begin(), grid.end(), state.begin() + 2);
    const std::size_t h0 = 2, s0 = 2 + total;
    cl::Buffer st = detail::scratch(q, LscvScratch::state, state.size() * sizeof(double));
    cq.enqueueWriteBuffer(st, CL_FALSE, 0, (2 + nh) * sizeof(double), state.data());
    Impl::Pending pend = m.pass(st, h0, nh, st, s0, Event());
    Event ev = pend.ev;
    std::size_t at = 0, k_in = nh;
    for (std::size_t p = 0; p < passes; ++p) {
      const std::size_t next = nh + p * points;
      m.zoom.setArg(0, st);
      m.zoom.setArg(1, st);
      m.zoom.setArg(2, static_cast<cl_uint>(s0 + 2 * at));
      m.zoom.setArg(3, detail::scratch(q, LscvScratch::partials, 2 * k_in * pend.G * sizeof(double)));
      m.zoom.setArg(4, static_cast<cl_uint>(pend.G));
      m.zoom.setArg(5, static_cast<cl_uint>(pend.accumulate ? 1 : 0));
      m.zoom.setArg(6, static_cast<cl_uint>(h0 + at));
      m.zoom.setArg(7, static_cast<cl_uint>(k_in));
      m.zoom.setArg(8, static_cast<cl_uint>(h0 + next));
      m.zoom.setArg(9, static_cast<cl_uint>(points));
      m.zoom.setArg(10, static_cast<cl_double>(m.n));
      m.zoom.setArg(11, st);
      ev = detail::launch(q, m.zoom, cl::NDRange(k_zw), cl::NDRange(k_zw), {ev}, m.op);
      pend = m.pass(st, h0 + next, points, st, s0 + 2 * next, ev);
      ev = pend.ev;
      at = next, k_in = points;
    }
    ev = m.finish_pass(s0 + 2 * at, k_in, pend.G, pend.accumulate, st, ev);
    cq.enqueueReadBuffer(st, CL_FALSE, h0 * sizeof(double), 3 * total * sizeof(double), state.data() + h0, nullptr,
                         &m.read);
    cq.flush();  // so that the devices of a group run at once while the host waits for the first
  });
}

PairDistances::Trace PairDistances::finish() {
  Impl& m = *impl_;
  detail::cl_guard(m.op, *m.q.context().impl(), [&] { m.read.wait(); });
  const std::size_t total = m.total;
  const std::vector<double>& state = m.state;
  Trace t;
  t.h.assign(state.begin() + 2, state.begin() + 2 + static_cast<std::ptrdiff_t>(total));
  t.s4.resize(total);
  t.s2.resize(total);
  for (std::size_t k = 0; k < total; ++k) t.s4[k] = state[2 + total + 2 * k], t.s2[k] = state[2 + total + 2 * k + 1];
  return t;
}

// One device's part: its copy of the centred data, its programs, its pass (the first member's
// tile shape) and its tiles [first, first + count).
struct WhitenedPairs::Member {
  Context ctx;
  cl::Buffer x;  // the centred data, owned: it outlives any one lease
  std::shared_ptr<detail::BuiltProgram> prog;
  std::unique_ptr<PairSumPass> pass;
  std::uint64_t first = 0, count = 0;
};

struct WhitenedPairs::Impl {
  const char* op;
  std::size_t n, d;
  std::vector<Member> members;
  Exchange* ex = nullptr;  // over processes: members[0] is this process's device
  std::uint64_t tiles = 0;
};

namespace {
// The centred data, dimension-major.
std::vector<double> centred(const double* x, std::size_t n, std::size_t d) {
  std::vector<double> mu(d, 0.0), xd(n * d);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t k = 0; k < d; ++k) mu[k] += x[i * d + k];
  for (auto& v : mu) v /= static_cast<double>(n);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t k = 0; k < d; ++k) xd[k * n + i] = x[i * d + k] - mu[k];
  return xd;
}

// Process r's tiles of `tiles` over P processes: an equal share in rank order.
std::pair<std::uint64_t, std::uint64_t> rank_tiles(std::uint64_t tiles, int r, int P) {
  const auto R = static_cast<std::uint64_t>(r), base = tiles / static_cast<std::uint64_t>(P),
             extra = tiles % static_cast<std::uint64_t>(P);
  return {R * base + std::min(R, extra), base + (R < extra ? 1 : 0)};
}
}  // namespace

WhitenedPairs::WhitenedPairs(const Context& ctx, Exchange& ex, const char* op, const double* x, std::size_t n,
                             std::size_t d)
    : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  m.op = op, m.n = n, m.d = d, m.ex = &ex;
  std::vector<double> xd = centred(x, n, d);  // CL_MEM_COPY_HOST_PTR takes a non-const pointer
  Member mb{ctx, {}, {}, {}, 0, 0};
  PairSumPass::Shape shape{0, 0};
  std::exception_ptr err;
  try {
    if (d > pairwise_max_dim)
      throw std::invalid_argument(std::string(op) + ": d = " + std::to_string(d) + " exceeds " +
                                  std::to_string(pairwise_max_dim));
    detail::cl_guard(op, *ctx.impl(), [&] { shape = PairSumPass(ctx, op, PairTerm::lscv, d).shape(); });
  } catch (...) {
    err = std::current_exception();
  }
  const auto shapes = agree_before(ex, op, err, 0, std::vector<unsigned char>(reinterpret_cast<const unsigned char*>(&shape),
                                                                              reinterpret_cast<const unsigned char*>(&shape) + sizeof shape));
  std::memcpy(&shape, shapes[0].data(), sizeof shape);
  try {
    detail::cl_guard(op, *ctx.impl(), [&] {
      mb.prog = build::program(*ctx.impl(), "bandwidth/lscv", lscv_options(*ctx.impl(), d, op));
      mb.pass = std::make_unique<PairSumPass>(ctx, op, PairTerm::lscv, d, 0, &shape);
      m.tiles = mb.pass->tiles(n);
      std::tie(mb.first, mb.count) = rank_tiles(m.tiles, ex.rank(), ex.size());
      mb.x = cl::Buffer(ctx.impl()->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, xd.size() * sizeof(double), xd.data());
    });
  } catch (...) {
    err = std::current_exception();
  }
  agree_before(ex, op, err, 0, {});
  m.members.push_back(std::move(mb));
}

WhitenedPairs::WhitenedPairs(const Context& ctx, const char* op, const double* x, std::size_t n, std::size_t d)
    : WhitenedPairs(std::vector<Context>{ctx}, {1.0}, op, x, n, d) {}

WhitenedPairs::WhitenedPairs(const std::vector<Context>& devices, const std::vector<double>& weights, const char* op,
                             const double* x, std::size_t n, std::size_t d)
    : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  m.op = op, m.n = n, m.d = d;
  if (d > pairwise_max_dim)
    throw std::invalid_argument(std::string(op) + ": d = " + std::to_string(d) + " exceeds " +
                                std::to_string(pairwise_max_dim));
  std::vector<double> xd = centred(x, n, d);  // CL_MEM_COPY_HOST_PTR takes a non-const pointer
  // The tiles dealt by the weights (floor, the rest to the last member of positive weight).
  PairSumPass::Shape shape{0, 0};
  std::uint64_t tiles = 0;
  double sum = 0;
  for (double w : weights) sum += w;
  std::uint64_t given = 0;
  std::size_t last = 0;
  for (std::size_t i = 0; i < devices.size(); ++i) {
    const Context& c = devices[i];
    Member mb{c, {}, {}, {}, 0, 0};
    auto ci = c.impl();
    detail::cl_guard(op, *ci, [&] {
      mb.prog = build::program(*ci, "bandwidth/lscv", lscv_options(*ci, d, op));
      mb.pass = std::make_unique<PairSumPass>(c, op, PairTerm::lscv, d, 0, i == 0 ? nullptr : &shape);
      if (i == 0) shape = mb.pass->shape(), tiles = mb.pass->tiles(n);
    });
    mb.first = given;
    mb.count = std::min(tiles - given, static_cast<std::uint64_t>(std::floor(static_cast<double>(tiles) * weights[i] / sum)));
    given += mb.count;
    if (weights[i] > 0) last = i;
    m.members.push_back(std::move(mb));
  }
  m.members[last].count += tiles - given;
  for (std::size_t i = last + 1; i < m.members.size(); ++i) m.members[i].first = tiles;
  for (std::size_t i = 0; i < m.members.size(); ++i) {
    Member& mb = m.members[i];
    if (i > 0 && mb.count == 0) continue;  // the first merges, so it holds the data anyway
    detail::cl_guard(op, *mb.ctx.impl(), [&] {
      mb.x = cl::Buffer(mb.ctx.impl()->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, xd.size() * sizeof(double), xd.data());
    });
  }
}

WhitenedPairs::~WhitenedPairs() = default;

void WhitenedPairs::sums(const Mat& A, double& s4, double& s2) const {
  const Impl& m = *impl_;
  const std::vector<double> a = row_major(A);  // alive until the blocking reads below
  if (m.ex) {
    exchange_sums(a, s4, s2);
    return;
  }
  // Every member with tiles: the rows prepared for H, its tiles' partials; the others' partials
  // then copied into the first member's buffer, where the merge runs (one member: all of it).
  std::vector<detail::Lease> leases;
  std::vector<cl::Buffer> partials(m.members.size());
  const bool split = m.members.size() > 1;
  for (std::size_t i = 0; i < m.members.size(); ++i) {
    const Member& mb = m.members[i];
    leases.push_back(detail::Lease::any(mb.ctx));
    if (mb.count == 0 && (i > 0 || split)) continue;
    const Queue q = leases.back().queue();
    detail::cl_guard(m.op, *mb.ctx.impl(), [&] {
      const cl::CommandQueue& cq = detail::queue_of(q);
      // Scratch buffers: A, the prepared rows and the two sums live only within this call.
      cl::Buffer Ab = detail::scratch(q, LscvMatrixScratch::a, m.d * m.d * sizeof(double));
      cl::Buffer rows = detail::scratch(q, LscvMatrixScratch::rows, m.n * row_stride(m.d) * sizeof(double));
      cl::Event w;
      cq.enqueueWriteBuffer(Ab, CL_FALSE, 0, a.size() * sizeof(double), a.data(), nullptr, &w);
      cl::Kernel prep = build::kernel(*mb.prog, "lscv_rows", q.index());
      prep.setArg(0, mb.x);
      prep.setArg(1, static_cast<cl_uint>(m.n));
      prep.setArg(2, Ab);
      prep.setArg(3, rows);
      Event ev = detail::launch(q, prep, cl::NDRange(round_up(m.n, 64)), cl::NDRange(64), {detail::from_cl(w)}, m.op);
      if (!split) {
        cl::Buffer out = detail::scratch(q, LscvMatrixScratch::sums, 2 * sizeof(double));
        mb.pass->enqueue(q, rows, 0, m.n, out, 0, 0.0, out, 0, {ev});
        double host[2];
        detail::read_wait(cq, out, 0, 2 * sizeof(double), host);
        s4 = host[0], s2 = host[1];
        return;
      }
      partials[i] = detail::scratch(q, LscvMatrixScratch::partials, mb.pass->partial_bytes(m.n));
      mb.pass->enqueue_tiles(q, rows, 0, m.n, Ab, PairSumPass::k_scale_value, 0.0, partials[i], mb.first, mb.count, {ev});
      cq.flush();
    });
  }
  if (!split) return;
  const Member& m0 = m.members[0];
  const Queue q0 = leases[0].queue();
  detail::cl_guard(m.op, *m0.ctx.impl(), [&] {
    if (!partials[0]()) partials[0] = detail::scratch(q0, LscvMatrixScratch::partials, m0.pass->partial_bytes(m.n));
  });
  // Partials: output k of tile t at k * tiles + t, 16 bytes each.
  const std::uint64_t tiles = m0.pass->tiles(m.n), state = 2 * sizeof(double);
  std::vector<unsigned char> staged;
  for (std::size_t i = 1; i < m.members.size(); ++i) {
    const Member& mb = m.members[i];
    if (mb.count == 0) continue;
    staged.resize(mb.count * state);
    for (std::uint64_t k = 0; k < 2; ++k) {
      const std::uint64_t at = (k * tiles + mb.first) * state;
      detail::cl_guard(m.op, *mb.ctx.impl(), [&] {
        detail::read_wait(detail::queue_of(leases[i].queue()), partials[i], at, staged.size(), staged.data());
      });
      detail::cl_guard(m.op, *m0.ctx.impl(), [&] {
        detail::write_wait(detail::queue_of(q0), partials[0], at, staged.size(), staged.data());
      });
    }
  }
  detail::cl_guard(m.op, *m0.ctx.impl(), [&] {
    cl::Buffer out = detail::scratch(q0, LscvMatrixScratch::sums, 2 * sizeof(double));
    m0.pass->enqueue_finish(q0, partials[0], m.n, out, out, 0, {});
    double host[2];
    detail::read_wait(detail::queue_of(q0), out, 0, 2 * sizeof(double), host);
    s4 = host[0], s2 = host[1];
  });
}

void WhitenedPairs::exchange_sums(const std::vector<double>& a, double& s4, double& s2) const {
  const Impl& m = *impl_;
  Exchange& ex = *m.ex;
  const Member& mb = m.members[0];
  const std::uint64_t state = 2 * sizeof(double);
  detail::Lease lease = detail::Lease::any(mb.ctx);
  const Queue q = lease.queue();
  const cl::CommandQueue& cq = detail::queue_of(q);
  // This process's tiles: the rows prepared for H, the partials of both outputs read back.
  std::vector<unsigned char> mine(2 * mb.count * state);
  cl::Buffer partials;
  std::exception_ptr err;
  try {
    detail::cl_guard(m.op, *mb.ctx.impl(), [&] {
      cl::Buffer Ab = detail::scratch(q, LscvMatrixScratch::a, m.d * m.d * sizeof(double));
      cl::Buffer rows = detail::scratch(q, LscvMatrixScratch::rows, m.n * row_stride(m.d) * sizeof(double));
      partials = detail::scratch(q, LscvMatrixScratch::partials, mb.pass->partial_bytes(m.n));
      detail::write_wait(cq, Ab, 0, a.size() * sizeof(double), a.data());
      cl::Kernel prep = build::kernel(*mb.prog, "lscv_rows", q.index());
      prep.setArg(0, mb.x);
      prep.setArg(1, static_cast<cl_uint>(m.n));
      prep.setArg(2, Ab);
      prep.setArg(3, rows);
      const Event ev = detail::launch(q, prep, cl::NDRange(round_up(m.n, 64)), cl::NDRange(64), {}, m.op);
      if (mb.count > 0) {
        mb.pass->enqueue_tiles(q, rows, 0, m.n, Ab, PairSumPass::k_scale_value, 0.0, partials, mb.first, mb.count, {ev});
        for (std::uint64_t k = 0; k < 2; ++k)
          detail::read_wait(cq, partials, (k * m.tiles + mb.first) * state, mb.count * state, mine.data() + k * mb.count * state);
      }
    });
  } catch (...) {
    err = std::current_exception();
  }
  const auto parts = agree_before(ex, m.op, err, 0, mine);
  // Every process's partials at their places, the merge, and rank 0's sums for all.
  double host[2] = {0, 0};
  try {
    detail::cl_guard(m.op, *mb.ctx.impl(), [&] {
      for (std::size_t r = 0; r < parts.size(); ++r) {
        const auto [first, count] = rank_tiles(m.tiles, static_cast<int>(r), static_cast<int>(parts.size()));
        for (std::uint64_t k = 0; k < 2 && count > 0; ++k)
          detail::write_wait(cq, partials, (k * m.tiles + first) * state, count * state, parts[r].data() + k * count * state);
      }
      cl::Buffer out = detail::scratch(q, LscvMatrixScratch::sums, 2 * sizeof(double));
      mb.pass->enqueue_finish(q, partials, m.n, out, out, 0, {});
      detail::read_wait(cq, out, 0, 2 * sizeof(double), host);
    });
  } catch (...) {
    err = std::current_exception();
  }
  const std::vector<double> sums = detail::gather_values(ex, m.op, err, 0, host, 2);
  s4 = sums[0], s2 = sums[1];  // rank 0's
}

}  // namespace clstat::bandwidth_detail
