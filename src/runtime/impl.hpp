// Internal: the OpenCL objects behind the public runtime types.
#pragma once

#include <CL/opencl.hpp>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <tuple>
#include <string>
#include <vector>

#include "clstat/runtime.hpp"
#include "runtime/tuning.hpp"

namespace clstat::detail {

struct DeviceImpl {
  cl::Platform platform;
  cl::Device device;
  DeviceInfo info;
};

struct EventImpl {
  cl::Event event;
};

struct BufferImpl {
  cl::Buffer buffer;
  std::shared_ptr<ContextImpl> ctx;  // keeps the context alive as long as the memory
};

/// One built program and, per queue, the kernels made from it: a cl::Kernel must not be shared
/// between threads that set arguments concurrently, so each queue index has its own.
struct BuiltProgram {
  cl::Program program;
  std::string name, options;
  std::mutex mutex;
  std::map<std::pair<std::size_t, std::string>, cl::Kernel> kernels;
};

struct ContextImpl {
  Device device;
  cl::Context context;
  std::vector<cl::CommandQueue> queues;
  Tuning tuning;
  std::mutex programs_mutex;
  std::map<std::string, std::shared_ptr<BuiltProgram>> programs;  // key: source hash + options

  // Per-context memo of program_for_wg's answers (key: source, options, requested size) and of
  // each kernel's device limits, so a call's hot path makes no repeated driver queries.
  // Kernels and programs live as long as the context, so their handles stay unique.
  std::mutex choices_mutex;
  std::map<std::string, std::pair<std::shared_ptr<BuiltProgram>, std::size_t>> wg_choices;
  mutable std::mutex limits_mutex;
  mutable std::map<cl_kernel, std::pair<std::size_t, std::size_t>> kernel_limits;  // max WG, local bytes

  std::mutex profile_mutex;
  bool profiling = false;
  // Context::inject_launch_failure: launches to let through before the failing one (-1: none
  // pending), and the status it raises.
  std::atomic<std::int64_t> fail_in{-1};
  std::atomic<int> fail_code{-5};
  std::vector<std::pair<std::string, cl::Event>> profile;

  // Leases (runtime/lease.hpp): per queue, whether it is held, by which thread (none while a
  // host task has not adopted it), and how many nested holds.
  struct QueueState {
    bool busy = false;
    std::thread::id owner;
    std::size_t depth = 0;
  };
  std::mutex lease_mutex;
  std::condition_variable lease_freed;
  std::vector<QueueState> queue_state;

  // Host tasks (runtime/lease.hpp) run on one worker thread per queue, started on first use and
  // kept: a task holds its queue's lease, so one worker per queue never makes a task wait for
  // another. The state is shared with the thread, which may outlive the context by one task.
  struct Worker {
    std::mutex mutex;
    std::condition_variable wake;
    std::vector<std::function<void()>> tasks;
    bool stop = false;
    std::thread thread;
  };
  std::mutex workers_mutex;
  std::vector<std::shared_ptr<Worker>> workers;
  /// Runs `task` on queue i's worker, in submission order.
  void post(std::size_t i, std::function<void()> task);
  ~ContextImpl();

  // The scratch pool: buffers keyed by queue and declaration, with their last use
  // for the retention cap (least recently used of unleased queues go first).
  struct ScratchEntry {
    cl::Buffer buffer;
    std::size_t bytes = 0, queue = 0;
    std::uint64_t last_use = 0;
  };
  std::mutex scratch_mutex;
  // The key: queue, declaring enum type (its type_info, unique within the library), value, part;
  // compared as integers.
  struct ScratchKey {
    std::size_t queue;
    std::uintptr_t type;
    int which, part;
    bool operator<(const ScratchKey& o) const {
      return std::tie(queue, type, which, part) < std::tie(o.queue, o.type, o.which, o.part);
    }
  };
  std::map<ScratchKey, ScratchEntry> scratch_pool;
  std::size_t scratch_total = 0, scratch_cap = 0;
  std::uint64_t scratch_clock = 0;
  /// Drops pooled buffers of queues nobody holds, oldest first, until at most `keep` bytes are
  /// pooled. Call with scratch_mutex and lease_mutex held (in that order).
  void trim_scratch(std::size_t keep);

  /// Host memory pinned by the driver (a CL_MEM_ALLOC_HOST_PTR buffer, mapped for its life), for
  /// transfers at the link's full speed. Pinning is slow (about 0.45 ms per MB on the H100's
  /// host), so blocks are pooled: take_pinned lends one of at least `bytes` (allocating when none
  /// is free) to one caller at a time, give_pinned returns it; the pool keeps the two largest.
  struct PinnedBlock {
    cl::Buffer buffer;
    cl::CommandQueue queue;  // the service queue it was mapped on, to unmap it
    void* host = nullptr;
    std::size_t bytes = 0;
    ~PinnedBlock();
  };
  std::shared_ptr<PinnedBlock> take_pinned(std::size_t bytes);
  void give_pinned(std::shared_ptr<PinnedBlock> block);
  std::mutex pinned_mutex;
  std::vector<std::shared_ptr<PinnedBlock>> pinned_pool;

  // Data derived once and reused between calls (a stable law's interpolant), by key, the most
  // recently used first; runtime/memo.hpp keeps at most a few.
  std::mutex memo_mutex;
  std::list<std::pair<std::string, std::shared_ptr<const void>>> memo;

  const DeviceInfo& info() const { return device.info(); }
  /// A queue of no operation: maps and unmaps of pinned memory, so they never wait behind leased work.
  cl::CommandQueue service;
  const std::string& device_name() const { return device.info().name; }
};

inline const cl::CommandQueue& queue_of(const Queue& q) {
  return q.context().impl()->queues.at(q.index());
}

/// Runs `f`, turning a CLHPP exception into clstat::Error naming `operation` and the device, so
/// no cl::Error crosses the public API. Ops wrap their whole enqueue sequence in it once.
template <class F>
decltype(auto) cl_guard(const std::string& operation, const ContextImpl& ctx, F&& f) {
  try {
    return f();
  } catch (const cl::Error& e) {
    throw Error(e.err(), operation, ctx.device_name());
  }
}

/// A ContextImpl over an OpenCL context and its queue pool (both already made).
std::shared_ptr<ContextImpl> make_context(const Device& device, cl::Context context, std::vector<cl::CommandQueue> queues,
                                          const std::map<std::string, std::size_t>& tuning);

/// The Device of a native device id: one of devices() when it is listed there, else a new one.
Device device_of(cl_device_id id);

/// Converts a list of clstat events to CLHPP events for a wait list.
std::vector<cl::Event> to_cl(const std::vector<Event>& events);
Event from_cl(const cl::Event& e);

}  // namespace clstat::detail
