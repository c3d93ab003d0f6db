#include "robust/starts.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <string>
#include <thread>

#include "robust/philox.hpp"
#include "runtime/host_parallel.hpp"

namespace clstat::robust::detail {

namespace {

using RowMat = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// Least squares through the given design rows; false when they do not have full column rank.
bool fit_rows(const Design& d, const std::vector<std::uint32_t>& rows, double* beta) {
  const std::size_t q = d.q, k = rows.size();
  RowMat a(k, q);
  Eigen::VectorXd b(k);
  for (std::size_t r = 0; r < k; ++r) {
    for (std::size_t j = 0; j < q; ++j) a(r, j) = d.z[rows[r] * q + j];
    b(r) = d.ys[rows[r]];
  }
  Eigen::ColPivHouseholderQR<RowMat> qr(a);
  // Standardised columns: a pivot below 1e-10 of the largest means no determined fit.
  qr.setThreshold(1e-10);
  if (qr.rank() < static_cast<Eigen::Index>(q)) return false;
  const Eigen::VectorXd x = qr.solve(b);
  for (std::size_t j = 0; j < q; ++j) beta[j] = x(j);
  return x.allFinite();
}

}  // namespace

std::uint64_t choose(std::uint64_t n, std::uint64_t k) {
  if (k > n) return 0;
  k = std::min(k, n - k);
  const std::uint64_t cap = std::uint64_t{1} << 63;
  std::uint64_t c = 1;
  for (std::uint64_t i = 1; i <= k; ++i) {
    // c * (n - k + i) / i is exact (a binomial coefficient); divide first where it would overflow.
    const std::uint64_t f = n - k + i, g = std::gcd(c, i);
    const std::uint64_t a = c / g, b = f / (i / g);
    if (a > cap / b) return cap;
    c = a * b;
  }
  return c;
}

Starts random_starts(const Design& d, const std::vector<std::uint32_t>& rows, std::size_t count, std::uint64_t seed,
                     std::uint32_t stream, std::uint64_t first, bool extend) {
  const std::size_t q = d.q, m = rows.size();
  Starts s;
  s.beta.assign(count * q, 0.0);
  s.subset.assign(count * q, 0);
  s.valid.assign(count, 1);
  std::vector<char> singular(count, 0);
  // Each start has its own Philox stream, so the starts run on the host's threads in chunks with
  // the same results as one after another (p = 20's 18799 starts, a q x q QR each, took about
  // 300 ms on one thread of the H100 machine, longer than the fit's kernels at 10^6 rows).
  constexpr std::size_t kChunk = 64;
  ::clstat::detail::parallel_tasks((count + kChunk - 1) / kChunk, std::thread::hardware_concurrency(), [&](std::size_t t) {
    std::vector<std::uint32_t> pick, drows;
    std::vector<char> used(m, 0);
    for (std::size_t i = t * kChunk; i < std::min(count, (t + 1) * kChunk); ++i) {
      PhiloxStream rng(seed, stream, first + i);
      pick.clear();
      auto draw = [&] {  // a row of the block not yet in the subset
        for (;;) {
          const auto r = static_cast<std::uint32_t>(rng.below(m));
          if (!used[r]) {
            used[r] = 1;
            pick.push_back(r);
            return;
          }
        }
      };
      for (std::size_t j = 0; j < q; ++j) draw();
      for (std::size_t j = 0; j < q; ++j) s.subset[i * q + j] = rows[pick[j]];
      auto fit = [&] {
        drows.resize(pick.size());
        for (std::size_t j = 0; j < pick.size(); ++j) drows[j] = rows[pick[j]];
        return fit_rows(d, drows, &s.beta[i * q]);
      };
      bool ok = fit();
      if (!ok) {
        singular[i] = 1;
        if (extend)
          while (!ok && pick.size() < m) {
            draw();
            ok = fit();
          }
        if (!ok) s.valid[i] = 0;
      }
      for (auto r : pick) used[r] = 0;
    }
  });
  s.singular = static_cast<std::size_t>(std::count(singular.begin(), singular.end(), 1));
  return s;
}

Starts all_starts(const Design& d, const std::string& op) {
  const std::size_t q = d.q, n = d.n;
  const std::uint64_t total = choose(n, q);
  // Each start holds q doubles of fit on the host and the device: 2^25 starts is gigabytes.
  if (total > (std::uint64_t{1} << 25))
    throw std::invalid_argument(op + ": exact enumeration of C(" + std::to_string(n) + ", " + std::to_string(q) +
                                ") p-subsets is past 2^25; use random subsets (nsamp)");
  Starts s;
  s.beta.assign(total * q, 0.0);
  s.subset.assign(total * q, 0);
  s.valid.assign(total, 1);
  std::vector<std::uint32_t> c(q);
  for (std::size_t j = 0; j < q; ++j) c[j] = static_cast<std::uint32_t>(j);
  for (std::uint64_t i = 0; i < total; ++i) {
    std::copy(c.begin(), c.end(), s.subset.begin() + i * q);
    if (!fit_rows(d, c, &s.beta[i * q])) {
      s.valid[i] = 0;
      ++s.singular;
    }
    // Next combination in lexicographic order.
    std::size_t j = q;
    while (j > 0 && c[j - 1] == n - q + (j - 1)) --j;
    if (j == 0) break;
    ++c[j - 1];
    for (std::size_t t = j; t < q; ++t) c[t] = c[t - 1] + 1;
  }
  return s;
}

}  // namespace clstat::robust::detail
