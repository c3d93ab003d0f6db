// Host side of KDE evaluation: device buffers, chunking past the memory budget, the pipeline of
// point chunks over several queues, and the public entry points.
#include <algorithm>
#include <cstring>
#include <type_traits>

#include "build/program_cache.hpp"
#include "kde/kde_boundary.hpp"
#include "kde/kde_plan.hpp"
#include "runtime/launch.hpp"
#include "runtime/lease.hpp"

namespace clstat {
namespace {

using kde_detail::k_chunk;
using kde_detail::Plan;

// The device-buffer form's prepared samples and points, the per-point sums, and the copies of
// inputs given at an offset.
enum class KdeScratch { samples, points, sums, raw_samples, raw_points, transform, weights, point_div };

// Pairs per kde_eval launch, at most: long enough that launch overhead is noise, short enough for
// display watchdogs on desktop GPUs (about 10 ms on an H100).
constexpr std::uint64_t k_pairs_per_launch = std::uint64_t(1) << 33;

std::size_t round_up(std::size_t v, std::size_t to) { return (v + to - 1) / to * to; }

struct Kernels {
  cl::Kernel prep_x, prep_y, eval, finish;
  std::size_t wg = 0, prep_wg = 0;
};

Kernels kernels_for(detail::ContextImpl& ctx, Plan& p, std::size_t qi, const char* op) {
  const std::string common = kde_detail::common_options(ctx, p, op);
  auto px = build::program(ctx, "kde/kde_prepare", common + " -DROLE=0");
  auto py = build::program(ctx, "kde/kde_prepare", common + " -DROLE=1");
  const std::string eo = common + " -DLOO=" + (p.loo ? "1" : "0") + " -DVARIANT=" + std::to_string(p.variant - 1) +
                         " -DPPT=" + std::to_string(p.ppt) + " -DTILE=" + std::to_string(p.tile) +
                         " -DCHUNK=" + std::to_string(k_chunk) + " -DUNROLL=" + std::to_string(p.unroll) +
                         " -DPER_POINT=" + (p.point_div.empty() ? "0" : "1") +
                         " -DLOG_DENSITY=" + (p.log_density ? "1" : "0") + " -DLANES=" + std::to_string(p.lanes) +
                         " -DEXP_POLY=" + std::to_string(p.exp_poly);
  Kernels k;
  auto pe = build::program_for_wg(ctx, "kde/kde_eval", eo, "kde_eval", p.wg, k.wg);
  p.wg = k.wg;
  k.prep_x = build::kernel(*px, "kde_prepare", qi);
  k.prep_y = build::kernel(*py, "kde_prepare", qi);
  k.eval = build::kernel(*pe, "kde_eval", qi);
  k.finish = build::kernel(*pe, "kde_finish", qi);
  k.prep_wg = std::min<std::size_t>({64, detail::kernel_max_work_group(k.prep_x, ctx),
                                     detail::kernel_max_work_group(k.prep_y, ctx),
                                     detail::kernel_max_work_group(k.finish, ctx)});
  return k;
}

// v as T, at least one element (kernels take a buffer even when the plan has no such values).
template <class T>
std::vector<T> as_device_values(const std::vector<double>& v) {
  std::vector<T> t(v.begin(), v.end());
  if (t.empty()) t.push_back(T(0));
  return t;
}

// v in a new buffer: the host form's transform, read by the kernels of every queue it uses.
template <class T>
cl::Buffer upload(detail::ContextImpl& ctx, const std::vector<double>& v) {
  std::vector<T> t = as_device_values<T>(v);
  return cl::Buffer(ctx.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, t.size() * sizeof(T), t.data());
}

// v into q's scratch `which` by a staged write (the queue form: no per-call buffer).
template <class T>
cl::Buffer upload(const Queue& q, KdeScratch which, const std::vector<double>& v) {
  const std::vector<T> t = as_device_values<T>(v);
  return detail::staged(q, which, t.data(), t.size() * sizeof(T));
}

cl::Buffer alloc(detail::ContextImpl& ctx, std::size_t bytes) {
  return cl::Buffer(ctx.context, CL_MEM_READ_WRITE, std::max<std::size_t>(bytes, 16));
}

// Prepared rows [0, rows_pad) from raw rows [0, rows) (kde_prepare.cl).
Event prepare(const Queue& q, cl::Kernel& k, std::size_t wg, const cl::Buffer& raw, std::size_t rows,
              std::size_t rows_pad, const cl::Buffer& A, const cl::Buffer& w, const cl::Buffer& dst,
              const std::vector<Event>& deps, const char* op) {
  k.setArg(0, raw);
  k.setArg(1, static_cast<cl_uint>(rows));
  k.setArg(2, static_cast<cl_uint>(rows_pad));
  k.setArg(3, A);
  k.setArg(4, w);
  k.setArg(5, dst);
  return detail::launch(q, k, cl::NDRange(round_up(rows_pad, wg)), cl::NDRange(wg), deps, op);
}

// Adds samples [0, rows_pad) of xs (global index sample_base) into the states of m points.
Event evaluate(const Queue& q, Kernels& k, const Plan& p, const cl::Buffer& xs, std::size_t rows_pad,
               std::uint64_t sample_base, const cl::Buffer& ys, std::size_t m, std::uint64_t point_base,
               const cl::Buffer& state, bool first, std::vector<Event> deps, const char* op) {
  const std::size_t step = p.sample_step();
  std::size_t per_launch = static_cast<std::size_t>(std::max<std::uint64_t>(1, k_pairs_per_launch / m));
  per_launch = std::max(step, per_launch / step * step);
  const std::size_t per_group = k.wg * p.ppt * p.lanes, groups = (m + per_group - 1) / per_group;
  Event ev;
  for (std::size_t r0 = 0; r0 < rows_pad; r0 += per_launch) {
    const std::size_t rows = std::min(per_launch, rows_pad - r0);
    k.eval.setArg(0, xs);
    k.eval.setArg(1, static_cast<cl_ulong>(r0));
    k.eval.setArg(2, static_cast<cl_uint>(rows));
    k.eval.setArg(3, ys);
    k.eval.setArg(4, static_cast<cl_uint>(m));
    k.eval.setArg(5, state);
    k.eval.setArg(6, static_cast<cl_uint>(first && r0 == 0 ? 1 : 0));
    k.eval.setArg(7, static_cast<cl_ulong>(sample_base + r0));
    k.eval.setArg(8, static_cast<cl_ulong>(point_base));
    ev = detail::launch(q, k.eval, cl::NDRange(groups * k.wg), cl::NDRange(k.wg), deps, op);
    deps = {ev};
  }
  return ev;
}

Event finish(const Queue& q, Kernels& k, const Plan& p, const cl::Buffer& state, std::size_t m, const cl::Buffer& div,
             const cl::Buffer& out, std::uint64_t out_offset, const std::vector<Event>& deps, const char* op) {
  k.finish.setArg(0, state);
  k.finish.setArg(1, static_cast<cl_uint>(m));
  if (q.context().info().fp64) {
    k.finish.setArg(2, p.scale);
    k.finish.setArg(3, p.log_scale);
  } else {
    k.finish.setArg(2, static_cast<float>(p.scale));
    k.finish.setArg(3, static_cast<float>(p.log_scale));
  }
  k.finish.setArg(4, div);
  k.finish.setArg(5, out);
  k.finish.setArg(6, static_cast<cl_ulong>(out_offset));
  return detail::launch(q, k.finish, cl::NDRange(round_up(m, k.prep_wg)), cl::NDRange(k.prep_wg), deps, op);
}

// Host copies in T that the enqueued transfers read and write; kept alive until the last command
// completes (event callback), whether or not the caller keeps the Future.
template <class T>
struct HostJob {
  std::vector<T> x, y, w, div, out;
};

template <class T>
std::vector<T> centred(const double* v, std::size_t rows, std::size_t d, const std::vector<double>& c) {
  std::vector<T> t(rows * d);
  for (std::size_t i = 0; i < rows; ++i)
    for (std::size_t k = 0; k < d; ++k) t[i * d + k] = static_cast<T>(v[i * d + k] - c[k]);
  return t;
}

template <class T>
void keep_until_complete(cl::Event& ev, std::shared_ptr<HostJob<T>> job) {
  auto* holder = new std::shared_ptr<HostJob<T>>(std::move(job));
  ev.setCallback(
      CL_COMPLETE, [](cl_event, cl_int, void* data) { delete static_cast<std::shared_ptr<HostJob<T>>*>(data); },
      holder);
}

template <class T>
Future<std::vector<double>> run_host(const Context& c, const std::vector<std::size_t>& queues, const double* x,
                                     std::size_t n, std::size_t d, const double* y, std::size_t m,
                                     const KdeOptions& o, bool at_samples, const std::vector<Event>& wait,
                                     const char* op, bool cdf) {
  auto ctx = c.impl();
  if (!x) throw std::invalid_argument(std::string(op) + ": null sample pointer");
  if (!at_samples && !y && m) throw std::invalid_argument(std::string(op) + ": null point pointer");
  Plan p = kde_detail::make_plan(*ctx, op, x, n, d, m, o, at_samples, nullptr, cdf);
  kde_detail::require_finite(op, "samples", x, n, d);
  if (!at_samples) kde_detail::require_finite(op, "evaluation points", y, m, d);
  m = p.m;

  auto job = std::make_shared<HostJob<T>>();
  job->x = centred<T>(x, n, d, p.centre);
  if (!at_samples) job->y = centred<T>(y, m, d, p.centre);
  job->w.assign(p.weights.begin(), p.weights.end());
  job->div.assign(p.point_div.begin(), p.point_div.end());
  job->out.resize(m);
  const std::vector<T>& ys = at_samples ? job->x : job->y;

  return detail::cl_guard(op, *ctx, [&] {
    const std::size_t Q = queues.size(), sz = sizeof(T), RS = p.sample_stride(), PS = p.point_stride();
    const auto& info = ctx->info();
    const std::size_t budget = o.memory_budget_bytes ? o.memory_budget_bytes : info.global_mem_bytes / 4;
    const std::size_t max_alloc = info.max_alloc_bytes;

    // Samples stay resident when they take at most half the budget; otherwise every queue streams
    // blocks of them, a multiple of the tile so the rounding does not depend on the block size. A
    // budget too small for one tile shrinks the tile (a speed setting) down to one CHUNK.
    const std::size_t per_sample = (d + RS + 1) * sz;
    std::size_t step = p.sample_step();
    const bool resident = round_up(n, step) * per_sample <= budget / 2 && round_up(n, step) * RS * sz <= max_alloc;
    std::size_t nb = 0;
    if (!resident) {
      const std::size_t fit = std::min(budget / 2 / (Q * per_sample), max_alloc / (RS * sz));
      while (step > k_chunk && fit < step) step /= 2;
      if (p.tiled()) p.tile = step;
      nb = fit / step * step;
      if (nb == 0)
        throw UnsupportedFeature(op, ctx->device_name(),
                                 "memory budget of " + std::to_string(budget) +
                                     " bytes is too small for one block of " + std::to_string(k_chunk) + " samples");
    }
    const std::size_t n_pad = round_up(n, step);
    if (resident) nb = n_pad;
    std::vector<Kernels> ks;
    for (std::size_t qi : queues) ks.push_back(kernels_for(*ctx, p, qi, op));
    const std::size_t used = resident ? n_pad * per_sample : Q * nb * per_sample;
    const std::size_t per_point = (d + PS + 4) * sz;
    std::size_t mc = std::min<std::size_t>(
        {(budget > used ? budget - used : 0) / (Q * per_point), max_alloc / (std::max<std::size_t>(d, PS) * sz),
         std::size_t(1) << 30});
    const std::size_t granule = ks[0].wg * p.ppt * p.lanes;
    if (mc > granule) mc = mc / granule * granule;
    if (mc == 0)
      throw UnsupportedFeature(op, ctx->device_name(),
                               "memory budget of " + std::to_string(budget) +
                                   " bytes leaves no room for evaluation points");
    mc = std::min(mc, m);

    cl::Buffer A = upload<T>(*ctx, p.A);
    const cl::CommandQueue& q0 = ctx->queues.at(queues[0]);
    std::vector<cl::Event> deps_cl = detail::to_cl(wait);

    // Resident samples: upload and prepare once on the first queue.
    cl::Buffer xprep, wbuf;
    Event ready;
    if (resident) {
      cl::Buffer xraw = alloc(*ctx, n * d * sz);
      xprep = alloc(*ctx, n_pad * RS * sz);
      wbuf = alloc(*ctx, std::max<std::size_t>(1, job->w.size()) * sz);
      cl::Event e1, e2;
      q0.enqueueWriteBuffer(xraw, CL_FALSE, 0, n * d * sz, job->x.data(), &deps_cl, &e1);
      std::vector<Event> after{detail::from_cl(e1)};
      if (p.weighted) {
        q0.enqueueWriteBuffer(wbuf, CL_FALSE, 0, n * sz, job->w.data(), nullptr, &e2);
        after.push_back(detail::from_cl(e2));
      }
      ready = prepare(c.queue(queues[0]), ks[0].prep_x, ks[0].prep_wg, xraw, n, n_pad, A, wbuf, xprep, after, op);
    }

    struct PerQueue {
      cl::Buffer yraw, yprep, state, out, div, xraw, xw, xprep;
      Event last;
    };
    std::vector<PerQueue> pq(Q);
    for (auto& b : pq) {
      b.yraw = alloc(*ctx, mc * d * sz);
      b.yprep = alloc(*ctx, mc * PS * sz);
      b.state = alloc(*ctx, 2 * mc * sz);
      b.out = alloc(*ctx, mc * sz);
      b.div = alloc(*ctx, (p.point_div.empty() ? 1 : mc) * sz);
      if (!resident) {
        b.xraw = alloc(*ctx, nb * d * sz);
        b.xw = alloc(*ctx, nb * sz);
        b.xprep = alloc(*ctx, nb * RS * sz);
      }
    }

    for (std::size_t i0 = 0, ci = 0; i0 < m; i0 += mc, ++ci) {
      const std::size_t qk = ci % Q, cnt = std::min(mc, m - i0);
      const Queue q = c.queue(queues[qk]);
      const cl::CommandQueue& cq = ctx->queues.at(queues[qk]);
      PerQueue& b = pq[qk];
      std::vector<cl::Event> start = ci < Q ? deps_cl : std::vector<cl::Event>{};
      cl::Event wy;
      cq.enqueueWriteBuffer(b.yraw, CL_FALSE, 0, cnt * d * sz, ys.data() + i0 * d, &start, &wy);
      std::vector<Event> after{detail::from_cl(wy)};
      if (resident && ci < Q) after.push_back(ready);
      Event ev = prepare(q, ks[qk].prep_y, ks[qk].prep_wg, b.yraw, cnt, cnt, A, A, b.yprep, after, op);
      if (resident) {
        ev = evaluate(q, ks[qk], p, xprep, n_pad, 0, b.yprep, cnt, i0, b.state, true, {ev}, op);
      } else {
        for (std::size_t j0 = 0; j0 < n; j0 += nb) {
          const std::size_t rows = std::min(nb, n - j0), rows_pad = round_up(rows, step);
          cl::Event wx, ww;
          cq.enqueueWriteBuffer(b.xraw, CL_FALSE, 0, rows * d * sz, job->x.data() + j0 * d, nullptr, &wx);
          if (p.weighted) cq.enqueueWriteBuffer(b.xw, CL_FALSE, 0, rows * sz, job->w.data() + j0, nullptr, &ww);
          ev = prepare(q, ks[qk].prep_x, ks[qk].prep_wg, b.xraw, rows, rows_pad, A, b.xw, b.xprep,
                       {ev, detail::from_cl(wx)}, op);
          ev = evaluate(q, ks[qk], p, b.xprep, rows_pad, j0, b.yprep, cnt, i0, b.state, j0 == 0, {ev}, op);
        }
      }
      if (!p.point_div.empty()) {
        cl::Event wd;
        cq.enqueueWriteBuffer(b.div, CL_FALSE, 0, cnt * sz, job->div.data() + i0, nullptr, &wd);
        ev = finish(q, ks[qk], p, b.state, cnt, b.div, b.out, 0, {ev, detail::from_cl(wd)}, op);
      } else {
        ev = finish(q, ks[qk], p, b.state, cnt, b.div, b.out, 0, {ev}, op);
      }
      cl::Event rd;
      const std::vector<cl::Event> rdeps = detail::to_cl({ev});
      cq.enqueueReadBuffer(b.out, CL_FALSE, 0, cnt * sz, job->out.data() + i0, &rdeps, &rd);
      b.last = detail::from_cl(rd);
    }
    std::vector<Event> lasts;
    for (auto& b : pq)
      if (b.last.impl()) lasts.push_back(b.last);
    std::vector<cl::Event> lcl = detail::to_cl(lasts);
    cl::Event done;
    q0.enqueueMarkerWithWaitList(&lcl, &done);
    keep_until_complete(done, job);
    for (auto& qi : queues) ctx->queues.at(qi).flush();
    return Future<std::vector<double>>(detail::from_cl(done), [job] {
      return std::vector<double>(job->out.begin(), job->out.end());
    });
  });
}

Future<std::vector<double>> host_form(const Context& c, const std::vector<std::size_t>& queues, const double* x,
                                      std::size_t n, std::size_t d, const double* y, std::size_t m,
                                      const KdeOptions& o, bool at_samples, const std::vector<Event>& wait,
                                      const char* op, bool cdf = false) {
  if (o.precision == Precision::float32) return run_host<float>(c, queues, x, n, d, y, m, o, at_samples, wait, op, cdf);
  return run_host<double>(c, queues, x, n, d, y, m, o, at_samples, wait, op, cdf);
}

// The plain forms' queues: one held (the caller's, when it holds one), and up to two more that
// are free now, so the chunks of points pipeline uploads, kernels and reads over them. Which and
// how many queues take part does not change the result: every chunk of points is computed alone.
class Pipeline {
 public:
  explicit Pipeline(const Context& c) {
    leases_.push_back(detail::Lease::any(c));
    while (leases_.size() < 3) {
      detail::Lease extra = detail::Lease::try_another(c);
      if (!extra) break;
      leases_.push_back(std::move(extra));
    }
  }
  std::vector<std::size_t> queues() const {
    std::vector<std::size_t> q;
    for (const auto& l : leases_) q.push_back(l.index());
    return q;
  }

 private:
  std::vector<detail::Lease> leases_;
};

}  // namespace

std::vector<double> kde(const Context& ctx, const double* x, std::size_t n, std::size_t d, const double* y,
                        std::size_t m, const KdeOptions& options) {
  if (options.boundary.method != KdeBoundary::Method::none)
    return kde_detail::bounded_kde(ctx, x, n, d, y, m, options, false, "clstat::kde");
  const Pipeline pl(ctx);
  return host_form(ctx, pl.queues(), x, n, d, y, m, options, false, {}, "clstat::kde").get();
}

std::vector<double> kde_at_samples(const Context& ctx, const double* x, std::size_t n, std::size_t d,
                                   const KdeOptions& options) {
  if (options.boundary.method != KdeBoundary::Method::none)
    return kde_detail::bounded_kde(ctx, x, n, d, nullptr, n, options, true, "clstat::kde_at_samples");
  const Pipeline pl(ctx);
  return host_form(ctx, pl.queues(), x, n, d, nullptr, n, options, true, {}, "clstat::kde_at_samples").get();
}

std::vector<double> kde_cdf(const Context& ctx, const double* x, std::size_t n, const double* y, std::size_t m,
                            const KdeOptions& options) {
  const Pipeline pl(ctx);
  return host_form(ctx, pl.queues(), x, n, 1, y, m, options, false, {}, "clstat::kde_cdf", true).get();
}

Future<std::vector<double>> kde_async(const Queue& q, const double* x, std::size_t n, std::size_t d, const double* y,
                                      std::size_t m, const KdeOptions& options, const std::vector<Event>& wait) {
  const bool at = options.leave_one_out;
  detail::Lease lease = detail::Lease::named(q);
  return host_form(q.context(), {q.index()}, x, n, d, at ? nullptr : y, m, options, at, wait, "clstat::kde_async");
}

template <class T>
Event kde_async(const Queue& q, const Buffer<T>& x, std::size_t x_offset, std::size_t n, std::size_t d,
                const Buffer<T>& y, std::size_t y_offset, std::size_t m, const Buffer<T>& out, std::size_t out_offset,
                const KdeOptions& options, const std::vector<Event>& wait) {
  const char* op = "clstat::kde_async (device buffers)";
  constexpr bool dbl = std::is_same<T, double>::value;
  if (dbl != (options.precision == Precision::float64))
    throw std::invalid_argument(std::string(op) + ": buffer element type does not match options.precision");
  auto ctx = q.context().impl();
  const bool at = options.leave_one_out;
  auto fits = [&](const Buffer<T>& b, std::size_t off, std::size_t rows) {
    return d != 0 && rows <= (static_cast<std::size_t>(-1) - off) / d && off + rows * d <= b.size();
  };
  detail::Lease lease = detail::Lease::named(q);
  std::vector<double> cov;
  if (options.bandwidth.form == Bandwidth::Form::scaled_covariance && n > d && d > 0 && fits(x, x_offset, n)) {
    // The covariance is O(n d^2) host work on a copy of the samples: a blocking read.
    for (const auto& e : wait) e.wait();
    std::vector<T> host(n * d);
    x.read(q, host.data(), n * d, x_offset);
    std::vector<double> xd(host.begin(), host.end());
    cov = kde_detail::sample_covariance(xd.data(), n, d);
  }
  Plan p = kde_detail::make_plan(*ctx, op, nullptr, n, d, m, options, at, &cov);
  m = p.m;
  if (!fits(x, x_offset, n)) throw std::invalid_argument(std::string(op) + ": sample buffer smaller than offset + n*d");
  if (!at && !fits(y, y_offset, m)) throw std::invalid_argument(std::string(op) + ": point buffer smaller than offset + m*d");
  if (out_offset > out.size() || out.size() - out_offset < m)
    throw std::invalid_argument(std::string(op) + ": output buffer smaller than out_offset + m");
  return detail::cl_guard(op, *ctx, [&] {
    Kernels k = kernels_for(*ctx, p, q.index(), op);
    const std::size_t sz = sizeof(T), n_pad = round_up(n, p.sample_step());
    const cl::Buffer A = upload<T>(q, KdeScratch::transform, p.A), w = upload<T>(q, KdeScratch::weights, p.weights),
                     div = upload<T>(q, KdeScratch::point_div, p.point_div);
    // The prepared rows and the sums live in the queue's scratch buffers, reused across calls
    // (the queue is in order), so repeated calls allocate nothing of size n or m.
    cl::Buffer xprep = detail::scratch(q, KdeScratch::samples, n_pad * p.sample_stride() * sz);
    cl::Buffer yprep = detail::scratch(q, KdeScratch::points, m * p.point_stride() * sz);
    cl::Buffer state = detail::scratch(q, KdeScratch::sums, 2 * m * sz);
    // Rows at an offset are copied to the start of a scratch buffer: the prepare kernel reads from 0.
    std::vector<Event> deps = wait;
    const cl::Buffer xb =
        detail::region_in(q, x.raw().impl()->buffer, x_offset * sz, n * d * sz, KdeScratch::raw_samples, deps);
    const cl::Buffer yb =
        at ? xb : detail::region_in(q, y.raw().impl()->buffer, y_offset * sz, m * d * sz, KdeScratch::raw_points, deps);
    Event ex = prepare(q, k.prep_x, k.prep_wg, xb, n, n_pad, A, w, xprep, deps, op);
    Event ey = prepare(q, k.prep_y, k.prep_wg, yb, m, m, A, A, yprep, {ex}, op);
    Event ev = evaluate(q, k, p, xprep, n_pad, 0, yprep, m, 0, state, true, {ey}, op);
    return finish(q, k, p, state, m, div, out.raw().impl()->buffer, out_offset, {ev}, op);
  });
}

template CLSTAT_EXPORT Event kde_async(const Queue&, const Buffer<float>&, std::size_t, std::size_t, std::size_t,
                                       const Buffer<float>&, std::size_t, std::size_t, const Buffer<float>&,
                                       std::size_t, const KdeOptions&, const std::vector<Event>&);
template CLSTAT_EXPORT Event kde_async(const Queue&, const Buffer<double>&, std::size_t, std::size_t, std::size_t,
                                       const Buffer<double>&, std::size_t, std::size_t, const Buffer<double>&,
                                       std::size_t, const KdeOptions&, const std::vector<Event>&);

}  // namespace clstat
