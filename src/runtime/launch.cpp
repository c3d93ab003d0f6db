#include "runtime/launch.hpp"

#include "runtime/lease.hpp"

namespace clstat::detail {

namespace {
// The two limits are properties of the built kernel: queried once, then read from the cache.
const std::pair<std::size_t, std::size_t>& limits(const cl::Kernel& k, const ContextImpl& ctx) {
  std::lock_guard<std::mutex> lock(ctx.limits_mutex);
  auto it = ctx.kernel_limits.find(k());
  if (it == ctx.kernel_limits.end()) {
    const cl::Device& d = ctx.device.impl()->device;
    it = ctx.kernel_limits
             .emplace(k(), std::make_pair(k.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(d),
                                          static_cast<std::size_t>(k.getWorkGroupInfo<CL_KERNEL_LOCAL_MEM_SIZE>(d))))
             .first;
  }
  return it->second;
}
}  // namespace

std::size_t kernel_max_work_group(const cl::Kernel& k, const ContextImpl& ctx) { return limits(k, ctx).first; }

std::size_t kernel_local_mem(const cl::Kernel& k, const ContextImpl& ctx) { return limits(k, ctx).second; }

Event launch(const Queue& q, cl::Kernel& k, const cl::NDRange& global, const cl::NDRange& local,
             const std::vector<Event>& wait, const std::string& operation, bool event) {
  require_lease(q, "launch");
  const auto ctx = q.context().impl();
  const DeviceInfo& info = ctx->info();
  std::size_t wg = 1;
  for (cl_uint d = 0; d < local.dimensions(); ++d) {
    if (local[d] == 0 || global[d] % local[d] != 0)
      throw Error(CL_INVALID_WORK_GROUP_SIZE, operation, info.name,
                  "global size " + std::to_string(global[d]) + " is not a multiple of local size " +
                      std::to_string(local[d]) + " in dimension " + std::to_string(d));
    wg *= local[d];
  }
  const std::size_t kmax = kernel_max_work_group(k, *ctx);
  if (wg > info.max_work_group_size || wg > kmax)
    throw Error(CL_INVALID_WORK_GROUP_SIZE, operation, info.name,
                "work-group of " + std::to_string(wg) + " exceeds the limit (device " +
                    std::to_string(info.max_work_group_size) + ", kernel " + std::to_string(kmax) + ")");
  const std::size_t lmem = kernel_local_mem(k, *ctx);
  if (lmem > info.local_mem_bytes)
    throw Error(CL_OUT_OF_RESOURCES, operation, info.name,
                "kernel needs " + std::to_string(lmem) + " bytes of local memory, device has " +
                    std::to_string(info.local_mem_bytes));
  // Context::inject_launch_failure: the launch that takes the count from 0 fails (later ones
  // take it below -1, which fails none).
  if (ctx->fail_in.load(std::memory_order_relaxed) >= 0 && ctx->fail_in.fetch_sub(1) == 0)
    throw Error(ctx->fail_code.load(), operation, info.name, "injected failure (Context::inject_launch_failure)");
  auto waits = to_cl(wait);
  cl::Event ev;
  bool track = event;
  if (!track) {
    std::lock_guard<std::mutex> lock(ctx->profile_mutex);
    track = ctx->profiling;
  }
  try {
    queue_of(q).enqueueNDRangeKernel(k, cl::NullRange, global, local, waits.empty() ? nullptr : &waits,
                                     track ? &ev : nullptr);
  } catch (const cl::Error& e) {
    throw Error(e.err(), operation, info.name);
  }
  if (!track) return Event();
  {
    std::lock_guard<std::mutex> lock(ctx->profile_mutex);
    if (ctx->profiling) ctx->profile.emplace_back(k.getInfo<CL_KERNEL_FUNCTION_NAME>(), ev);
  }
  return from_cl(ev);
}

}  // namespace clstat::detail
