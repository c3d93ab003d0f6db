// Alpha-stable laws with SciPy's argument order (x, alpha, beta, loc, scale) and its
// parameterisation names ("S0", "S1").
#include <pybind11/stl.h>

#include <array>

#include <type_traits>

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

// name(x, alpha, beta, loc, scale, parameterization, ctx, out): `values(on, x, n, law)` on the
// Context or DeviceGroup ctx holds; with `into` (pdf, logpdf, cdf, sf) out may name a float64
// C-contiguous array of x's size, written in place (x itself allowed) and returned.
template <class Values, class Into>
void def_fn(py::module_& m, const char* name, Values values, Into into) {
  m.def(
      name,
      [values, into, name](F64 x, double alpha, double beta, double loc, double scale, const std::string& param,
                           py::object ctx, py::object out) -> py::object {
        const st::Params p = law(alpha, beta, loc, scale, param);
        const std::size_t n = static_cast<std::size_t>(x.size());
        const std::vector<py::ssize_t> shape(x.shape(), x.shape() + x.ndim());
        if (!out.is_none()) {
          if constexpr (std::is_same_v<Into, std::nullptr_t>) {
            throw py::value_error(std::string(name) + ": out is for pdf, logpdf, cdf and sf");
          } else {
            if (!py::isinstance<py::array_t<double>>(out))
              throw py::value_error("out must be a float64 ndarray");
            auto o = out.cast<py::array_t<double>>();
            if (!(o.flags() & py::array::c_style) || !o.writeable() || static_cast<std::size_t>(o.size()) != n)
              throw py::value_error("out must be a writeable C-contiguous float64 array of x's size (" +
                                    std::to_string(n) + ")");
            double* dst = o.mutable_data();
            // x may be out itself (the values are uploaded before any is written back), or a
            // converted copy of the caller's array.
            on_target(ctx, [&](const auto& on) {
              py::gil_scoped_release nogil;
              into(on, x.data(), n, p, dst);
              return 0;
            });
            return out;
          }
        }
        std::vector<double> v;
        on_target(ctx, [&](const auto& on) {
          py::gil_scoped_release nogil;
          v = values(on, x.data(), n, p);
          return 0;
        });
        return to_numpy(std::move(v), shape);
      },
      py::arg("x"), py::arg("alpha"), py::arg("beta"), py::arg("loc") = 0.0, py::arg("scale") = 1.0,
      py::arg("parameterization") = "S0", py::arg("ctx") = py::none(), py::arg("out") = py::none());
}

}  // namespace

void bind_stable(py::module_& m) {
// The four functions with a form into caller memory, and the quantiles, on a Context or a group.
#define CLSTAT_PY_STABLE(fn)                                                                          \
  [](const auto& on, const double* x, std::size_t n, const st::Params& p) { return st::fn(on, x, n, p); }, \
      [](const auto& on, const double* x, std::size_t n, const st::Params& p, double* out) { st::fn(on, x, n, p, out); }
  def_fn(m, "stable_pdf", CLSTAT_PY_STABLE(pdf));
  def_fn(m, "stable_logpdf", CLSTAT_PY_STABLE(logpdf));
  def_fn(m, "stable_cdf", CLSTAT_PY_STABLE(cdf));
  def_fn(m, "stable_sf", CLSTAT_PY_STABLE(sf));
#undef CLSTAT_PY_STABLE
  def_fn(m, "stable_ppf",
         [](const auto& on, const double* q, std::size_t n, const st::Params& p) { return st::quantile(on, q, n, p); },
         nullptr);
  def_fn(m, "stable_isf",
         [](const auto& on, const double* q, std::size_t n, const st::Params& p) { return st::isf(on, q, n, p); },
         nullptr);
  m.def(
      "stable_rvs",
      [](double alpha, double beta, double loc, double scale, std::size_t size, std::uint64_t seed,
         const std::string& param, py::object ctx) {
        const st::Params p = law(alpha, beta, loc, scale, param);
        std::vector<double> v;
        on_target(ctx, [&](const auto& on) {
          py::gil_scoped_release nogil;
          v = st::sample(on, size, p, seed);
          return 0;
        });
        return to_numpy(std::move(v));
      },
      py::arg("alpha"), py::arg("beta"), py::arg("loc") = 0.0, py::arg("scale") = 1.0, py::arg("size") = 1,
      py::arg("seed") = 1, py::arg("parameterization") = "S0", py::arg("ctx") = py::none());
  m.def(
      "stable_log_likelihood",
      [](F64 data, const std::vector<std::array<double, 4>>& laws, const std::string& param, py::object ctx) {
        // One Context: the laws' passes are one device's (a group would split the data, as fit does).
        if (py::isinstance<clstat::DeviceGroup>(ctx))
          throw py::type_error("log_likelihood takes a Context, not a DeviceGroup");
        std::vector<st::Params> ps;
        for (const auto& l : laws) ps.push_back(law(l[0], l[1], l[2], l[3], param));
        std::vector<double> v;
        const clstat::Context& on = context_of(ctx);
        {
          py::gil_scoped_release nogil;
          v = st::log_likelihood(on, data.data(), static_cast<std::size_t>(data.size()), ps);
        }
        return to_numpy(std::move(v));
      },
      py::arg("data"), py::arg("laws"), py::arg("parameterization") = "S0", py::arg("ctx") = py::none());
  m.def(
      "stable_fit",
      [](F64 data, const std::string& method, const std::string& param, py::object ctx) {
        st::FitOptions o;
        if (method == "mle") o.method = st::FitMethod::mle;
        else if (method == "mcculloch") o.method = st::FitMethod::mcculloch;
        else if (method == "koutrouvelis") o.method = st::FitMethod::koutrouvelis;
        else throw py::value_error("method must be 'mle', 'mcculloch' or 'koutrouvelis'");
        o.param = law(1, 0, 0, 1, param).param;
        st::FitResult r;
        on_target(ctx, [&](const auto& on) {
          py::gil_scoped_release nogil;
          r = st::fit(on, data.data(), static_cast<std::size_t>(data.size()), o);
          return 0;
        });
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
