#include "runtime/lease.hpp"
#include "robust/csteps.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include "build/program_cache.hpp"
#include "clstat/order.hpp"
#include "order/keys.hpp"
#include "order/sharded_select.hpp"
#include "order/sort_values.hpp"
#include "runtime/host_result.hpp"
#include "runtime/launch.hpp"

namespace clstat::robust::detail {

std::string nacc_option(std::size_t w, const void* arg) {
  const auto* a = static_cast<const AccArg*>(arg);
  return " -DNACC=" + std::to_string(std::max<std::size_t>(1, (a->items + w - 1) / w));
}

namespace {

using ::clstat::detail::cl_guard;
using ::clstat::detail::launch;
using ::clstat::detail::queue_of;

std::size_t ntri(std::size_t q) { return (q + 1) * (q + 2) / 2; }

// A new buffer holding v[0 .. n), by a write on cq that the host does not wait for (v must live
// until cq's later commands are done). With CL_MEM_COPY_HOST_PTR, run_full's set-up (the design's
// upload, mostly) took 52 ms at 10^6 rows of 11 and 590 ms at 10^7 on the H100 machine; with the
// write, 5 and 110 ms.
cl::Buffer upload_doubles(const cl::Context& c, const cl::CommandQueue& cq, const double* v, std::size_t n) {
  cl::Buffer b(c, CL_MEM_READ_ONLY, std::max<std::size_t>(1, n) * sizeof(double));
  if (n > 0) cq.enqueueWriteBuffer(b, CL_FALSE, 0, n * sizeof(double), v);
  return b;
}

// lts_resid of `prog` for the design (z, y) on the device: out[k n + i] = the residual (squared
// when `squared`) of the fits in `beta` at row i.
cl::Kernel resid_kernel(::clstat::detail::BuiltProgram& prog, std::size_t queue, const cl::Buffer& z, const cl::Buffer& y, std::size_t n,
                        const cl::Buffer& beta, bool squared, const cl::Buffer& out) {
  cl::Kernel k = build::kernel(prog, "lts_resid", queue);
  k.setArg(0, z);
  k.setArg(1, y);
  k.setArg(2, static_cast<cl_ulong>(n));
  k.setArg(3, beta);
  k.setArg(4, static_cast<cl_uint>(squared ? 1 : 0));
  k.setArg(5, out);
  return k;
}

// Solves the normal equations held as upper-triangle entries of the Gram matrix of [z y].
bool solve_gram(const double* tri, std::size_t q, double* beta) {
  Eigen::MatrixXd g(q, q);
  Eigen::VectorXd b(q);
  std::size_t e = 0;
  for (std::size_t a = 0; a <= q; ++a)
    for (std::size_t c = a; c <= q; ++c, ++e) {
      if (c < q) {
        g(a, c) = tri[e];
        g(c, a) = tri[e];
      } else if (a < q) {
        b(a) = tri[e];
      }
    }
  Eigen::LLT<Eigen::MatrixXd> llt(g);
  if (llt.info() != Eigen::Success) return false;
  const Eigen::MatrixXd l = llt.matrixL();
  for (std::size_t j = 0; j < q; ++j)
    if (!(l(j, j) * l(j, j) > 1e-14 * g(j, j))) return false;
  const Eigen::VectorXd x = llt.solve(b);
  if (!x.allFinite()) return false;
  for (std::size_t j = 0; j < q; ++j) beta[j] = x(j);
  return true;
}

// `count` runs from the starts `beta`, none stepped yet: objectives infinite, no steps.
Runs not_run(std::vector<double> beta, std::size_t count) {
  Runs out;
  out.beta = std::move(beta);
  out.obj.assign(count, INFINITY);
  out.steps.assign(count, 0);
  out.converged.assign(count, 0);
  return out;
}

// Where each fit of run_full looks for its next C-step's threshold: a bracket around the last
// one, [last - half, last + half]. The C-steps converge, so the threshold moves less each step and
// a bracket of about kTarget values holds it; one pass (lts_bracket) then counts and copies, and
// the host ranks the copies, where an exact selection on all rows takes a few passes and host
// round trips per fit (at 10^6 rows and 10 fits, most of a fit's wall time on the H100).
struct Bracket {
  static constexpr std::size_t kTarget = 1024;  // values inside a bracket, aimed at
  static constexpr std::size_t kCap = 4096;     // copies per fit: more and the host selects on all rows
  double last = 0, half = 0;
  bool known = false;  // last is a threshold, and half its bracket's half width
  bool usable() const { return known && std::isfinite(last - half) && std::isfinite(last + half); }
  // After a step's threshold t; `inside`: the values the bracket held (when it was used), `hit`:
  // whether t was among them. The width follows the values inside towards kTarget (never more
  // than 4x a step) and covers three times the last move, since the moves shrink.
  void update(double t, bool used, std::size_t inside, bool hit) {
    if (!std::isfinite(t)) {
      known = false;
      return;
    }
    if (!known) {
      half = 1e-2 * std::fabs(t);
    } else if (used) {
      const double f = inside > kCap ? static_cast<double>(kTarget) / static_cast<double>(inside)
                       : !hit       ? 4.0
                                    : std::clamp(static_cast<double>(kTarget) / static_cast<double>(std::max<std::size_t>(inside, 1)), 0.25, 4.0);
      half *= f;
    }
    if (known) half = std::max(half, 3 * std::fabs(t - last));
    last = t;
    known = true;
  }
};

}  // namespace

Runs run_blocks(const Context& ctx, const Design& d, const std::vector<Block>& blocks,
                const std::vector<std::uint32_t>& start_block, std::vector<double> beta, unsigned max_steps,
                BlockMode mode, const char* op) {
  const std::size_t q = d.q, count = start_block.size();
  Runs out = not_run(std::move(beta), count);
  if (count == 0) return out;
  std::vector<double> zb, yb;
  std::vector<cl_uint> off, m, h;
  std::size_t mmax = 1;
  for (const auto& b : blocks) {
    if (b.rows.size() > kBlockRows) throw std::logic_error(std::string(op) + ": block past kBlockRows");
    off.push_back(static_cast<cl_uint>(yb.size()));
    m.push_back(static_cast<cl_uint>(b.rows.size()));
    h.push_back(static_cast<cl_uint>(b.h));
    mmax = std::max(mmax, b.rows.size());
    for (auto r : b.rows) {
      zb.insert(zb.end(), d.z.begin() + r * q, d.z.begin() + (r + 1) * q);
      yb.push_back(d.ys[r]);
    }
  }
  std::size_t lm = 32;
  while (lm < mmax) lm *= 2;
  auto ci = ctx.impl();
  cl_guard(op, *ci, [&] {
    const std::string opt = build::base_options(*ci, true, op) + " -DQ=" + std::to_string(q) +
                            " -DM=" + std::to_string(lm) + " -DTILE=16 -DMODE=" + std::to_string(static_cast<int>(mode));
    AccArg acc{ntri(q)};
    std::size_t wg = 0;
    auto prog = build::program_for_wg(*ci, "robust/lts_block", opt, "lts_block", 256, wg, nacc_option, &acc);
    ::clstat::detail::Lease lease = ::clstat::detail::Lease::any(ctx);
  const Queue qu = lease.queue();
    const cl::CommandQueue& cq = queue_of(qu);
    cl::Buffer bz = upload_doubles(ci->context, cq, zb.data(), zb.size());
    cl::Buffer by = upload_doubles(ci->context, cq, yb.data(), yb.size());
    cl::Buffer boff(ci->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, off.size() * sizeof(cl_uint), off.data());
    cl::Buffer bm(ci->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, m.size() * sizeof(cl_uint), m.data());
    cl::Buffer bh(ci->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, h.size() * sizeof(cl_uint), h.data());
    cl::Buffer bsb(ci->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, count * sizeof(cl_uint),
                   const_cast<std::uint32_t*>(start_block.data()));
    cl::Buffer bb(ci->context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, count * q * sizeof(double), out.beta.data());
    cl::Buffer bo(ci->context, CL_MEM_WRITE_ONLY, count * sizeof(double));
    cl::Buffer bs(ci->context, CL_MEM_WRITE_ONLY, count * sizeof(cl_uint));
    cl::Kernel k = build::kernel(*prog, "lts_block", qu.index());
    k.setArg(0, bz);
    k.setArg(1, by);
    k.setArg(2, boff);
    k.setArg(3, bm);
    k.setArg(4, bh);
    k.setArg(5, bsb);
    k.setArg(6, bb);
    k.setArg(7, bo);
    k.setArg(8, bs);
    k.setArg(9, static_cast<cl_uint>(max_steps));
    k.setArg(11, static_cast<cl_uint>(q));  // Q at run time, for the solve's loops
    const std::size_t chunk = std::size_t{1} << 16;  // groups per launch
    for (std::size_t first = 0; first < count; first += chunk) {
      const std::size_t g = std::min(chunk, count - first);
      k.setArg(10, static_cast<cl_uint>(first));
      launch(qu, k, cl::NDRange(g * wg), cl::NDRange(wg), {}, op);
    }
    cq.enqueueReadBuffer(bb, CL_FALSE, 0, count * q * sizeof(double), out.beta.data());
    cq.enqueueReadBuffer(bo, CL_FALSE, 0, count * sizeof(double), out.obj.data());
    ::clstat::detail::read_wait(cq, bs, 0, count * sizeof(cl_uint), out.steps.data());
  });
  for (std::size_t i = 0; i < count; ++i) {
    out.converged[i] = (out.steps[i] & 0x80000000u) != 0;
    out.steps[i] &= 0x7fffffffu;
  }
  return out;
}

Runs run_full(const Context& ctx, const Design& d, std::size_t h, std::vector<double> beta, unsigned max_steps,
              const char* op) {
  return run_full(ctx, d, h, std::move(beta), max_steps, op, Across::one(d.n));
}

Runs run_full(const Context& ctx, const Design& d, std::size_t h, std::vector<double> beta, unsigned max_steps,
              const char* op, const Across& ac) {
  const std::size_t q = d.q, n = d.n, kc = beta.size() / q, nx = ntri(q) + 3;
  constexpr std::size_t kChunk = 1024, kTile = 32;
  Runs out = not_run(std::move(beta), kc);
  if (kc == 0) return out;
  auto ci = ctx.impl();
  ::clstat::detail::Lease lease = ::clstat::detail::Lease::any(ctx);
  const Queue qu = lease.queue();
  const cl::CommandQueue& cq = queue_of(qu);
  std::vector<double> prev_beta(out.beta);
  std::vector<char> active(kc, 1);
  // This process's device work between combinations; with the rows split, its failure is raised
  // on every process, whose next combination would otherwise wait for it (Across::local).
  const auto local = [&](auto&& f) { ac.local([&] { cl_guard(op, *ci, f); }); };
  const std::size_t groups = (n + kChunk - 1) / kChunk, cells = std::max<std::size_t>(1, kc * n);
  std::shared_ptr<::clstat::detail::BuiltProgram> prog;
  std::size_t wg = 0;
  cl::Buffer bz, by, part, sums, bb, bt, btau, blo, bhi, bcnt, bcand;
  std::optional<Buffer<double>> r2;
  cl::Kernel kr, kg, ks, kbr;
  // lts_bracket counts in uint: every process's rows below 2^32 (the same answer on each).
  bool bracketing = true;
  for (const auto rows : ac.split() ? ac.sizes() : std::vector<std::uint64_t>{n})
    if (rows >= (std::uint64_t{1} << 32)) bracketing = false;
  local([&] {
    const std::string opt = build::base_options(*ci, true, op) + " -DQ=" + std::to_string(q) +
                            " -DKC=" + std::to_string(kc) + " -DTILE=" + std::to_string(kTile) +
                            " -DCH=" + std::to_string(kChunk);
    AccArg acc{nx};  // a work-item's entries, each for every candidate
    prog = build::program_for_wg(*ci, "robust/lts_full", opt, "lts_gram", 256, wg, nacc_option, &acc);
    kg = build::kernel(*prog, "lts_gram", qu.index());
    bz = upload_doubles(ci->context, cq, d.z.data(), d.z.size());
    by = upload_doubles(ci->context, cq, d.ys.data(), d.ys.size());
    r2.emplace(ctx, cells);
    part = cl::Buffer(ci->context, CL_MEM_READ_WRITE, std::max<std::size_t>(1, groups) * kc * nx * sizeof(double));
    sums = cl::Buffer(ci->context, CL_MEM_READ_WRITE, kc * nx * sizeof(double));
    bb = cl::Buffer(ci->context, CL_MEM_READ_ONLY, kc * q * sizeof(double));
    bt = cl::Buffer(ci->context, CL_MEM_READ_ONLY, kc * sizeof(double));
    btau = cl::Buffer(ci->context, CL_MEM_READ_ONLY, kc * sizeof(cl_ulong));
    const cl::Buffer& r2b = r2->raw().impl()->buffer;
    kr = resid_kernel(*prog, qu.index(), bz, by, n, bb, true, r2b);
    ks = build::kernel(*prog, "lts_reduce", qu.index());
    kg.setArg(0, bz);
    kg.setArg(1, by);
    kg.setArg(2, static_cast<cl_ulong>(n));
    kg.setArg(3, r2b);
    kg.setArg(4, bt);
    kg.setArg(5, btau);
    kg.setArg(6, part);
    ks.setArg(0, part);
    ks.setArg(1, static_cast<cl_uint>(groups));
    ks.setArg(2, sums);
    blo = cl::Buffer(ci->context, CL_MEM_READ_ONLY, kc * sizeof(double));
    bhi = cl::Buffer(ci->context, CL_MEM_READ_ONLY, kc * sizeof(double));
    bcnt = cl::Buffer(ci->context, CL_MEM_READ_WRITE, 2 * kc * sizeof(cl_uint));
    bcand = cl::Buffer(ci->context, CL_MEM_READ_WRITE, kc * Bracket::kCap * sizeof(double));
    kbr = build::kernel(*prog, "lts_bracket", qu.index());
    kbr.setArg(0, r2b);
    kbr.setArg(1, static_cast<cl_ulong>(n));
    kbr.setArg(2, blo);
    kbr.setArg(3, bhi);
    kbr.setArg(4, bcnt);
    kbr.setArg(5, bcand);
    kbr.setArg(6, static_cast<cl_uint>(Bracket::kCap));
  });
  // A few hundred groups: each adds its count below with one global atomic per fit.
  const std::size_t bgroups = std::min<std::size_t>((n + 255) / 256, 512);
  std::vector<Bracket> br(kc);
  const std::size_t rgroups = std::min<std::size_t>((n + 255) / 256, 65536);
  std::vector<double> thr(kc), s(kc * nx), row;
  std::vector<cl_ulong> tau(kc);
  // Every process's sums (one process: its own), and their total in rank order in s.
  std::vector<std::vector<double>> sp;
  auto gram = [&] {
    sp = ac.parts([&] {
      std::vector<double> mine(kc * nx, 0.0);
      if (n > 0)
        cl_guard(op, *ci, [&] {
          cq.enqueueWriteBuffer(bt, CL_FALSE, 0, kc * sizeof(double), thr.data());
          cq.enqueueWriteBuffer(btau, CL_FALSE, 0, kc * sizeof(cl_ulong), tau.data());
          launch(qu, kg, cl::NDRange(groups * wg), cl::NDRange(wg), {}, op);
          launch(qu, ks, cl::NDRange((kc * nx + 63) / 64 * 64), cl::NDRange(64), {}, op);
          ::clstat::detail::read_wait(cq, sums, 0, kc * nx * sizeof(double), mine.data());
        });
      return mine;
    });
    s = sp[0];
    for (std::size_t r = 1; r < sp.size(); ++r)
      for (std::size_t i = 0; i < s.size(); ++i) s[i] += sp[r][i];
  };
  const std::size_t nt = ntri(q);
  for (;;) {
    local([&] {
      if (n == 0) return;
      cq.enqueueWriteBuffer(bb, CL_FALSE, 0, kc * q * sizeof(double), out.beta.data());
      launch(qu, kr, cl::NDRange(rgroups * 256), cl::NDRange(256), {}, op);
    });
    // 1. The fits with a bracket (Bracket): one pass for all of them, then each process's counts
    //    and copies, and the copies ranked here, the same on every process.
    std::vector<std::size_t> bk, inside(kc, 0);
    std::vector<char> picked(kc, 0), used(kc, 0), hit(kc, 0);
    for (std::size_t k = 0; k < kc; ++k) {
      tau[k] = n;
      if (!active[k]) {
        thr[k] = -INFINITY;  // no rows: a finished fit costs the gram nothing but its zeros
        picked[k] = 1;
      } else if (bracketing && br[k].usable()) {
        bk.push_back(k);
        used[k] = 1;
      }
    }
    if (!bk.empty()) {
      constexpr std::size_t cap = Bracket::kCap;
      std::vector<double> lo(kc, INFINITY), hi(kc, -INFINITY);  // lo > hi: no bracket
      for (const auto k : bk) {
        lo[k] = br[k].last - br[k].half;
        hi[k] = br[k].last + br[k].half;
      }
      // A process's part: below and inside for every fit, then the copies of each bracketed fit.
      const auto got = ac.parts([&] {
        std::vector<cl_uint> c(2 * kc, 0);
        auto v = ::clstat::detail::host_array<double>(bk.size() * cap);  // the reads overwrite it
        if (n > 0)
          cl_guard(op, *ci, [&] {
            const cl_uint zero = 0;
            cq.enqueueWriteBuffer(blo, CL_FALSE, 0, kc * sizeof(double), lo.data());
            cq.enqueueWriteBuffer(bhi, CL_FALSE, 0, kc * sizeof(double), hi.data());
            cq.enqueueFillBuffer(bcnt, zero, 0, 2 * kc * sizeof(cl_uint));
            launch(qu, kbr, cl::NDRange(bgroups * 256), cl::NDRange(256), {}, op);
            // The copies come back with the counts, in one wait: a bracket rarely holds more.
            for (std::size_t j = 0; j < bk.size(); ++j)
              cq.enqueueReadBuffer(bcand, CL_FALSE, bk[j] * cap * sizeof(double), cap * sizeof(double), &v[j * cap]);
            ::clstat::detail::read_wait(cq, bcnt, 0, 2 * kc * sizeof(cl_uint), c.data());
          });
        std::vector<double> out(c.begin(), c.end());
        for (std::size_t j = 0; j < bk.size(); ++j)
          out.insert(out.end(), v.begin() + static_cast<std::ptrdiff_t>(j * cap),
                     v.begin() + static_cast<std::ptrdiff_t>(j * cap + std::min<std::size_t>(c[2 * bk[j] + 1], cap)));
        return out;
      });
      for (std::size_t j = 0; j < bk.size(); ++j) {
        const std::size_t k = bk[j];
        std::size_t below = 0;
        for (const auto& p : got) {
          below += static_cast<std::size_t>(p[2 * k]);
          inside[k] += static_cast<std::size_t>(p[2 * k + 1]);
        }
        if (!(below < h && h - below <= inside[k] && inside[k] <= cap)) continue;
        std::vector<double> c;
        for (const auto& p : got) {  // this process's copies of fit k follow those of bk[0 .. j)
          std::size_t at = 2 * kc;
          for (std::size_t i = 0; i < j; ++i) at += std::min<std::size_t>(static_cast<std::size_t>(p[2 * bk[i] + 1]), cap);
          c.insert(c.end(), p.begin() + static_cast<std::ptrdiff_t>(at),
                   p.begin() + static_cast<std::ptrdiff_t>(at + static_cast<std::size_t>(p[2 * k + 1])));
        }
        const auto t = c.begin() + static_cast<std::ptrdiff_t>(h - below - 1);
        std::nth_element(c.begin(), t, c.end());
        thr[k] = *t;
        picked[k] = hit[k] = 1;
      }
    }
    // 2. The others, one after another on this queue, by an exact selection on all rows. (At once
    //    on the context's other queues measured no faster on the H100: 10^6 rows, 70 steps, 214 to
    //    226 ms against 209 to 258.) With the rows split, every process's residuals take part in
    //    one exact selection (order/sharded_select.hpp).
    for (std::size_t k = 0; k < kc; ++k) {
      if (picked[k]) continue;
      if (!ac.split()) {
        thr[k] = order::kth_smallest_async<double>(qu, *r2, k * n, n, std::vector<std::uint64_t>{h}).get()[0];
      } else {
        order::detail::ShardedSelect<double> sel({order::detail::ShardRef<double>{qu, *r2, k * n, n}}, ac.exchange());
        sel.prepare({h - 1});
        thr[k] = order::detail::from_key<double>(sel.select({h - 1})[0]);
      }
    }
    for (std::size_t k = 0; k < kc; ++k)
      if (active[k]) br[k].update(thr[k], used[k] != 0, inside[k], hit[k] != 0);
    gram();
    // More ties at t than the h-subset takes: lower rows first, so the processes' ties in rank
    // order, each taking its lowest rows.
    bool ties = false;
    for (std::size_t k = 0; k < kc; ++k)
      if (active[k] && s[k * nx + nt] + s[k * nx + nt + 1] > static_cast<double>(h)) ties = true;
    if (ties)
      local([&] {
        const int me = ac.split() ? ac.exchange()->rank() : 0;
        for (std::size_t k = 0; k < kc; ++k) {
          const double lt = s[k * nx + nt], eq = s[k * nx + nt + 1];
          if (!active[k] || !(lt + eq > static_cast<double>(h))) continue;
          std::size_t need = h - static_cast<std::size_t>(lt);
          for (int r = 0; r < me; ++r)
            need -= std::min(need, static_cast<std::size_t>(sp[static_cast<std::size_t>(r)][k * nx + nt + 1]));
          const std::size_t mine = std::min(need, static_cast<std::size_t>(sp[static_cast<std::size_t>(me)][k * nx + nt + 1]));
          if (mine == 0) {
            tau[k] = 0;
            continue;
          }
          row.resize(n);
          r2->read(qu, row.data(), n, k * n);
          std::size_t i = 0;
          for (std::size_t left = mine; i < n; ++i)
            if (row[i] == thr[k] && --left == 0) break;
          tau[k] = i + 1;
        }
      });
    if (ties) gram();
    bool any = false;
    for (std::size_t k = 0; k < kc; ++k) {
      if (!active[k]) continue;
      const double* sk = &s[k * nx];
      const double obj = sk[nt + 2] + (static_cast<double>(h) - sk[nt]) * thr[k];
      double* bk = &out.beta[k * q];
      if (!(obj < out.obj[k])) {  // no decrease: the previous fit is a fixed point
        std::copy(prev_beta.begin() + k * q, prev_beta.begin() + (k + 1) * q, bk);
        out.converged[k] = 1;
        active[k] = 0;
        continue;
      }
      out.obj[k] = obj;
      if (out.steps[k] >= max_steps) {
        active[k] = 0;
        continue;
      }
      std::copy(bk, bk + q, prev_beta.begin() + k * q);
      if (!solve_gram(sk, q, bk)) {  // the h rows are rank deficient: keep the fit
        out.converged[k] = 1;
        active[k] = 0;
        continue;
      }
      ++out.steps[k];
      any = true;
    }
    if (!any) break;
  }
  return out;
}

std::vector<double> lms_full(const Context& ctx, const Design& d, std::size_t h, const std::vector<double>& beta,
                             bool adjust, const char* op) {
  const std::size_t q = d.q, n = d.n, count = beta.size() / q;
  constexpr std::size_t kChunk = 4096;
  std::vector<double> crit(count, INFINITY);
  if (count == 0) return crit;
  auto ci = ctx.impl();
  ::clstat::detail::Lease lease = ::clstat::detail::Lease::any(ctx);
  const Queue qu = lease.queue();
  cl_guard(op, *ci, [&] {
    const std::string opt = build::base_options(*ci, true, op) + " -DQ=" + std::to_string(q) +
                            " -DKC=1 -DTILE=32 -DCH=" + std::to_string(kChunk) + " -DNACC=1";
    std::size_t wg = 0;
    auto prog = build::program_for_wg(*ci, "robust/lts_full", opt, "lms_window", 256, wg);
    const cl::CommandQueue& cq = queue_of(qu);
    cl::Buffer bz = upload_doubles(ci->context, cq, d.z.data(), d.z.size());
    cl::Buffer by = upload_doubles(ci->context, cq, d.ys.data(), d.ys.size());
    Buffer<double> r(ctx, n);
    cl::Buffer bb(ci->context, CL_MEM_READ_ONLY, q * sizeof(double));
    const std::size_t wgroups = (n - h + 1 + kChunk - 1) / kChunk;
    cl::Buffer pw(ci->context, CL_MEM_READ_WRITE, wgroups * sizeof(double));
    const cl::Buffer& rb = r.raw().impl()->buffer;
    cl::Kernel kr = resid_kernel(*prog, qu.index(), bz, by, n, bb, !adjust, rb);
    cl::Kernel kw = build::kernel(*prog, "lms_window", qu.index());
    kw.setArg(0, rb);
    kw.setArg(1, static_cast<cl_ulong>(n));
    kw.setArg(2, static_cast<cl_ulong>(h));
    kw.setArg(3, pw);
    const std::size_t rgroups = std::min<std::size_t>((n + 255) / 256, 65536);
    std::vector<double> w(wgroups);
    for (std::size_t c = 0; c < count; ++c) {
      cq.enqueueWriteBuffer(bb, CL_FALSE, 0, q * sizeof(double), &beta[c * q]);
      launch(qu, kr, cl::NDRange(rgroups * 256), cl::NDRange(256), {}, op);
      if (!adjust) {
        crit[c] = order::kth_smallest_async<double>(qu, r, 0, n, std::vector<std::uint64_t>{h}).get()[0];
        continue;
      }
      // Every order statistic is needed, so sort rather than select.
      order::detail::sort_values(qu, r, 0, n);
      launch(qu, kw, cl::NDRange(wgroups * wg), cl::NDRange(wg), {}, op);
      ::clstat::detail::read_wait(cq, pw, 0, wgroups * sizeof(double), w.data());
      const double best = *std::min_element(w.begin(), w.end());
      crit[c] = 0.25 * best * best;
    }
  });
  return crit;
}

}  // namespace clstat::robust::detail
