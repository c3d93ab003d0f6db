// Shared by the binding files: NumPy array access, the context a call runs on, and the rule
// that the GIL is released for every device call.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <memory>
#include <string>
#include <vector>

#include "clstat/clstat.hpp"

namespace clstat_py {

namespace py = pybind11;

/// A float64, C-contiguous view of `a`: the caller's buffer when it already is one (no copy),
/// else one converted copy (py::array_t's forcecast).
using F64 = py::array_t<double, py::array::c_style | py::array::forcecast>;

/// The context of a call: `ctx` when given, else the module's default (made on first use, on
/// clstat's default device).
const clstat::Context& context_of(const py::object& ctx);

/// Rows and columns of a 1-d (n,) or 2-d (n, d) array; throws ValueError otherwise.
void shape_2d(const py::array& a, const char* what, std::size_t& n, std::size_t& d);

/// A new 1-d float64 NumPy array holding v.
py::array_t<double> to_numpy(const std::vector<double>& v);

/// The order statistics' options for NumPy's nan argument ('propagate', 'omit' or 'raise').
clstat::order::Options order_options(const std::string& nan);

void bind_kde(py::module_& m);
void bind_bandwidth(py::module_& m);
void bind_stable(py::module_& m);
void bind_order(py::module_& m);
void bind_robust(py::module_& m);
void bind_device(py::module_& m);

}  // namespace clstat_py
