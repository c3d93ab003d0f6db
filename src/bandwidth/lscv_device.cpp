#include "bandwidth/lscv_device.hpp"

#include <algorithm>
#include <cmath>

#include "build/program_cache.hpp"
#include "clstat/primitives.hpp"
#include "runtime/launch.hpp"

namespace clstat::bandwidth_detail {
namespace {

constexpr std::size_t k_wg = 256;
constexpr std::size_t k_kb = 8;  // scale factors per work-group row of lscv_grid

std::size_t round_up(std::size_t v, std::size_t to) { return (v + to - 1) / to * to; }

// Work-groups per scale-factor row: about 32 pairs per work-item, from the pair count alone.
std::size_t groups_for(std::uint64_t pairs) {
  return static_cast<std::size_t>(std::clamp<std::uint64_t>((pairs + k_wg * 32 - 1) / (k_wg * 32), 1, 256));
}

std::uint64_t row_start(std::uint64_t i, std::uint64_t n) { return i * n - i * (i + 1) / 2; }

}  // namespace

double lscv_value(double log_det_H, std::size_t n, std::size_t d, double s4, double s2) {
  const double nn = static_cast<double>(n), dd = static_cast<double>(d);
  const double front = std::exp(-dd / 2 * std::log(4 * M_PI) - 0.5 * log_det_H);
  return front * (1 / nn + 2 * s4 / (nn * nn) - std::pow(2.0, dd / 2 + 2) * s2 / (nn * (nn - 1)));
}

struct PairDistances::Impl {
  Context ctx;
  const char* op;
  std::size_t n, d;
  cl::Buffer z, D, partial, out, coef;
  cl::Kernel dist, grid, finish;
  std::vector<std::size_t> cuts;  // row blocks [cuts[b], cuts[b+1])
  bool stored = false;            // D holds every pair (one block), computed once
  std::size_t partial_cap = 0, out_cap = 0, coef_cap = 0;

  Impl(const Context& c, const char* o) : ctx(c), op(o) {}

  Event distances(std::size_t b, const std::vector<Event>& deps) {
    const std::size_t r0 = cuts[b], rows = cuts[b + 1] - r0;
    dist.setArg(0, z);
    dist.setArg(1, static_cast<cl_uint>(n));
    dist.setArg(2, static_cast<cl_ulong>(r0));
    dist.setArg(3, static_cast<cl_uint>(rows));
    dist.setArg(4, static_cast<cl_ulong>(row_start(r0, n)));
    dist.setArg(5, D);
    return detail::launch(ctx.queue(0), dist, cl::NDRange(round_up(n, 64), rows), cl::NDRange(64, 1), deps, op);
  }
  std::uint64_t pairs(std::size_t b) const { return row_start(cuts[b + 1], n) - row_start(cuts[b], n); }
};

PairDistances::PairDistances(const Context& ctx, const char* op, const Mat& z, std::size_t budget)
    : impl_(std::make_unique<Impl>(ctx, op)) {
  Impl& m = *impl_;
  m.n = static_cast<std::size_t>(z.rows());
  m.d = static_cast<std::size_t>(z.cols());
  auto ci = ctx.impl();
  detail::cl_guard(op, *ci, [&] {
    const std::string opts = build::base_options(*ci, true, op) + " -DDIM=" + std::to_string(m.d) +
                             " -DWG=" + std::to_string(k_wg) + " -DKB=" + std::to_string(k_kb);
    auto prog = build::program(*ci, "bandwidth/lscv", opts);
    m.dist = build::kernel(*prog, "lscv_distances", 0);
    m.grid = build::kernel(*prog, "lscv_grid", 0);
    m.finish = build::kernel(*prog, "lscv_finish", 0);
    std::vector<double> zd(m.n * m.d);  // dimension-major
    for (std::size_t i = 0; i < m.n; ++i)
      for (std::size_t k = 0; k < m.d; ++k)
        zd[k * m.n + i] = z(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(k));
    m.z = cl::Buffer(ci->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, zd.size() * sizeof(double), zd.data());
    // Row blocks of at most `cap` pairs.
    const auto& info = ctx.info();
    std::uint64_t cap_bytes = budget ? budget : info.global_mem_bytes / 4;
    cap_bytes = std::min<std::uint64_t>(cap_bytes, info.max_alloc_bytes);
    const std::uint64_t cap = std::max<std::uint64_t>(cap_bytes / sizeof(double), m.n);
    m.cuts = {0};
    std::uint64_t acc = 0;
    for (std::size_t i = 0; i + 1 < m.n; ++i) {
      const std::uint64_t row = m.n - 1 - i;
      if (acc + row > cap) m.cuts.push_back(i), acc = 0;
      acc += row;
    }
    m.cuts.push_back(m.n - 1);
    std::uint64_t largest = 0;
    for (std::size_t b = 0; b + 1 < m.cuts.size(); ++b) largest = std::max(largest, m.pairs(b));
    m.D = cl::Buffer(ci->context, CL_MEM_READ_WRITE, std::max<std::uint64_t>(largest, 1) * sizeof(double));
    m.stored = m.cuts.size() == 2;
    if (m.stored) m.distances(0, {});
  });
}

PairDistances::~PairDistances() = default;

void PairDistances::sums(const std::vector<double>& c, std::vector<double>& s4, std::vector<double>& s2) {
  Impl& m = *impl_;
  auto ci = m.ctx.impl();
  const std::size_t nh = c.size();
  std::vector<double> host(2 * nh);
  detail::cl_guard(m.op, *ci, [&] {
    const Queue q = m.ctx.queue(0);
    // The scale factors go through one persistent buffer: a write, not an allocation, per pass. The
    // blocking read at the end keeps `c` alive until the write has run.
    if (m.coef_cap < nh) m.coef = cl::Buffer(ci->context, CL_MEM_READ_ONLY, nh * sizeof(double)), m.coef_cap = nh;
    const cl::Buffer& cb = m.coef;
    detail::queue_of(q).enqueueWriteBuffer(cb, CL_FALSE, 0, nh * sizeof(double), c.data());
    if (m.out_cap < 2 * nh) m.out = cl::Buffer(ci->context, CL_MEM_READ_WRITE, 2 * nh * sizeof(double)), m.out_cap = 2 * nh;
    std::vector<Event> deps;
    Event ev;
    const std::size_t blocks = m.cuts.size() - 1;
    for (std::size_t b = 0; b < blocks; ++b) {
      if (!m.stored) deps = {m.distances(b, deps)};
      const std::uint64_t P = m.pairs(b);
      const std::size_t G = groups_for(P);
      if (m.partial_cap < 2 * nh * G)
        m.partial = cl::Buffer(ci->context, CL_MEM_READ_WRITE, 2 * nh * G * sizeof(double)), m.partial_cap = 2 * nh * G;
      m.grid.setArg(0, m.D);
      m.grid.setArg(1, static_cast<cl_ulong>(P));
      m.grid.setArg(2, cb);
      m.grid.setArg(3, static_cast<cl_uint>(nh));
      m.grid.setArg(4, static_cast<cl_uint>(G));
      m.grid.setArg(5, m.partial);
      ev = detail::launch(q, m.grid, cl::NDRange(G * k_wg, (nh + k_kb - 1) / k_kb), cl::NDRange(k_wg, 1), deps, m.op);
      m.finish.setArg(0, m.partial);
      m.finish.setArg(1, static_cast<cl_uint>(G));
      m.finish.setArg(2, static_cast<cl_uint>(2 * nh));
      m.finish.setArg(3, m.out);
      m.finish.setArg(4, static_cast<cl_uint>(b > 0 ? 1 : 0));
      ev = detail::launch(q, m.finish, cl::NDRange(round_up(2 * nh, 64)), cl::NDRange(64), {ev}, m.op);
      deps = {ev};
    }
    detail::queue_of(q).enqueueReadBuffer(m.out, CL_TRUE, 0, 2 * nh * sizeof(double), host.data());
  });
  s4.resize(nh);
  s2.resize(nh);
  for (std::size_t k = 0; k < nh; ++k) s4[k] = host[2 * k], s2[k] = host[2 * k + 1];
}

struct WhitenedPairs::Impl {
  Context ctx;
  const char* op;
  std::size_t n, d;
  cl::Buffer x, A;
  std::vector<double> a;  // host copy of A; the next sums() starts only after this one's get()
  Buffer<double> z;
  cl::Kernel whiten;
  Impl(const Context& c, const char* o) : ctx(c), op(o) {}
};

WhitenedPairs::WhitenedPairs(const Context& ctx, const char* op, const double* x, std::size_t n, std::size_t d)
    : impl_(std::make_unique<Impl>(ctx, op)) {
  Impl& m = *impl_;
  m.n = n, m.d = d;
  if (d > pairwise_max_dim)
    throw std::invalid_argument(std::string(op) + ": d = " + std::to_string(d) + " exceeds " +
                                std::to_string(pairwise_max_dim));
  auto ci = ctx.impl();
  detail::cl_guard(op, *ci, [&] {
    const std::string opts = build::base_options(*ci, true, op) + " -DDIM=" + std::to_string(d) +
                             " -DWG=" + std::to_string(k_wg) + " -DKB=" + std::to_string(k_kb);
    auto prog = build::program(*ci, "bandwidth/lscv", opts);
    m.whiten = build::kernel(*prog, "lscv_whiten", 0);
    std::vector<double> mu(d, 0.0), xd(n * d);
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t k = 0; k < d; ++k) mu[k] += x[i * d + k];
    for (auto& v : mu) v /= static_cast<double>(n);
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t k = 0; k < d; ++k) xd[k * n + i] = x[i * d + k] - mu[k];
    m.x = cl::Buffer(ci->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, xd.size() * sizeof(double), xd.data());
    m.A = cl::Buffer(ci->context, CL_MEM_READ_ONLY, d * d * sizeof(double));
    m.z = Buffer<double>(ctx, n * d);
  });
}

WhitenedPairs::~WhitenedPairs() = default;

void WhitenedPairs::sums(const Mat& A, double& s4, double& s2) {
  Impl& m = *impl_;
  auto ci = m.ctx.impl();
  const Queue q = m.ctx.queue(0);
  Event ev;
  detail::cl_guard(m.op, *ci, [&] {
    m.a = row_major(A);
    cl::Event w;
    detail::queue_of(q).enqueueWriteBuffer(m.A, CL_FALSE, 0, m.a.size() * sizeof(double), m.a.data(), nullptr, &w);
    m.whiten.setArg(0, m.x);
    m.whiten.setArg(1, static_cast<cl_uint>(m.n));
    m.whiten.setArg(2, m.A);
    m.whiten.setArg(3, m.z.raw().impl()->buffer);
    ev = detail::launch(q, m.whiten, cl::NDRange(round_up(m.n, 64)), cl::NDRange(64), {detail::from_cl(w)}, m.op);
  });
  const std::vector<double> s = pairwise_sum_async<double>(q, m.z, m.n, m.d, PairFunction::gaussian, {0.25, 0.5}, {ev}).get();
  s4 = s[0];
  s2 = s[1];
}

}  // namespace clstat::bandwidth_detail
