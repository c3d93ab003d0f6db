// The extension module clstat._clstat: devices, contexts, errors, and each area's functions
// (bind_*.cpp). The pure-Python package clstat/ wraps these with SciPy's and NumPy's names.
#include <pybind11/stl.h>

#include <cstdint>
#include <mutex>

#include <clstat/group.hpp>

#include "common.hpp"

namespace clstat_py {

namespace {
std::mutex default_mutex;
std::unique_ptr<clstat::Context> default_ctx;
}  // namespace

const clstat::Context& context_of(const py::object& ctx) {
  if (!ctx.is_none()) return ctx.cast<const clstat::Context&>();
  // The mutex is taken with the GIL released: a thread that held the GIL while waiting for it
  // would deadlock the thread building the context (which needs the GIL back to return).
  py::gil_scoped_release nogil;
  std::lock_guard<std::mutex> lock(default_mutex);
  if (!default_ctx) default_ctx = std::make_unique<clstat::Context>();  // may compile kernels
  return *default_ctx;
}

void shape_2d(const py::array& a, const char* what, std::size_t& n, std::size_t& d) {
  if (a.ndim() == 1) n = static_cast<std::size_t>(a.shape(0)), d = 1;
  else if (a.ndim() == 2) n = static_cast<std::size_t>(a.shape(0)), d = static_cast<std::size_t>(a.shape(1));
  else throw py::value_error(std::string(what) + " must be 1-d (n,) or 2-d (n, d), not " + std::to_string(a.ndim()) + "-d");
}

}  // namespace clstat_py

PYBIND11_MODULE(_clstat, m) {
  using namespace clstat_py;
  m.doc() = "clstat: statistics on OpenCL devices (the compiled part; import clstat instead)";
  // Device and build errors as RuntimeError subclasses; bad input is std::invalid_argument,
  // which pybind11 raises as ValueError with clstat's message.
  static py::exception<clstat::Error> device_error(m, "DeviceError", PyExc_RuntimeError);
  static py::exception<clstat::BuildError> build_error(m, "BuildError", device_error.ptr());
  static py::exception<clstat::UnsupportedFeature> unsupported(m, "UnsupportedFeature", device_error.ptr());
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const clstat::BuildError& e) {
      build_error(e.what());
    } catch (const clstat::UnsupportedFeature& e) {
      unsupported(e.what());
    } catch (const clstat::Error& e) {
      device_error(e.what());
    }
  });

  m.def("devices", [] {
    std::vector<std::string> out;
    for (const auto& d : clstat::devices()) out.push_back(d.info().label());
    return out;
  }, "Every OpenCL device, as 'P:D name' labels (platform and device index).");

  py::class_<clstat::Context>(m, "Context", "One OpenCL device with its queues, compiled programs and scratch memory. "
                                            "Safe to share between Python threads.")
      .def(py::init([](const py::object& device, std::size_t queues) {
             clstat::Device d = device.is_none() ? clstat::default_device()
                                                 : clstat::select_device(device.cast<std::string>());
             py::gil_scoped_release nogil;
             return std::make_unique<clstat::Context>(d, queues);
           }),
           py::arg("device") = py::none(), py::arg("queues") = 4,
           "device: 'gpu', 'cpu', 'nvidia', 'pocl', 'P:D' or a name substring; None: $CLSTAT_DEVICE, else a GPU, else a CPU.")
      .def_property_readonly("device", [](const clstat::Context& c) { return c.info().name; })
      .def_property_readonly("platform", [](const clstat::Context& c) { return c.info().platform_name; })
      .def_property_readonly("fp64", [](const clstat::Context& c) { return c.info().fp64; })
      .def("__repr__", [](const clstat::Context& c) { return "<clstat.Context on " + c.info().label() + ">"; });
  py::class_<clstat::DeviceGroup>(m, "DeviceGroup",
                                  "Several devices as one: median, quantile and partition_kth of a whole array "
                                  "(ctx=group) split the data across the members by their weights and return the "
                                  "same values as one device.")
      .def(py::init([](const py::object& members, const py::object& weights) {
             std::vector<double> w = weights.is_none() ? std::vector<double>{} : weights.cast<std::vector<double>>();
             std::vector<clstat::Context> ctxs;
             if (py::isinstance<py::str>(members)) {
               const std::string spec = members.cast<std::string>();
               py::gil_scoped_release nogil;  // making contexts may compile kernels
               const clstat::DeviceGroup g = clstat::DeviceGroup::from_spec(spec);
               for (std::size_t i = 0; i < g.size(); ++i) ctxs.push_back(g.member(i));
             } else {
               ctxs = members.cast<std::vector<clstat::Context>>();
             }
             return std::make_unique<clstat::DeviceGroup>(std::move(ctxs), std::move(w));
           }),
           py::arg("members"), py::arg("weights") = py::none(),
           "members: 'all', a comma-separated list of device specifications ('nvidia,pocl'; a device may appear "
           "twice), or a list of Context; weights: one per member (default all 1)")
      .def_property_readonly("devices", [](const clstat::DeviceGroup& g) {
        std::vector<std::string> names;
        for (std::size_t i = 0; i < g.size(); ++i) names.push_back(g.member(i).info().name);
        return names;
      })
      .def_property_readonly("weights", &clstat::DeviceGroup::weights)
      .def("split", &clstat::DeviceGroup::split, py::arg("n"), "The shard sizes of n values, in member order.")
      .def("__len__", &clstat::DeviceGroup::size)
      .def("__repr__", [](const clstat::DeviceGroup& g) {
        return "<clstat.DeviceGroup of " + std::to_string(g.size()) + " members>";
      });
  m.def("default_context", [] { return &context_of(py::none()); }, py::return_value_policy::reference,
        "The module's default Context (made on first use).");
  // The default context is released when the interpreter exits, while the OpenCL driver is still
  // loaded, not by the C++ static destructors, which may run after a driver's own teardown.
  py::module_::import("atexit").attr("register")(py::cpp_function([] {
    std::unique_ptr<clstat::Context> gone;
    {
      py::gil_scoped_release nogil;
      std::lock_guard<std::mutex> lock(default_mutex);
      gone = std::move(default_ctx);
    }
    gone.reset();
  }));
  m.attr("__version__") = CLSTAT_VERSION_STRING;
  // The address every float64 argument reaches the library at (tests: C-contiguous float64 input
  // must arrive without a copy).
  m.def("_float64_address", [](F64 a) { return reinterpret_cast<std::uintptr_t>(a.data()); });

  bind_kde(m);
  bind_bandwidth(m);
  bind_stable(m);
  bind_order(m);
  bind_robust(m);
  bind_device(m);
}
