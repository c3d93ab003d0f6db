// Host side of a KDE call that needs no device: validation, bandwidth -> whitening matrix and
// normalising constant, and the launch settings from the tuning table.
#include "kde/kde_plan.hpp"

#include <Eigen/Cholesky>
#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <stdexcept>

#include "build/program_cache.hpp"
#include "runtime/host_parallel.hpp"

namespace clstat {

double radial_kernel_integral(Kernel kernel, std::size_t d) {
  if (d == 0) throw std::invalid_argument("clstat::radial_kernel_integral: d must be at least 1");
  const double h = 0.5 * static_cast<double>(d);
  const double log_pi = std::log(M_PI);
  // Volume of the unit d-ball, V_d = pi^{d/2} / Gamma(d/2 + 1).
  const double log_vd = h * log_pi - kde_detail::log_gamma(h + 1);
  // Integral of (1 - |v|^2)^p over the unit ball = V_d Gamma(d/2+1) Gamma(p+1) / Gamma(d/2+p+1)
  // (polar coordinates and the Beta integral); p = 1 gives 2 V_d / (d + 2), the spherical
  // Epanechnikov constant of Wand & Jones eq. (4.5).
  auto poly = [&](double p) { return std::exp(h * log_pi + kde_detail::log_gamma(p + 1) - kde_detail::log_gamma(h + p + 1)); };
  switch (kernel) {
    case Kernel::gaussian: return std::exp(h * std::log(2 * M_PI));
    case Kernel::uniform: return std::exp(log_vd);
    case Kernel::epanechnikov: return poly(1);
    case Kernel::biweight: return poly(2);
    case Kernel::triweight: return poly(3);
    case Kernel::triangular:  // d V_d * int_0^1 r^{d-1} (1 - r) dr = V_d / (d + 1)
      return std::exp(log_vd) / static_cast<double>(d + 1);
    case Kernel::cosine: {
      // d V_d * int_0^1 r^{d-1} cos(a r) dr with a = pi/2, by the cosine series integrated term by
      // term: sum_k (-1)^k a^{2k} / ((2k)! (2k + d)). The terms fall like a^{2k}/(2k)! and alternate,
      // so 30 of them are exact to rounding for any d.
      const double a2 = (M_PI / 2) * (M_PI / 2);
      double term = 1, sum = 0;
      for (int k = 0; k < 30; ++k) {
        sum += term / static_cast<double>(2 * k + static_cast<int>(d));
        term *= -a2 / static_cast<double>((2 * k + 1) * (2 * k + 2));
      }
      return static_cast<double>(d) * std::exp(log_vd) * sum;
    }
  }
  throw std::invalid_argument("clstat::radial_kernel_integral: unknown kernel " +
                              std::to_string(static_cast<int>(kernel)));
}

namespace kde_detail {
namespace {

using Mat = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

[[noreturn]] void bad(const char* op, const std::string& what) { throw std::invalid_argument(std::string(op) + ": " + what); }

std::size_t pow2_floor(std::size_t v) {
  std::size_t p = 1;
  while (p * 2 <= v) p *= 2;
  return p;
}

const char* dim_class(std::size_t d) { return d == 1 ? "d1" : d <= 4 ? "d4" : d <= 16 ? "d16" : "d64"; }

// L with H = L L', or an error naming the matrix. Eigen's LLT reports failure on a non-positive
// pivot; a pivot that is positive but negligible against the largest diagonal entry is treated as
// singular too, because its whitening would amplify rounding without bound.
Mat cholesky(const char* op, const Mat& H, const std::string& name) {
  Eigen::LLT<Mat> llt(H);
  const double scale = H.diagonal().cwiseAbs().maxCoeff();
  if (llt.info() != Eigen::Success) bad(op, name + " is not positive definite");
  Mat L = llt.matrixL();
  for (Eigen::Index k = 0; k < L.rows(); ++k)
    if (!(L(k, k) > 0) || L(k, k) * L(k, k) < 1e-14 * scale) bad(op, name + " is not positive definite (singular)");
  return L;
}

}  // namespace

BandwidthFactor bandwidth_factor(const char* op, const Bandwidth& bw, const double* x, std::size_t n, std::size_t d,
                                 const std::vector<double>* cov) {
  const auto D = static_cast<Eigen::Index>(d);
  Mat H = Mat::Zero(D, D), L = Mat::Zero(D, D);
  switch (bw.form) {
    case Bandwidth::Form::scalar:
    case Bandwidth::Form::per_dimension: {
      const bool scalar = bw.form == Bandwidth::Form::scalar;
      if (bw.values.size() != (scalar ? 1 : d))
        bad(op, scalar ? "a scalar bandwidth has exactly one value"
                       : "per-dimension bandwidth has " + std::to_string(bw.values.size()) + " values, d = " +
                             std::to_string(d));
      for (std::size_t k = 0; k < d; ++k) {
        const double h = bw.values[scalar ? 0 : k];
        if (!std::isfinite(h) || !(h > 0)) bad(op, "bandwidth h must be finite and > 0, got " + std::to_string(h));
        L(k, k) = h;
        H(k, k) = h * h;
      }
      break;
    }
    case Bandwidth::Form::matrix:
    case Bandwidth::Form::scaled_covariance: {
      if (bw.form == Bandwidth::Form::matrix) {
        if (bw.values.size() != d * d)
          bad(op, "bandwidth matrix has " + std::to_string(bw.values.size()) + " values, needs d*d = " +
                      std::to_string(d * d));
        for (double v : bw.values)
          if (!std::isfinite(v)) bad(op, "bandwidth matrix H has a non-finite entry");
        H = Eigen::Map<const Mat>(bw.values.data(), D, D);
        const double tol = 1e-12 * H.cwiseAbs().maxCoeff();
        if ((H - H.transpose()).cwiseAbs().maxCoeff() > tol) bad(op, "bandwidth matrix H is not symmetric");
        L = cholesky(op, H, "bandwidth matrix H");
      } else {
        if (bw.values.size() != 1) bad(op, "scaled_covariance takes one value h");
        const double h = bw.values[0];
        if (!std::isfinite(h) || !(h > 0)) bad(op, "bandwidth h must be finite and > 0, got " + std::to_string(h));
        if (n < d + 1) bad(op, "scaled_covariance needs more samples than dimensions (n > d)");
        std::vector<double> S = cov ? *cov : (x ? sample_covariance(x, n, d) : std::vector<double>{});
        if (S.size() != d * d) bad(op, "scaled_covariance needs the samples' covariance");
        H = Eigen::Map<const Mat>(S.data(), D, D) * (h * h);
        if (!H.allFinite()) bad(op, "h^2 S (the scaled sample covariance)" " overflows double: the data (or the bandwidth) are too large; rescale them (results scale exactly)");
        L = cholesky(op, H, "h^2 S (the scaled sample covariance; are the data collinear?)");
      }
      break;
    }
    default: bad(op, "unknown bandwidth form");
  }
  BandwidthFactor f;
  f.H.assign(H.data(), H.data() + d * d);
  f.L.assign(L.data(), L.data() + d * d);
  return f;
}

void require_finite(const char* op, const char* what, const double* v, std::size_t rows, std::size_t d) {
  for (std::size_t i = 0; i < rows * d; ++i)
    if (!std::isfinite(v[i]))
      bad(op, std::string(what) + " contain " + (std::isnan(v[i]) ? "NaN" : "Inf") + " at row " + std::to_string(i / d) +
                  ", column " + std::to_string(i % d));
}

double normal_scale_factor(const char* op, Kernel kernel, std::size_t d) {
  // h^{d+4} = 2^{d+2} pi^{d/2} R(K) / ((d + 2) n mu_2(K)^2) (Wand & Jones 1995, sec. 4.3, for
  // H = h^2 S and normal data); the factor is the n-free part.
  const double dd = static_cast<double>(d), h = dd / 2;
  double log_r = 0, log_mu2 = 0;  // log R(K), log mu_2(K)
  if (kernel == Kernel::gaussian) {
    log_r = -h * std::log(4 * M_PI);
  } else {
    double m = 0;
    switch (kernel) {
      case Kernel::uniform: m = 0; break;
      case Kernel::epanechnikov: m = 1; break;
      case Kernel::biweight: m = 2; break;
      case Kernel::triweight: m = 3; break;
      default:
        bad(op, "kernel " + std::to_string(static_cast<int>(kernel)) +
                    " has no radial normal-scale rule (gaussian, uniform, epanechnikov, biweight, triweight)");
    }
    // Over the unit ball, with V_d its volume: int (1 - |x|^2)^a = V_d G(h+1) G(a+1) / G(h+a+1) and
    // int |x|^2 (1 - |x|^2)^m = (d V_d / 2) G(h+1) G(m+1) / G(h+m+2) (Beta integrals).
    const double log_vd = h * std::log(M_PI) - kde_detail::log_gamma(h + 1);
    auto log_ball = [&](double a) { return log_vd + kde_detail::log_gamma(h + 1) + kde_detail::log_gamma(a + 1) - kde_detail::log_gamma(h + a + 1); };
    const double log_c = log_ball(m);
    log_r = log_ball(2 * m) - 2 * log_c;
    log_mu2 = std::log(dd / 2) + log_vd + kde_detail::log_gamma(h + 1) + kde_detail::log_gamma(m + 1) - kde_detail::log_gamma(h + m + 2) -
              std::log(dd) - log_c;
  }
  return std::exp(((dd + 2) * std::log(2.0) + h * std::log(M_PI) + log_r - std::log(dd + 2) - 2 * log_mu2) / (dd + 4));
}

std::vector<double> sample_covariance(const double* x, std::size_t n, std::size_t d) {
  // Two passes (the mean, then centred cross-products) over blocks of rows, each block's sums
  // kept apart and then added in block order: no n x d centred copy (Eigen's X.rowwise() - mean
  // then C'C took 0.3 s for 5.89M x 2 on a 2-core host), the rounding of a blocked sum, and the
  // same bits whatever the number of threads that fill the blocks.
  constexpr std::size_t kBlock = 4096;
  const std::size_t blocks = (n + kBlock - 1) / kBlock, tri = d * (d + 1) / 2;
  std::vector<double> part(blocks * std::max(d, tri), 0.0);
  // At least 16 blocks a thread, so small inputs stay on one.
  auto each_block = [&](auto&& body) { detail::parallel_tasks(blocks, std::max<std::size_t>(1, blocks / 16), body); };
  // Each block sums into its own locals and writes its partials once: blocks of different
  // threads share cache lines of `part`.
  each_block([&](std::size_t b) {
    std::vector<double> acc(d, 0.0);
    double* __restrict a = acc.data();
    for (std::size_t i = b * kBlock; i < std::min(n, (b + 1) * kBlock); ++i)
      for (std::size_t k = 0; k < d; ++k) a[k] += x[i * d + k];
    std::copy(acc.begin(), acc.end(), part.begin() + static_cast<std::ptrdiff_t>(b * d));
  });
  std::vector<double> mean(d, 0.0);
  for (std::size_t b = 0; b < blocks; ++b)
    for (std::size_t k = 0; k < d; ++k) mean[k] += part[b * d + k];
  for (auto& m : mean) m /= static_cast<double>(n);
  std::fill(part.begin(), part.end(), 0.0);
  each_block([&](std::size_t b) {
    std::vector<double> acc(tri, 0.0), cen(d);  // d is up to k_max_dim
    double* __restrict p = acc.data();
    double* __restrict c = cen.data();
    for (std::size_t i = b * kBlock; i < std::min(n, (b + 1) * kBlock); ++i) {
      for (std::size_t k = 0; k < d; ++k) c[k] = x[i * d + k] - mean[k];
      for (std::size_t a = 0, t = 0; a < d; ++a)
        for (std::size_t k = 0; k <= a; ++k, ++t) p[t] += c[a] * c[k];
    }
    std::copy(acc.begin(), acc.end(), part.begin() + static_cast<std::ptrdiff_t>(b * tri));
  });
  std::vector<double> S(d * d, 0.0);
  for (std::size_t b = 0; b < blocks; ++b)
    for (std::size_t a = 0, t = 0; a < d; ++a)
      for (std::size_t k = 0; k <= a; ++k, ++t) S[a * d + k] += part[b * tri + t];
  for (std::size_t a = 0; a < d; ++a)
    for (std::size_t k = 0; k <= a; ++k) S[k * d + a] = S[a * d + k] /= static_cast<double>(n - 1);
  return S;
}

Plan make_plan(const detail::ContextImpl& ctx, const char* op, const double* x, std::size_t n, std::size_t d,
               std::size_t m, const KdeOptions& o, bool at_samples, const std::vector<double>* cov, bool cdf) {
  Plan p;
  if (d == 0 || d > k_max_dim)
    bad(op, "dimension d = " + std::to_string(d) + " is outside [1, " + std::to_string(k_max_dim) + "]");
  if (cdf && d != 1) bad(op, "the kernel CDF is for d = 1, not d = " + std::to_string(d));
  if (o.boundary.method != KdeBoundary::Method::none)
    bad(op, "a boundary correction is computed by the host forms kde and kde_at_samples only");
  p.cdf = cdf;
  if (n == 0) bad(op, "no samples (n = 0): the data are empty");
  // n * d and m * d index host arrays: their products must not wrap (nor exceed what one device
  // allocation could hold, which is far below that).
  if (n > std::numeric_limits<std::size_t>::max() / 8 / d || m > std::numeric_limits<std::size_t>::max() / 8 / d)
    bad(op, "n = " + std::to_string(n) + " or m = " + std::to_string(m) + " rows of d = " + std::to_string(d) +
                " values overflow the byte count");
  if (!at_samples && m == 0) bad(op, "no evaluation points (m = 0)");
  const int kid = static_cast<int>(o.kernel);
  if (kid < 0 || kid > 6) bad(op, "unknown kernel id " + std::to_string(kid));
  const int pid = static_cast<int>(o.precision);
  if (pid != 0 && pid != 1) bad(op, "unknown precision id " + std::to_string(pid));
  if (o.leave_one_out && !at_samples)
    bad(op, "leave_one_out evaluates at the samples themselves: use kde_at_samples");
  p.n = n, p.d = d, p.m = at_samples ? n : m;
  p.dbl = o.precision == Precision::float64;
  if (p.dbl && !ctx.info().fp64)
    throw UnsupportedFeature(op, ctx.device_name(),
                             "Precision::float64 needs fp64, which this device lacks; use Precision::float32");
  p.kern = kid;
  p.loo = at_samples && o.leave_one_out;
  p.log_density = o.log_density;
  if (p.loo && n < 2) bad(op, "leave-one-out needs at least 2 samples");

  // Weights, normalised to sum 1.
  if (!o.weights.empty()) {
    if (o.weights.size() != n)
      bad(op, "weights has " + std::to_string(o.weights.size()) + " values for " + std::to_string(n) + " samples");
    double sum = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const double w = o.weights[i];
      if (!std::isfinite(w) || w < 0) bad(op, "weight " + std::to_string(i) + " is negative or not finite");
      sum += w;
    }
    if (!(sum > 0) || !std::isfinite(sum)) bad(op, "weights sum to zero (or overflow)");
    p.weighted = true;
    p.weights.resize(n);
    for (std::size_t i = 0; i < n; ++i) p.weights[i] = o.weights[i] / sum;
    if (p.loo) {
      p.point_div.resize(n);
      for (std::size_t i = 0; i < n; ++i) {
        p.point_div[i] = 1 - p.weights[i];
        if (!(p.point_div[i] > 0)) bad(op, "leave-one-out: sample " + std::to_string(i) + " holds all the weight");
      }
    }
  }

  // Bandwidth -> lower-triangular A (u = A x) and log |H|^{1/2}.
  const auto bf = bandwidth_factor(op, o.bandwidth, x, n, d, cov);
  const Mat L = Eigen::Map<const Mat>(bf.L.data(), static_cast<Eigen::Index>(d), static_cast<Eigen::Index>(d));
  const bool diagonal_form =
      o.bandwidth.form == Bandwidth::Form::scalar || o.bandwidth.form == Bandwidth::Form::per_dimension;
  // Bounded kernels with a diagonal bandwidth use the product form; every other case is radial.
  // The kernel CDF (d = 1) is a product of one integrated kernel.
  p.radial = !cdf && (!diagonal_form || p.kern == static_cast<int>(Kernel::gaussian));
  double log_det_half = 0;
  for (std::size_t k = 0; k < d; ++k) log_det_half += std::log(L(k, k));
  Mat A = L.triangularView<Eigen::Lower>().solve(Mat::Identity(L.rows(), L.cols()));
  const bool gaussian = p.kern == static_cast<int>(Kernel::gaussian) && !cdf;  // exp2 terms
  if (gaussian) A *= std::sqrt(0.5 * M_LOG2E);  // exp(-|v|^2/2) = exp2(-|s v|^2)
  p.A.assign(d * d, 0.0);
  for (std::size_t r = 0; r < d; ++r)
    for (std::size_t c = 0; c <= r; ++c) p.A[r * d + c] = A(r, c);

  const double log_int = p.radial ? std::log(radial_kernel_integral(o.kernel, d))
                                  : static_cast<double>(d) * std::log(radial_kernel_integral(o.kernel, 1));
  double log_count = 0;
  if (!p.weighted) log_count = std::log(static_cast<double>(p.loo ? n - 1 : n));
  // CDF terms are probabilities already: only the mean over the samples remains.
  p.log_scale = cdf ? -log_count : -log_int - log_det_half - log_count;
  p.scale = std::exp(p.log_scale);

  p.centre.assign(d, 0.0);
  if (x) {
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t k = 0; k < d; ++k) p.centre[k] += x[i * d + k];
    for (auto& c : p.centre) c /= static_cast<double>(n);
  }

  // Launch settings: explicit, else tuned for (precision, dimension class).
  const auto& t = ctx.tuning;
  const std::string key = std::string("kde.") + (p.dbl ? "f64." : "f32.") + dim_class(d) + ".";
  const auto pick = [&](std::size_t explicit_v, const char* name, std::size_t fallback) {
    return explicit_v ? explicit_v : detail::tuned(t, key + name, fallback);
  };
  p.variant = o.variant == KdeVariant::automatic ? static_cast<int>(detail::tuned(t, key + "variant", 3))
                                                 : static_cast<int>(o.variant);
  if (p.variant < 1 || p.variant > 4) p.variant = 3;
  // simd: LANES points per vector (16 floats or 8 doubles fill an AVX-512 register; narrower
  // vector units run the same code as several instructions).
  if (p.variant == 4)
    p.lanes = pow2_floor(std::max<std::size_t>(2, std::min<std::size_t>(pick(o.launch.lanes, "lanes", p.dbl ? 8 : 16), 16)));
  p.wg = pow2_floor(std::max<std::size_t>(1, std::min<std::size_t>(pick(o.launch.work_group, "wg", 128), 1024)));
  p.ppt = pow2_floor(std::max<std::size_t>(1, std::min<std::size_t>(pick(o.launch.points_per_item, "ppt", 4), 16)));
  p.tile = pow2_floor(std::max<std::size_t>(k_chunk, std::min<std::size_t>(pick(o.launch.tile, "tile", 256), 4096)));
  p.unroll = pow2_floor(std::max<std::size_t>(1, std::min<std::size_t>(pick(o.launch.unroll, "unroll", 4), k_chunk)));
  // Few points cannot fill the device with the tuned per-group work: halve points per item, then
  // the group, until each compute unit has `fill` groups (results are the same bits). fill is tuned
  // per class: on the H100 two groups per unit suit d <= 4 (d = 2 at 2^16: 1828 against 1527
  // Gpairs/s with one), while the d = 16 rows with two points per item and 256 work-items want one
  // (full matrix at 2^17: 955 against 764) (`git show 9796294:bench/results/2026-11-22-h100-nvidia-kde-vec.log`;
  // the fill variants are in git history, up to a10d6fa).
  const std::size_t cus = std::max<unsigned>(1, ctx.info().compute_units);
  const std::size_t fill = std::max<std::size_t>(1, detail::tuned(t, key + "fill", 2)) * cus;
  auto groups = [&] { return (p.m + p.points_per_group() - 1) / p.points_per_group(); };
  if (!o.launch.points_per_item)
    while (p.ppt > 1 && groups() < fill) p.ppt /= 2;
  if (!o.launch.work_group)
    while (p.wg > (p.variant == 4 ? 1 : 64) && groups() < fill) p.wg /= 2;
  const int dot = o.launch.expanded_square >= 0 ? o.launch.expanded_square
                                                  : static_cast<int>(detail::tuned(t, key + "dot", 0));
  p.dot = gaussian && dot > 0;
  const int vec = o.launch.vector_rows >= 0 ? o.launch.vector_rows
                                            : static_cast<int>(detail::tuned(t, key + "vec", 0));
  p.vec = vec > 0 && p.variant != 1 && p.variant != 4;
  const int poly = o.launch.exp_poly >= 0 ? o.launch.exp_poly
                                          : static_cast<int>(detail::tuned(t, key + "exp_poly", 0));
  p.exp_poly = gaussian && p.variant != 4 ? static_cast<std::size_t>(std::min(std::max(poly, 0), 8)) : 0;
  // The tile must fit the device's local memory (leave 1 KiB for the compiler); if not even one
  // CHUNK of samples fits, read samples from global memory instead.
  const std::size_t elem = p.dbl ? 8 : 4;
  const std::size_t local = ctx.info().local_mem_bytes > 2048 ? ctx.info().local_mem_bytes - 1024 : 0;
  if (p.variant == 2 || p.variant == 3) {
    while (p.tile > k_chunk && p.tile * p.sample_stride() * elem > local) p.tile /= 2;
    if (p.tile * p.sample_stride() * elem > local) p.variant = 1, p.vec = false;
  }
  return p;
}

std::string common_options(const detail::ContextImpl& ctx, const Plan& p, const char* op) {
  std::string o = build::base_options(ctx, p.dbl, op);
  o += " -DDIM=" + std::to_string(p.d) + " -DKERN=" + std::to_string(p.kern) + " -DFORM=" + (p.radial ? "1" : "0") +
       " -DDOT=" + (p.dot ? "1" : "0") + " -DWEIGHTED=" + (p.weighted ? "1" : "0") +
       " -DNATIVE_EXP=" + ((!p.dbl && ctx.tuning.native_exp) ? "1" : "0") +
       " -DNV_PTX=" + ((!p.dbl && ctx.tuning.ptx) ? "1" : "0") +
       " -DSUBNORMAL_ZERO=" + (ctx.info().type == DeviceType::cpu ? "1" : "0") +
       " -DSSTRIDE=" + std::to_string(p.sample_stride()) + " -DVEC=" + (p.vec ? "1" : "0") +
       " -DCDF=" + (p.cdf ? "1" : "0");
  return o;
}

}  // namespace kde_detail
}  // namespace clstat
