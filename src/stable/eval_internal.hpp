// Internal: the host side of the per-point kernels (cl/stable/stable_point.cl) that more than one
// file of src/stable uses: the laws' parameter table, the program and launch settings, the
// quadrature's tolerance and whether a call takes a law's interpolant.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "clstat/stable.hpp"
#include "runtime/impl.hpp"
#include "stable/interpolant.hpp"

namespace clstat::stable::eval_detail {

using LD = long double;
using UnitLaw = std::pair<double, double>;  // a unit law: S0 alpha, beta
constexpr std::size_t k_prm = 5;            // PRM in the kernel
// A law's interpolant takes at most this many quadrature evaluations (the 18 bench laws take 3e3
// to 2.3e4; near alpha = 1, where each costs five, a build could otherwise take a minute on two
// CPU cores). A constant, not a share of n, so that a law's table never depends on which call
// made it.
constexpr std::size_t k_interp_budget = std::size_t{1} << 15;
// The quadrature's refinement target, |K15 - G7| summed within this fraction of the value. That
// sum is G7's error and usually far above K15's, but not always: where e^-g falls from 1 to 0
// within one panel both rules can be equally wrong. With 1e-12, 2 points in 1e6 of the H100
// bench were 3e-11 off (alpha = 0.3, beta = 0.5, x = -8.2153; alpha = 1.9, beta = 0.5,
// x = -0.23178) with estimates of 3e-14; with 1e-13 both are exact to 1e-16. 1e-14 costs about
// 1.3 times as much again. Nolan's tables are matched to 3.7e-13 relative (pdf) and 1.2e-14
// absolute (cdf) either way.
constexpr double k_rel = 1e-13, k_quantile_rel = 1e-13;

/// The laws' parameter table (k_prm values a law, law_params), and each element's index into it:
/// empty when all elements share law 0 (each_element false) or element i has law i (each_element
/// true).
struct Laws {
  std::vector<double> prm;
  std::vector<cl_uint> pid;
  bool each_element = false;
  cl::Buffer ip;  // the one law's interpolant (stable_interp.clh); none when null
  int mode() const { return !pid.empty() ? 1 : each_element ? 2 : 0; }  // the kernel's `laws`
};

/// The kernel's k_prm parameters of law p (alpha, beta, gamma, the coordinate's origin as hi + lo).
void law_params(const Params& p, double* out);
/// Throws UnsupportedFeature naming op unless the device has fp64.
void check_device(const char* op, const detail::ContextImpl& ci);
/// The per-point kernels' work-group size (the tunable stable.wg).
std::size_t group_size(const detail::ContextImpl& ci);
/// stable_point's build options; paired: two or more integrals a point (pdf and cdf, ...).
std::string program_options(const detail::ContextImpl& ci, const char* op, bool paired);
/// The tunable stable.interp_points: from this many points a law without a closed form goes
/// through its interpolant.
std::size_t interp_points(const detail::ContextImpl& ci);
/// Whether a call of n points of law p takes the law's interpolant (n and the tuning alone).
bool takes_interp(const detail::ContextImpl& ci, const Params& p, std::size_t n);
/// The interpolants of the unit laws, built with tolerance rel (src/stable/interp_builds.cpp):
/// together, each refinement level of all of them in one quadrature pass; each table is the one
/// interp::build makes for its law alone. Speculative passes on GPUs.
std::vector<std::shared_ptr<const interp::Table>> build_interpolants(const Context& ctx, const char* op,
                                                                     const std::vector<UnitLaw>& laws, double rel);
/// The functions fns (and with errors their estimates) at x[0 .. n) under `laws`, one device pass.
Values run_eval(const Context& ctx, const char* op, unsigned fns, const double* x, std::size_t n, const Laws& laws,
                bool errors, double rel);

}  // namespace clstat::stable::eval_detail
