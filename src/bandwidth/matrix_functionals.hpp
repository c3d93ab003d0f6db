// Internal: the pieces the matrix selectors (plugin_H, scv_H) share, all in the sphered
// coordinates x* = (x - mean) S^(-1/2): the pilot bandwidths of ks's Hpi and Hscv, and the
// derivative functionals psi_c = n^-2 sum_{i,j} D^c phi_G(X*_i - X*_j) from pair sums on the
// device (pair_sums.cl, TERM 4). Multi-indices c are counts per dimension.
#pragma once

#include <Eigen/Dense>
#include <cstddef>
#include <vector>

#include "bandwidth/bandwidth_input.hpp"
#include "bandwidth/pair_sums.hpp"
#include "clstat/bandwidth.hpp"
#include "clstat/runtime.hpp"

namespace clstat::bandwidth_detail {

/// The sphered data (n x d, centred) and S^(1/2); `covariance`'s errors.
struct Sphered {
  Mat xs, S12;
};
Sphered sphere(const char* op, const double* x, std::size_t n, std::size_t d);

/// The checks plugin_H and scv_H share (std::invalid_argument naming `op`, UnsupportedFeature
/// without fp64): the data as every selector's, d in 2..6 (`one_d` names the 1-d form), stages 1
/// or 2, a known pilot (samse_ks only where `allow_samse_ks`).
void check_matrix_selector(const char* op, const Context& ctx, const double* x, std::size_t n, std::size_t d,
                           const bandwidth::MatrixSelectorOptions& o, const char* one_d, bool allow_samse_ks);

/// He_k(0): 0 for odd k, (-1)^(k/2) (k - 1)!! for even k.
double hermite_at_zero(unsigned k);
/// The multi-indices of `order` in d dimensions (all counts even when `even`), first dimension
/// slowest, counts descending.
std::vector<std::vector<unsigned>> multi_indices(std::size_t d, unsigned order, bool even);
/// The counts of the base-d digits of t (`order` digits): the multi-index of entry t of a d^order
/// derivative vector (ks's and the Kronecker product's order).
std::vector<unsigned> digit_counts(std::size_t t, std::size_t d, unsigned order);
/// D^c phi_{s^2 I}(0) for a multi-index c of even total order.
double normal_derivative_at_zero(const std::vector<unsigned>& c, double s);

/// ks's gdscalar: the scalar pilot for psi_4 (1 stage) or for eta_6, the Laplacian cubed, that
/// the second stage estimates (2 stages); `scv` selects Hscv's constants. ks's exponent
/// 1 / (d + 8) in both.
double dscalar_normal_pilot(std::size_t d, double n, int stages, bool scv);
/// gdscalar's second stage: the psi_4 pilot from eta_6.
double dscalar_second_pilot(std::size_t d, double n, double eta6, bool scv);
/// eta_6 from its pair sum at pilot g (the radial output of a Hermite pass at rows x* / g).
double eta6_of(std::size_t d, double pair_sum, double g, double n);

/// ks's gsamse (Duong & Hazelton 2003): one g for all order-`order` functionals, from psi[a] =
/// sum_j psi_{a + 2 e_j} over the all-even multi-indices a of that order (multi_indices order).
double samse_pilot(std::size_t d, double n, unsigned order, const std::vector<double>& psi);
/// The distinct order-6 multi-indices of d dimensions in ks's order (of first appearance in the
/// d^6 vector). O(d^6 C(d+5, 6)): build it once per call of a selector.
std::vector<std::vector<unsigned>> ks_distinct6(std::size_t d);
/// The entry ks 1.14's two-stage SAMSE pilot reads for the order-6 multi-index c (its lookup slip:
/// c's place in `distinct` (ks_distinct6) used as an index into the full d^6 vector).
std::vector<unsigned> ks_samse_read(const std::vector<unsigned>& c, const std::vector<std::vector<unsigned>>& distinct);

// sum_j of f(a + 2 e_j) over the all-even multi-indices a of `order`.
template <class F>
std::vector<double> laplacian_contractions(std::size_t d, unsigned order, F&& f) {
  std::vector<double> out;
  for (auto a : multi_indices(d, order, true)) {
    double s = 0;
    for (std::size_t j = 0; j < d; ++j) {
      a[j] += 2;
      s += f(a);
      a[j] -= 2;
    }
    out.push_back(s);
  }
  return out;
}

/// The pair sums over i < j of w prod_a He_{c_a}(u_a) (and the radial Laplacian cubed first when
/// terms.radial6), u = A (x*_i - x*_j), w = e^(-|u|^2 / 2), on q: one pass per 15 outputs, one
/// wait at the end. O(n^2 d / 2) per pass.
std::vector<double> hermite_sums(const Queue& q, const char* op, const Mat& xs, const Mat& A, const HermiteTerms& terms);
/// The same for several (A, terms) at once: every upload and pass enqueued, then one wait.
struct HermiteJob {
  Mat A;
  HermiteTerms terms;
};
std::vector<std::vector<double>> hermite_sums(const Queue& q, const char* op, const Mat& xs,
                                              const std::vector<HermiteJob>& jobs);

/// psi_c = n^-2 sum_{i,j} D^c phi_{g^2 I}(X*_i - X*_j) (the diagonal included, as ks's kfe) from
/// its pair sum over i < j at rows x* / g.
double functional_of(const std::vector<unsigned>& c, double pair_sum, double g, double n);

/// The plug-in matrix of sphered data (plugin_matrix.cpp): everything of the result but H (the
/// caller maps H_sphered back). o.pilot may be automatic.
bandwidth::MatrixSelectorResult plugin_sphered(const Queue& q, const char* op, const Mat& xs,
                                               const bandwidth::MatrixSelectorOptions& o);

}  // namespace clstat::bandwidth_detail
