// Host side of the per-point kernels (cl/stable/stable_point.cl): each law's parameters and
// coordinate origin, the launch, and the read-back; one work-item per point.
#include <cmath>
#include <cstdio>
#include <memory>
#include <numeric>
#include <stdexcept>
#include <string>

#include "build/program_cache.hpp"
#include "clstat/stable.hpp"
#include "runtime/host_result.hpp"
#include "runtime/lease.hpp"
#include "runtime/launch.hpp"
#include "runtime/memo.hpp"
#include "stable/eval_internal.hpp"
#include "stable/fit_internal.hpp"
#include "stable/interpolant.hpp"
#include "stable/near_one.hpp"

namespace clstat::stable {
namespace eval_detail {

constexpr unsigned k_error_bit = 16;  // WANT_ERROR in the kernel

// The kernel's parameters of one law: alpha, beta, gamma, and the origin of its coordinate as a
// double-double. The origin is delta0 for alpha = 1, 2 and near 1 (near_one.hpp) and delta1
// otherwise (the point's distance from zeta, in scale units). It is computed in long double and
// kept as hi + lo: near zeta the density of a small alpha is steep on scales of 1e-9, so the rounding of
// delta1 = delta0 - beta gamma tan(pi alpha/2) to a double (1e-16 of delta) would be amplified
// (2e-9 relative at alpha = 0.1 in Nolan's loc-scale table).
void law_params(const Params& p, double* out) {
  const Params q = to_s0(p);
  LD origin = static_cast<LD>(q.loc);
  if (q.alpha != 1 && q.alpha != 2 && !near_one(q.alpha)) {
    const LD pi = 3.141592653589793238462643383279502884L;
    origin = p.param == Param::S1 ? static_cast<LD>(p.loc)
                                  : static_cast<LD>(p.loc) - static_cast<LD>(p.beta) * static_cast<LD>(p.scale) *
                                                                 std::tan(pi * static_cast<LD>(p.alpha) / 2);
  }
  const double hi = static_cast<double>(origin);
  out[0] = q.alpha, out[1] = q.beta, out[2] = q.scale, out[3] = hi, out[4] = static_cast<double>(origin - hi);
}

void check_tol(const char* op, double tol) {
  if (!(tol > 0 && tol < 1e-3)) throw std::invalid_argument(std::string(op) + ": the tolerance must be in (0, 1e-3)");
}

void check_device(const char* op, const detail::ContextImpl& ci) {
  if (!ci.info().fp64) throw UnsupportedFeature(op, ci.info().name, "needs a device with fp64 (cl_khr_fp64)");
}

Laws one_law(const Params& p) {
  Laws l{std::vector<double>(k_prm), {}, false, {}};
  law_params(p, l.prm.data());
  return l;
}

Laws each_law(const char* op, const Params* params, std::size_t n) {
  if (n > 0 && !params) throw std::invalid_argument(std::string(op) + ": null parameters");
  Laws l{std::vector<double>(k_prm * n), {}, true, {}};
  for (std::size_t i = 0; i < n; ++i) {
    try {
      law_params(params[i], &l.prm[k_prm * i]);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(std::string(op) + ": element " + std::to_string(i) + ": " + e.what());
    }
  }
  return l;
}

unsigned count_fns(const char* op, unsigned fns, bool errors) {
  if (fns == 0 || (fns & ~15u))
    throw std::invalid_argument(std::string(op) + ": ask for some of fn_pdf, fn_cdf, fn_sf, fn_logpdf");
  const unsigned k = static_cast<unsigned>(__builtin_popcount(fns));
  return errors ? 2 * k : k;
}

// Sets the kernel's arguments 0..4 (in, n, prm, pid, laws) from device buffers.
void set_law_args(cl::Kernel& k, const cl::Buffer& in, std::size_t n, const cl::Buffer& prm, const cl::Buffer& pid,
                  int mode) {
  k.setArg(0, in);
  k.setArg(1, static_cast<cl_ulong>(n));
  k.setArg(2, prm);
  k.setArg(3, pid);
  k.setArg(4, static_cast<cl_int>(mode));
}

// The kernels' interpolant argument when there is none: a table of no cells, one per context.
struct NoTable {
  cl::Buffer buffer;
};
cl::Buffer no_table(detail::ContextImpl& ci) {
  return detail::memo<NoTable>(ci, "stable.interp.none", [&] {
    std::vector<double> zero(interp::k_head, 0.0);
    return std::make_shared<const NoTable>(NoTable{cl::Buffer(ci.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                                              zero.size() * sizeof(double), zero.data())});
  })->buffer;
}

// Work-group size: the tuning table's stable.wg (a speed setting: each point is independent).
std::size_t group_size(const detail::ContextImpl& ci) {
  return detail::tuned(ci.tuning, "stable.wg", ci.info().type == DeviceType::gpu ? 64 : 8);
}

// The buffers of a per-point run: the inputs, the laws' parameters, the per-point law index,
// the outputs, and the quantile's starting table.
enum class StableScratch { in, params, law_index, out, table };

// paired: whether points need two or more integrals (pdf or logpdf, cdf, sf), so the kernel built
// with shared panels for pairs; otherwise the single-integral build (PAIRED=0).
std::string program_options(const detail::ContextImpl& ci, const char* op, bool paired) {
  std::string o = build::base_options(ci, true, op) + near_one_option();
  if (!paired) o += " -DPAIRED=0";
  return o;
}

// Whether the functions in fns need two or more integrals a point.
bool paired_fns(unsigned fns) {
  return ((fns & (fn_pdf | fn_logpdf)) ? 1 : 0) + ((fns & fn_cdf) ? 1 : 0) + ((fns & fn_sf) ? 1 : 0) >= 2;
}

// One work-item per point of `kernel` (stable_eval or stable_quantile) over in[0 .. n), with the
// trailing arguments set by `tail` from index 5 (it returns the next index: the interpolant's,
// then the output's), and `slots`
// n-value outputs read back, on a queue it holds (the caller's when it holds one), into dst
// when given (slots n values there; the result is then empty), else into the result. Uses that
// queue's scratch, so repeated calls allocate nothing.
template <class Tail>
std::vector<double> per_point(const Context& ctx, const char* op, const char* kernel, const double* in, std::size_t n,
                              const Laws& laws, std::size_t slots, bool paired, Tail tail, double* dst = nullptr) {
  std::vector<double> out = dst ? std::vector<double>{} : detail::host_result<double>(slots * n);
  if (!dst) dst = out.data();
  auto ci = ctx.impl();
  detail::cl_guard(op, *ci, [&] {
    detail::Lease lease = detail::Lease::any(ctx);
    const Queue qu = lease.queue();
    const cl::CommandQueue& q = detail::queue_of(qu);
    auto prog = build::program(*ci, "stable/stable_point", program_options(*ci, op, paired));
    cl::Kernel k = build::kernel(*prog, kernel, qu.index());
    cl::Buffer ib = detail::scratch(qu, StableScratch::in, n * sizeof(double));
    cl::Buffer pb = detail::scratch(qu, StableScratch::params, laws.prm.size() * sizeof(double));
    cl::Buffer xb = detail::scratch(qu, StableScratch::law_index, std::max<std::size_t>(laws.pid.size(), 1) * sizeof(cl_uint));
    cl::Buffer ob = detail::scratch(qu, StableScratch::out, slots * n * sizeof(double));
    q.enqueueWriteBuffer(ib, CL_FALSE, 0, n * sizeof(double), in);
    q.enqueueWriteBuffer(pb, CL_FALSE, 0, laws.prm.size() * sizeof(double), laws.prm.data());
    if (!laws.pid.empty()) q.enqueueWriteBuffer(xb, CL_FALSE, 0, laws.pid.size() * sizeof(cl_uint), laws.pid.data());
    set_law_args(k, ib, n, pb, xb, laws.mode());
    const unsigned at = tail(qu, k);
    k.setArg(at, laws.ip() ? laws.ip : no_table(*ci));
    k.setArg(at + 1, ob);
    const std::size_t wg = group_size(*ci);
    detail::launch(qu, k, cl::NDRange((n + wg - 1) / wg * wg), cl::NDRange(wg), {}, op);
    detail::read_wait(q, ob, 0, slots * n * sizeof(double), dst);
  });
  return out;
}

Values unpack(std::vector<double> v, unsigned fns, bool errors, std::size_t n) {
  Values r;
  std::vector<double>* val[4] = {&r.pdf, &r.cdf, &r.sf, &r.logpdf};
  std::vector<double>* err[4] = {&r.pdf_error, &r.cdf_error, &r.sf_error, &r.logpdf_error};
  // One function: its slot is the whole buffer, moved (a copy of 1e8 values cost as much host
  // time as the device's upload and read-back together).
  if (!errors && v.size() == n && (fns & (fns - 1)) == 0 && fns != 0) {
    for (int k = 0; k < 4; ++k)
      if (fns & (1u << k)) *val[k] = std::move(v);
    return r;
  }
  std::size_t slot = 0;
  for (int pass = 0; pass < (errors ? 2 : 1); ++pass)
    for (int k = 0; k < 4; ++k)
      if (fns & (1u << k)) {
        auto* dst = pass == 0 ? val[k] : err[k];
        dst->assign(v.begin() + static_cast<std::ptrdiff_t>(slot * n),
                    v.begin() + static_cast<std::ptrdiff_t>((slot + 1) * n));
        ++slot;
      }
  return r;
}

Values run_eval(const Context& ctx, const char* op, unsigned fns, const double* x, std::size_t n, const Laws& laws,
                bool errors, double rel) {
  const std::size_t slots = count_fns(op, fns, errors);
  check_tol(op, rel);
  if (n > 0 && !x) throw std::invalid_argument(std::string(op) + ": null input");
  check_device(op, *ctx.impl());
  if (n == 0) return unpack({}, fns, errors, 0);
  const int want = static_cast<int>(fns | (errors ? k_error_bit : 0));
  std::vector<double> v = per_point(ctx, op, "stable_eval", x, n, laws, slots, paired_fns(fns), [&](const Queue&, cl::Kernel& k) {
    k.setArg(5, rel);
    k.setArg(6, static_cast<cl_int>(want));
    return 7u;
  });
  return unpack(std::move(v), fns, errors, n);
}

// Sets stable_quantile's arguments 5..9 and returns the next index; the table (empty: none)
// goes to the scratch of q, the queue the caller holds.
unsigned quantile_args(const Queue& q, cl::Kernel& k, double tol, bool upper, const std::vector<double>& table) {
  const std::size_t K = table.size() / 4;
  cl::Buffer tb = detail::scratch(q, StableScratch::table, std::max<std::size_t>(table.size(), 1) * sizeof(double));
  if (K > 0)
    detail::queue_of(q).enqueueWriteBuffer(tb, CL_FALSE, 0, table.size() * sizeof(double), table.data());
  k.setArg(5, k_quantile_rel);
  k.setArg(6, tol);
  k.setArg(7, static_cast<cl_int>(upper));
  k.setArg(8, tb);
  k.setArg(9, static_cast<cl_int>(K));
  return 10u;
}

// The grid of the unit law's quantile table: z = sinh(s) for s in steps of 1/4 over [-S, S],
// spacing 1/4 near the centre and a ratio of 1.28 in the tails, out to where the Pareto tail
// P(|X| > z) ~ z^-alpha is far below 1e-12: |z| = 10^(14 / alpha), at most 1e300.
std::vector<double> table_grid(double alpha) {
  const double S = std::min(691.0, std::log(2.0) + std::log(10.0) * 14 / alpha);
  const int half = static_cast<int>(std::ceil(4 * S));
  std::vector<double> z;
  for (int k = -half; k <= half; ++k) z.push_back(std::sinh(0.25 * k));
  return z;
}

// The unit law's table for the quantile kernel (tab in cl/stable/stable_point.cl): F, S and the
// pdf on table_grid's nodes, all in one parallel device pass. (Solving quantiles at fixed
// probabilities for the nodes instead took one serial bracket-and-Newton chain per node, whose
// slowest, at p = 1e-10, dominated a 1e5-point call on the GPU.)
std::vector<double> quantile_table(const Context& ctx, const char* op, const Params& s0,
                                   const std::vector<double>& z, const cl::Buffer& ip = {}) {
  const Laws unit{{s0.alpha, s0.beta, 1, 0, 0}, {}, false, ip};
  const Values v = run_eval(ctx, op, fn_pdf | fn_cdf | fn_sf, z.data(), z.size(), unit, false, k_quantile_rel);
  std::vector<double> table = z;
  table.insert(table.end(), v.cdf.begin(), v.cdf.end());
  table.insert(table.end(), v.sf.begin(), v.sf.end());
  table.insert(table.end(), v.pdf.begin(), v.pdf.end());
  return table;
}

// A law's interpolant on the device (src/stable/interpolant.hpp), and the quantile's starting
// table made through it.
struct LawInterp {
  interp::Table table;
  cl::Buffer buffer;
  std::vector<double> quantile_table;
};

// Whether a call of n points on law p takes the interpolant: a law without a closed form, and at
// least the tunable stable.interp_points points (a build costs a few thousand quadrature
// evaluations). The choice depends on n and the tuning alone, never on earlier calls, so a call's
// result does not either.
std::size_t interp_points(const detail::ContextImpl& ci) {
  return detail::tuned(ci.tuning, "stable.interp_points", std::size_t{1} << 15);
}

bool takes_interp(const detail::ContextImpl& ci, const Params& p, std::size_t n) {
  return p.alpha != 2 && !(p.alpha == 1 && p.beta == 0) && n >= interp_points(ci);
}

// The interpolant of p's unit law for quadrature tolerance rel, built on first use and kept in
// the context's memo (runtime/memo.hpp; scale and location do not enter).
std::shared_ptr<const LawInterp> law_interp(const Context& ctx, const char* op, const Params& p, double rel) {
  const Params s0 = to_s0(p);
  char key[96];
  std::snprintf(key, sizeof key, "stable.interp %a %a %a", s0.alpha, s0.beta, rel);
  auto ci = ctx.impl();
  return detail::memo<LawInterp>(*ci, key, [&] {
    auto li = std::make_shared<LawInterp>();
    li->table = *build_interpolants(ctx, op, {{s0.alpha, s0.beta}}, rel).at(0);
    std::vector<double>& t = li->table.data;
    li->buffer = detail::cl_guard(op, *ci, [&] {
      return cl::Buffer(ci->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, t.size() * sizeof(double), t.data());
    });
    li->quantile_table = quantile_table(ctx, op, s0, table_grid(s0.alpha), li->buffer);
    return std::shared_ptr<const LawInterp>(std::move(li));
  });
}

// One law for n points: with its interpolant when the call takes one (takes_interp).
Laws law_for(const Context& ctx, const char* op, const Params& p, std::size_t n, double rel) {
  Laws l = one_law(p);
  check_tol(op, rel);
  check_device(op, *ctx.impl());
  if (takes_interp(*ctx.impl(), p, n)) l.ip = law_interp(ctx, op, p, rel)->buffer;
  return l;
}

// The starting table of a quantile call of n probabilities on one law (empty: none) and, when
// the call takes one, the law's interpolant in `laws`. A table costs one evaluation per node:
// worth it from as many points as nodes; with an interpolant, the table made through it.
void quantile_start(const Context& ctx, const char* op, const Params& p, std::size_t n, Laws& laws,
                    std::vector<double>& table) {
  if (takes_interp(*ctx.impl(), p, n)) {
    const auto li = law_interp(ctx, op, p, k_quantile_rel);
    laws.ip = li->buffer, table = li->quantile_table;
    return;
  }
  const std::vector<double> z = table_grid(p.alpha);
  if (n >= z.size()) table = quantile_table(ctx, op, to_s0(p), z);
}

std::vector<double> run_quantile(const Context& ctx, const char* op, const double* prob, std::size_t n,
                                 const Laws& laws, double tol, bool upper, bool nan_for_invalid,
                                 const Params* one = nullptr) {
  check_tol(op, tol);
  if (n > 0 && !prob) throw std::invalid_argument(std::string(op) + ": null input");
  check_device(op, *ctx.impl());
  if (!nan_for_invalid)
    for (std::size_t i = 0; i < n; ++i)
      if (!(prob[i] >= 0 && prob[i] <= 1))
        throw std::invalid_argument(std::string(op) + ": probability " + std::to_string(prob[i]) + " at index " +
                                    std::to_string(i) + " is outside [0, 1]");
  if (n == 0) return {};
  std::vector<double> table;
  Laws with = laws;
  if (one) quantile_start(ctx, op, *one, n, with, table);
  return per_point(ctx, op, "stable_quantile", prob, n, with, 1, true, [&](const Queue& q, cl::Kernel& k) {
    return quantile_args(q, k, tol, upper, table);
  });
}

}  // namespace eval_detail

using namespace eval_detail;

Values evaluate(const Context& ctx, unsigned fns, const double* x, std::size_t n, const Params& p, bool errors,
                double rel_tol) {
  const char* op = "clstat::stable::evaluate";
  return run_eval(ctx, op, fns, x, n, law_for(ctx, op, p, n, rel_tol), errors, rel_tol);
}

Values evaluate_each(const Context& ctx, unsigned fns, const double* x, const Params* params, std::size_t n,
                     bool errors, double rel_tol) {
  const char* op = "clstat::stable::evaluate_each";
  return run_eval(ctx, op, fns, x, n, each_law(op, params, n), errors, rel_tol);
}

Event evaluate_async(const Queue& q, unsigned fns, const Buffer<double>& x, std::size_t x_offset, std::size_t n,
                     const Params& p, const Buffer<double>& out, std::size_t out_offset, bool errors, double rel_tol,
                     const std::vector<Event>& wait) {
  const char* op = "clstat::stable::evaluate_async";
  const std::size_t slots = count_fns(op, fns, errors);
  check_tol(op, rel_tol);
  auto ci = q.context().impl();
  check_device(op, *ci);
  const Laws laws = law_for(q.context(), op, p, n, rel_tol);
  if (x_offset > x.size() || x.size() - x_offset < n || out_offset > out.size() ||
      out.size() - out_offset < slots * n)
    throw std::invalid_argument(std::string(op) + ": x holds " + std::to_string(x.size()) + " values and out " +
                                std::to_string(out.size()) + "; " + std::to_string(n) + " points from " +
                                std::to_string(x_offset) + " need " + std::to_string(slots * n) + " outputs from " +
                                std::to_string(out_offset));
  if (n == 0) return Event();
  detail::Lease lease = detail::Lease::named(q);
  return detail::cl_guard(op, *ci, [&] {
    auto prog = build::program(*ci, "stable/stable_point", program_options(*ci, op, paired_fns(fns)));
    cl::Kernel k = build::kernel(*prog, "stable_eval", q.index());
    // The parameters travel by a staged write; no host wait, no per-call buffer.
    const cl::Buffer pb = detail::staged(q, StableScratch::params, laws.prm.data(), laws.prm.size() * sizeof(double));
    std::vector<Event> deps = wait;
    const cl::Buffer xb =
        detail::region_in(q, x.raw().impl()->buffer, x_offset * sizeof(double), n * sizeof(double), StableScratch::in, deps);
    const cl::Buffer dst = out_offset ? detail::scratch(q, StableScratch::out, slots * n * sizeof(double))
                                      : out.raw().impl()->buffer;
    set_law_args(k, xb, n, pb, pb, 0);
    k.setArg(5, rel_tol);
    k.setArg(6, static_cast<cl_int>(fns | (errors ? k_error_bit : 0)));
    k.setArg(7, laws.ip() ? laws.ip : no_table(*ci));
    k.setArg(8, dst);
    const std::size_t wg = group_size(*ci);
    Event ev = detail::launch(q, k, cl::NDRange((n + wg - 1) / wg * wg), cl::NDRange(wg), deps, op);
    if (!out_offset) return ev;
    return detail::copy_out(q, dst, out.raw().impl()->buffer, out_offset * sizeof(double), slots * n * sizeof(double), ev);
  });
}

Event quantile_async(const Queue& q, const Buffer<double>& p, std::size_t p_offset, std::size_t n,
                     const Params& params, const Buffer<double>& out, std::size_t out_offset, bool upper, double tol,
                     const std::vector<Event>& wait) {
  const char* op = "clstat::stable::quantile_async";
  check_tol(op, tol);
  auto ci = q.context().impl();
  check_device(op, *ci);
  Laws laws = one_law(params);
  if (p_offset > p.size() || p.size() - p_offset < n || out_offset > out.size() || out.size() - out_offset < n)
    throw std::invalid_argument(std::string(op) + ": p holds " + std::to_string(p.size()) + " values and out " +
                                std::to_string(out.size()) + "; " + std::to_string(n) + " from " +
                                std::to_string(p_offset) + " and " + std::to_string(out_offset) + " do not fit");
  if (n == 0) return Event();
  std::vector<double> table;
  quantile_start(q.context(), op, params, n, laws, table);
  detail::Lease lease = detail::Lease::named(q);
  return detail::cl_guard(op, *ci, [&] {
    auto prog = build::program(*ci, "stable/stable_point", program_options(*ci, op, true));
    cl::Kernel k = build::kernel(*prog, "stable_quantile", q.index());
    const cl::Buffer pb = detail::staged(q, StableScratch::params, laws.prm.data(), laws.prm.size() * sizeof(double));
    const std::size_t K = table.size() / 4;
    const cl::Buffer tb = K ? detail::staged(q, StableScratch::table, table.data(), table.size() * sizeof(double))
                            : pb;
    std::vector<Event> deps = wait;
    const cl::Buffer xb =
        detail::region_in(q, p.raw().impl()->buffer, p_offset * sizeof(double), n * sizeof(double), StableScratch::in, deps);
    const cl::Buffer dst = out_offset ? detail::scratch(q, StableScratch::out, n * sizeof(double))
                                      : out.raw().impl()->buffer;
    set_law_args(k, xb, n, pb, pb, 0);
    k.setArg(5, k_quantile_rel);
    k.setArg(6, tol);
    k.setArg(7, static_cast<cl_int>(upper));
    k.setArg(8, tb);
    k.setArg(9, static_cast<cl_int>(K));
    k.setArg(10, laws.ip() ? laws.ip : no_table(*ci));
    k.setArg(11, dst);
    const std::size_t wg = group_size(*ci);
    Event ev = detail::launch(q, k, cl::NDRange((n + wg - 1) / wg * wg), cl::NDRange(wg), deps, op);
    if (!out_offset) return ev;
    return detail::copy_out(q, dst, out.raw().impl()->buffer, out_offset * sizeof(double), n * sizeof(double), ev);
  });
}

PdfCdf pdf_cdf(const Context& ctx, const double* x, std::size_t n, const Params& p, double rel_tol) {
  const char* op = "clstat::stable::pdf_cdf";
  Values v = run_eval(ctx, op, fn_pdf | fn_cdf, x, n, law_for(ctx, op, p, n, rel_tol), true, rel_tol);
  return {std::move(v.pdf), std::move(v.cdf), std::move(v.pdf_error), std::move(v.cdf_error)};
}

std::vector<double> pdf(const Context& ctx, const double* x, std::size_t n, const Params& p) {
  const char* op = "clstat::stable::pdf";
  return run_eval(ctx, op, fn_pdf, x, n, law_for(ctx, op, p, n, k_rel), false, k_rel).pdf;
}

std::vector<double> logpdf(const Context& ctx, const double* x, std::size_t n, const Params& p) {
  const char* op = "clstat::stable::logpdf";
  return run_eval(ctx, op, fn_logpdf, x, n, law_for(ctx, op, p, n, k_rel), false, k_rel).logpdf;
}

std::vector<double> cdf(const Context& ctx, const double* x, std::size_t n, const Params& p) {
  const char* op = "clstat::stable::cdf";
  return run_eval(ctx, op, fn_cdf, x, n, law_for(ctx, op, p, n, k_rel), false, k_rel).cdf;
}

std::vector<double> sf(const Context& ctx, const double* x, std::size_t n, const Params& p) {
  const char* op = "clstat::stable::sf";
  return run_eval(ctx, op, fn_sf, x, n, law_for(ctx, op, p, n, k_rel), false, k_rel).sf;
}

namespace {
// One function alone into caller memory (the public forms with `out`, and a device group's
// members, each into its slice of one result).
void eval_into(const Context& ctx, const char* op, Fn fn, const double* x, std::size_t n, const Params& p,
               double* out) {
  check_tol(op, k_rel);
  if (n > 0 && !x) throw std::invalid_argument(std::string(op) + ": null input");
  if (n > 0 && !out) throw std::invalid_argument(std::string(op) + ": null output");
  check_device(op, *ctx.impl());
  if (n == 0) return;
  const Laws laws = law_for(ctx, op, p, n, k_rel);
  per_point(
      ctx, op, "stable_eval", x, n, laws, 1, paired_fns(fn),
      [&](const Queue&, cl::Kernel& k) {
        k.setArg(5, k_rel);
        k.setArg(6, static_cast<cl_int>(fn));
        return 7u;
      },
      out);
}
}  // namespace

void pdf(const Context& ctx, const double* x, std::size_t n, const Params& p, double* out) {
  eval_into(ctx, "clstat::stable::pdf", fn_pdf, x, n, p, out);
}
void logpdf(const Context& ctx, const double* x, std::size_t n, const Params& p, double* out) {
  eval_into(ctx, "clstat::stable::logpdf", fn_logpdf, x, n, p, out);
}
void cdf(const Context& ctx, const double* x, std::size_t n, const Params& p, double* out) {
  eval_into(ctx, "clstat::stable::cdf", fn_cdf, x, n, p, out);
}
void sf(const Context& ctx, const double* x, std::size_t n, const Params& p, double* out) {
  eval_into(ctx, "clstat::stable::sf", fn_sf, x, n, p, out);
}

std::vector<double> log_likelihood(const Context& ctx, const double* x, std::size_t n,
                                   const std::vector<Params>& laws) {
  const char* op = "clstat::stable::log_likelihood";
  if (n > 0 && !x) throw std::invalid_argument(std::string(op) + ": null input");
  for (std::size_t i = 0; i < n; ++i)
    if (std::isnan(x[i])) throw std::invalid_argument(std::string(op) + ": NaN at index " + std::to_string(i));
  const std::vector<double> data(x, x + n);
  return fit_detail::loglik_many(ctx, {&data}, {laws}).at(0);
}


std::vector<double> quantile(const Context& ctx, const double* prob, std::size_t n, const Params& p, double tol,
                             bool nan_for_invalid) {
  return run_quantile(ctx, "clstat::stable::quantile", prob, n, one_law(p), tol, false, nan_for_invalid, &p);
}

std::vector<double> isf(const Context& ctx, const double* q, std::size_t n, const Params& p, double tol,
                        bool nan_for_invalid) {
  return run_quantile(ctx, "clstat::stable::isf", q, n, one_law(p), tol, true, nan_for_invalid, &p);
}

std::vector<double> quantile_each(const Context& ctx, const double* prob, const Params* params, std::size_t n,
                                  bool upper, double tol, bool nan_for_invalid) {
  const char* op = "clstat::stable::quantile_each";
  return run_quantile(ctx, op, prob, n, each_law(op, params, n), tol, upper, nan_for_invalid);
}

}  // namespace clstat::stable
