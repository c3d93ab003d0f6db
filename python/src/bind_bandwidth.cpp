// Bandwidth selectors; results in data units (h per dimension, H as a (d, d) matrix).
#include <pybind11/stl.h>

#include "common.hpp"

namespace clstat_py {

namespace {
py::array_t<double> square(const std::vector<double>& v, std::size_t d) {
  return to_numpy(v, {static_cast<py::ssize_t>(d), static_cast<py::ssize_t>(d)});
}
}  // namespace

void bind_bandwidth(py::module_& m) {
  namespace bw = clstat::bandwidth;
  auto host = [](std::vector<double> (*f)(const double*, std::size_t, std::size_t), bool matrix) {
    return [f, matrix](F64 x) -> py::object {
      std::size_t n, d;
      shape_2d(x, "x", n, d);
      const auto v = f(x.data(), n, d);
      return matrix ? py::object(square(v, d)) : py::object(to_numpy(v));
    };
  };
  m.def("bw_normal_scale", host(&bw::normal_scale, true), py::arg("x"));
  m.def("bw_scott", host(&bw::scott, true), py::arg("x"));
  m.def("bw_silverman", host(&bw::silverman_rot, false), py::arg("x"));
  m.def(
      "bw_plugin",
      [](F64 x, int stages, const std::string& scale, py::object ctx) {
        std::size_t n, d;
        shape_2d(x, "x", n, d);
        bw::PluginOptions o;
        o.stages = stages;
        if (scale == "sd") o.scale = bw::Scale::sd;
        else if (scale != "minim") throw py::value_error("scale must be 'minim' or 'sd'");
        return on_target(ctx, [&](const auto& target) {
          py::gil_scoped_release nogil;
          return bw::plugin(target, x.data(), n, d, o);
        });
      },
      py::arg("x"), py::arg("stages") = 2, py::arg("scale") = "minim", py::arg("ctx") = py::none());
  m.def(
      "bw_scv_h",
      [](F64 x, int stages, py::object ctx) {
        std::size_t n, d;
        shape_2d(x, "x", n, d);
        const clstat::Context& c = context_of(ctx);
        py::gil_scoped_release nogil;
        return bw::scv_h(c, x.data(), n, d, bw::ScvOptions{stages});
      },
      py::arg("x"), py::arg("stages") = 2, py::arg("ctx") = py::none());
  m.def(
      "bw_lscv_h",
      [](F64 x, std::size_t grid, py::object ctx) {
        std::size_t n, d;
        shape_2d(x, "x", n, d);
        bw::LscvOptions o;
        o.grid = grid;
        const bw::LscvResult r = on_target(ctx, [&](const auto& target) {
          py::gil_scoped_release nogil;
          return bw::lscv_h(target, x.data(), n, d, o);
        });
        py::dict out;
        out["h"] = to_numpy(r.h);
        out["H"] = square(r.H, d);
        out["multiplier"] = r.multiplier;
        out["objective"] = r.objective;
        out["at_boundary"] = r.at_boundary;
        return out;
      },
      py::arg("x"), py::arg("grid") = 150, py::arg("ctx") = py::none());
  m.def(
      "bw_lscv_H",
      [](F64 x, py::object ctx) {
        std::size_t n, d;
        shape_2d(x, "x", n, d);
        const bw::LscvMatrixResult r = on_target(ctx, [&](const auto& target) {
          py::gil_scoped_release nogil;
          return bw::lscv_H(target, x.data(), n, d);
        });
        py::dict out;
        out["H"] = square(r.H, d);
        out["objective"] = r.objective;
        out["converged"] = r.converged;
        return out;
      },
      py::arg("x"), py::arg("ctx") = py::none());
  // plugin_H and scv_H: one binding, `scv` picks the criterion.
  auto matrix_selector = [](bool scv) {
    return [scv](F64 x, int stages, const std::string& pilot, py::object ctx) {
        std::size_t n, d;
        shape_2d(x, "x", n, d);
        bw::MatrixSelectorOptions o;
        o.stages = stages;
        o.pilot = bw::matrix_pilot(pilot);
        const clstat::Context& c = context_of(ctx);
        bw::MatrixSelectorResult r;
        {
          py::gil_scoped_release nogil;
          r = scv ? bw::scv_H(c, x.data(), n, d, o) : bw::plugin_H(c, x.data(), n, d, o);
        }
        py::dict out;
        out["H"] = square(r.H, d);
        out["H_sphered"] = square(r.H_sphered, d);
        out["criterion"] = r.criterion;
        out["pilot_g"] = r.pilot_g;
        out["pilot"] = r.pilot == bw::MatrixPilot::dscalar ? "dscalar" : r.pilot == bw::MatrixPilot::samse ? "samse" : "samse-ks";
        out["iterations"] = r.iterations;
        out["converged"] = r.converged;
        return out;
    };
  };
  m.def("bw_plugin_H", matrix_selector(false), py::arg("x"), py::arg("stages") = 2, py::arg("pilot") = "auto",
        py::arg("ctx") = py::none());
  m.def("bw_scv_H", matrix_selector(true), py::arg("x"), py::arg("stages") = 2, py::arg("pilot") = "auto",
        py::arg("ctx") = py::none());
}

}  // namespace clstat_py
