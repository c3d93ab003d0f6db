// Exact order statistics; float32, float64, int32 and int64 arrays are read in their own type
// (float32 stays float32), anything else is converted to float64.
#include <pybind11/stl.h>

#include <cstdint>

#include <clstat/group.hpp>

#include "common.hpp"

namespace clstat_py {

namespace od = clstat::order;

od::Options order_options(const std::string& nan) {
  od::Options o;
  if (nan == "omit") o.nan = od::NanPolicy::omit;
  else if (nan == "raise") o.nan = od::NanPolicy::raise;
  else if (nan != "propagate") throw py::value_error("nan must be 'propagate', 'omit' or 'raise'");
  return o;
}

namespace {

// Calls f with a typed, C-contiguous array for a's dtype.
template <class F>
auto dispatch(const py::array& a, F&& f) {
  if (py::isinstance<py::array_t<float>>(a))
    return f(py::array_t<float, py::array::c_style | py::array::forcecast>::ensure(a));
  if (py::isinstance<py::array_t<std::int32_t>>(a))
    return f(py::array_t<std::int32_t, py::array::c_style | py::array::forcecast>::ensure(a));
  if (py::isinstance<py::array_t<std::int64_t>>(a))
    return f(py::array_t<std::int64_t, py::array::c_style | py::array::forcecast>::ensure(a));
  return f(F64::ensure(a));
}

}  // namespace

void bind_order(py::module_& m) {
  // ctx may be a DeviceGroup (the data split across its members, the same values) for median,
  // quantiles and kth_smallest of a whole array and of the rows of a 2-d one.
  m.def(
      "median",
      [](py::array a, const std::string& nan, py::object ctx) {
        const od::Options o = order_options(nan);
        return on_target(ctx, [&](const auto& on) {
          return dispatch(a, [&](auto t) {
            py::gil_scoped_release nogil;
            return od::median(on, t.data(), static_cast<std::size_t>(t.size()), o);
          });
        });
      },
      py::arg("a"), py::arg("nan") = "propagate", py::arg("ctx") = py::none());
  m.def(
      "quantiles",
      [](py::array a, std::vector<double> probs, int type, const std::string& nan, py::object ctx) {
        const od::Options o = order_options(nan);
        return on_target(ctx, [&](const auto& on) {
          return to_numpy(dispatch(a, [&](auto t) {
            py::gil_scoped_release nogil;
            return od::quantiles(on, t.data(), static_cast<std::size_t>(t.size()), probs, type, o);
          }));
        });
      },
      py::arg("a"), py::arg("probs"), py::arg("type") = 7, py::arg("nan") = "propagate", py::arg("ctx") = py::none());
  // Weighted (type 1 or 7) on one device; the weights in float64.
  m.def(
      "weighted_quantiles",
      [](py::array a, py::array w, std::vector<double> probs, int type, const std::string& nan, py::object ctx) {
        const od::Options o = order_options(nan);
        const clstat::Context& c = context_of(ctx);
        const auto wt = F64::ensure(w);
        if (static_cast<std::size_t>(wt.size()) != static_cast<std::size_t>(a.size()))
          throw py::value_error("weights must have the shape of a");
        return to_numpy(dispatch(a, [&](auto t) {
          py::gil_scoped_release nogil;
          return od::weighted_quantiles(c, t.data(), wt.data(), static_cast<std::size_t>(t.size()), probs, type, o);
        }));
      },
      py::arg("a"), py::arg("weights"), py::arg("probs"), py::arg("type"), py::arg("nan") = "propagate",
      py::arg("ctx") = py::none());
  // Weighted along rows: a and weights C-contiguous (rows, cols) of the same shape.
  m.def(
      "weighted_quantiles_rows",
      [](py::array a, py::array w, std::vector<double> probs, int type, const std::string& nan, py::object ctx) {
        if (a.ndim() != 2) throw py::value_error("weighted_quantiles_rows needs a 2-d array");
        const od::Options o = order_options(nan);
        const clstat::Context& c = context_of(ctx);
        const auto wt = F64::ensure(w);
        if (static_cast<std::size_t>(wt.size()) != static_cast<std::size_t>(a.size()))
          throw py::value_error("weights must have the shape of a");
        const auto rows = static_cast<std::size_t>(a.shape(0)), cols = static_cast<std::size_t>(a.shape(1));
        return to_numpy(dispatch(a, [&](auto t) {
          py::gil_scoped_release nogil;
          return od::weighted_quantiles_rows(c, t.data(), wt.data(), rows, cols, probs, type, o);
        }));
      },
      py::arg("a"), py::arg("weights"), py::arg("probs"), py::arg("type"), py::arg("nan") = "propagate",
      py::arg("ctx") = py::none());
  // Rows of a C-contiguous (rows, cols) array: the Python layer moves the axis asked for last.
  m.def(
      "median_rows",
      [](py::array a, const std::string& nan, py::object ctx) {
        if (a.ndim() != 2) throw py::value_error("median_rows needs a 2-d array");
        const od::Options o = order_options(nan);
        const auto rows = static_cast<std::size_t>(a.shape(0)), cols = static_cast<std::size_t>(a.shape(1));
        return on_target(ctx, [&](const auto& on) {
          return to_numpy(dispatch(a, [&](auto t) {
            py::gil_scoped_release nogil;
            return od::median_rows(on, t.data(), rows, cols, o);
          }));
        });
      },
      py::arg("a"), py::arg("nan") = "propagate", py::arg("ctx") = py::none());
  m.def(
      "quantiles_rows",
      [](py::array a, std::vector<double> probs, int type, const std::string& nan, py::object ctx) {
        if (a.ndim() != 2) throw py::value_error("quantiles_rows needs a 2-d array");
        const od::Options o = order_options(nan);
        const auto rows = static_cast<std::size_t>(a.shape(0)), cols = static_cast<std::size_t>(a.shape(1));
        return on_target(ctx, [&](const auto& on) {
          return to_numpy(dispatch(a, [&](auto t) {
            py::gil_scoped_release nogil;
            return od::quantiles_rows(on, t.data(), rows, cols, probs, type, o);
          }));
        });
      },
      py::arg("a"), py::arg("probs"), py::arg("type") = 7, py::arg("nan") = "propagate", py::arg("ctx") = py::none());
  m.def(
      "kth_smallest",
      [](py::array a, std::vector<std::uint64_t> k, py::object ctx) {
        return on_target(ctx, [&](const auto& on) {
          return dispatch(a, [&](auto t) -> py::object {
            using T = typename decltype(t)::value_type;
            std::vector<T> v;
            {
              py::gil_scoped_release nogil;
              v = od::kth_smallest(on, t.data(), static_cast<std::size_t>(t.size()), k);
            }
            return to_numpy<T>(v);
          });
        });
      },
      py::arg("a"), py::arg("k"), py::arg("ctx") = py::none());
  m.def(
      "kth_smallest_rows",
      [](py::array a, std::vector<std::uint64_t> k, py::object ctx) {
        if (a.ndim() != 2) throw py::value_error("kth_smallest_rows needs a 2-d array");
        const auto rows = static_cast<std::size_t>(a.shape(0)), cols = static_cast<std::size_t>(a.shape(1));
        return on_target(ctx, [&](const auto& on) {
          return dispatch(a, [&](auto t) -> py::object {
            using T = typename decltype(t)::value_type;
            std::vector<T> v;
            {
              py::gil_scoped_release nogil;
              v = od::kth_smallest_rows(on, t.data(), rows, cols, k);
            }
            return to_numpy<T>(v, {static_cast<py::ssize_t>(rows), static_cast<py::ssize_t>(k.size())});
          });
        });
      },
      py::arg("a"), py::arg("k"), py::arg("ctx") = py::none());
  m.def(
      "topk",
      [](py::array a, std::uint64_t k, bool largest, py::object ctx) {
        const clstat::Context& c = context_of(ctx);
        return dispatch(a, [&](auto t) -> py::tuple {
          using T = typename decltype(t)::value_type;
          od::TopK<T> r;
          {
            py::gil_scoped_release nogil;
            r = od::top_k(c, t.data(), static_cast<std::size_t>(t.size()), k, largest);
          }
          return topk_tuple(r);
        });
      },
      py::arg("a"), py::arg("k"), py::arg("largest") = true, py::arg("ctx") = py::none());
  // Each row of a C-contiguous (rows, cols) array: flat (rows k) values and column indices.
  m.def(
      "topk_rows",
      [](py::array a, std::uint64_t k, bool largest, py::object ctx) {
        if (a.ndim() != 2) throw py::value_error("topk_rows needs a 2-d array");
        const clstat::Context& c = context_of(ctx);
        const auto rows = static_cast<std::size_t>(a.shape(0)), cols = static_cast<std::size_t>(a.shape(1));
        return dispatch(a, [&](auto t) -> py::tuple {
          using T = typename decltype(t)::value_type;
          od::TopK<T> r;
          {
            py::gil_scoped_release nogil;
            r = od::top_k_rows(c, t.data(), rows, cols, k, largest);
          }
          return topk_tuple(r);
        });
      },
      py::arg("a"), py::arg("k"), py::arg("largest") = true, py::arg("ctx") = py::none());
}

}  // namespace clstat_py
