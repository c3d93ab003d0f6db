// FAST-LTS (Rousseeuw & Van Driessen 2006) with robustbase's raw and reweighted fits.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <exception>
#include <functional>
#include <numeric>
#include <stdexcept>
#include <string>
#include <unordered_map>

#include "clstat/exchange.hpp"
#include "clstat/order.hpp"
#include "clstat/group.hpp"
#include "clstat/robust.hpp"
#include "runtime/group_split.hpp"
#include "runtime/host_result.hpp"
#include "runtime/lease.hpp"
#include "robust/consistency.hpp"
#include "robust/csteps.hpp"
#include "robust/design.hpp"
#include "robust/least_squares.hpp"
#include "robust/philox.hpp"
#include "robust/row_blocks.hpp"
#include "robust/starts.hpp"

namespace clstat::robust {

using namespace detail;

std::size_t lts_coverage(double alpha, std::size_t n, std::size_t q) {
  if (!(alpha >= 0.5 && alpha <= 1))
    throw std::invalid_argument("clstat::robust::lts_coverage: alpha = " + std::to_string(alpha) + " is outside [0.5, 1]");
  if (q > n)
    throw std::invalid_argument("clstat::robust::lts_coverage: q = " + std::to_string(q) + " coefficients for n = " +
                                std::to_string(n) + " observations");
  const std::size_t n2 = (n + q + 1) / 2;
  return static_cast<std::size_t>(
      std::floor(static_cast<double>(2 * n2) - static_cast<double>(n) + 2.0 * static_cast<double>(n - n2) * alpha));
}

namespace {

constexpr std::size_t kNestedRows = 1500, kNestedBlocks = 5, kKeep = 10;

// The indices of the `keep` smallest objectives among valid runs (ties by index).
std::vector<std::size_t> best_runs(const Runs& r, const std::vector<char>& valid, std::size_t keep) {
  std::vector<std::size_t> idx;
  for (std::size_t i = 0; i < r.obj.size(); ++i)
    if (valid[i] && std::isfinite(r.obj[i])) idx.push_back(i);
  auto less = [&](std::size_t a, std::size_t b) { return r.obj[a] < r.obj[b] || (r.obj[a] == r.obj[b] && a < b); };
  keep = std::min(keep, idx.size());
  std::partial_sort(idx.begin(), idx.begin() + keep, idx.end(), less);
  idx.resize(keep);
  return idx;
}

// `m` distinct rows of 0..n-1 in random order: a partial Fisher-Yates shuffle (Philox stream 1).
std::vector<std::uint32_t> random_rows(std::size_t n, std::size_t m, std::uint64_t seed) {
  std::unordered_map<std::size_t, std::size_t> moved;
  auto at = [&](std::size_t i) {
    auto it = moved.find(i);
    return it == moved.end() ? i : it->second;
  };
  PhiloxStream rng(seed, 1, 0);
  std::vector<std::uint32_t> out(m);
  for (std::size_t i = 0; i < m; ++i) {
    const std::size_t j = i + rng.below(n - i);
    const std::size_t vi = at(i), vj = at(j);
    moved[j] = vi;
    out[i] = static_cast<std::uint32_t>(vj);
  }
  return out;
}

std::size_t block_coverage(std::size_t m, std::size_t h, std::size_t n, std::size_t q) {
  const std::size_t hb = (m * h + n - 1) / n;  // h/n of the block, rounded up
  return std::min(m, std::max(hb, q + 1));
}

struct Search {
  std::vector<double> beta;  // standardised
  std::size_t starts = 0, singular = 0;
  int csteps = 0;
  bool converged = false;
};

// The winning run of r (smallest objective among valid runs) into s; false when there is none.
bool take_best(Search& s, const Runs& r, const std::vector<char>& valid, std::size_t q) {
  const auto best = best_runs(r, valid, 1);
  if (best.empty()) return false;
  const std::size_t b = best[0];
  s.beta.assign(r.beta.begin() + b * q, r.beta.begin() + (b + 1) * q);
  s.csteps = static_cast<int>(r.steps[b]);
  s.converged = r.converged[b];
  return true;
}

// The runs of `count` starts (each with q coefficients in beta), on ctx, or with a device group
// shared out over its members in contiguous shares by the weights, one member each at once:
// run(c, first, beta of the share) runs starts [first, first + share) on c. Each start's run
// depends on that start alone, so the runs are the same bits for any split on devices of one type.
using RunOn = std::function<Runs(const Context&, std::size_t first, std::vector<double> beta)>;
Runs shared_runs(const Context& ctx, const DeviceGroup* g, std::size_t q, std::vector<double> beta, const RunOn& run) {
  const std::size_t count = beta.size() / q;
  if (!g || count == 0) return run(ctx, 0, std::move(beta));
  const std::vector<std::size_t> share = g->split(count);
  std::vector<Runs> part(g->size());
  ::clstat::detail::on_members(*g, share, [&](std::size_t i, std::size_t first) {
    part[i] = run(g->member(i), first,
                  std::vector<double>(beta.begin() + static_cast<std::ptrdiff_t>(first * q),
                                      beta.begin() + static_cast<std::ptrdiff_t>((first + share[i]) * q)));
  });
  Runs all;
  for (const Runs& r : part) {
    all.beta.insert(all.beta.end(), r.beta.begin(), r.beta.end());
    all.obj.insert(all.obj.end(), r.obj.begin(), r.obj.end());
    all.steps.insert(all.steps.end(), r.steps.begin(), r.steps.end());
    all.converged.insert(all.converged.end(), r.converged.begin(), r.converged.end());
  }
  return all;
}

// run_blocks of the starts in beta, whose blocks are sb, shared out as shared_runs does.
Runs block_runs(const Context& ctx, const DeviceGroup* g, const Design& d, const std::vector<Block>& blocks,
                const std::vector<std::uint32_t>& sb, std::vector<double> beta, unsigned max_steps, const char* op) {
  return shared_runs(ctx, g, d.q, std::move(beta), [&](const Context& c, std::size_t first, std::vector<double> b) {
    const std::size_t k = b.size() / d.q;
    return run_blocks(c, d, blocks, std::vector<std::uint32_t>(sb.begin() + static_cast<std::ptrdiff_t>(first),
                                                               sb.begin() + static_cast<std::ptrdiff_t>(first + k)),
                      std::move(b), max_steps, BlockMode::lts_csteps, op);
  });
}

// The design's rows `rows` (row numbers over every process, in any order), in that order; with the
// rows split, each process sends the ones it holds. Collective.
Design rows_of(const Design& d, const std::vector<std::uint32_t>& rows, const Across& ac) {
  const std::size_t q = d.q;
  Design m;
  m.n = rows.size(), m.p = d.p, m.q = q, m.intercept = d.intercept;
  m.z.resize(rows.size() * q);
  m.ys.resize(rows.size());
  // Each record: the row's position in `rows`, its q standardised values, its y.
  const std::vector<double> rec = ac.gather([&] {
    std::vector<double> v;
    for (std::size_t i = 0; i < rows.size(); ++i) {
      if (rows[i] < ac.offset() || rows[i] >= ac.offset() + ac.n_local()) continue;
      const std::size_t r = rows[i] - ac.offset();
      v.push_back(static_cast<double>(i));
      v.insert(v.end(), d.z.begin() + static_cast<std::ptrdiff_t>(r * q), d.z.begin() + static_cast<std::ptrdiff_t>((r + 1) * q));
      v.push_back(d.ys[r]);
    }
    return v;
  });
  for (std::size_t at = 0; at < rec.size(); at += q + 2) {
    const auto i = static_cast<std::size_t>(rec[at]);
    std::copy(rec.begin() + static_cast<std::ptrdiff_t>(at + 1), rec.begin() + static_cast<std::ptrdiff_t>(at + 1 + q),
              m.z.begin() + static_cast<std::ptrdiff_t>(i * q));
    m.ys[i] = rec[at + 1 + q];
  }
  return m;
}

// The search on ctx, or with its starts and final runs shared out over a device group's members.
Search search(const Context& ctx, const DeviceGroup* g, const Design& d, std::size_t h, const LtsOptions& o,
              const char* op, const Across& ac) {
  const std::size_t q = d.q, n = ac.n();
  Search s;
  if (n <= kBlockRows) {  // one process (a split fit gathers so few rows first)
    // Every start C-stepped to convergence on all rows: one work-group each.
    std::vector<std::uint32_t> all(n);
    std::iota(all.begin(), all.end(), 0u);
    Starts st = o.exact ? all_starts(d, op) : random_starts(d, all, o.nsamp, o.seed, 0, 0, true);
    s.starts = st.size();
    s.singular = st.singular;
    std::vector<std::uint32_t> sb(st.size(), 0);
    Runs r = block_runs(ctx, g, d, {Block{all, h}}, sb, std::move(st.beta), static_cast<unsigned>(o.max_csteps), op);
    if (!take_best(s, r, st.valid, q)) throw std::invalid_argument(std::string(op) + ": every p-subset was singular");
    return s;
  }
  if (o.exact)
    throw std::invalid_argument(std::string(op) + ": exact enumeration is for n <= " + std::to_string(kBlockRows) +
                                " (n = " + std::to_string(n) + "); use random subsets (nsamp)");
  // The nested extension (sec. 3.3): 5 disjoint blocks of 300 random rows, merged into 1500; the
  // block runs read them from md, whose row i is merged[i].
  const Design md = rows_of(d, random_rows(n, kNestedRows, o.seed), ac);
  const std::size_t per_block = kNestedRows / kNestedBlocks;
  const std::size_t starts_per = (o.nsamp + kNestedBlocks - 1) / kNestedBlocks;
  std::vector<Block> blocks;
  std::vector<double> beta;
  std::vector<std::uint32_t> sb;
  std::vector<char> valid;
  for (std::size_t b = 0; b < kNestedBlocks; ++b) {
    Block bl{std::vector<std::uint32_t>(per_block), block_coverage(per_block, h, n, q)};
    std::iota(bl.rows.begin(), bl.rows.end(), static_cast<std::uint32_t>(b * per_block));
    Starts st = random_starts(md, bl.rows, starts_per, o.seed, 2, b * starts_per, true);
    s.starts += st.size();
    s.singular += st.singular;
    beta.insert(beta.end(), st.beta.begin(), st.beta.end());
    valid.insert(valid.end(), st.valid.begin(), st.valid.end());
    sb.insert(sb.end(), st.size(), static_cast<std::uint32_t>(b));
    blocks.push_back(std::move(bl));
  }
  // Every process runs the blocks on its own device (the same rows and starts on each).
  Runs r1 = ac.local([&] { return block_runs(ctx, g, md, blocks, sb, std::move(beta), 2, op); });
  // The 10 best of each block go on to the merged rows.
  std::vector<double> beta2;
  for (std::size_t b = 0; b < kNestedBlocks; ++b) {
    Runs part;
    std::vector<char> pv;
    for (std::size_t i = 0; i < sb.size(); ++i) {
      part.obj.push_back(sb[i] == b ? r1.obj[i] : INFINITY);
      pv.push_back(sb[i] == b && valid[i]);
    }
    for (std::size_t i : best_runs(part, pv, kKeep))
      beta2.insert(beta2.end(), r1.beta.begin() + i * q, r1.beta.begin() + (i + 1) * q);
  }
  if (beta2.empty()) throw std::invalid_argument(std::string(op) + ": every p-subset was singular");
  const std::size_t c2 = beta2.size() / q;
  std::vector<std::uint32_t> all_merged(kNestedRows);
  std::iota(all_merged.begin(), all_merged.end(), 0u);
  Runs r2 = ac.local([&] {
    return block_runs(ctx, g, md, {Block{all_merged, block_coverage(kNestedRows, h, n, q)}},
                      std::vector<std::uint32_t>(c2, 0), std::move(beta2), 2, op);
  });
  std::vector<double> beta3;
  for (std::size_t i : best_runs(r2, std::vector<char>(c2, 1), kKeep))
    beta3.insert(beta3.end(), r2.beta.begin() + i * q, r2.beta.begin() + (i + 1) * q);
  // The survivors C-stepped to convergence on all n rows.
  Runs r3 = shared_runs(ctx, g, q, std::move(beta3), [&](const Context& c, std::size_t, std::vector<double> b) {
    return run_full(c, d, h, std::move(b), static_cast<unsigned>(o.max_csteps), op, ac);
  });
  if (!take_best(s, r3, std::vector<char>(r3.obj.size(), 1), q))
    throw std::runtime_error(std::string(op) + ": no finite objective in the final C-steps");
  return s;
}

// Values from which the device selects (an upload and a few passes; the values are not copied
// or reordered) rather than the host, with std::nth_element on a copy, on one thread. The H100
// machines measured, at 10^6 rows: the h-subset 45 ms, the objective 27 to 31 and the y scale
// 6.5 with the device's selection on one, 52 to 59, 42 to 44 and 24 to 32 with the host's on
// another; at 10^7 the h-subset took 170 to 200 ms against 360 to 450.
constexpr std::size_t kDeviceSelect = std::size_t{1} << 17;

// The k-th smallest (1-based) of v, exactly, on the host or the device (kDeviceSelect): the same
// value either way.
double kth_value(const Context& ctx, const double* v, std::size_t m, std::size_t k, const Across& ac) {
  if (ac.split()) return order::kth_smallest(ctx, *ac.exchange(), v, m, {static_cast<std::uint64_t>(k)})[0];
  if (m < kDeviceSelect) {
    std::vector<double> w(v, v + m);
    std::nth_element(w.begin(), w.begin() + static_cast<std::ptrdiff_t>(k - 1), w.end());
    return w[k - 1];
  }
  return order::kth_smallest(ctx, v, m, static_cast<std::uint64_t>(k));
}

// The median of v (the mean of the middle two for even n, as R), exactly.
double median_of(const Context& ctx, const double* v, std::size_t m, const Across& ac) {
  if (ac.split()) return order::median(ctx, *ac.exchange(), v, m);
  if (m >= kDeviceSelect) return order::median(ctx, v, m);  // both middle values in one selection
  if (m % 2) return kth_value(ctx, v, m, (m + 1) / 2, ac);
  std::vector<double> w(v, v + m);
  std::nth_element(w.begin(), w.begin() + static_cast<std::ptrdiff_t>(m / 2), w.end());
  const double hi = w[m / 2];
  return 0.5 * (hi + *std::max_element(w.begin(), w.begin() + static_cast<std::ptrdiff_t>(m / 2)));
}

// The h rows of the h smallest v[i], whose h-th smallest is t: the rows with v[i] < t and, in row
// order, as many with v[i] == t as h takes; in row order, by blocks (counts, then each block's
// rows at its offset). With the rows split: this process's of them, its ties after those of the
// processes before it.
std::vector<std::size_t> rows_below(const ::clstat::detail::HostArray<double>& v, double t, std::size_t h, const Across& ac) {
  const std::size_t n = v.size(), blocks = row_blocks(n);
  std::vector<std::size_t> lt(blocks), eq(blocks), at(blocks + 1, 0), take(blocks);
  for_row_blocks(n, [&](std::size_t b, std::size_t first, std::size_t last) {
    std::size_t l = 0, e = 0;  // (as rows_where)
    for (std::size_t i = first; i < last; ++i) l += v[i] < t, e += v[i] == t;
    lt[b] = l;
    eq[b] = e;
  });
  std::size_t ties = h;
  if (!ac.split()) {
    for (std::size_t b = 0; b < blocks; ++b) ties -= lt[b];
  } else {
    const auto counts = ac.parts([&] {
      return std::vector<double>{static_cast<double>(std::accumulate(lt.begin(), lt.end(), std::size_t{0})),
                                 static_cast<double>(std::accumulate(eq.begin(), eq.end(), std::size_t{0}))};
    });
    for (const auto& c : counts) ties -= static_cast<std::size_t>(c[0]);
    for (int r = 0; r < ac.exchange()->rank(); ++r) ties -= std::min(ties, static_cast<std::size_t>(counts[static_cast<std::size_t>(r)][1]));
  }
  for (std::size_t b = 0; b < blocks; ++b) {
    take[b] = std::min(ties, eq[b]);
    ties -= take[b];
    at[b + 1] = at[b] + lt[b] + take[b];
  }
  std::vector<std::size_t> idx = ::clstat::detail::host_result<std::size_t>(at[blocks]);
  for_row_blocks(n, [&](std::size_t b, std::size_t first, std::size_t last) {
    std::size_t o = at[b], tb = take[b];
    for (std::size_t i = first; i < last; ++i)
      if (v[i] < t || (v[i] == t && tb > 0 && tb--)) idx[o++] = i;
  });
  return idx;
}

// The sum of the h smallest of v, whose h-th smallest is t: the values below t, compensated
// (Neumaier) within blocks and the blocks' sums added the same way in block order, plus t for
// each of the ties the h take. As accurate as sorting and summing upwards, in O(n).
double sum_smallest(const ::clstat::detail::HostArray<double>& v, double t, std::size_t h, const Across& ac) {
  const std::size_t n = v.size(), blocks = row_blocks(n);
  std::vector<double> s(blocks, 0.0), c(blocks, 0.0);
  std::vector<std::size_t> below(blocks, 0);
  auto add = [](double& sum, double& comp, double x) {
    const double u = sum + x;
    comp += std::fabs(sum) >= std::fabs(x) ? (sum - u) + x : (x - u) + sum;
    sum = u;
  };
  for_row_blocks(n, [&](std::size_t b, std::size_t first, std::size_t last) {
    double sb = 0, cb = 0;  // (as rows_where)
    std::size_t nb = 0;
    for (std::size_t i = first; i < last; ++i)
      if (v[i] < t) add(sb, cb, v[i]), ++nb;
    s[b] = sb;
    c[b] = cb;
    below[b] = nb;
  });
  double sum = 0, comp = 0;
  std::size_t count = 0;
  for (std::size_t b = 0; b < blocks; ++b) add(sum, comp, s[b]), comp += c[b], count += below[b];
  if (ac.split()) {  // every process's sum, compensation and count, added the same way in rank order
    const auto parts = ac.parts([&] { return std::vector<double>{sum, comp, static_cast<double>(count)}; });
    sum = comp = 0, count = 0;
    for (const auto& pr : parts) add(sum, comp, pr[0]), comp += pr[1], count += static_cast<std::size_t>(pr[2]);
  }
  add(sum, comp, static_cast<double>(h - count) * t);
  return sum + comp;
}

// The h rows with the smallest squared residuals of the standardised fit, ties by lower row.
std::vector<std::size_t> h_subset(const Context& ctx, const Design& d, const std::vector<double>& beta, std::size_t h,
                                  const Across& ac) {
  const std::size_t q = d.q;
  const auto r2 = each_row(d.n, [&](std::size_t i) {
    double r = d.ys[i];
    for (std::size_t j = 0; j < q; ++j) r -= d.z[i * q + j] * beta[j];
    return r * r;
  });
  return rows_below(r2, kth_value(ctx, r2.data(), r2.size(), h, ac), h, ac);
}

// The scale robustbase's Fortran divides y by, so that crit_robustbase matches its crit: the
// median absolute deviation from the median (with intercept) or from 0 (without), times 1.4826
// rounded to single precision, as that code holds it.
double robustbase_y_scale(const Context& ctx, const double* y, std::size_t n, bool intercept, const Across& ac) {
  const double med = intercept ? median_of(ctx, y, n, ac) : 0.0;
  const auto a = each_row(n, [&](std::size_t i) { return std::fabs(y[i] - med); });
  return median_of(ctx, a.data(), a.size(), ac) * static_cast<double>(1.4826f);
}

// The fit on ctx (with a device group g: its search's starts and final runs shared out over g's
// members), of the rows `ac`
// says: x and y hold this process's n rows (all of them with one process). With the rows split,
// every collective step is taken by every process in the same order, and the per-row results are
// this process's rows (best and outliers as row numbers over all processes).
LtsFit lts_fit(const Context& ctx, const DeviceGroup* g, const double* x, std::size_t n, std::size_t p, const double* y,
               const LtsOptions& o, const Across& ac) {
  // One queue for the whole fit: every pass below runs on it (runtime/lease.hpp).
  ::clstat::detail::Lease lease = ::clstat::detail::Lease::any(ctx);
  const char* op = "clstat::robust::lts";
  if (!(o.alpha >= 0.5 && o.alpha <= 1))
    throw std::invalid_argument(std::string(op) + ": alpha = " + std::to_string(o.alpha) + " is outside [0.5, 1]");
  if (!o.exact && o.nsamp == 0) throw std::invalid_argument(std::string(op) + ": nsamp = 0 random subsets");
  if (o.max_csteps < 1) throw std::invalid_argument(std::string(op) + ": max_csteps must be at least 1");
  const Design d = make_design(op, x, p, y, o.intercept, 2, ac);
  const std::size_t q = d.q, n_all = ac.n(), h = lts_coverage(o.alpha, n_all, q);
  const double cw = normal_quantile(0.9875);  // robustbase's "01.original" weights
  LtsFit f;
  f.n = n_all;
  f.q = q;
  f.h = h;
  // The sum of squares of resid over `rows` (this process's), by blocks of them on the
  // host's threads added in block order, with every process's added.
  const auto sum_squares = [&](const std::vector<double>& resid, const std::vector<std::size_t>& rows) {
    return ac.sum([&] {
      return std::vector<double>{sum_rows(rows.size(), 1, [&](Eigen::VectorXd& acc, std::size_t r) {
        acc(0) += resid[rows[r]] * resid[rows[r]];
      })(0)};
    })[0];
  };
  // w[i] = pred(i) for every row i < n, by blocks on the host's threads.
  const auto flag_rows = [&](std::vector<unsigned char>& w, auto&& pred) {
    for_row_blocks(n, [&](std::size_t, std::size_t first, std::size_t last) {
      for (std::size_t i = first; i < last; ++i) w[i] = pred(i) ? 1 : 0;
    });
  };
  std::vector<double> resid;
  if (h >= n_all) {  // alpha = 1: least squares, as robustbase
    f.best.resize(n);
    std::iota(f.best.begin(), f.best.end(), 0);
    f.raw_coefficients = least_squares_rows(x, p, o.intercept, y, f.best, ac);
    resid = residuals_of(x, n, p, o.intercept, y, f.raw_coefficients);
    const double ss = sum_squares(resid, f.best);
    f.objective = ss;
    f.raw_scale = std::sqrt(ss / static_cast<double>(n_all - q));
    f.converged = true;
  } else {
    Search s = search(ctx, g, d, h, o, op, ac);
    f.starts = s.starts;
    f.singular_starts = s.singular;
    f.csteps = s.csteps;
    f.converged = s.converged;
    f.best = h_subset(ctx, d, s.beta, h, ac);
    f.raw_coefficients = least_squares_rows(x, p, o.intercept, y, f.best, ac);
    if (f.raw_coefficients.empty())
      throw std::invalid_argument(std::string(op) + ": the best h-subset does not determine the coefficients");
    resid = residuals_of(x, n, p, o.intercept, y, f.raw_coefficients);
    const auto r2 = each_row(n, [&](std::size_t i) { return resid[i] * resid[i]; });
    f.objective = sum_smallest(r2, kth_value(ctx, r2.data(), r2.size(), h, ac), h, ac);
    const double correct = o.use_correction ? small_sample_raw(q, o.intercept, n_all, o.alpha) : 1.0;
    f.raw_cnp2[1] = correct;
    f.raw_scale = std::sqrt(f.objective / static_cast<double>(h)) *
                  asymptotic_factor(static_cast<double>(h), static_cast<double>(n_all)) * correct;
  }
  const double mad = robustbase_y_scale(ctx, y, n, o.intercept, ac);
  f.crit_robustbase = mad > 0 ? f.objective / (mad * mad) : NAN;
  f.raw_weights.assign(n, 0);
  f.weights.assign(n, 0);
  if (std::fabs(f.raw_scale) < 1e-7) {  // an exact fit: h points on a hyperplane
    f.exact_fit = true;
    for (std::size_t i = 0; i < n; ++i) f.raw_weights[i] = f.weights[i] = std::fabs(resid[i]) <= 1e-7;
    f.raw_scale = f.scale = 0;
    f.coefficients = f.raw_coefficients;
    f.residuals = resid;
  } else {
    flag_rows(f.raw_weights, [&](std::size_t i) { return std::fabs(resid[i] / f.raw_scale) <= cw; });
    const std::vector<std::size_t> keep = rows_where(n, [&](std::size_t i) { return f.raw_weights[i] != 0; });
    f.coefficients = least_squares_rows(x, p, o.intercept, y, keep, ac);
    if (f.coefficients.empty())
      throw std::invalid_argument(std::string(op) + ": the reweighted rows do not determine the coefficients");
    f.residuals = residuals_of(x, n, p, o.intercept, y, f.coefficients);
    const double sw = ac.sum([&] { return std::vector<double>{static_cast<double>(keep.size())}; })[0];
    f.scale = std::sqrt(sum_squares(f.residuals, keep) / (sw - 1));
    if (sw != static_cast<double>(n_all)) {
      const double cdelta = asymptotic_factor(sw, static_cast<double>(n_all));
      const double correct =
          (h < n_all && o.use_correction) ? small_sample_reweighted(q, o.intercept, n_all, o.alpha) : 1.0;
      if (h < n_all) {
        f.cnp2[0] = cdelta;
        f.cnp2[1] = correct;
      }
      f.scale *= cdelta * correct;
    }
    flag_rows(f.weights, [&](std::size_t i) { return std::fabs(f.residuals[i] / f.scale) <= cw; });
  }
  f.outliers = rows_where(n, [&](std::size_t i) { return f.weights[i] == 0; });
  if (ac.offset() > 0)
    for (auto& i : f.outliers) i += ac.offset();
  if (ac.offset() > 0)
    for (auto& i : f.best) i += ac.offset();
  return f;
}

}  // namespace

LtsFit lts(const Context& ctx, const double* x, std::size_t n, std::size_t p, const double* y, const LtsOptions& o) {
  return lts_fit(ctx, nullptr, x, n, p, y, o, Across::one(n));
}

LtsFit lts(const DeviceGroup& g, const double* x, std::size_t n, std::size_t p, const double* y, const LtsOptions& o) {
  // The starts' block runs and the survivors' final C-steps (the fit's device work) in contiguous
  // shares, by the weights, one member each at once; the rest of the fit on the first member
  // with weight.
  std::size_t lead = 0;
  while (lead + 1 < g.size() && g.weights()[lead] <= 0) ++lead;
  return lts_fit(g.member(lead), &g, x, n, p, y, o, Across::one(n));
}

LtsFit lts(const Context& ctx, Exchange& ex, const double* x, std::size_t n_local, std::size_t p, const double* y,
           const LtsOptions& o) {
  const std::string op = "clstat::robust::lts";
  std::exception_ptr err;
  if (n_local > 0 && (!x || !y))
    err = std::make_exception_ptr(std::invalid_argument(op + ": null data pointer with n_local = " + std::to_string(n_local)));
  std::uint64_t args = hash_bytes(hash_seed, &p, sizeof p);
  const int flags[3] = {o.intercept, o.exact, o.use_correction};
  args = hash_bytes(args, flags, sizeof flags);
  args = hash_bytes(args, &o.alpha, sizeof o.alpha);
  args = hash_bytes(args, &o.nsamp, sizeof o.nsamp);
  args = hash_bytes(args, &o.seed, sizeof o.seed);
  args = hash_bytes(args, &o.max_csteps, sizeof o.max_csteps);
  const std::uint64_t mine = n_local;
  const auto* mb = reinterpret_cast<const unsigned char*>(&mine);
  std::vector<std::uint64_t> sizes;
  for (const auto& part : agree_before(ex, op, err, args, std::vector<unsigned char>(mb, mb + sizeof mine))) {
    std::uint64_t v;
    std::memcpy(&v, part.data(), sizeof v);
    sizes.push_back(v);
  }
  const Across ac(ex, op, sizes);
  if (ac.n() > kBlockRows) return lts_fit(ctx, nullptr, x, n_local, p, y, o, ac);
  // So few rows that every process fits all of them, gathered in rank order, as one process
  // would (the same fit bit for bit), and keeps its own rows' part of the per-row results.
  const std::vector<double> xa = ac.gather([&] { return std::vector<double>(x, x + (n_local ? n_local * p : 0)); });
  const std::vector<double> ya = ac.gather([&] { return std::vector<double>(y, y + n_local); });
  LtsFit f = lts_fit(ctx, nullptr, xa.data(), ac.n(), p, ya.data(), o, Across::one(ac.n()));
  const std::size_t first = ac.offset(), last = first + n_local;
  const auto mine_of = [&](auto& v) {
    v.assign(v.begin() + static_cast<std::ptrdiff_t>(first), v.begin() + static_cast<std::ptrdiff_t>(last));
  };
  mine_of(f.residuals);
  mine_of(f.weights);
  mine_of(f.raw_weights);
  for (auto* rows : {&f.best, &f.outliers})
    rows->erase(std::remove_if(rows->begin(), rows->end(), [&](std::size_t i) { return i < first || i >= last; }),
                rows->end());
  return f;
}

Future<LtsFit> lts_async(const Queue& q, const double* x, std::size_t n, std::size_t p, const double* y,
                         const LtsOptions& o, const std::vector<Event>& wait) {
  if (n > 0 && (!x || !y)) throw std::invalid_argument("clstat::robust::lts_async: null input");
  return ::clstat::detail::host_task<LtsFit>(q, wait, [=] { return lts(q.context(), x, n, p, y, o); });
}

}  // namespace clstat::robust
