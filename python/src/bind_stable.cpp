// Alpha-stable laws with SciPy's argument order (x, alpha, beta, loc, scale) and its
// parameterisation names ("S0", "S1").
#include <pybind11/stl.h>

#include "common.hpp"

namespace clstat_py {

namespace st = clstat::stable;

namespace {

st::Params law(double alpha, double beta, double loc, double scale, const std::string& param) {
  st::Params p{alpha, beta, scale, loc, st::Param::S0};
  if (param == "S1") p.param = st::Param::S1;
  else if (param != "S0") throw py::value_error("parameterization must be 'S0' or 'S1', not '" + param + "'");
  return p;
}

using Fn = std::vector<double> (*)(const clstat::Context&, const double*, std::size_t, const st::Params&);

void def_fn(py::module_& m, const char* name, Fn f) {
  m.def(
      name,
      [f](F64 x, double alpha, double beta, double loc, double scale, const std::string& param, py::object ctx) {
        const st::Params p = law(alpha, beta, loc, scale, param);
        const clstat::Context& c = context_of(ctx);
        const std::size_t n = static_cast<std::size_t>(x.size());
        std::vector<double> v;
        {
          py::gil_scoped_release nogil;
          v = f(c, x.data(), n, p);
        }
        return to_numpy(std::move(v), std::vector<py::ssize_t>(x.shape(), x.shape() + x.ndim()));
      },
      py::arg("x"), py::arg("alpha"), py::arg("beta"), py::arg("loc") = 0.0, py::arg("scale") = 1.0,
      py::arg("parameterization") = "S0", py::arg("ctx") = py::none());
}

}  // namespace

void bind_stable(py::module_& m) {
  def_fn(m, "stable_pdf", &st::pdf);
  def_fn(m, "stable_logpdf", &st::logpdf);
  def_fn(m, "stable_cdf", &st::cdf);
  def_fn(m, "stable_sf", &st::sf);
  def_fn(m, "stable_ppf", [](const clstat::Context& c, const double* q, std::size_t n, const st::Params& p) {
    return st::quantile(c, q, n, p);
  });
  def_fn(m, "stable_isf", [](const clstat::Context& c, const double* q, std::size_t n, const st::Params& p) {
    return st::isf(c, q, n, p);
  });
  m.def(
      "stable_rvs",
      [](double alpha, double beta, double loc, double scale, std::size_t size, std::uint64_t seed,
         const std::string& param, py::object ctx) {
        const st::Params p = law(alpha, beta, loc, scale, param);
        const clstat::Context& c = context_of(ctx);
        std::vector<double> v;
        {
          py::gil_scoped_release nogil;
          v = st::sample(c, size, p, seed);
        }
        return to_numpy(std::move(v));
      },
      py::arg("alpha"), py::arg("beta"), py::arg("loc") = 0.0, py::arg("scale") = 1.0, py::arg("size") = 1,
      py::arg("seed") = 1, py::arg("parameterization") = "S0", py::arg("ctx") = py::none());
  m.def(
      "stable_fit",
      [](F64 data, const std::string& method, const std::string& param, py::object ctx) {
        st::FitOptions o;
        if (method == "mle") o.method = st::FitMethod::mle;
        else if (method == "mcculloch") o.method = st::FitMethod::mcculloch;
        else if (method == "koutrouvelis") o.method = st::FitMethod::koutrouvelis;
        else throw py::value_error("method must be 'mle', 'mcculloch' or 'koutrouvelis'");
        o.param = law(1, 0, 0, 1, param).param;
        const clstat::Context& c = context_of(ctx);
        st::FitResult r;
        {
          py::gil_scoped_release nogil;
          r = st::fit(c, data.data(), static_cast<std::size_t>(data.size()), o);
        }
        py::dict out;
        out["alpha"] = r.params.alpha;
        out["beta"] = r.params.beta;
        out["loc"] = r.params.loc;
        out["scale"] = r.params.scale;
        out["se_alpha"] = r.se_alpha;
        out["se_beta"] = r.se_beta;
        out["se_loc"] = r.se_loc;
        out["se_scale"] = r.se_scale;
        out["loglik"] = r.loglik;
        out["converged"] = r.converged;
        out["iterations"] = r.iterations;
        return out;
      },
      py::arg("data"), py::arg("method") = "mle", py::arg("parameterization") = "S0", py::arg("ctx") = py::none());
}

}  // namespace clstat_py
