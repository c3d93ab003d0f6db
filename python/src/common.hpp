// Shared by the binding files: NumPy array access, the context a call runs on, and the rule
// that the GIL is released for every device call.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <memory>
#include <string>
#include <vector>

#include "clstat/clstat.hpp"
#include "clstat/group.hpp"

namespace clstat_py {

namespace py = pybind11;

/// A float64, C-contiguous view of `a`: the caller's buffer when it already is one (no copy),
/// else one converted copy (py::array_t's forcecast).
using F64 = py::array_t<double, py::array::c_style | py::array::forcecast>;

/// The context of a call: `ctx` when given, else the module's default (made on first use, on
/// clstat's default device).
const clstat::Context& context_of(const py::object& ctx);

/// Calls f with the DeviceGroup ctx holds, or with its Context (the default one for None).
template <class F>
auto on_target(const py::object& ctx, F&& f) {
  if (py::isinstance<clstat::DeviceGroup>(ctx)) return f(ctx.cast<const clstat::DeviceGroup&>());
  return f(context_of(ctx));
}

/// Rows and columns of a 1-d (n,) or 2-d (n, d) array; throws ValueError otherwise.
void shape_2d(const py::array& a, const char* what, std::size_t& n, std::size_t& d);

/// A new NumPy array of element type T holding v (converted element by element), 1-d, or of
/// `shape` (whose product must be v.size()).
template <class T = double, class V>
py::array_t<T> to_numpy(const std::vector<V>& v, std::vector<py::ssize_t> shape = {}) {
  if (shape.empty()) shape.push_back(static_cast<py::ssize_t>(v.size()));
  py::array_t<T> out(shape);
  std::copy(v.begin(), v.end(), out.mutable_data());
  return out;
}

/// The same without a copy for a temporary vector of doubles: the array takes over v's storage
/// (a capsule frees it with the array), so large results cost no host copy.
inline py::array_t<double> to_numpy(std::vector<double>&& v, std::vector<py::ssize_t> shape = {}) {
  if (shape.empty()) shape.push_back(static_cast<py::ssize_t>(v.size()));
  auto* owned = new std::vector<double>(std::move(v));
  py::capsule free_it(owned, [](void* p) { delete static_cast<std::vector<double>*>(p); });
  return py::array_t<double>(shape, owned->data(), free_it);
}

/// torch.topk's pair: the values (in their type) and their int64 indices.
template <class T>
py::tuple topk_tuple(const clstat::order::TopK<T>& r) {
  return py::make_tuple(to_numpy<T>(r.values), to_numpy<std::int64_t>(r.indices));
}

/// The order statistics' options for NumPy's nan argument ('propagate', 'omit' or 'raise').
clstat::order::Options order_options(const std::string& nan);

void bind_kde(py::module_& m);
void bind_bandwidth(py::module_& m);
void bind_stable(py::module_& m);
void bind_order(py::module_& m);
void bind_robust(py::module_& m);
void bind_device(py::module_& m);

}  // namespace clstat_py
