#include "robust/design.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <thread>
#include <vector>

#include "robust/row_blocks.hpp"
#include "runtime/host_parallel.hpp"
#include "runtime/host_result.hpp"

namespace clstat::robust::detail {

namespace {

constexpr std::size_t kBlock = kRowBlock;
constexpr std::size_t kNone = static_cast<std::size_t>(-1);

// A block's count, range and Welford moments of every column and of y, or its first bad value.
struct BlockMoments {
  double count = 0;
  std::vector<double> lo, hi, mean, ss;
  double ymean = 0, yss = 0;
  std::size_t bad_row = kNone, bad_col = 0;

  // Chan, Golub and LeVeque's pairwise update: this block followed by o.
  void merge(const BlockMoments& o) {
    const double na = count, nb = o.count, nt = na + nb;
    auto one = [&](double& m, double& s, double mo, double so) {
      const double delta = mo - m;
      m += delta * (nb / nt);
      s += so + delta * delta * (na * nb / nt);
    };
    one(ymean, yss, o.ymean, o.yss);
    for (std::size_t j = 0; j < mean.size(); ++j) {
      lo[j] = std::min(lo[j], o.lo[j]);
      hi[j] = std::max(hi[j], o.hi[j]);
      one(mean[j], ss[j], o.mean[j], o.ss[j]);
    }
    count = nt;
  }

  // count, ymean, yss, lo, hi, mean, ss: what a process sends of its rows.
  std::vector<double> pack() const {
    std::vector<double> v{count, ymean, yss};
    for (const auto* c : {&lo, &hi, &mean, &ss}) v.insert(v.end(), c->begin(), c->end());
    return v;
  }
  static BlockMoments unpack(const double* v, std::size_t p) {
    BlockMoments m;
    m.count = v[0], m.ymean = v[1], m.yss = v[2];
    std::size_t at = 3;
    for (auto* c : {&m.lo, &m.hi, &m.mean, &m.ss}) c->assign(v + at, v + at + p), at += p;
    return m;
  }
};

}  // namespace

void data_row(const double* x, std::size_t p, bool intercept, std::size_t i, double* out) {
  std::size_t c = 0;
  if (intercept) out[c++] = 1.0;
  for (std::size_t j = 0; j < p; ++j) out[c++] = x[i * p + j];
}

Design make_design(const std::string& op, const double* x, std::size_t n, std::size_t p, const double* y,
                   bool intercept, std::size_t min_rows_factor) {
  return make_design(op, x, p, y, intercept, min_rows_factor, Across::one(n));
}

Design make_design(const std::string& op, const double* x, std::size_t p, const double* y, bool intercept,
                   std::size_t min_rows_factor, const Across& ac) {
  const std::size_t n = ac.n_local(), n_all = ac.n(), first_row = ac.offset();
  if (n_all == 0) throw std::invalid_argument(op + ": no observations (n = 0)");
  if (p == 0)
    throw std::invalid_argument(op + ": no explanatory column (p = 0); the location-only fit is not provided");
  Design d;
  d.n = n;
  d.p = p;
  d.intercept = intercept;
  d.q = p + (intercept ? 1 : 0);
  if (d.q > 32)
    throw std::invalid_argument(op + ": " + std::to_string(d.q) + " coefficients; at most 32 are supported");
  if (n_all <= min_rows_factor * d.q)
    throw std::invalid_argument(op + ": n = " + std::to_string(n_all) + " observations for " + std::to_string(d.q) +
                                " coefficients; need more than " + std::to_string(min_rows_factor) +
                                " times as many observations as coefficients");
  // One pass: finiteness, range (constant columns) and the moments of every column and of y, by
  // blocks of kBlock rows on the host's threads (Welford within a block; blocks merged in order by
  // Chan et al.'s update, so the moments do not depend on the thread count, and data of one block
  // get the single pass's). 10^6 rows of 10 columns took 98 ms on one thread.
  const std::size_t blocks = (n + kBlock - 1) / kBlock;
  std::vector<BlockMoments> bm(blocks);
  // This process's rows merged, then (split) every process's merged moments in rank order; a bad
  // value anywhere raises on every process.
  const std::vector<double> moments = ac.gather([&] {
    if (n > 0 && (!x || !y)) throw std::invalid_argument(op + ": null data pointer");
    // Each block's moments in a local, stored once: updated in place in bm, the threads' blocks
    // shared cache lines.
    const auto block_moments = [&](std::size_t first, std::size_t last) {
      BlockMoments m;
      m.lo.assign(p, INFINITY), m.hi.assign(p, -INFINITY), m.mean.assign(p, 0.0), m.ss.assign(p, 0.0);
      for (std::size_t i = first; i < last; ++i) {
        if (!std::isfinite(y[i])) {
          m.bad_row = i, m.bad_col = p;
          return m;
        }
        const double c = static_cast<double>(i - first + 1);
        const double dy = y[i] - m.ymean;  // Welford
        m.ymean += dy / c;
        m.yss += dy * (y[i] - m.ymean);
        for (std::size_t j = 0; j < p; ++j) {
          const double v = x[i * p + j];
          if (!std::isfinite(v)) {
            m.bad_row = i, m.bad_col = j;
            return m;
          }
          m.lo[j] = std::min(m.lo[j], v);
          m.hi[j] = std::max(m.hi[j], v);
          const double dv = v - m.mean[j];
          m.mean[j] += dv / c;
          m.ss[j] += dv * (v - m.mean[j]);
        }
      }
      m.count = static_cast<double>(last - first);
      return m;
    };
    ::clstat::detail::parallel_tasks(blocks, std::thread::hardware_concurrency(), [&](std::size_t k) {
      bm[k] = block_moments(k * kBlock, std::min(n, k * kBlock + kBlock));
    });
    for (const BlockMoments& m : bm)  // the first bad value in row order, y's before its row's x
      if (m.bad_row != kNone) {
        const std::string row = std::to_string(first_row + m.bad_row);
        if (m.bad_col == p) throw std::invalid_argument(op + ": y[" + row + "] is not finite");
        throw std::invalid_argument(op + ": x[" + row + ", " + std::to_string(m.bad_col) + "] is not finite");
      }
    if (blocks == 0) return std::vector<double>{};
    BlockMoments mine = bm[0];
    for (std::size_t k = 1; k < blocks; ++k) mine.merge(bm[k]);
    return mine.pack();
  });
  BlockMoments all;
  for (std::size_t at = 0; at < moments.size(); at += 3 + 4 * p) {
    BlockMoments m = BlockMoments::unpack(&moments[at], p);
    if (at == 0) all = std::move(m);
    else all.merge(m);
  }
  const std::vector<double>&lo = all.lo, &hi = all.hi, &mean = all.mean, &ss = all.ss;
  const double ymean = all.ymean, yss = all.yss;
  std::vector<double> centre(p, 0.0), scale(p, 1.0);
  for (std::size_t j = 0; j < p; ++j) {
    if (lo[j] == hi[j])
      throw std::invalid_argument(op + ": column " + std::to_string(j) + " of x is constant (every value " +
                                  std::to_string(lo[j]) + "); remove it (the intercept models a constant)");
    if (intercept) {
      centre[j] = mean[j];
      scale[j] = std::sqrt(ss[j] / static_cast<double>(n_all));
    } else {
      scale[j] = std::sqrt(ss[j] / static_cast<double>(n_all) + mean[j] * mean[j]);
    }
    if (!(scale[j] > 0)) scale[j] = 1.0;
  }
  double yc = 0, ysc = 1;
  if (intercept) {
    yc = ymean;
    ysc = std::sqrt(yss / static_cast<double>(n_all));
  } else {
    ysc = std::sqrt(yss / static_cast<double>(n_all) + ymean * ymean);
  }
  if (!(ysc > 0)) ysc = 1.0;
  // First touched by the parallel fill, huge pages advised (runtime/host_result.hpp: 10^7 rows
  // are 880 MB).
  d.z = ::clstat::detail::host_array<double>(n * d.q);
  d.ys = ::clstat::detail::host_array<double>(n);
  // The standardised rows, block by block on the host's threads, and with them the cross-product
  // matrix for the check below, a product for every kSub rows just written (still in the core's
  // cache): at 10^7 rows of 20 on the H200 machine, a second pass over the 1.7 GB of rows for it
  // took a fifth of the design's 280 ms.
  using RowMat = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  constexpr std::size_t kSub = 1024;
  const auto Q = static_cast<Eigen::Index>(d.q);
  std::vector<Eigen::MatrixXd> gpart(std::max<std::size_t>(blocks, 1), Eigen::MatrixXd::Zero(Q, Q));
  ::clstat::detail::parallel_tasks(blocks, std::thread::hardware_concurrency(), [&](std::size_t k) {
    const std::size_t first = k * kBlock, last = std::min(n, first + kBlock);
    for (std::size_t f = first; f < last; f += kSub) {
      const std::size_t e = std::min(last, f + kSub);
      for (std::size_t i = f; i < e; ++i) {
        double* zi = &d.z[i * d.q];
        std::size_t c = 0;
        if (intercept) zi[c++] = 1.0;
        for (std::size_t j = 0; j < p; ++j) zi[c++] = (x[i * p + j] - centre[j]) / scale[j];
        d.ys[i] = (y[i] - yc) / ysc;
      }
      const Eigen::Map<const RowMat> zm(&d.z[f * d.q], static_cast<Eigen::Index>(e - f), Q);
      gpart[k].selfadjointView<Eigen::Lower>().rankUpdate(zm.transpose());  // (the solver reads the lower triangle)
    }
  });
  // Linearly dependent columns (robustbase: "x is singular"): the standardised cross-product
  // matrix, whose diagonal is n, must have full numerical rank.
  const std::vector<double> gs = ac.sum([&] {
    Eigen::MatrixXd m = gpart[0];
    for (std::size_t k = 1; k < blocks; ++k) m += gpart[k];
    return std::vector<double>(m.data(), m.data() + m.size());
  });
  const Eigen::MatrixXd g = Eigen::Map<const Eigen::MatrixXd>(gs.data(), Q, Q);
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(g, Eigen::EigenvaluesOnly);
  const double top = es.eigenvalues().maxCoeff();
  if (!(es.eigenvalues().minCoeff() > 1e-12 * top))
    throw std::invalid_argument(op + ": the columns of x" + std::string(intercept ? " and the intercept" : "") +
                                " are linearly dependent (x is singular)");
  return d;
}

Eigen::MatrixXd cross_products(const double* z, std::size_t n, std::size_t q, const double* w) {
  using RowMat = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  const std::size_t blocks = std::max<std::size_t>(1, (n + kBlock - 1) / kBlock);
  std::vector<Eigen::MatrixXd> part(blocks);
  ::clstat::detail::parallel_tasks(blocks, std::thread::hardware_concurrency(), [&](std::size_t k) {
    const std::size_t first = k * kBlock, rows = std::min(n, first + kBlock) - first;
    Eigen::Map<const RowMat> zm(z + first * q, static_cast<Eigen::Index>(rows), static_cast<Eigen::Index>(q));
    if (w) {
      Eigen::Map<const Eigen::VectorXd> wk(w + first, static_cast<Eigen::Index>(rows));
      part[k] = zm.transpose() * (zm.array().colwise() * wk.array()).matrix();
    } else {
      part[k] = zm.transpose() * zm;
    }
  });
  Eigen::MatrixXd g = part[0];
  for (std::size_t k = 1; k < blocks; ++k) g += part[k];
  return g;
}

}  // namespace clstat::robust::detail
