// Robust regression: LTS (robustbase::ltsReg's fields), LMS (MASS::lqs's) and MM
// (robustbase::lmrob's); the MCD (robustbase::covMcd's).
#include <pybind11/stl.h>

#include "common.hpp"

namespace clstat_py {

namespace rb = clstat::robust;

namespace {
// Rows n and columns p of X, with y of n values; ValueError otherwise.
void design_shape(const F64& X, const F64& y, std::size_t& n, std::size_t& p) {
  shape_2d(X, "X", n, p);
  if (static_cast<std::size_t>(y.size()) != n)
    throw py::value_error("y has " + std::to_string(y.size()) + " values, X " + std::to_string(n) + " rows");
}

}  // namespace

void bind_robust(py::module_& m) {
  m.def(
      "mm",
      [](F64 X, F64 y, bool intercept, std::size_t nsamp, std::uint64_t seed, py::object ctx) {
        std::size_t n, p;
        design_shape(X, y, n, p);
        rb::MmOptions o;
        o.intercept = intercept;
        o.nsamp = nsamp;
        o.seed = seed;
        const clstat::Context& c = context_of(ctx);
        rb::MmFit f;
        {
          py::gil_scoped_release nogil;
          f = rb::mm(c, X.data(), n, p, y.data(), o);
        }
        const std::vector<py::ssize_t> qq{static_cast<py::ssize_t>(f.q), static_cast<py::ssize_t>(f.q)};
        py::dict out;
        out["coefficients"] = to_numpy(f.coefficients);
        out["std_errors"] = to_numpy(f.std_errors);
        out["cov"] = to_numpy(f.cov, qq);
        out["scale"] = f.scale;
        out["init_coefficients"] = to_numpy(f.init_coefficients);
        out["residuals"] = to_numpy(f.residuals);
        out["weights"] = to_numpy(f.weights);
        out["outliers"] = to_numpy<std::int64_t>(f.outliers);
        out["converged"] = f.converged;
        return out;
      },
      py::arg("X"), py::arg("y"), py::arg("intercept") = true, py::arg("nsamp") = 500, py::arg("seed") = 0x5eed5eedULL,
      py::arg("ctx") = py::none());
  m.def(
      "mcd",
      [](F64 X, double alpha, std::size_t nsamp, std::uint64_t seed, bool use_correction, py::object ctx) {
        std::size_t n, p;
        shape_2d(X, "X", n, p);
        rb::McdOptions o;
        o.alpha = alpha;
        o.nsamp = nsamp;
        o.seed = seed;
        o.use_correction = use_correction;
        const clstat::Context& c = context_of(ctx);
        rb::McdFit f;
        {
          py::gil_scoped_release nogil;
          f = rb::mcd(c, X.data(), n, p, o);
        }
        const std::vector<py::ssize_t> pp{static_cast<py::ssize_t>(p), static_cast<py::ssize_t>(p)};
        py::dict out;
        out["center"] = to_numpy(f.center);
        out["cov"] = to_numpy(f.cov, pp);
        out["raw_center"] = to_numpy(f.raw_center);
        out["raw_cov"] = to_numpy(f.raw_cov, pp);
        out["crit"] = f.crit;
        out["mahalanobis"] = to_numpy(f.mahalanobis);
        out["raw_mahalanobis"] = to_numpy(f.raw_mahalanobis);
        out["weights"] = to_numpy(f.weights);
        out["outliers"] = to_numpy<std::int64_t>(f.outliers);
        out["best"] = to_numpy<std::int64_t>(f.best);
        out["h"] = f.h;
        out["cutoff"] = f.cutoff;
        out["exact_fit"] = f.exact_fit;
        return out;
      },
      py::arg("X"), py::arg("alpha") = 0.5, py::arg("nsamp") = 500, py::arg("seed") = 0x5eed5eedULL,
      py::arg("use_correction") = true, py::arg("ctx") = py::none());
  m.def(
      "lts",
      [](F64 X, F64 y, double alpha, bool intercept, std::size_t nsamp, std::uint64_t seed, py::object ctx) {
        std::size_t n, p;
        design_shape(X, y, n, p);
        rb::LtsOptions o;
        o.alpha = alpha;
        o.intercept = intercept;
        o.nsamp = nsamp;
        o.seed = seed;
        const rb::LtsFit f = on_target(ctx, [&](const auto& target) {
          py::gil_scoped_release nogil;
          return rb::lts(target, X.data(), n, p, y.data(), o);
        });
        py::dict out;
        out["coefficients"] = to_numpy(f.coefficients);
        out["scale"] = f.scale;
        out["raw_coefficients"] = to_numpy(f.raw_coefficients);
        out["raw_scale"] = f.raw_scale;
        out["residuals"] = to_numpy(f.residuals);
        out["weights"] = to_numpy(f.weights);
        out["outliers"] = to_numpy<std::int64_t>(f.outliers);
        out["best"] = to_numpy<std::int64_t>(f.best);
        out["h"] = f.h;
        out["objective"] = f.objective;
        return out;
      },
      py::arg("X"), py::arg("y"), py::arg("alpha") = 0.5, py::arg("intercept") = true, py::arg("nsamp") = 500,
      py::arg("seed") = 0x5eed5eedULL, py::arg("ctx") = py::none());
  m.def(
      "lms",
      [](F64 X, F64 y, std::size_t h, bool intercept, std::size_t nsamp, std::uint64_t seed, py::object ctx) {
        std::size_t n, p;
        design_shape(X, y, n, p);
        rb::LmsOptions o;
        o.h = h;
        o.intercept = intercept;
        o.nsamp = nsamp;
        o.seed = seed;
        const clstat::Context& c = context_of(ctx);
        rb::LmsFit f;
        {
          py::gil_scoped_release nogil;
          f = rb::lms(c, X.data(), n, p, y.data(), o);
        }
        py::dict out;
        out["coefficients"] = to_numpy(f.coefficients);
        out["crit"] = f.crit;
        out["scale"] = py::make_tuple(f.scale[0], f.scale[1]);
        out["residuals"] = to_numpy(f.residuals);
        out["outliers"] = to_numpy<std::int64_t>(f.outliers);
        out["best"] = to_numpy<std::int64_t>(f.best);
        out["h"] = f.h;
        return out;
      },
      py::arg("X"), py::arg("y"), py::arg("h") = 0, py::arg("intercept") = true, py::arg("nsamp") = 3000,
      py::arg("seed") = 0x5eed5eedULL, py::arg("ctx") = py::none());
}

}  // namespace clstat_py
