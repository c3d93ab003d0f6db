// Internal: the OpenCL objects behind the public runtime types.
#pragma once

#include <CL/opencl.hpp>

#include <map>
#include <memory>
#include <mutex>
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
  std::vector<std::pair<std::string, cl::Event>> profile;

  std::mutex scratch_mutex;
  std::map<std::pair<std::size_t, int>, std::pair<cl::Buffer, std::size_t>> scratch_buffers;

  /// Host memory pinned by the driver (a CL_MEM_ALLOC_HOST_PTR buffer, mapped for its life), for
  /// transfers at the link's full speed. Pinning is slow (about 0.45 ms per MB on the H100's
  /// host), so blocks are pooled: take_pinned lends one of at least `bytes` (allocating when none
  /// is free) to one caller at a time, give_pinned returns it; the pool keeps the two largest.
  struct PinnedBlock {
    cl::Buffer buffer;
    cl::CommandQueue queue;  // the one it was mapped on, to unmap it
    void* host = nullptr;
    std::size_t bytes = 0;
    ~PinnedBlock();
  };
  std::shared_ptr<PinnedBlock> take_pinned(std::size_t bytes);
  void give_pinned(std::shared_ptr<PinnedBlock> block);
  std::mutex pinned_mutex;
  std::vector<std::shared_ptr<PinnedBlock>> pinned_pool;

  const DeviceInfo& info() const { return device.info(); }
  /// A device scratch buffer of at least `bytes` for queue `queue`, slot `slot`, reused across
  /// calls. Safe because queues are in order: the next user of the same queue and slot runs after
  /// the previous one's commands. Growing releases the old buffer, which OpenCL frees only after
  /// the commands using it have finished.
  cl::Buffer scratch(std::size_t queue, int slot, std::size_t bytes);
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

/// Converts a list of clstat events to CLHPP events for a wait list.
std::vector<cl::Event> to_cl(const std::vector<Event>& events);
Event from_cl(const cl::Event& e);

}  // namespace clstat::detail
