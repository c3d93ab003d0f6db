#include <algorithm>
#include <stdexcept>

#include "runtime/impl.hpp"

namespace clstat {

Context::Context() : Context(default_device()) {}

Context::Context(const Device& device, std::size_t queues) {
  if (!device.valid()) throw std::invalid_argument("clstat: Context needs a valid Device");
  if (queues == 0) throw std::invalid_argument("clstat: Context needs at least one queue");
  auto impl = std::make_shared<detail::ContextImpl>();
  impl->device = device;
  const cl::Device& d = device.impl()->device;
  try {
    impl->context = cl::Context(d);
    for (std::size_t i = 0; i < queues; ++i)
      impl->queues.emplace_back(impl->context, d, CL_QUEUE_PROFILING_ENABLE);
  } catch (const cl::Error& e) {
    throw Error(e.err(), "create context", device.info().name);
  }
  impl->tuning = detail::default_tuning(device.info());
  impl_ = std::move(impl);
}

const Device& Context::device() const { return impl_->device; }
std::size_t Context::queue_count() const { return impl_->queues.size(); }

Queue Context::queue(std::size_t i) const {
  if (i >= impl_->queues.size())
    throw std::out_of_range("clstat: queue " + std::to_string(i) + " of a context with " +
                            std::to_string(impl_->queues.size()) + " queues");
  return Queue(*this, i);
}

void Context::finish() const {
  for (auto& q : impl_->queues) q.finish();
}

std::string Context::tuning_summary() const {
  const auto& t = impl_->tuning;
  return t.source + " reduce_wg=" + std::to_string(t.reduce_wg) + " pair_wg=" + std::to_string(t.pair_wg) +
         " points_wg=" + std::to_string(t.points_wg) + " points_rows=" + std::to_string(t.points_rows) +
         " native_exp=" + (t.native_exp ? "1" : "0") + " tuning_file_entries=" + std::to_string(t.file_entries);
}

void Context::set_profiling(bool on) const {
  std::lock_guard<std::mutex> lock(impl_->profile_mutex);
  impl_->profiling = on;
}

std::vector<Context::KernelRecord> Context::take_profile() const {
  std::vector<std::pair<std::string, cl::Event>> rec;
  {
    std::lock_guard<std::mutex> lock(impl_->profile_mutex);
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
cl::Buffer ContextImpl::scratch(std::size_t queue, int slot, std::size_t bytes) {
  std::lock_guard<std::mutex> lock(scratch_mutex);
  auto& entry = scratch_buffers[{queue, slot}];
  if (entry.second < bytes) {
    std::size_t size = std::max<std::size_t>(bytes, 4096);
    try {
      entry.first = cl::Buffer(context, CL_MEM_READ_WRITE, size);
    } catch (const cl::Error& e) {
      throw Error(e.err(), "allocate scratch of " + std::to_string(size) + " bytes", device_name());
    }
    entry.second = size;
  }
  return entry.first;
}

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
    b->queue = queues.at(0);
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

Context Queue::context() const { return Context(ctx_); }

void Queue::finish() const {
  try {
    ctx_->queues[index_].finish();
  } catch (const cl::Error& e) {
    throw Error(e.err(), "finish queue", ctx_->device_name());
  }
}

}  // namespace clstat
