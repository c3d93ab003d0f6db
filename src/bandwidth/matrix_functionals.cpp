// The pilots and pair-sum functionals of the matrix selectors (plugin_H, scv_H): see
// matrix_functionals.hpp. Every constant was checked against ks 1.14.0's code and numbers
// (tools/golden/bandwidth_hpi.R, bandwidth_hscv.R).
#include "bandwidth/matrix_functionals.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>

#include "bandwidth/pair_sums.hpp"
#include "runtime/lease.hpp"

namespace clstat::bandwidth_detail {

namespace {

constexpr std::size_t k_outputs_per_pass = 15;  // C(6, 4): psi_4 of d = 3 in one pass

enum class MatrixScratch { rows, sums };

}  // namespace

void check_matrix_selector(const char* op, const Context& ctx, const double* x, std::size_t n, std::size_t d,
                           const bandwidth::MatrixSelectorOptions& o, const char* one_d, bool allow_samse_ks) {
  using bandwidth::MatrixPilot;
  check_data(op, x, n, d);
  if (d < 2 || d > 6)
    throw std::invalid_argument(std::string(op) + ": d = " + std::to_string(d) + "; it takes 2 to 6 dimensions (d = 1: " +
                                one_d + ")");
  if (o.stages != 1 && o.stages != 2) throw std::invalid_argument(std::string(op) + ": stages must be 1 or 2");
  if (o.pilot == MatrixPilot::samse_ks && !allow_samse_ks)
    throw std::invalid_argument(std::string(op) + ": samse_ks reproduces a slip of ks's Hpi pilot; Hscv's samse "
                                "pilot has none (use samse)");
  if (o.pilot != MatrixPilot::automatic && o.pilot != MatrixPilot::samse && o.pilot != MatrixPilot::samse_ks &&
      o.pilot != MatrixPilot::dscalar)
    throw std::invalid_argument(std::string(op) + ": unknown pilot");
  if (!ctx.info().fp64) throw UnsupportedFeature(op, ctx.info().name, "needs a device with fp64 (cl_khr_fp64)");
}

Sphered sphere(const char* op, const double* x, std::size_t n, std::size_t d) {
  Eigen::VectorXd mean;
  const Mat S = covariance(op, x, n, d, &mean);
  Eigen::SelfAdjointEigenSolver<Mat> es(S);
  Sphered s;
  s.S12 = es.operatorSqrt();
  const Mat Sinv12 = es.operatorInverseSqrt();
  const auto N = static_cast<Eigen::Index>(n), D = static_cast<Eigen::Index>(d);
  s.xs.resize(N, D);
  for (Eigen::Index i = 0; i < N; ++i)
    for (Eigen::Index k = 0; k < D; ++k) s.xs(i, k) = x[i * D + k] - mean(k);
  s.xs = s.xs * Sinv12;
  return s;
}

// He_k(0): 0 for odd k, (-1)^(k/2) (k - 1)!! for even k.
double hermite_at_zero(unsigned k) {
  if (k % 2) return 0;
  double v = 1;
  for (unsigned m = 1; m < k; m += 2) v *= m;
  return (k / 2) % 2 ? -v : v;
}

// The multi-indices of `order` in d dimensions (all counts even when `even`), in lexicographic
// order of their counts, first dimension slowest.
std::vector<std::vector<unsigned>> multi_indices(std::size_t d, unsigned order, bool even) {
  std::vector<std::vector<unsigned>> out;
  std::vector<unsigned> c(d, 0);
  std::function<void(std::size_t, unsigned)> fill = [&](std::size_t k, unsigned left) {
    if (k + 1 == d) {
      if (!even || left % 2 == 0) {
        c[k] = left;
        out.push_back(c);
      }
      return;
    }
    for (unsigned v = left + 1; v-- > 0;) {
      if (even && v % 2) continue;
      c[k] = v;
      fill(k + 1, left - v);
    }
  };
  fill(0, order);
  return out;
}

namespace {

// ks's nu(r, A) at A = I_d: r! 2^r times the r-th coefficient of the recursion on the traces
// tr(A^p) = d (the cumulants of a quadratic form in normal variables).
double nu_identity(int r, double d) {
  std::vector<double> v{1.0};
  for (int p = 1; p <= r; ++p) {
    double a = 0;
    for (int q = 1; q <= p; ++q) a += d * v[static_cast<std::size_t>(p - q)];
    v.push_back(a / (2 * p));
  }
  double f = 1;
  for (int k = 2; k <= r; ++k) f *= k;
  return f * std::pow(2.0, r) * v.back();
}

// ks's OF(m) = m! / (2^(m/2) (m/2)!) = (m - 1)!!.
double odd_factorial(int m) {
  double v = 1;
  for (int k = 1; k < m; k += 2) v *= k;
  return v;
}

// The number of perfect matchings of the index tuple t[0 .. len) whose pairs hold equal indices:
// the sum over matchings of products of Kronecker deltas.
double delta_matchings(const unsigned* t, std::size_t len) {
  if (len == 0) return 1;
  double s = 0;
  unsigned rest[8];
  for (std::size_t k = 1; k < len; ++k) {
    if (t[k] != t[0]) continue;
    std::size_t m = 0;
    for (std::size_t j = 1; j < len; ++j)
      if (j != k) rest[m++] = t[j];
    s += delta_matchings(rest, len - 2);
  }
  return s;
}

// Sum over all d^m index tuples of delta_matchings(tuple)^2 (m = 4 or 6).
double matchings_square_sum(std::size_t d, std::size_t m) {
  std::vector<unsigned> t(m, 0);
  double s = 0;
  for (;;) {
    const double v = delta_matchings(t.data(), m);
    s += v * v;
    std::size_t k = 0;
    while (k < m && ++t[k] == d) t[k++] = 0;
    if (k == m) return s;
  }
}

// The dscalar pilot's normal-reference constant B3 = |(vec I' (x) I) D^(2k+2) phi_{2I}(0)|^2
// (ks's gdscalar, k = 2 for one stage, 3 for two). D^(2k+2) phi_{2I}(0) = (4 pi)^(-d/2) 2^-(k+1)
// (-1)^(k+1) M, M the delta matchings of its 2k + 2 indices; tracing the first two indices of M
// gives (d + 2k) times the matchings of the other 2k.
double dscalar_b3(std::size_t d, int k) {
  const double dd = static_cast<double>(d);
  const double c = std::pow(4 * M_PI, -dd / 2) * std::pow(2.0, -(k + 1)) * (dd + 2 * k);
  return c * c * matchings_square_sum(d, static_cast<std::size_t>(2 * k));
}

}  // namespace

double dscalar_normal_pilot(std::size_t d, double n, int stages, bool scv) {
  const double dd = static_cast<double>(d), tp = std::pow(2 * M_PI, -dd), fp = std::pow(4 * M_PI, -dd);
  double B1, B2, B3;
  if (stages == 1) {
    B3 = dscalar_b3(d, 2);
    if (!scv) {
      B1 = 2 * tp * odd_factorial(4) * dd * (dd + 2) * (dd + 4);
      B2 = -(dd + 2) * std::pow(2.0, -dd / 2) * tp * odd_factorial(4) * nu_identity(2, dd);
    } else {
      B1 = std::pow(2.0, -3) * fp * odd_factorial(6) * dd * (dd + 2) * (dd + 4);
      B2 = -(dd + 2) * std::pow(2.0, -4) * fp * odd_factorial(4) * nu_identity(2, dd);
      B3 *= 4;
    }
  } else {
    B3 = dscalar_b3(d, 3);
    if (!scv) {
      B1 = 2 * tp * odd_factorial(6) * dd * (dd + 2) * (dd + 4) * (dd + 6);
      B2 = -(dd + 4) * std::pow(2.0, -dd / 2 + 2) * tp * odd_factorial(6) * nu_identity(4, dd);
    } else {
      B1 = std::pow(2.0, -5) * fp * odd_factorial(6) * dd * (dd + 2) * (dd + 4) * (dd + 6);
      B2 = -(dd + 4) * std::pow(2.0, -6) * fp * odd_factorial(6) * nu_identity(4, dd);
      B3 *= 4;
    }
  }
  return std::pow(2 * B1 / (-B2 + std::sqrt(B2 * B2 + 4 * B1 * B3)), 1 / (dd + 8)) * std::pow(n, -1 / (dd + 8));
}

double dscalar_second_pilot(std::size_t d, double n, double eta6, bool scv) {
  const double dd = static_cast<double>(d), L0 = std::pow(2 * M_PI, -dd / 2);
  const double A1 = (scv ? std::pow(2.0, -dd) : 1.0) * (2 * dd + 8) * L0 * L0 * odd_factorial(4) * nu_identity(2, dd);
  const double A2 = (scv ? std::pow(2.0, -dd / 2 + 1) : 1.0) * (dd + 2) * L0 * odd_factorial(4) * eta6;
  const double A3 = (scv ? 4.0 : 1.0) * eta6 * eta6;
  return std::pow(2 * A1 / ((-A2 + std::sqrt(A2 * A2 + 4 * A1 * A3)) * n), 1 / (dd + 6));
}

double eta6_of(std::size_t d, double pair_sum, double g, double n) {
  const double dd = static_cast<double>(d), h30 = -dd * (dd + 2) * (dd + 4);  // h3(0)
  return std::pow(2 * M_PI, -dd / 2) * std::pow(g, -dd - 6) * (2 * pair_sum + n * h30) / (n * n);
}

// D^c phi_{s^2 I}(0) for a multi-index c of even total order.
double normal_derivative_at_zero(const std::vector<unsigned>& c, double s) {
  const double dd = static_cast<double>(c.size());
  double v = std::pow(2 * M_PI * s * s, -dd / 2);
  for (unsigned k : c) v *= std::pow(s, -static_cast<double>(k)) * hermite_at_zero(k);
  return v;
}

// ks's gsamse (Duong & Hazelton 2003): one g for all order-`order` functionals, from psi[a] =
// sum_j psi_{a + 2 e_j} over the all-even multi-indices a of that order.
double samse_pilot(std::size_t d, double n, unsigned order, const std::vector<double>& psi) {
  const auto even = multi_indices(d, order, true);
  double A1 = 0, A2 = 0, A3 = 0;
  for (std::size_t i = 0; i < even.size(); ++i) {
    const double K = normal_derivative_at_zero(even[i], 1.0);
    A1 += K * K, A2 += K * psi[i], A3 += psi[i] * psi[i];
  }
  const double dd = static_cast<double>(d), r = order;
  const double B1 = (2 * r + 2 * dd) * A1, B2 = (r + dd - 2) * A2, B3 = A3;
  const double gamma1 = (-B2 + std::sqrt(B2 * B2 + 4 * B1 * B3)) / (2 * B1);
  return std::pow(gamma1 * n, -1 / (r + dd + 2));
}

// The counts of the base-d digits of t (order digits): the multi-index of entry t of a d^order
// derivative vector, in ks's (and the Kronecker product's) order.
std::vector<unsigned> digit_counts(std::size_t t, std::size_t d, unsigned order) {
  std::vector<unsigned> c(d, 0);
  for (unsigned k = 0; k < order; ++k) ++c[t % d], t /= d;
  return c;
}

// The entry of the d^6 vector that ks 1.14's two-stage SAMSE pilot reads for multi-index c: the
// entry numbered by c's place among the distinct multi-indices in order of first appearance.
std::vector<std::vector<unsigned>> ks_distinct6(std::size_t d) {
  std::vector<std::vector<unsigned>> distinct;
  std::size_t total = 1;
  for (int k = 0; k < 6; ++k) total *= d;
  for (std::size_t t = 0; t < total; ++t) {
    auto m = digit_counts(t, d, 6);
    if (std::find(distinct.begin(), distinct.end(), m) == distinct.end()) distinct.push_back(std::move(m));
  }
  return distinct;
}

std::vector<unsigned> ks_samse_read(const std::vector<unsigned>& c, const std::vector<std::vector<unsigned>>& distinct) {
  const auto at = std::find(distinct.begin(), distinct.end(), c) - distinct.begin();
  return digit_counts(static_cast<std::size_t>(at), c.size(), 6);
}

std::vector<std::vector<double>> hermite_sums(const Queue& q, const char* op, const Mat& xs,
                                              const std::vector<HermiteJob>& jobs) {
  const Context ctx = q.context();
  const std::size_t n = static_cast<std::size_t>(xs.rows()), d = static_cast<std::size_t>(xs.cols());
  std::vector<std::vector<double>> out(jobs.size());
  std::size_t total = 0;
  for (const auto& j : jobs) total += j.terms.outputs();
  std::vector<double> all(total);
  std::vector<std::vector<double>> rows(jobs.size());  // alive until the wait below
  detail::cl_guard(op, *ctx.impl(), [&] {
    const cl::CommandQueue& cq = detail::queue_of(q);
    cl::Buffer sums = detail::scratch(q, MatrixScratch::sums, total * sizeof(double));
    Event ev;
    unsigned at = 0;
    for (std::size_t j = 0; j < jobs.size(); ++j) {
      const HermiteTerms& terms = jobs[j].terms;
      std::vector<HermiteTerms> passes;
      if (terms.radial6) passes.push_back(HermiteTerms{true, {}});
      for (std::size_t k = 0; k < terms.counts.size(); k += k_outputs_per_pass) {
        HermiteTerms t;
        t.counts.assign(terms.counts.begin() + static_cast<std::ptrdiff_t>(k),
                        terms.counts.begin() +
                            static_cast<std::ptrdiff_t>(std::min(k + k_outputs_per_pass, terms.counts.size())));
        passes.push_back(std::move(t));
      }
      std::vector<std::unique_ptr<PairSumPass>> pass;
      for (const auto& t : passes) pass.push_back(std::make_unique<PairSumPass>(ctx, op, PairTerm::hermite, d, n, nullptr, &t));
      const std::size_t rs = pass[0]->row_stride();
      const Mat Y = xs * jobs[j].A.transpose();
      rows[j].assign(n * rs, 0.0);
      for (std::size_t i = 0; i < n; ++i)
        for (std::size_t k = 0; k < d; ++k) rows[j][i * rs + k] = Y(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(k));
      // Each job's rows in a scratch part of their own: every upload is enqueued before any wait.
      cl::Buffer rb = detail::scratch(q, MatrixScratch::rows, rows[j].size() * sizeof(double), j);
      cl::Event w;
      cq.enqueueWriteBuffer(rb, CL_FALSE, 0, rows[j].size() * sizeof(double), rows[j].data(), nullptr, &w);
      std::vector<Event> deps{detail::from_cl(w), ev};  // ev: the previous job's last pass (none at first)
      for (auto& p : pass) {
        ev = p->enqueue(q, rb, 0, n, rb, PairSumPass::k_scale_value, 0.0, sums, at, deps);
        deps = {ev};
        at += static_cast<unsigned>(p->outputs());
      }
    }
    detail::read_wait(cq, sums, 0, total * sizeof(double), all.data());  // waits for the uploads too
  });
  std::size_t at = 0;
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    const std::size_t m = jobs[j].terms.outputs();
    out[j].assign(all.begin() + static_cast<std::ptrdiff_t>(at), all.begin() + static_cast<std::ptrdiff_t>(at + m));
    at += m;
  }
  return out;
}

std::vector<double> hermite_sums(const Queue& q, const char* op, const Mat& xs, const Mat& A, const HermiteTerms& terms) {
  return hermite_sums(q, op, xs, std::vector<HermiteJob>{{A, terms}})[0];
}

// psi_c = n^-2 sum_{i,j} D^c phi_{g^2 I}(X_i - X_j) (diagonal included, as ks's kfe) from the
// sum over i < j of w prod He_{c_a}(u_a).
double functional_of(const std::vector<unsigned>& c, double pair_sum, double g, double n) {
  unsigned order = 0;
  double at0 = 1;
  for (unsigned k : c) order += k, at0 *= hermite_at_zero(k);
  const double dd = static_cast<double>(c.size());
  return std::pow(2 * M_PI, -dd / 2) * std::pow(g, -dd - order) * (2 * pair_sum + n * at0) / (n * n);
}

}  // namespace clstat::bandwidth_detail
