#include "robust/least_squares.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <thread>

#include "robust/design.hpp"
#include "runtime/host_parallel.hpp"
#include "runtime/host_result.hpp"

namespace clstat::robust::detail {

namespace {

constexpr std::size_t kBlock = 65536;  // rows a host task takes, as the design's

// Column-pivoted Householder QR of [1 x] on the rows (every process's, in rank order): R's
// lm.fit, O(k q^2) with a large constant.
std::vector<double> qr_rows(const double* x, std::size_t p, bool intercept, const double* y,
                            const std::vector<std::size_t>& rows, const Across& ac) {
  const std::size_t q = p + (intercept ? 1 : 0);
  const std::vector<double> ab = ac.gather([&] {  // each chosen row's q values, then its y
    std::vector<double> v(rows.size() * (q + 1));
    for (std::size_t r = 0; r < rows.size(); ++r) {
      data_row(x, p, intercept, rows[r], &v[r * (q + 1)]);
      v[r * (q + 1) + q] = y[rows[r]];
    }
    return v;
  });
  const std::size_t k = ab.size() / (q + 1);
  Eigen::MatrixXd a(k, q);
  Eigen::VectorXd b(k);
  for (std::size_t r = 0; r < k; ++r) {
    for (std::size_t j = 0; j < q; ++j) a(r, j) = ab[r * (q + 1) + j];
    b(r) = ab[r * (q + 1) + q];
  }
  Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(a);
  qr.setThreshold(1e-7);  // R's lm.fit tolerance
  if (qr.rank() < static_cast<Eigen::Index>(q)) return {};
  const Eigen::VectorXd c = qr.solve(b);
  return std::vector<double>(c.data(), c.data() + q);
}

}  // namespace

// Corrected semi-normal equations (Bjorck, Numerical Methods for Least Squares Problems, sec.
// 2.5.3): Cholesky of the centred cross-product matrix, then two steps of iterative refinement
// on the residuals, which brings the solution to QR's accuracy for all but nearly singular
// problems at a tenth of the cost on long data (one matrix product instead of a QR). A Cholesky
// pivot below 1e-13 of its diagonal sends the problem to the pivoted QR, which also decides rank.
std::vector<double> least_squares_rows(const double* x, std::size_t p, bool intercept, const double* y,
                                       const std::vector<std::size_t>& rows) {
  return least_squares_rows(x, p, intercept, y, rows, Across::one(rows.size()));
}

std::vector<double> least_squares_rows(const double* x, std::size_t p, bool intercept, const double* y,
                                       const std::vector<std::size_t>& rows, const Across& ac) {
  const std::size_t k = rows.size();  // this process's
  const double k_all = ac.sum([&] { return std::vector<double>{static_cast<double>(k)}; })[0];
  if (k_all < static_cast<double>(p + (intercept ? 1 : 0))) return {};
  // The centred rows, their cross products and every product with a vector by blocks of kBlock
  // rows on the host's threads, the blocks' sums added in block order (the same bits on any
  // number of threads): at 5e5 of 1e6 rows, p = 10, the single pass was the largest host cost of
  // the LTS fit.
  using RowMat = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  const std::size_t blocks = std::max<std::size_t>(1, (k + kBlock - 1) / kBlock);
  const auto each_block = [&](auto&& body) {
    ::clstat::detail::parallel_tasks(blocks, std::thread::hardware_concurrency(), [&](std::size_t b) {
      body(b, b * kBlock, std::min(k, (b + 1) * kBlock));
    });
  };
  std::vector<double> xm(p, 0.0);
  double ym = 0;
  if (intercept) {
    const std::vector<double> sum = ac.sum([&] {
      std::vector<Eigen::VectorXd> part(blocks);
      each_block([&](std::size_t b, std::size_t first, std::size_t last) {
        part[b] = Eigen::VectorXd::Zero(static_cast<Eigen::Index>(p + 1));
        for (std::size_t r = first; r < last; ++r) {
          const std::size_t i = rows[r];
          for (std::size_t j = 0; j < p; ++j) part[b](static_cast<Eigen::Index>(j)) += x[i * p + j];
          part[b](static_cast<Eigen::Index>(p)) += y[i];
        }
      });
      Eigen::VectorXd s = part[0];
      for (std::size_t b = 1; b < blocks; ++b) s += part[b];
      return std::vector<double>(s.data(), s.data() + s.size());
    });
    for (std::size_t j = 0; j < p; ++j) xm[j] = sum[j] / k_all;
    ym = sum[p] / k_all;
  }
  // The centred rows and y of a block, built again by each pass below rather than held for all k
  // rows: at 10^7 rows of 10 that copy was 800 MB of new pages, the largest host cost of the
  // LTS fit's reweighting (150 ms on the H100 machine). The products are those of the copy, bit
  // for bit: the same blocks, expressions and order.
  using Rows = ::clstat::detail::HostArray<double>;  // every element written before it is read
  const auto block_rows = [&](std::size_t first, std::size_t last, Rows& av, Rows& bv) {
    av.resize((last - first) * p);
    bv.resize(last - first);
    for (std::size_t r = first; r < last; ++r) {
      const double* xr = x + rows[r] * p;
      for (std::size_t j = 0; j < p; ++j) av[(r - first) * p + j] = xr[j] - xm[j];
      bv[r - first] = y[rows[r]] - ym;
    }
  };
  // The sum over the blocks of f(block b's rows, its y) (a vector of `len`), the blocks' parts
  // added in block order (the same bits on any number of threads), then over the processes.
  const auto over_blocks = [&](std::size_t len, auto&& f) {
    const std::vector<double> s = ac.sum([&] {
      std::vector<Eigen::VectorXd> part(blocks, Eigen::VectorXd::Zero(static_cast<Eigen::Index>(len)));
      each_block([&](std::size_t blk, std::size_t first, std::size_t last) {
        if (last <= first) return;
        Rows av, bv;
        block_rows(first, last, av, bv);
        const auto rows_b = static_cast<Eigen::Index>(last - first);
        const Eigen::Map<const RowMat> ab(av.data(), rows_b, static_cast<Eigen::Index>(p));
        const Eigen::Map<const Eigen::VectorXd> bb(bv.data(), rows_b);
        part[blk] = f(ab, bb);
      });
      Eigen::VectorXd t = part[0];
      for (std::size_t blk = 1; blk < blocks; ++blk) t += part[blk];
      return std::vector<double>(t.data(), t.data() + t.size());
    });
    return s;
  };
  // a' (b - a c): the residuals of a refinement step with their product, by blocks.
  const auto at_resid = [&](const Eigen::VectorXd& c) {
    const std::vector<double> s = over_blocks(p, [&](const auto& ab, const auto& bb) -> Eigen::VectorXd {
      const Eigen::VectorXd r = bb - ab * c;
      return ab.transpose() * r;
    });
    return Eigen::VectorXd(Eigen::Map<const Eigen::VectorXd>(s.data(), static_cast<Eigen::Index>(p)));
  };
  const std::vector<double> gs = over_blocks(p * p, [&](const auto& ab, const auto&) -> Eigen::VectorXd {
    const Eigen::MatrixXd m = ab.transpose() * ab;
    return Eigen::Map<const Eigen::VectorXd>(m.data(), m.size());
  });
  const Eigen::MatrixXd g = Eigen::Map<const Eigen::MatrixXd>(gs.data(), static_cast<Eigen::Index>(p), static_cast<Eigen::Index>(p));
  Eigen::LLT<Eigen::MatrixXd> llt(g);
  bool ok = llt.info() == Eigen::Success;
  if (ok) {
    const Eigen::MatrixXd l = llt.matrixL();
    for (std::size_t j = 0; j < p && ok; ++j) ok = l(j, j) * l(j, j) > 1e-13 * g(j, j);
  }
  if (!ok) return qr_rows(x, p, intercept, y, rows, ac);
  Eigen::VectorXd c = llt.solve(at_resid(Eigen::VectorXd::Zero(static_cast<Eigen::Index>(p))));
  for (int step = 0; step < 2; ++step) c += llt.solve(at_resid(c));
  if (!c.allFinite()) return qr_rows(x, p, intercept, y, rows, ac);
  std::vector<double> out;
  if (intercept) {
    double b0 = ym;
    for (std::size_t j = 0; j < p; ++j) b0 -= c(j) * xm[j];
    out.push_back(b0);
  }
  for (std::size_t j = 0; j < p; ++j) out.push_back(c(j));
  return out;
}

std::vector<double> residuals_of(const double* x, std::size_t n, std::size_t p, bool intercept, const double* y,
                                 const std::vector<double>& coef) {
  std::vector<double> r = ::clstat::detail::host_result<double>(n);
  const std::size_t o = intercept ? 1 : 0;
  ::clstat::detail::parallel_tasks((n + kBlock - 1) / kBlock, std::thread::hardware_concurrency(), [&](std::size_t b) {
    for (std::size_t i = b * kBlock, last = std::min(n, (b + 1) * kBlock); i < last; ++i) {
      double f = intercept ? coef[0] : 0.0;
      for (std::size_t j = 0; j < p; ++j) f += coef[o + j] * x[i * p + j];
      r[i] = y[i] - f;
    }
  });
  return r;
}

}  // namespace clstat::robust::detail
