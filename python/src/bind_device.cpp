// DeviceArray and the order statistics on it. Upload and download release the GIL; the order
// statistics run their queue forms on the array's buffer (no copy).
#include <pybind11/stl.h>

#include <functional>
#include <thread>

#include "device_array.hpp"

namespace clstat_py {

namespace od = clstat::order;

clstat::Queue thread_queue(const clstat::Context& ctx) {
  return ctx.queue(std::hash<std::thread::id>{}(std::this_thread::get_id()) % ctx.queue_count());
}

namespace {

template <class T>
DeviceArray upload(const clstat::Context& c, const py::array& a) {
  const auto t = py::array_t<T, py::array::c_style | py::array::forcecast>::ensure(a);
  if (t.size() == 0) throw py::value_error("to_device: the array is empty");
  DeviceArray d{c, clstat::Buffer<T>(c, static_cast<std::size_t>(t.size())), {}};
  for (py::ssize_t i = 0; i < t.ndim(); ++i) d.shape.push_back(t.shape(i));
  {
    py::gil_scoped_release nogil;
    std::get<clstat::Buffer<T>>(d.buffer).write(thread_queue(c), t.data(), static_cast<std::size_t>(t.size()));
  }
  return d;
}

}  // namespace

void bind_device(py::module_& m) {
  py::class_<DeviceArray>(m, "DeviceArray",
                          "An array in a device's memory (clstat.to_device). float32, float64, int32 and int64. "
                          "Never written after to_device: threads may share it and call on it at once.")
      .def_property_readonly("shape", [](const DeviceArray& d) { return py::tuple(py::cast(d.shape)); })
      .def_property_readonly("size", &DeviceArray::size)
      .def_property_readonly("ndim", [](const DeviceArray& d) { return d.shape.size(); })
      .def_property_readonly("dtype", [](const DeviceArray& d) {
        return std::visit([](const auto& b) {
          using T = element_t<decltype(b)>;
          return py::dtype::of<T>();
        }, d.buffer);
      })
      .def_property_readonly("nbytes", [](const DeviceArray& d) {
        return std::visit([](const auto& b) { return b.size() * sizeof(element_t<decltype(b)>); },
                          d.buffer);
      })
      .def_property_readonly("context", [](const DeviceArray& d) { return d.ctx; })
      .def("get", [](const DeviceArray& d) {
        return std::visit([&](const auto& b) -> py::object {
          using T = element_t<decltype(b)>;
          py::array_t<T> out(d.shape);
          T* dst = out.mutable_data();
          {
            py::gil_scoped_release nogil;
            b.read(thread_queue(d.ctx), dst, b.size());
          }
          return std::move(out);
        }, d.buffer);
      }, "A new NumPy array with the device array's values (as cupy.ndarray.get).")
      .def("__repr__", [](const DeviceArray& d) {
        std::string s = "<clstat.DeviceArray shape (";
        for (std::size_t i = 0; i < d.shape.size(); ++i) s += (i ? ", " : "") + std::to_string(d.shape[i]);
        return s + (d.shape.size() == 1 ? ",)" : ")") + " on " + d.ctx.info().label() + ">";
      });

  m.def("to_device", [](py::array a, py::object ctx) {
    const clstat::Context& c = context_of(ctx);
    if (py::isinstance<py::array_t<float>>(a)) return upload<float>(c, a);
    if (py::isinstance<py::array_t<std::int32_t>>(a)) return upload<std::int32_t>(c, a);
    if (py::isinstance<py::array_t<std::int64_t>>(a)) return upload<std::int64_t>(c, a);
    return upload<double>(c, a);
  }, py::arg("a"), py::arg("ctx") = py::none());

  m.def("median_device", [](const DeviceArray& d, const std::string& nan) {
    const od::Options o = order_options(nan);
    return std::visit([&](const auto& b) {
      py::gil_scoped_release nogil;
      return od::median_async(thread_queue(d.ctx), b, 0, b.size(), o).get();
    }, d.buffer);
  }, py::arg("a"), py::arg("nan") = "propagate");
  m.def("quantiles_device", [](const DeviceArray& d, std::vector<double> probs, int type, const std::string& nan) {
    const od::Options o = order_options(nan);
    return to_numpy(std::visit([&](const auto& b) {
      py::gil_scoped_release nogil;
      return od::quantiles_async(thread_queue(d.ctx), b, 0, b.size(), probs, type, o).get();
    }, d.buffer));
  }, py::arg("a"), py::arg("probs"), py::arg("type") = 7, py::arg("nan") = "propagate");
  m.def("kth_smallest_device", [](const DeviceArray& d, std::vector<std::uint64_t> k) {
    return std::visit([&](const auto& b) -> py::object {
      using T = element_t<decltype(b)>;
      std::vector<T> v;
      {
        py::gil_scoped_release nogil;
        v = od::kth_smallest_async(thread_queue(d.ctx), b, 0, b.size(), k).get();
      }
      return to_numpy<T>(v);
    }, d.buffer);
  }, py::arg("a"), py::arg("k"));
  m.def("topk_device", [](const DeviceArray& d, std::uint64_t k, bool largest) {
    return std::visit([&](const auto& b) -> py::tuple {
      using T = element_t<decltype(b)>;
      od::TopK<T> r;
      {
        py::gil_scoped_release nogil;
        r = od::top_k_async(thread_queue(d.ctx), b, 0, b.size(), k, largest).get();
      }
      return topk_tuple(r);
    }, d.buffer);
  }, py::arg("a"), py::arg("k"), py::arg("largest") = true);
}

}  // namespace clstat_py
