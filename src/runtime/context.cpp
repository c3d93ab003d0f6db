#include <algorithm>
#include <stdexcept>

#include "runtime/impl.hpp"

namespace clstat {

Context::Context() : Context(default_device()) {}

Context::Context(const Device& device, std::size_t queues) : Context(device, queues, {}) {}

Context::Context(const Device& device, std::size_t queues, const std::map<std::string, std::size_t>& tuning) {
  if (!device.valid()) throw std::invalid_argument("clstat: Context needs a valid Device");
  if (queues == 0) throw std::invalid_argument("clstat: Context needs at least one queue");
  const cl::Device& d = device.impl()->device;
  cl::Context context;
  std::vector<cl::CommandQueue> pool;
  try {
    context = cl::Context(d);
    for (std::size_t i = 0; i < queues; ++i) pool.emplace_back(context, d, CL_QUEUE_PROFILING_ENABLE);
  } catch (const cl::Error& e) {
    throw Error(e.err(), "create context", device.info().name);
  }
  impl_ = detail::make_context(device, std::move(context), std::move(pool), tuning);
}

namespace detail {
std::shared_ptr<ContextImpl> make_context(const Device& device, cl::Context context, std::vector<cl::CommandQueue> queues,
                                          const std::map<std::string, std::size_t>& tuning) {
  auto impl = std::make_shared<ContextImpl>();
  impl->device = device;
  impl->context = std::move(context);
  impl->queues = std::move(queues);
  try {
    impl->service = cl::CommandQueue(impl->context, device.impl()->device);
  } catch (const cl::Error& e) {
    throw Error(e.err(), "create context", device.info().name);
  }
  impl->queue_state.resize(impl->queues.size());
  impl->scratch_cap = static_cast<std::size_t>(device.info().global_mem_bytes / 4);
  impl->tuning = default_tuning(device.info(), tuning);
  return impl;
}
}  // namespace detail

std::shared_ptr<detail::ContextImpl> Context::impl() const {
  if (!impl_) throw std::logic_error("clstat::Context: use of a moved-from Context");
  return impl_;
}

std::size_t Context::scratch_bytes() const {
  std::lock_guard<std::mutex> lock(impl()->scratch_mutex);
  return impl_->scratch_total;
}

std::size_t Context::scratch_buffers() const {
  std::lock_guard<std::mutex> lock(impl()->scratch_mutex);
  return impl_->scratch_pool.size();
}

void Context::release_scratch() const {
  {
    std::lock_guard<std::mutex> slock(impl()->scratch_mutex);
    std::lock_guard<std::mutex> lock(impl_->lease_mutex);
    impl_->trim_scratch(0);
  }
  std::lock_guard<std::mutex> lock(impl_->pinned_mutex);
  impl_->pinned_pool.clear();
}

std::size_t Context::scratch_limit() const {
  std::lock_guard<std::mutex> lock(impl()->scratch_mutex);
  return impl_->scratch_cap;
}

void Context::set_scratch_limit(std::size_t bytes) const {
  std::lock_guard<std::mutex> slock(impl()->scratch_mutex);
  std::lock_guard<std::mutex> lock(impl_->lease_mutex);
  impl_->scratch_cap = bytes;
  impl_->trim_scratch(bytes);
}

const Device& Context::device() const { return impl()->device; }
std::size_t Context::queue_count() const { return impl()->queues.size(); }

Queue Context::queue(std::size_t i) const {
  if (i >= impl()->queues.size())
    throw std::out_of_range("clstat: queue " + std::to_string(i) + " of a context with " +
                            std::to_string(impl_->queues.size()) + " queues");
  return Queue(*this, i);
}

void Context::finish() const {
  try {
    for (auto& q : impl()->queues) q.finish();
  } catch (const cl::Error& e) {
    throw Error(e.err(), "finish queues", impl_->device_name());
  }
}

std::string Context::tuning_summary() const {
  const auto& t = impl()->tuning;
  return t.source + " reduce_wg=" + std::to_string(t.reduce_wg) + " pair_wg=" + std::to_string(t.pair_wg) +
         " points_wg=" + std::to_string(t.points_wg) + " points_rows=" + std::to_string(t.points_rows) +
         " native_exp=" + (t.native_exp ? "1" : "0") + " ptx=" + (t.ptx ? "1" : "0") +
         " tuning_file_entries=" + std::to_string(t.file_entries);
}

void Context::inject_launch_failure(std::uint64_t after, int cl_code) const {
  const auto& c = impl();
  if (cl_code >= 0)
    throw std::invalid_argument("clstat::Context::inject_launch_failure: cl_code = " + std::to_string(cl_code) +
                                " is not an OpenCL error status (those are negative)");
  c->fail_code.store(cl_code);
  c->fail_in.store(static_cast<std::int64_t>(std::min<std::uint64_t>(after, INT64_MAX)));
}

void Context::cancel_injected_failure() const { impl()->fail_in.store(-1); }

void Context::set_profiling(bool on) const {
  std::lock_guard<std::mutex> lock(impl()->profile_mutex);
  impl_->profiling = on;
}

std::vector<Context::KernelRecord> Context::take_profile() const {
  std::vector<std::pair<std::string, cl::Event>> rec;
  {
    std::lock_guard<std::mutex> lock(impl()->profile_mutex);
    rec.swap(impl_->profile);
  }
  std::vector<KernelRecord> out;
  try {
    for (auto& [name, ev] : rec) {
      ev.wait();
      out.push_back({name, ev.getProfilingInfo<CL_PROFILING_COMMAND_QUEUED>(),
                     ev.getProfilingInfo<CL_PROFILING_COMMAND_START>(), ev.getProfilingInfo<CL_PROFILING_COMMAND_END>()});
    }
  } catch (const cl::Error& e) {
    throw Error(e.err(), "read kernel profile", impl_->device_name());
  }
  return out;
}

namespace detail {
ContextImpl::PinnedBlock::~PinnedBlock() {
  if (!host) return;
  try {
    queue.enqueueUnmapMemObject(buffer, host);
    queue.finish();
  } catch (...) {  // a destructor must not throw; the buffer is released either way
  }
}

std::shared_ptr<ContextImpl::PinnedBlock> ContextImpl::take_pinned(std::size_t bytes) {
  {
    std::lock_guard<std::mutex> lock(pinned_mutex);
    for (std::size_t i = 0; i < pinned_pool.size(); ++i)
      if (pinned_pool[i]->bytes >= bytes) {
        auto b = pinned_pool[i];
        pinned_pool.erase(pinned_pool.begin() + static_cast<std::ptrdiff_t>(i));
        return b;
      }
  }
  auto b = std::make_shared<PinnedBlock>();
  try {
    b->buffer = cl::Buffer(context, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, std::max<std::size_t>(bytes, 4096));
    b->queue = service;
    b->host = b->queue.enqueueMapBuffer(b->buffer, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, std::max<std::size_t>(bytes, 4096));
  } catch (const cl::Error& e) {
    throw Error(e.err(), "allocate " + std::to_string(bytes) + " bytes of pinned host memory", device_name());
  }
  b->bytes = std::max<std::size_t>(bytes, 4096);
  return b;
}

void ContextImpl::give_pinned(std::shared_ptr<PinnedBlock> block) {
  if (!block) return;
  std::lock_guard<std::mutex> lock(pinned_mutex);
  pinned_pool.push_back(std::move(block));
  std::sort(pinned_pool.begin(), pinned_pool.end(), [](const auto& a, const auto& b) { return a->bytes < b->bytes; });
  if (pinned_pool.size() > 2) pinned_pool.erase(pinned_pool.begin(), pinned_pool.end() - 2);
}
}  // namespace detail

Queue::Queue(const Context& ctx, std::size_t index) : ctx_(ctx.impl()), index_(index) {
  if (index >= ctx_->queues.size()) throw std::out_of_range("clstat: queue index out of range");
}

Context Queue::context() const {
  if (!ctx_) throw std::logic_error("clstat::Queue: use of a default-constructed or moved-from Queue");
  return Context(ctx_);
}

void Queue::finish() const {
  if (!ctx_) throw std::logic_error("clstat::Queue: use of a default-constructed or moved-from Queue");
  try {
    ctx_->queues[index_].finish();
  } catch (const cl::Error& e) {
    throw Error(e.err(), "finish queue", ctx_->device_name());
  }
}

}  // namespace clstat
