// LSCV_h (paper sec. 3.2.2, 5.1, 6.2): H = h^2 S, minimised over the scalar h; on a device, a
// device group (the rows of the pair triangle dealt to the members) or processes (to the ranks).
//
// Whitening by S once makes q_ij(h) = D_ij / h^2 with D_ij = |z_i - z_j|^2, so the pair distances
// are computed once and every candidate h costs one exp per pair (e^(-q/2) = (e^(-q/4))^2).
//
// The search range is the paper's eq. (18), [h0/4, 4 h0], around eq. (17)'s h0. Eq. (17) as printed
// has R(K)/mu_2(K)^2 = 1 / (2^d pi^(d/2) d^2); with R(K) = (4 pi)^(-d/2), mu_2 = 1 and Wand & Jones's
// AMISE for H = h^2 I (their sec. 4.3: h^(d+4) = d R(K) / (mu_2^2 R(lap f) n), R(lap f) =
// d (d+2) / (2^(d+2) pi^(d/2)) for the standard normal) the d^2 does not belong: h0 =
// (4 / ((d + 2) n))^(1/(d+4)), the normal-scale h, as ks's hlscv uses (hnorm). For d = 1 both agree.
//
// Refinement. The issue asks for Brent's method on the best bracket. Each Brent step needs the
// objective at the point the previous step chose, i.e. one device round trip (a launch and a read,
// tens of microseconds on a discrete GPU) that shrinks the bracket by a factor between 1.6 (golden
// section) and a superlinear parabolic step. A device pass at k interior points of the bracket
// always shrinks it (k + 1) / 2-fold (the new bracket is the best point's two neighbours), and the
// choice of the next bracket can run on the device, so the whole search is one chain of launches
// with one wait. With k = 33, 5 passes reach 1e-7 from the grid's 3.8% bracket, with the same
// guarantee as Brent (the minimum of a unimodal bracket stays inside it). The result is the best
// of all evaluated points by the host's objective. k = 65 (4
// passes) measured no faster at n = 1024 and 20% slower at n = 2^16 on the H100
// (`git show a10d6fa:bench/results/2026-11-22-h100-nvidia-bandwidth-zoom65.log`).
#include <algorithm>
#include <cmath>
#include <exception>
#include <functional>
#include <string>
#include <memory>

#include "bandwidth/bandwidth_input.hpp"
#include "bandwidth/lscv_device.hpp"
#include "clstat/bandwidth.hpp"
#include "clstat/exchange.hpp"
#include "clstat/group.hpp"
#include "runtime/exchange_values.hpp"
#include "runtime/lease.hpp"

namespace clstat::bandwidth {

using namespace bandwidth_detail;

namespace {

void check_lscv_options(const char* op, const Context& ctx, const LscvOptions& o);

void check_lscv_h(const char* op, const Context& ctx, const double* x, std::size_t n, std::size_t d,
                  const LscvOptions& o) {
  check_data(op, x, n, d);
  check_lscv_options(op, ctx, o);
}

void check_lscv_options(const char* op, const Context& ctx, const LscvOptions& o) {
  if (o.grid < 3) throw std::invalid_argument(std::string(op) + ": the grid needs at least 3 points");
  // Each grid point costs a sum per pair and 2 G partials of device memory: beyond 1e5 points
  // the grid no longer locates the minimum better (the zoom passes refine it), it only costs.
  if (o.grid > 100000)
    throw std::invalid_argument(std::string(op) + ": the grid has " + std::to_string(o.grid) +
                                " points; at most 100000 (the zoom passes refine between grid points)");
  if (!(o.rel_tol > 0 && o.rel_tol < 0.1)) throw std::invalid_argument(std::string(op) + ": rel_tol must be in (0, 0.1)");
  if (!ctx.info().fp64) throw UnsupportedFeature(op, ctx.info().name, "needs a device with fp64 (cl_khr_fp64)");
}

// The pair sums of a search (PairDistances::search's contract): the grid, then `passes` zoom
// passes of `points` values each.
using Search = std::function<PairDistances::Trace(const std::vector<double>& grid, std::size_t passes,
                                                  std::size_t points)>;

// The whitening of the data by its covariance S, once for the device and the group forms.
struct Whitened {
  Eigen::VectorXd mu;
  Mat S, A;
  double log_det_S = 0;
  Whitened(const char* op, const double* x, std::size_t n, std::size_t d) {
    S = covariance(op, x, n, d, &mu);
    reject_duplicates(op, x, n, d);
    A = whitening(S);
    log_det_S = -2 * A.diagonal().array().log().sum();  // A = L^-1, so |S| = prod(1 / A_kk)^2
  }
};

LscvResult lscv_h_search(std::size_t n, std::size_t d, const Whitened& w, const LscvOptions& o, const Search& search);

LscvResult lscv_h_on(const Queue& q, const double* x, std::size_t n, std::size_t d, const LscvOptions& o) {
  const char* op = "clstat::bandwidth::lscv_h";
  detail::Lease lease = detail::Lease::named(q);
  const Whitened w(op, x, n, d);
  PairDistances pairs(q, op, x, n, d, w.A, w.mu, o.memory_budget_bytes);
  return lscv_h_search(n, d, w, o, [&](const std::vector<double>& grid, std::size_t passes, std::size_t points) {
    return pairs.search(grid, passes, points);
  });
}

LscvResult lscv_h_search(std::size_t n, std::size_t d, const Whitened& w, const LscvOptions& o, const Search& search) {
  const Mat& S = w.S;
  const double log_det_S = w.log_det_S;
  LscvResult r;
  const double dd = static_cast<double>(d);
  // Grid, geometric over [h0/4, 4 h0] to start with.
  const double h0 = std::pow(4 / ((dd + 2) * static_cast<double>(n)), 1 / (dd + 4));
  auto make_grid = [&](double lo, double hi) {
    r.grid_multiplier.resize(o.grid);
    for (std::size_t k = 0; k < o.grid; ++k)
      r.grid_multiplier[k] = lo * std::pow(hi / lo, static_cast<double>(k) / static_cast<double>(o.grid - 1));
  };
  make_grid(h0 / 4, 4 * h0);
  // Zoom passes: 33 geometric points strictly inside the bracket (lo, hi), whose best point and
  // its neighbours make the next bracket; the bracket's ratio hi/lo goes from 16^(2/(grid-1)) to
  // its 2/34-th power per pass. The count follows from the grid and rel_tol alone, so the passes
  // are enqueued together and the bracket choice runs on the device (lscv_zoom).
  constexpr std::size_t k_zoom = 33;
  std::size_t passes = 0;
  for (double ratio = std::pow(16.0, 2.0 / static_cast<double>(o.grid - 1)); ratio - 1 > o.rel_tol;
       ratio = std::pow(ratio, 2.0 / (k_zoom + 1)))
    ++passes;
  auto objective = [&](const PairDistances::Trace& t) {
    std::vector<double> f(t.h.size());
    for (std::size_t k = 0; k < t.h.size(); ++k)
      f[k] = lscv_value(log_det_S + 2 * dd * std::log(t.h[k]), n, d, t.s4[k], t.s2[k]);
    return f;
  };
  auto grid_argmin = [&](const std::vector<double>& f) {
    return static_cast<std::size_t>(std::min_element(f.begin(), f.begin() + static_cast<std::ptrdiff_t>(o.grid)) -
                                     f.begin());
  };
  PairDistances::Trace t = search(r.grid_multiplier, passes, k_zoom);
  std::vector<double> f = objective(t);
  r.passes = 1 + passes;
  // Skewed or sharply peaked data put the minimum far from the normal reference: while the grid's
  // best point is an end of it, the grid moves a factor 16 that way (one pass each, keeping two
  // grid steps on the old side), up to 16^8 from h0; then grid and zoom passes run as above.
  std::size_t at = grid_argmin(f);
  bool moved = false;
  for (int step = 0; step < 8 && (at == 0 || at + 1 == o.grid); ++step) {
    const double lo = r.grid_multiplier.front(), hi = r.grid_multiplier.back(), g2 = std::pow(hi / lo, 2.0 / static_cast<double>(o.grid - 1));
    if (at == 0) make_grid(lo / 16, lo * g2);
    else make_grid(hi / g2, hi * 16);
    const PairDistances::Trace probe = search(r.grid_multiplier, 0, k_zoom);
    const std::vector<double> fp = objective(probe);
    ++r.passes;
    moved = true;
    at = grid_argmin(fp);
    if (!std::isfinite(fp[at])) break;  // past where the objective can be computed
  }
  if (moved) {
    t = search(r.grid_multiplier, passes, k_zoom);
    f = objective(t);
    r.passes += 1 + passes;
  }
  r.grid_objective.assign(f.begin(), f.begin() + static_cast<std::ptrdiff_t>(o.grid));
  const std::size_t grid_best = grid_argmin(f);
  r.at_boundary = grid_best == 0 || grid_best + 1 == o.grid;
  const std::size_t best = static_cast<std::size_t>(std::min_element(f.begin(), f.end()) - f.begin());
  const double h = t.h[best];
  r.objective = f[best];
  r.multiplier = h;
  r.H = row_major(S * (h * h));
  r.h.resize(d);
  for (std::size_t j = 0; j < d; ++j) r.h[j] = std::sqrt(r.H[j * d + j]);
  return r;
}

std::uint64_t pair_count(std::size_t n) { return static_cast<std::uint64_t>(n) * (n - 1) / 2; }

// The first row of each part when the rows of the pair triangle are dealt by `share` (pairs per
// part, summing to n (n - 1) / 2): part i takes the rows whose first pair lies in its share.
// Part i's rows are [result[i], result[i + 1]); result.back() is n - 1.
std::vector<std::size_t> row_bounds(std::size_t n, const std::vector<std::size_t>& share) {
  std::vector<std::size_t> first(share.size() + 1, n - 1);
  std::uint64_t bound = 0, at = 0;  // at: the pairs before row r
  std::size_t r = 0;
  for (std::size_t i = 0; i < share.size(); ++i) {
    first[i] = r;
    bound += share[i];
    while (r + 1 < n && at < bound) at += n - 1 - r++;
  }
  return first;
}

// The search's passes (PairDistances::search's contract) from sums(hs), the pair sums for the
// ascending values hs merged over the parts, with the zoom passes of lscv_zoom (cl/bandwidth/lscv.cl)
// on the host: the best value (the first of equal ones) and its neighbours, or the bracket's ends,
// make the next bracket, and its `points` interior geometric values the next pass.
PairDistances::Trace host_zoom(const std::function<PairDistances::Trace(const std::vector<double>&)>& sums,
                               std::size_t n, std::size_t d, const std::vector<double>& grid, std::size_t passes,
                               std::size_t points) {
  const double dd = static_cast<double>(d), nn = static_cast<double>(n);
  const double c2 = std::pow(2.0, dd / 2 + 2) / (nn * (nn - 1));
  PairDistances::Trace t = sums(grid);
  double blo = grid.front(), bhi = grid.back();
  std::size_t at = 0, k_in = grid.size();
  for (std::size_t p = 0; p < passes; ++p) {
    std::size_t best = k_in;
    double fbest = 0;
    for (std::size_t k = 0; k < k_in; ++k) {
      const double f = std::pow(t.h[at + k], -dd) * (1 / nn + 2 * t.s4[at + k] / (nn * nn) - c2 * t.s2[at + k]);
      if (best == k_in || f < fbest) best = k, fbest = f;
    }
    const double lo = best == 0 ? blo : t.h[at + best - 1], hi = best + 1 == k_in ? bhi : t.h[at + best + 1];
    blo = lo, bhi = hi;
    std::vector<double> hs(points);
    for (std::size_t k = 0; k < points; ++k)
      hs[k] = lo * std::pow(hi / lo, static_cast<double>(k + 1) / static_cast<double>(points + 1));
    const PairDistances::Trace z = sums(hs);
    at = t.h.size(), k_in = points;
    t.h.insert(t.h.end(), z.h.begin(), z.h.end());
    t.s4.insert(t.s4.end(), z.s4.begin(), z.s4.end());
    t.s2.insert(t.s2.end(), z.s2.begin(), z.s2.end());
  }
  return t;
}

}  // namespace

LscvResult lscv_h(const Context& ctx, const double* x, std::size_t n, std::size_t d, const LscvOptions& o) {
  check_lscv_h("clstat::bandwidth::lscv_h", ctx, x, n, d, o);
  detail::Lease lease = detail::Lease::any(ctx);
  return lscv_h_on(lease.queue(), x, n, d, o);
}

Future<LscvResult> lscv_h_async(const Queue& q, const double* x, std::size_t n, std::size_t d, const LscvOptions& o,
                                const std::vector<Event>& wait) {
  check_lscv_h("clstat::bandwidth::lscv_h_async", q.context(), x, n, d, o);
  return detail::host_task<LscvResult>(q, wait, [=] { return lscv_h_on(q, x, n, d, o); });
}

LscvResult lscv_h(const DeviceGroup& g, const double* x, std::size_t n, std::size_t d, const LscvOptions& o) {
  const char* op = "clstat::bandwidth::lscv_h";
  for (std::size_t i = 0; i < g.size(); ++i) check_lscv_h(op, g.member(i), x, n, d, o);
  const std::vector<std::size_t> share = g.split(static_cast<std::size_t>(pair_count(n)));
  if (std::count_if(share.begin(), share.end(), [](std::size_t s) { return s > 0; }) <= 1) {
    const std::size_t i = static_cast<std::size_t>(std::max_element(share.begin(), share.end()) - share.begin());
    return lscv_h(g.member(i), x, n, d, o);  // one member with every pair: its own call
  }
  const std::vector<std::size_t> first_row = row_bounds(n, share);
  const Whitened w(op, x, n, d);
  std::vector<detail::Lease> leases;
  std::vector<std::unique_ptr<PairDistances>> parts;
  for (std::size_t i = 0; i < g.size(); ++i) {
    if (first_row[i + 1] <= first_row[i]) continue;
    leases.push_back(detail::Lease::any(g.member(i)));
    parts.push_back(std::make_unique<PairDistances>(leases.back().queue(), op, x, n, d, w.A, w.mu, o.memory_budget_bytes,
                                                    first_row[i], first_row[i + 1]));
  }
  // Every member's sums for the values hs at once (started together, waited for in member order)
  // and added in member order.
  auto sums = [&](const std::vector<double>& hs) {
    for (auto& p : parts) p->start(hs, 0, 0);
    PairDistances::Trace t{hs, std::vector<double>(hs.size(), 0.0), std::vector<double>(hs.size(), 0.0)};
    for (auto& p : parts) {
      const PairDistances::Trace pt = p->finish();
      for (std::size_t k = 0; k < hs.size(); ++k) t.s4[k] += pt.s4[k], t.s2[k] += pt.s2[k];
    }
    return t;
  };
  return lscv_h_search(n, d, w, o, [&](const std::vector<double>& grid, std::size_t passes, std::size_t points) {
    return host_zoom(sums, n, d, grid, passes, points);
  });
}

LscvResult lscv_h(const Context& ctx, Exchange& ex, const double* x, std::size_t n_local, std::size_t d,
                  const LscvOptions& o) {
  const std::string op = "clstat::bandwidth::lscv_h (processes)";
  std::exception_ptr err;
  try {
    if (d == 0) throw std::invalid_argument(op + ": d = 0");
    if (n_local > 0 && !x) throw std::invalid_argument(op + ": null data pointer with n_local = " + std::to_string(n_local));
    check_lscv_options(op.c_str(), ctx, o);
  } catch (...) {
    err = std::current_exception();
  }
  std::uint64_t args = hash_bytes(hash_seed, &d, sizeof d);
  args = hash_bytes(args, &o.grid, sizeof o.grid);
  args = hash_bytes(args, &o.rel_tol, sizeof o.rel_tol);
  args = hash_bytes(args, &o.memory_budget_bytes, sizeof o.memory_budget_bytes);
  // 1. Every process's shard, then all of them on every process: the same data everywhere, so
  // every check and the whitening below come out alike on every process.
  const std::vector<double> all = detail::gather_values(ex, op, err, args, x, n_local * d);
  const std::size_t n = all.size() / d;
  check_data(op.c_str(), all.data(), n, d);
  const Whitened w(op.c_str(), all.data(), n, d);
  // 2. This process's rows of the pair triangle: an equal share of the pairs in rank order,
  // whatever the shard sizes, so every process's result is the same for any split of the rows.
  const auto P = static_cast<std::uint64_t>(ex.size());
  std::vector<std::size_t> share(ex.size());
  for (std::uint64_t r = 0; r < P; ++r)
    share[r] = static_cast<std::size_t>(pair_count(n) / P + (r < pair_count(n) % P ? 1 : 0));
  const std::vector<std::size_t> first_row = row_bounds(n, share);
  const auto me = static_cast<std::size_t>(ex.rank());
  detail::Lease lease;
  std::unique_ptr<PairDistances> part;
  try {
    if (first_row[me + 1] > first_row[me]) {
      lease = detail::Lease::any(ctx);
      part = std::make_unique<PairDistances>(lease.queue(), op.c_str(), all.data(), n, d, w.A, w.mu,
                                             o.memory_budget_bytes, first_row[me], first_row[me + 1]);
    }
  } catch (...) {
    err = std::current_exception();
  }
  agree_before(ex, op, err, 0, {});
  // 3. Each pass: this process's sums, every process's to all, added in rank order.
  auto sums = [&](const std::vector<double>& hs) {
    const std::size_t nh = hs.size();
    std::vector<double> mine(2 * nh, 0.0);
    try {
      if (part) {
        part->start(hs, 0, 0);
        const PairDistances::Trace pt = part->finish();
        for (std::size_t k = 0; k < nh; ++k) mine[2 * k] = pt.s4[k], mine[2 * k + 1] = pt.s2[k];
      }
    } catch (...) {
      err = std::current_exception();
    }
    const std::vector<double> every = detail::gather_values(ex, op, err, 0, mine.data(), mine.size());
    PairDistances::Trace t{hs, std::vector<double>(nh, 0.0), std::vector<double>(nh, 0.0)};
    for (std::size_t r = 0; r < P; ++r)
      for (std::size_t k = 0; k < nh; ++k) t.s4[k] += every[r * 2 * nh + 2 * k], t.s2[k] += every[r * 2 * nh + 2 * k + 1];
    return t;
  };
  return lscv_h_search(n, d, w, o, [&](const std::vector<double>& grid, std::size_t passes, std::size_t points) {
    return host_zoom(sums, n, d, grid, passes, points);
  });
}

}  // namespace clstat::bandwidth
