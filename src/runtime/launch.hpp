// Internal: kernel launches checked against the device and kernel limits before they are
// enqueued, so users never see CL_INVALID_WORK_GROUP_SIZE or a local-memory overflow.
#pragma once

#include <string>
#include <vector>

#include "runtime/impl.hpp"

namespace clstat::detail {

/// Largest work-group size the device accepts for this kernel (CL_KERNEL_WORK_GROUP_SIZE).
std::size_t kernel_max_work_group(const cl::Kernel& k, const ContextImpl& ctx);
/// Local memory the kernel uses (CL_KERNEL_LOCAL_MEM_SIZE).
std::size_t kernel_local_mem(const cl::Kernel& k, const ContextImpl& ctx);

/// Enqueues k on q. Checks: global a multiple of local in every dimension, the work-group size
/// within the device and kernel limits, local memory within the device's. A violation raises
/// clstat::Error(CL_INVALID_WORK_GROUP_SIZE or CL_OUT_OF_RESOURCES) naming `operation`.
/// Returns the kernel's event; with `event` false (a caller that only reads results back on the
/// same in-order queue) none is made unless the context is profiling, and the returned Event is
/// already complete: an event cost about 8 us of host time a launch on an H200 (NVIDIA 580).
Event launch(const Queue& q, cl::Kernel& k, const cl::NDRange& global, const cl::NDRange& local,
             const std::vector<Event>& wait, const std::string& operation, bool event = true);

}  // namespace clstat::detail
