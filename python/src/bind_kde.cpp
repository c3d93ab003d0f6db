// kde() and grid(): densities at points and on regular grids.
#include <pybind11/stl.h>

#include "common.hpp"

namespace clstat_py {

namespace {

clstat::Kernel kernel_of(const std::string& k) {
  static const std::pair<const char*, clstat::Kernel> names[] = {
      {"gaussian", clstat::Kernel::gaussian},     {"epanechnikov", clstat::Kernel::epanechnikov},
      {"biweight", clstat::Kernel::biweight},     {"triweight", clstat::Kernel::triweight},
      {"triangular", clstat::Kernel::triangular}, {"uniform", clstat::Kernel::uniform},
      {"cosine", clstat::Kernel::cosine}};
  for (const auto& [name, kern] : names)
    if (k == name) return kern;
  throw py::value_error("unknown kernel '" + k + "' (gaussian, epanechnikov, biweight, triweight, triangular, uniform, cosine)");
}

// A scalar h, a length-d vector of h_k, or a (d, d) matrix H.
clstat::Bandwidth bandwidth_of(const py::object& b, std::size_t d) {
  if (py::isinstance<py::float_>(b) || py::isinstance<py::int_>(b)) return clstat::Bandwidth::scalar(b.cast<double>());
  F64 a = F64::ensure(b);
  if (!a) throw py::value_error("bandwidth must be a number, a length-d array or a (d, d) matrix");
  std::vector<double> v(a.data(), a.data() + a.size());
  if (a.ndim() == 0) return clstat::Bandwidth::scalar(v.at(0));
  if (a.ndim() == 1) return clstat::Bandwidth::per_dimension(v);
  if (a.ndim() == 2 && static_cast<std::size_t>(a.shape(0)) == d && static_cast<std::size_t>(a.shape(1)) == d)
    return clstat::Bandwidth::matrix(v);
  throw py::value_error("a bandwidth matrix must be (d, d) = (" + std::to_string(d) + ", " + std::to_string(d) + ")");
}

// The options kde and kde_cdf share: kernel, precision, log, weights.
clstat::KdeOptions options_of(const std::string& kernel, const std::string& precision, bool log,
                              const py::object& weights) {
  clstat::KdeOptions o;
  o.kernel = kernel_of(kernel);
  if (precision == "float32") o.precision = clstat::Precision::float32;
  else if (precision != "float64") throw py::value_error("precision must be 'float64' or 'float32'");
  o.log_density = log;
  if (!weights.is_none()) {
    F64 w = F64::ensure(weights);
    o.weights.assign(w.data(), w.data() + w.size());
  }
  return o;
}

}  // namespace

void bind_kde(py::module_& m) {
  m.def(
      "kde",
      [](F64 samples, py::object points, const std::string& kernel, py::object bandwidth, py::object weights,
         const std::string& precision, bool log, bool loo, py::object ctx, const std::string& boundary,
         py::object lower, py::object upper) {
        std::size_t n, d, m_, dm;
        shape_2d(samples, "samples", n, d);
        clstat::KdeOptions o = options_of(kernel, precision, log, weights);
        o.bandwidth = bandwidth_of(bandwidth, d);
        o.leave_one_out = loo;
        using M = clstat::KdeBoundary::Method;
        if (boundary == "reflection") o.boundary.method = M::reflection;
        else if (boundary == "renormalisation") o.boundary.method = M::renormalisation;
        else if (boundary == "log") o.boundary.method = M::log_transform;
        else if (boundary != "none")
          throw py::value_error("boundary must be 'none', 'reflection', 'renormalisation' or 'log'");
        for (auto [side, v] : {std::pair{&lower, &o.boundary.lower}, std::pair{&upper, &o.boundary.upper}})
          if (!side->is_none()) {
            F64 b = F64::ensure(*side);
            v->assign(b.data(), b.data() + b.size());
          }
        std::vector<double> f;
        if (points.is_none()) {
          if (py::isinstance<clstat::DeviceGroup>(ctx))
            throw py::value_error("a DeviceGroup splits the points: give points (the densities at the samples take one device)");
          const clstat::Context& c = context_of(ctx);
          py::gil_scoped_release nogil;
          f = clstat::kde_at_samples(c, samples.data(), n, d, o);
        } else {
          if (loo) throw py::value_error("loo=True evaluates at the samples: leave points=None");
          F64 y = F64::ensure(points);
          shape_2d(y, "points", m_, dm);
          if (dm != d) throw py::value_error("points have " + std::to_string(dm) + " columns, samples " + std::to_string(d));
          on_target(ctx, [&](const auto& on) {
            py::gil_scoped_release nogil;
            f = clstat::kde(on, samples.data(), n, d, y.data(), m_, o);
            return 0;
          });
        }
        return to_numpy(std::move(f));
      },
      py::arg("samples"), py::arg("points") = py::none(), py::arg("kernel") = "gaussian", py::arg("bandwidth") = 1.0,
      py::arg("weights") = py::none(), py::arg("precision") = "float64", py::arg("log") = false,
      py::arg("loo") = false, py::arg("ctx") = py::none(), py::arg("boundary") = "none",
      py::arg("lower") = py::none(), py::arg("upper") = py::none());

  m.def(
      "kde_cdf",
      [](F64 samples, F64 points, const std::string& kernel, double h, py::object weights, const std::string& precision,
         bool log, py::object ctx) {
        if (samples.ndim() != 1 || points.ndim() != 1) throw py::value_error("kde_cdf takes 1-d samples and points");
        clstat::KdeOptions o = options_of(kernel, precision, log, weights);
        o.bandwidth = clstat::Bandwidth::scalar(h);
        std::vector<double> f;
        on_target(ctx, [&](const auto& on) {
          py::gil_scoped_release nogil;
          f = clstat::kde_cdf(on, samples.data(), static_cast<std::size_t>(samples.size()), points.data(),
                              static_cast<std::size_t>(points.size()), o);
          return 0;
        });
        return to_numpy(std::move(f));
      },
      py::arg("samples"), py::arg("points"), py::arg("kernel") = "gaussian", py::arg("bandwidth") = 1.0,
      py::arg("weights") = py::none(), py::arg("precision") = "float64", py::arg("log") = false,
      py::arg("ctx") = py::none());

  m.def(
      "kde_sample",
      [](F64 samples, std::size_t count, std::uint64_t seed, const std::string& kernel, py::object bandwidth,
         py::object weights, py::object ctx) {
        std::size_t n, d;
        shape_2d(samples, "samples", n, d);
        clstat::KdeOptions o = options_of(kernel, "float64", false, weights);
        o.bandwidth = bandwidth_of(bandwidth, d);
        const clstat::Context& c = context_of(ctx);
        std::vector<double> v;
        {
          py::gil_scoped_release nogil;
          v = clstat::kde_sample(c, samples.data(), n, d, count, seed, o);
        }
        return to_numpy(std::move(v), {static_cast<py::ssize_t>(count), static_cast<py::ssize_t>(d)});
      },
      py::arg("samples"), py::arg("count"), py::arg("seed") = 0, py::arg("kernel") = "gaussian",
      py::arg("bandwidth") = 1.0, py::arg("weights") = py::none(), py::arg("ctx") = py::none());

  m.def(
      "grid",
      [](F64 samples, std::vector<double> lower, std::vector<double> upper, std::vector<std::size_t> size,
         const std::string& kernel, py::object h, py::object ctx) {
        std::size_t n, d;
        shape_2d(samples, "samples", n, d);
        clstat::GridSpec g{lower, upper, size};
        clstat::GridOptions o;
        o.kernel = kernel_of(kernel);
        o.bandwidth = clstat::Bandwidth::scaled_covariance(h.is_none() ? clstat::grid_normal_scale(o.kernel, d, n)
                                                                      : h.cast<double>());
        std::vector<double> v = on_target(ctx, [&](const auto& target) {
          py::gil_scoped_release nogil;
          return clstat::evaluate_grid(target, samples.data(), n, d, g, o);
        });
        return to_numpy(std::move(v), std::vector<py::ssize_t>(size.begin(), size.end()));
      },
      py::arg("samples"), py::arg("lower"), py::arg("upper"), py::arg("size"), py::arg("kernel") = "epanechnikov",
      py::arg("h") = py::none(), py::arg("ctx") = py::none());
}

}  // namespace clstat_py
