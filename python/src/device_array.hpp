// clstat.DeviceArray: a NumPy array's copy in device memory, so that repeated calls on the same
// data (the order statistics) skip the host-to-device copy, as cupy.ndarray and torch's CUDA
// tensors do for their libraries.
#pragma once

#include <cstdint>
#include <variant>

#include "common.hpp"

namespace clstat_py {

struct DeviceArray {
  clstat::Context ctx;  // shares the Context's state: the array keeps its device alive
  std::variant<clstat::Buffer<float>, clstat::Buffer<double>, clstat::Buffer<std::int32_t>,
               clstat::Buffer<std::int64_t>>
      buffer;
  std::vector<py::ssize_t> shape;
  std::size_t size() const {
    return std::visit([](const auto& b) { return b.size(); }, buffer);
  }
};

/// The element type of a clstat::Buffer (or a reference to one).
template <class B>
struct element;
template <class T>
struct element<clstat::Buffer<T>> {
  using type = T;
};
template <class B>
using element_t = typename element<std::decay_t<B>>::type;

/// The queue a device-array call of this thread uses: threads spread over the pool by their id,
/// so that calls of different threads overlap on the device.
clstat::Queue thread_queue(const clstat::Context& ctx);

}  // namespace clstat_py
