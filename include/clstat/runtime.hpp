// clstat/runtime.hpp: platforms, devices, contexts, queues, events and device buffers.
//
// These types hide OpenCL handles behind shared ownership, so copies are cheap and refer to the
// same object. Include clstat/interop/opencl.hpp to reach the native handles with CLHPP.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "clstat/error.hpp"
#include "clstat/export.hpp"

namespace clstat {

namespace detail {
struct DeviceImpl;
struct ContextImpl;
struct EventImpl;
struct BufferImpl;
}  // namespace detail

enum class DeviceType { cpu, gpu, accelerator, other };

/// What clstat reads from a device once, by query (never from version strings).
struct CLSTAT_EXPORT DeviceInfo {
  std::size_t platform_index = 0;   ///< position in clGetPlatformIDs order
  std::size_t device_index = 0;     ///< position within the platform
  std::string name, vendor, platform_name, platform_vendor;
  std::string driver_version;       ///< CL_DRIVER_VERSION
  std::string device_version;       ///< CL_DEVICE_VERSION ("OpenCL 3.0 CUDA" etc.)
  std::string opencl_c_version;     ///< CL_DEVICE_OPENCL_C_VERSION: what kernels may use
  DeviceType type = DeviceType::other;
  unsigned compute_units = 0;
  unsigned max_clock_mhz = 0;
  std::uint64_t global_mem_bytes = 0;
  std::uint64_t max_alloc_bytes = 0;
  std::uint64_t local_mem_bytes = 0;
  std::uint64_t constant_mem_bytes = 0;
  std::size_t max_work_group_size = 0;
  bool fp64 = false;                ///< CL_DEVICE_DOUBLE_FP_CONFIG != 0
  bool int64_atomics = false;       ///< cl_khr_int64_base_atomics in the extensions
  bool is_pocl = false;             ///< the Portable Computing Language platform

  /// "P:D name" for messages and test names.
  std::string label() const;
};

/// One OpenCL device. Obtain with devices(), select_device() or default_device().
class CLSTAT_EXPORT Device {
 public:
  Device() = default;
  const DeviceInfo& info() const;
  bool valid() const noexcept { return static_cast<bool>(impl_); }
  std::shared_ptr<detail::DeviceImpl> impl() const noexcept { return impl_; }
  explicit Device(std::shared_ptr<detail::DeviceImpl> impl) : impl_(std::move(impl)) {}

 private:
  std::shared_ptr<detail::DeviceImpl> impl_;
};

/// Every device of every platform, in platform order then device order. Platforms that fail to
/// answer are skipped. Never throws for "no platform": returns an empty list.
CLSTAT_EXPORT std::vector<Device> devices();

/// Selects by a specification: "gpu", "cpu", "nvidia", "amd", "intel", "pocl", "P:D" (platform
/// and device index), or a case-insensitive substring of the device or platform name. The first
/// match wins. Throws std::invalid_argument naming the spec and listing the devices when nothing
/// matches.
CLSTAT_EXPORT Device select_device(const std::string& spec);

/// $CLSTAT_DEVICE if set (as select_device), else the first GPU, else the first CPU device, else
/// the first device. Throws clstat::Error (CL_DEVICE_NOT_FOUND) when there is no OpenCL device.
CLSTAT_EXPORT Device default_device();

class Context;

/// A completion handle for enqueued work. Default-constructed events are already complete.
class CLSTAT_EXPORT Event {
 public:
  Event() = default;
  explicit Event(std::shared_ptr<detail::EventImpl> impl) : impl_(std::move(impl)) {}
  /// Blocks until the work is done; throws clstat::Error if it failed.
  void wait() const;
  bool complete() const;
  /// Device time between start and end of the command in nanoseconds (needs a profiling queue,
  /// which clstat queues are); 0 for a default event.
  std::uint64_t duration_ns() const;
  std::shared_ptr<detail::EventImpl> impl() const noexcept { return impl_; }

 private:
  std::shared_ptr<detail::EventImpl> impl_;
};

/// An asynchronous result: the event of the last command, and a host step that turns what it
/// read back into T. get() waits, runs that step once and returns the value.
template <class T>
class Future {
 public:
  Future() = default;
  Future(Event done, std::function<T()> finish) : done_(std::move(done)), finish_(std::move(finish)) {}
  const Event& event() const noexcept { return done_; }
  T get() {
    if (!value_) {
      done_.wait();
      value_ = std::make_shared<T>(finish_());
    }
    return *value_;
  }

 private:
  Event done_;
  std::function<T()> finish_;
  std::shared_ptr<T> value_;
};

/// An in-order, profiling-enabled command queue from a Context's pool.
class CLSTAT_EXPORT Queue {
 public:
  Queue(const Context& ctx, std::size_t index);
  Context context() const;
  std::size_t index() const noexcept { return index_; }
  /// Blocks until everything enqueued on this queue is done.
  void finish() const;

 private:
  std::shared_ptr<detail::ContextImpl> ctx_;
  std::size_t index_;
};

/// One cl::Context on one device, with a pool of in-order queues (independent work on different
/// queues can overlap), the program cache and the tuning table of that device.
class CLSTAT_EXPORT Context {
 public:
  /// On default_device().
  Context();
  /// On `device`; `queues` in-order queues (at least 1).
  explicit Context(const Device& device, std::size_t queues = 4);
  const Device& device() const;
  const DeviceInfo& info() const { return device().info(); }
  std::size_t queue_count() const;
  /// Queue i of the pool (i < queue_count()); throws std::out_of_range otherwise.
  Queue queue(std::size_t i = 0) const;
  /// Blocks until all queues are idle.
  void finish() const;
  /// The tuning table entry in use and its values, e.g. "nvidia-gpu reduce_wg=256 pair_wg=128 ...".
  std::string tuning_summary() const;

  /// One kernel run recorded while profiling is on: device timestamps in nanoseconds.
  struct KernelRecord {
    std::string kernel;
    std::uint64_t queued_ns, start_ns, end_ns;
  };
  /// Records every kernel clstat enqueues on this context from now on (off by default; costs one
  /// event per launch). Turning it off discards nothing already recorded.
  void set_profiling(bool on) const;
  /// Waits for the recorded kernels, returns them in enqueue order and clears the record.
  std::vector<KernelRecord> take_profile() const;
  std::shared_ptr<detail::ContextImpl> impl() const noexcept { return impl_; }
  explicit Context(std::shared_ptr<detail::ContextImpl> impl) : impl_(std::move(impl)) {}

 private:
  std::shared_ptr<detail::ContextImpl> impl_;
};

/// Untyped device memory; see Buffer<T>.
class CLSTAT_EXPORT RawBuffer {
 public:
  RawBuffer() = default;
  /// Allocates `bytes` (> 0) on the context's device. Throws UnsupportedFeature when `bytes`
  /// exceeds the device's CL_DEVICE_MAX_MEM_ALLOC_SIZE, naming both numbers.
  RawBuffer(const Context& ctx, std::size_t bytes);
  std::size_t bytes() const noexcept { return bytes_; }
  /// Blocking copies (offsets and sizes in bytes; range-checked, std::out_of_range).
  void write(const Queue& q, const void* src, std::size_t bytes, std::size_t offset = 0) const;
  void read(const Queue& q, void* dst, std::size_t bytes, std::size_t offset = 0) const;
  /// Non-blocking forms; the host memory must stay valid until the event completes.
  Event write_async(const Queue& q, const void* src, std::size_t bytes, std::size_t offset,
                    const std::vector<Event>& wait = {}) const;
  Event read_async(const Queue& q, void* dst, std::size_t bytes, std::size_t offset,
                   const std::vector<Event>& wait = {}) const;
  /// Fills with the byte pattern `pattern` of `pattern_size` bytes (1, 2, 4, 8, 16).
  Event fill_async(const Queue& q, const void* pattern, std::size_t pattern_size,
                   const std::vector<Event>& wait = {}) const;
  std::shared_ptr<detail::BufferImpl> impl() const noexcept { return impl_; }

 private:
  std::shared_ptr<detail::BufferImpl> impl_;
  std::size_t bytes_ = 0;
};

/// A device buffer of `size()` elements of T (float, double, int32, int64, ...).
template <class T>
class Buffer {
 public:
  Buffer() = default;
  Buffer(const Context& ctx, std::size_t n) : raw_(ctx, n * sizeof(T)), n_(n) {}
  /// Allocates and uploads `n` values from `host`.
  Buffer(const Context& ctx, const T* host, std::size_t n) : Buffer(ctx, n) { write(ctx.queue(0), host, n); }
  std::size_t size() const noexcept { return n_; }
  void write(const Queue& q, const T* src, std::size_t n, std::size_t offset = 0) const {
    raw_.write(q, src, n * sizeof(T), offset * sizeof(T));
  }
  void read(const Queue& q, T* dst, std::size_t n, std::size_t offset = 0) const {
    raw_.read(q, dst, n * sizeof(T), offset * sizeof(T));
  }
  std::vector<T> to_host(const Queue& q) const {
    std::vector<T> v(n_);
    if (n_) read(q, v.data(), n_);
    return v;
  }
  Event fill_async(const Queue& q, T value, const std::vector<Event>& wait = {}) const {
    return raw_.fill_async(q, &value, sizeof(T), wait);
  }
  const RawBuffer& raw() const noexcept { return raw_; }

 private:
  RawBuffer raw_;
  std::size_t n_ = 0;
};

/// Names of the kernel sources embedded in the library ("primitives/reduce_sum", ...).
CLSTAT_EXPORT std::vector<std::string> embedded_kernel_names();

/// Builds embedded source `name` for ctx's device with the base options (-cl-std=CL1.2, REAL,
/// fp64 macros; `real_is_double` picks REAL=double) plus `options`. For diagnostics and tests;
/// operations build what they need themselves. Throws std::invalid_argument for an unknown name,
/// UnsupportedFeature for double on a device without fp64, BuildError with the log on failure.
CLSTAT_EXPORT void build_kernel(const Context& ctx, const std::string& name, bool real_is_double,
                                const std::string& options);

}  // namespace clstat
