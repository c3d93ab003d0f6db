// clstat/runtime.hpp: platforms, devices, contexts, queues, events and device buffers.
//
// These types hide OpenCL handles behind shared ownership, so copies are cheap and refer to the
// same object. Include clstat/interop/opencl.hpp to adopt an application's own OpenCL context,
// queues and buffers, or to reach the native handles with CLHPP.
//
// THE CONVENTION EVERY PUBLIC OPERATION FOLLOWS
//   Plain form     f(const Context& ctx, <host arrays>, ..., const XOptions& = {}) -> value.
//                  Takes any free queue of ctx's pool, uploads, runs, waits, returns the result.
//   Async form     f_async(const Queue& q, <host arrays or device buffers>, ..., const XOptions&,
//                          const std::vector<Event>& wait = {}) -> Future<XResult>, or Event when
//                  the result is written into a device buffer the caller passed. Its commands
//                  go on q after every event of `wait`. Host arrays given to an async form must
//                  stay valid and unchanged until the Future is ready (as with a non-blocking
//                  OpenCL write). Operations that decide on the host between passes (selection,
//                  optimisers, fits, C-steps) run those decisions in a task of their own, so the
//                  async form returns at once in every area.
//   Device buffers Buffer<T> plus an element offset and a count: (buf, offset, n). Samples and
//                  points are row-major n x d (point i's coordinate k at offset + i * d + k), as
//                  in the host forms.
//   Names          options structs are <Area>Options or <Operation>Options, results are
//                  <Operation>Result or a plain value; counts are std::size_t, seeds uint64_t.
//   Progress       a long operation reports through one callback type, Progress (below), given
//                  as its options' `progress` member (or last argument).
//
// THREAD SAFETY
//   A Context may be used by any number of host threads at once, with no locking by the caller.
//   Each operation holds a queue of the pool by lease for as long as it enqueues: the queue's
//   kernel objects and its scratch memory belong to that lease, so two threads never touch
//   them at once. A plain-form call takes any free queue (waiting for one when every queue is
//   held), so up to queue_count() calls run concurrently on the device and the rest queue up
//   on the host. An async call on queue q waits while another thread's call holds q, so calls
//   on one queue are serialised in the order their threads reach it; calls on different queues
//   overlap. Results never depend on which queue ran a call, nor on what else ran.
//   Event: any thread may wait on, query or copy it. Future: copies share one result; get() may
//   be called from any thread, any number of times, and runs the host step once. Buffer, Queue,
//   Device and Context are handles: copying and destroying them is thread-safe; reads and writes
//   of one Buffer's contents are ordered only by the queues and events the caller uses.
//   A default-constructed or moved-from Context, Queue or Buffer raises std::logic_error when
//   used; it never crashes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
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

/// $CLSTAT_DEVICE if set (as select_device; a comma-separated list, the form
/// DeviceGroup::from_spec takes, gives its first device), else the first GPU, else the first CPU
/// device, else the first device. Throws std::invalid_argument when $CLSTAT_DEVICE matches no
/// device, clstat::Error (CL_DEVICE_NOT_FOUND) when there is no OpenCL device.
CLSTAT_EXPORT Device default_device();

class Context;

/// What a long operation reports as it goes: `done` of `total` units of its own work (slabs
/// written, objective evaluations, iterations; total is an upper bound where the work ends
/// early, 0 where no bound is known) and `message`, a line for a person ("mle: Newton step 2:
/// loglik -5838.77 ..."), possibly empty.
struct ProgressReport {
  double done = 0;
  double total = 0;
  std::string message;
};
/// Called on the thread that runs the operation (an async form's task thread, or the thread that
/// calls Future::get() before the task thread has started it), between device passes, never
/// concurrently with itself for one call; the operation waits while it runs.
using Progress = std::function<void(const ProgressReport&)>;

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

/// An asynchronous result: the event of its last command, and either a host step that turns what
/// was read back into T, or a host task that computes T (the operations that decide on the host
/// between passes; their event then completes when the task ends). get() waits and returns the
/// value, or rethrows the operation's exception. Copies share the result; get() is thread-safe.
template <class T>
class Future {
 public:
  Future() = default;
  Future(Event done, std::function<T()> finish) : s_(std::make_shared<State>()) {
    s_->done = std::move(done);
    s_->finish = std::move(finish);
  }
  /// `run_here`, when given, runs the task on the calling thread if no task thread has started
  /// it yet (get() calls it first), so that a call followed at once by get() costs no hand-over
  /// between threads; it does nothing when the task was already taken.
  Future(Event done, std::shared_future<T> task, std::function<void()> run_here = {})
      : s_(std::make_shared<State>()) {
    s_->done = std::move(done);
    s_->task = std::move(task);
    s_->run_here = std::move(run_here);
  }
  /// False for a default-constructed Future.
  bool valid() const noexcept { return static_cast<bool>(s_); }
  /// The event of the operation's last command (a completed default Event when there is none).
  const Event& event() const {
    check();
    return s_->done;
  }
  /// Blocks until the result is ready. Throws std::logic_error on a default-constructed Future.
  T get() const {
    check();
    std::call_once(s_->once, [this] {
      try {
        if (s_->task.valid()) {
          if (s_->run_here) s_->run_here();
          s_->value.emplace(s_->task.get());
        } else {
          s_->done.wait();
          s_->value.emplace(s_->finish());
        }
      } catch (...) {
        s_->error = std::current_exception();
      }
    });
    if (s_->error) std::rethrow_exception(s_->error);
    return *s_->value;
  }

 private:
  struct State {
    Event done;
    std::function<T()> finish;
    std::shared_future<T> task;
    std::function<void()> run_here;
    std::once_flag once;
    std::optional<T> value;
    std::exception_ptr error;
  };
  void check() const {
    if (!s_) throw std::logic_error("clstat::Future: get() or event() on a default-constructed Future");
  }
  std::shared_ptr<State> s_;
};

/// An in-order, profiling-enabled command queue from a Context's pool.
class CLSTAT_EXPORT Queue {
 public:
  Queue() = default;
  Queue(const Context& ctx, std::size_t index);
  Context context() const;
  std::size_t index() const noexcept { return index_; }
  /// Blocks until everything enqueued on this queue is done.
  void finish() const;

 private:
  std::shared_ptr<detail::ContextImpl> ctx_;
  std::size_t index_ = 0;
};

/// One cl::Context on one device, with a pool of in-order queues (independent work on different
/// queues can overlap), the program cache, the tuning table of that device and the scratch pool.
/// Thread-safe: see the top of this header.
class CLSTAT_EXPORT Context {
 public:
  /// On default_device().
  Context();
  /// On `device`; `queues` in-order queues (at least 1).
  explicit Context(const Device& device, std::size_t queues = 4);
  /// The same with tuning entries that replace the table's (names and ranges as in the tuning
  /// file, clstat/tuning.hpp), for measurements and `clstat-bench --tune`. An unknown name or a
  /// value out of its range raises std::invalid_argument naming both.
  Context(const Device& device, std::size_t queues, const std::map<std::string, std::size_t>& tuning);
  const Device& device() const;
  const DeviceInfo& info() const { return device().info(); }
  std::size_t queue_count() const;
  /// Queue i of the pool (i < queue_count()); throws std::out_of_range otherwise.
  Queue queue(std::size_t i = 0) const;
  /// Blocks until all queues are idle.
  void finish() const;

  /// Scratch memory: operations keep the device buffers they need between calls, per queue, so
  /// repeated calls allocate nothing. scratch_bytes() is what the pool holds now (device bytes);
  /// release_scratch() frees every buffer of the queues that no operation holds at the moment
  /// (all of them when the context is idle), and the pinned host blocks of the grid's transfers.
  /// The pool never keeps more than scratch_limit() bytes (default a quarter of the device's
  /// global memory) beyond what running operations need: past it, the least recently used
  /// buffers of idle queues are freed first. Thread-safe. O(number of pooled buffers).
  std::size_t scratch_bytes() const;
  std::size_t scratch_buffers() const;
  void release_scratch() const;
  std::size_t scratch_limit() const;
  void set_scratch_limit(std::size_t bytes) const;
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
  /// Fault injection, for testing what a caller (a DeviceGroup's split call, the processes of an
  /// Exchange, an application's own recovery) does when this device fails in the middle of a
  /// call. The kernel launch `after` launches from now on this context (any thread, any queue;
  /// 0: the next one) raises clstat::Error(cl_code, the operation, this device's name) instead of
  /// being enqueued, as a launch the driver refused would; the launches before it were enqueued
  /// and run on, and the launches after it run normally. A second call replaces a pending
  /// failure; cancel_injected_failure() drops it. cl_code is an OpenCL error status (default
  /// CL_OUT_OF_RESOURCES, -5): std::invalid_argument for one >= 0 (CL_SUCCESS is no failure),
  /// std::logic_error for a moved-from Context. O(1); thread-safe; costs every launch one atomic
  /// read while none is pending.
  void inject_launch_failure(std::uint64_t after, int cl_code = -5) const;
  void cancel_injected_failure() const;
  /// The implementation; throws std::logic_error for a moved-from Context.
  std::shared_ptr<detail::ContextImpl> impl() const;
  explicit Context(std::shared_ptr<detail::ContextImpl> impl) : impl_(std::move(impl)) {}
  Context(const Context&) = default;
  Context& operator=(const Context&) = default;
  Context(Context&&) noexcept = default;
  Context& operator=(Context&&) noexcept = default;

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
  /// Blocking copies. Each copy holds q's lease while it enqueues (see the top of this header). (offsets and sizes in bytes; range-checked, std::out_of_range).
  void write(const Queue& q, const void* src, std::size_t bytes, std::size_t offset = 0) const;
  void read(const Queue& q, void* dst, std::size_t bytes, std::size_t offset = 0) const;
  /// Blocking upload of `bytes` from `src` at offset 0 through any free queue of ctx.
  void upload(const Context& ctx, const void* src, std::size_t bytes) const;
  /// Non-blocking forms; the host memory must stay valid until the event completes.
  Event write_async(const Queue& q, const void* src, std::size_t bytes, std::size_t offset,
                    const std::vector<Event>& wait = {}) const;
  Event read_async(const Queue& q, void* dst, std::size_t bytes, std::size_t offset,
                   const std::vector<Event>& wait = {}) const;
  /// Fills with the byte pattern `pattern` of `pattern_size` bytes (1, 2, 4, 8, 16).
  Event fill_async(const Queue& q, const void* pattern, std::size_t pattern_size,
                   const std::vector<Event>& wait = {}) const;
  /// The implementation; throws std::logic_error for a default-constructed or moved-from buffer.
  std::shared_ptr<detail::BufferImpl> impl() const;
  bool valid() const noexcept { return static_cast<bool>(impl_); }
  explicit RawBuffer(std::shared_ptr<detail::BufferImpl> impl, std::size_t bytes) : impl_(std::move(impl)), bytes_(bytes) {}

 private:
  std::shared_ptr<detail::BufferImpl> impl_;
  std::size_t bytes_ = 0;
};

/// A device buffer of `size()` elements of T (float, double, int32, int64, ...).
template <class T>
class Buffer {
 public:
  Buffer() = default;
  /// n elements (0 < n, n * sizeof(T) without overflow, else std::invalid_argument).
  Buffer(const Context& ctx, std::size_t n) : raw_(ctx, bytes_for(n)), n_(n) {}
  /// Wraps `raw` (see clstat/interop/opencl.hpp) as raw.bytes() / sizeof(T) elements.
  explicit Buffer(RawBuffer raw) : raw_(std::move(raw)), n_(raw_.bytes() / sizeof(T)) {}
  /// Allocates and uploads `n` values from `host` (on any free queue of ctx; blocking).
  Buffer(const Context& ctx, const T* host, std::size_t n) : Buffer(ctx, n) { raw_.upload(ctx, host, n * sizeof(T)); }
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
  static std::size_t bytes_for(std::size_t n) {
    if (n > static_cast<std::size_t>(-1) / sizeof(T))
      throw std::invalid_argument("clstat::Buffer: " + std::to_string(n) + " elements overflow the byte count");
    return n * sizeof(T);
  }
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
