// Log-likelihoods (stable::log_likelihood and the MLE's fit_detail::loglik_many): every (data set,
// law) pair's sum of logpdf in one device pass of stable_loglik (cl/stable/stable_point.cl). Each
// set goes to the device once, whatever the number of laws, and only the work-groups' partial
// sums come back, which the host adds in order.
//
// A set of at least stable.interp_points points takes its laws' interpolants, as a logpdf call of
// that many points of one law does (stable.hpp), so a point costs a lookup and a Chebyshev sum
// instead of a quadrature; the ones a call lacks are built together (build_interpolants).
#include <algorithm>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>

#include "build/program_cache.hpp"
#include "runtime/launch.hpp"
#include "runtime/lease.hpp"
#include "stable/eval_internal.hpp"
#include "stable/fit_internal.hpp"
#include "stable/interpolant.hpp"

namespace clstat::stable {
namespace {

using namespace eval_detail;

// The pass's buffers: the sets' values, the pairs' tables (offsets, counts, groups, partial
// offsets, parameters, interpolant offsets), the interpolants, the partial sums.
enum class LoglikScratch { x, offsets, counts, groups, part_at, params, ip_at, tables, parts };

// Work-groups a set takes: one point a work-item up to this many groups, then more points each.
// A constant, so a set's partial sums (and its log-likelihood's bits) depend on its size alone.
constexpr std::size_t k_max_groups = 1024;
constexpr std::size_t k_pairs_per_launch = 32768;

}  // namespace

namespace fit_detail {

std::vector<std::vector<double>> loglik_many(const Context& ctx, const std::vector<const std::vector<double>*>& data,
                                             const std::vector<std::vector<Params>>& laws, LoglikCache* cache) {
  const char* op = "clstat::stable::log_likelihood";
  auto ci = ctx.impl();
  check_device(op, *ci);
  std::vector<std::vector<double>> out(data.size());
  // The pairs (set s, law k), each law's parameters, and the unit laws whose interpolants they take.
  std::vector<std::pair<std::size_t, std::size_t>> pairs;
  std::vector<double> prm;
  std::vector<UnitLaw> unit;  // per pair; alpha = 0: the quadrature
  std::size_t total = 0;
  for (std::size_t s = 0; s < data.size(); ++s) {
    const std::size_t n = data[s]->size();
    if (n > 0xffffffffull) throw std::invalid_argument(std::string(op) + ": too many points in one set");
    total += n;
    out[s].assign(laws[s].size(), 0.0);
    for (std::size_t k = 0; k < laws[s].size(); ++k) {
      pairs.emplace_back(s, k);
      prm.resize(prm.size() + k_prm);
      law_params(laws[s][k], &prm[prm.size() - k_prm]);
      const Params s0 = to_s0(laws[s][k]);
      unit.push_back(takes_interp(*ci, s0, n) ? UnitLaw{s0.alpha, s0.beta} : UnitLaw{0.0, 0.0});
    }
  }
  if (pairs.empty() || total == 0) return out;

  // The interpolants: those the cache holds, the others built together. The cache then keeps
  // the ones this call used (an MLE's next step shares a few of its laws with this one).
  std::map<UnitLaw, std::shared_ptr<const interp::Table>> used;
  std::vector<UnitLaw> todo;
  for (const UnitLaw& u : unit) {
    if (u.first == 0 || used.count(u)) continue;
    const bool have = cache && cache->tables.count(u);
    used[u] = have ? cache->tables.at(u) : nullptr;
    if (!have) todo.push_back(u);
  }
  const auto built = build_interpolants(ctx, op, todo, k_rel);
  for (std::size_t i = 0; i < todo.size(); ++i) used[todo[i]] = built[i];
  if (cache) cache->tables = used;

  // The tables one after another behind a table of no cells (the quadrature's pairs point there).
  std::vector<double> tables(interp::k_head, 0.0);
  std::map<UnitLaw, cl_ulong> table_at;
  for (const auto& [u, t] : used) {
    table_at[u] = tables.size();
    tables.insert(tables.end(), t->data.begin(), t->data.end());
  }
  const std::size_t wg = group_size(*ci);
  std::vector<cl_ulong> xo(pairs.size()), po(pairs.size()), ipo(pairs.size());
  std::vector<cl_uint> xn(pairs.size()), gp(pairs.size());
  std::vector<cl_ulong> set_at(data.size());
  for (std::size_t s = 0, at = 0; s < data.size(); at += data[s]->size(), ++s) set_at[s] = at;
  std::size_t parts = 0, gmax = 0;
  for (std::size_t p = 0; p < pairs.size(); ++p) {
    const std::size_t n = data[pairs[p].first]->size();
    xo[p] = set_at[pairs[p].first];
    xn[p] = static_cast<cl_uint>(n);
    gp[p] = static_cast<cl_uint>(std::min(k_max_groups, (n + wg - 1) / wg));
    po[p] = parts;
    parts += gp[p];
    gmax = std::max<std::size_t>(gmax, gp[p]);
    ipo[p] = unit[p].first == 0 ? 0 : table_at[unit[p]];
  }
  if (gmax == 0) return out;  // every law's set is empty: sums of nothing
  std::vector<std::pair<const void*, std::size_t>> which;
  for (const auto* d : data) which.emplace_back(d->data(), d->size());
  const bool resident = cache && cache->x() && cache->sets == which;
  std::vector<double> x;
  if (!resident) {
    x.resize(total);
    for (std::size_t s = 0; s < data.size(); ++s) {
      const auto at = x.begin() + static_cast<std::ptrdiff_t>(set_at[s]);
      std::copy(data[s]->begin(), data[s]->end(), at);
      // A set below stable.interp_points goes through the quadrature, whose cost varies with x
      // (its adaptive panels): sorted, the work-items of a wavefront take neighbouring points
      // and finish together. The sum's order then follows the sorted values, which still makes
      // a set's log-likelihood a function of its values alone.
      if (data[s]->size() < interp_points(*ci)) std::sort(at, at + static_cast<std::ptrdiff_t>(data[s]->size()));
    }
  }

  std::vector<double> part(parts);
  detail::cl_guard(op, *ci, [&] {
    detail::Lease lease = detail::Lease::any(ctx);
    const Queue qu = lease.queue();
    const cl::CommandQueue& q = detail::queue_of(qu);
    auto prog = build::program(*ci, "stable/stable_point", program_options(*ci, op, false));
    cl::Kernel k = build::kernel(*prog, "stable_loglik", qu.index());
    // The values and the tables by writes from host memory kept until the read below; the
    // pairs' small tables staged (detail::staged copies them).
    auto put = [&](LoglikScratch which, const std::vector<double>& v) {
      cl::Buffer b = detail::scratch(qu, which, v.size() * sizeof(double));
      q.enqueueWriteBuffer(b, CL_FALSE, 0, v.size() * sizeof(double), v.data());
      return b;
    };
    auto small = [&](LoglikScratch which, const auto& v) { return detail::staged(qu, which, v.data(), v.size() * sizeof(v[0])); };
    if (resident) {
      k.setArg(0, cache->x);
    } else if (cache) {  // kept for the next call (not the queue's scratch, which others reuse)
      cache->sets.clear();
      cache->x = cl::Buffer(ci->context, CL_MEM_READ_ONLY, total * sizeof(double));
      q.enqueueWriteBuffer(cache->x, CL_FALSE, 0, total * sizeof(double), x.data());
      cache->sets = which;
      k.setArg(0, cache->x);
    } else {
      k.setArg(0, put(LoglikScratch::x, x));
    }
    k.setArg(1, small(LoglikScratch::offsets, xo));
    k.setArg(2, small(LoglikScratch::counts, xn));
    k.setArg(3, small(LoglikScratch::groups, gp));
    k.setArg(4, small(LoglikScratch::part_at, po));
    k.setArg(5, small(LoglikScratch::params, prm));
    k.setArg(6, small(LoglikScratch::ip_at, ipo));
    k.setArg(7, put(LoglikScratch::tables, tables));
    k.setArg(8, k_rel);
    cl::Buffer pb = detail::scratch(qu, LoglikScratch::parts, parts * sizeof(double));
    k.setArg(9, pb);
    k.setArg(10, cl::Local(wg * sizeof(double)));
    // At most k_pairs_per_launch pairs a launch (a GPU's grid has 65535 rows).
    for (std::size_t p0 = 0; p0 < pairs.size(); p0 += k_pairs_per_launch) {
      k.setArg(11, static_cast<cl_uint>(p0));
      detail::launch(qu, k, cl::NDRange(gmax * wg, std::min(k_pairs_per_launch, pairs.size() - p0)),
                     cl::NDRange(wg, 1), {}, op);
    }
    detail::read_wait(q, pb, 0, parts * sizeof(double), part.data());
  });
  for (std::size_t p = 0; p < pairs.size(); ++p) {
    LD sum = 0;
    for (std::size_t g = 0; g < gp[p]; ++g) sum += static_cast<LD>(part[po[p] + g]);
    out[pairs[p].first][pairs[p].second] = static_cast<double>(sum);
  }
  return out;
}

}  // namespace fit_detail
}  // namespace clstat::stable
