// Log-likelihoods (stable::log_likelihood and the MLE's fit_detail::loglik_many): every (data set,
// law) pair's sum of logpdf in one device pass of stable_loglik (cl/stable/stable_point.cl). Each
// set goes to the device once, whatever the number of laws, and only the work-groups' partial
// sums come back, which the host adds in order.
//
// A set of at least stable.interp_points points takes its laws' interpolants, as a logpdf call of
// that many points of one law does (stable.hpp), so a point costs a lookup and a Chebyshev sum
// instead of a quadrature. The interpolants a call lacks are built together: one host thread runs
// each law's interp::build, and their quadrature passes meet in Rendezvous, which evaluates every
// waiting build's nodes in one device pass. A build's refinement level is a few thousand points,
// which leaves a GPU mostly idle for a pass's latency; the MLE asks for 4 to 33 new laws a step.
// Each build sees the values it would see alone, so its table is the one law_interp would make.
#include <algorithm>
#include <condition_variable>
#include <exception>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>

#include "build/program_cache.hpp"
#include "runtime/launch.hpp"
#include "runtime/lease.hpp"
#include "stable/eval_internal.hpp"
#include "stable/fit_internal.hpp"
#include "stable/interpolant.hpp"
#include "stable/near_one.hpp"

namespace clstat::stable {
namespace {

using namespace eval_detail;
using UnitLaw = std::pair<double, double>;  // S0 alpha, beta

// The pass's buffers: the sets' values, the pairs' tables (offsets, counts, groups, partial
// offsets, parameters, interpolant offsets), the interpolants, the partial sums.
enum class LoglikScratch { x, offsets, counts, groups, part_at, params, ip_at, tables, parts };

// Work-groups a set takes: one point a work-item up to this many groups, then more points each.
// A constant, so a set's partial sums (and its log-likelihood's bits) depend on its size alone.
constexpr std::size_t k_max_groups = 1024;
// Builds that run together (threads, and the laws of one quadrature pass).
constexpr std::size_t k_builds_together = 64;
constexpr std::size_t k_pairs_per_launch = 32768;

// Where interp::build's quadrature passes meet: ask() blocks until every build still running has
// asked (or left), then the last to arrive evaluates all their nodes in one pass.
class Rendezvous {
 public:
  Rendezvous(const Context& ctx, const char* op, const std::vector<UnitLaw>& laws)
      : ctx_(ctx), op_(op), laws_(laws), active_(laws.size()), asked_(laws.size(), nullptr), got_(laws.size()) {}

  interp::NodeValues ask(std::size_t who, const std::vector<double>& z) {
    std::unique_lock<std::mutex> lk(mu_);
    if (failed_) std::rethrow_exception(failed_);
    asked_[who] = &z;
    ++waiting_;
    const std::uint64_t round = round_;
    if (waiting_ == active_) {
      run();
    } else {
      cv_.wait(lk, [&] { return round_ != round; });
    }
    if (failed_) std::rethrow_exception(failed_);
    return std::move(got_[who]);
  }

  // A build is done (or failed): the others no longer wait for it.
  void leave() {
    std::unique_lock<std::mutex> lk(mu_);
    --active_;
    if (active_ > 0 && waiting_ == active_) run();
  }

 private:
  // With mu_ held: every asker's nodes under its own unit law, then each its values.
  void run() {
    Laws l;
    std::vector<double> z;
    for (std::size_t i = 0; i < asked_.size(); ++i) {
      if (!asked_[i]) continue;
      const cl_uint id = static_cast<cl_uint>(l.prm.size() / k_prm);
      l.prm.insert(l.prm.end(), {laws_[i].first, laws_[i].second, 1.0, 0.0, 0.0});
      z.insert(z.end(), asked_[i]->begin(), asked_[i]->end());
      l.pid.insert(l.pid.end(), asked_[i]->size(), id);
    }
    try {
      const Values v = run_eval(ctx_, op_, fn_pdf | fn_cdf | fn_sf, z.data(), z.size(), l, true, k_rel);
      std::size_t at = 0;
      for (std::size_t i = 0; i < asked_.size(); ++i) {
        if (!asked_[i]) continue;
        const auto b = static_cast<std::ptrdiff_t>(at), e = static_cast<std::ptrdiff_t>(at + asked_[i]->size());
        auto part = [&](const std::vector<double>& w) { return std::vector<double>(w.begin() + b, w.begin() + e); };
        got_[i] = {part(v.pdf), part(v.cdf), part(v.sf), part(v.pdf_error), part(v.cdf_error), part(v.sf_error)};
        at += asked_[i]->size();
      }
    } catch (...) {
      failed_ = std::current_exception();
    }
    std::fill(asked_.begin(), asked_.end(), nullptr);
    waiting_ = 0;
    ++round_;
    cv_.notify_all();
  }

  const Context& ctx_;
  const char* op_;
  const std::vector<UnitLaw>& laws_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::size_t active_, waiting_ = 0;
  std::uint64_t round_ = 0;
  std::vector<const std::vector<double>*> asked_;
  std::vector<interp::NodeValues> got_;
  std::exception_ptr failed_;
};

// The interpolants of the unit laws `todo`, built together (see the top of this file), as
// law_interp builds one: the same tolerance, budget and speculation.
std::vector<std::shared_ptr<const interp::Table>> build_together(const Context& ctx, const char* op,
                                                                 const std::vector<UnitLaw>& todo) {
  std::vector<std::shared_ptr<const interp::Table>> out(todo.size());
  const bool gpu = ctx.info().type == DeviceType::gpu;
  for (std::size_t first = 0; first < todo.size(); first += k_builds_together) {
    const std::vector<UnitLaw> wave(todo.begin() + static_cast<std::ptrdiff_t>(first),
                                    todo.begin() + static_cast<std::ptrdiff_t>(std::min(todo.size(), first + k_builds_together)));
    Rendezvous meet(ctx, op, wave);
    std::vector<std::exception_ptr> err(wave.size());
    std::vector<std::thread> threads;
    for (std::size_t i = 0; i < wave.size(); ++i)
      threads.emplace_back([&, i] {
        try {
          const auto [alpha, beta] = wave[i];
          const bool s1 = alpha != 1 && !near_one(alpha);
          out[first + i] = std::make_shared<const interp::Table>(interp::build(
              alpha, beta, s1, k_rel, std::size_t{1} << 15, gpu,
              [&](const std::vector<double>& z) { return meet.ask(i, z); }));
        } catch (...) {
          err[i] = std::current_exception();
        }
        meet.leave();
      });
    for (std::thread& t : threads) t.join();
    for (const auto& e : err)
      if (e) std::rethrow_exception(e);
  }
  return out;
}

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
  const auto built = build_together(ctx, op, todo);
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
    auto put = [&](LoglikScratch which, const auto& v) {
      const std::size_t bytes = v.size() * sizeof(v[0]);
      cl::Buffer b = detail::scratch(qu, which, bytes);
      q.enqueueWriteBuffer(b, CL_FALSE, 0, bytes, v.data());
      return b;
    };
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
    k.setArg(1, put(LoglikScratch::offsets, xo));
    k.setArg(2, put(LoglikScratch::counts, xn));
    k.setArg(3, put(LoglikScratch::groups, gp));
    k.setArg(4, put(LoglikScratch::part_at, po));
    k.setArg(5, put(LoglikScratch::params, prm));
    k.setArg(6, put(LoglikScratch::ip_at, ipo));
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
