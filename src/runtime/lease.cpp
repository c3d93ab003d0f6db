#include "runtime/lease.hpp"

#include <algorithm>
#include <stdexcept>

namespace clstat::detail {

namespace {

using Lock = std::unique_lock<std::mutex>;


}  // namespace

// Marks queue i held by `owner` (one more nested hold when it already is) and returns the lease.
// Call with lease_mutex held through `lock`.
Lease Lease::take(std::shared_ptr<ContextImpl> ctx, std::size_t i, std::thread::id owner) {
  auto& st = ctx->queue_state[i];
  st.busy = true;
  st.owner = owner;
  ++st.depth;
  Lease l;
  l.ctx_ = std::move(ctx);
  l.index_ = i;
  return l;
}

Lease Lease::named(const Queue& q) {
  auto ctx = q.context().impl();
  const std::size_t i = q.index();
  Lock lock(ctx->lease_mutex);
  auto& st = ctx->queue_state[i];
  const auto me = std::this_thread::get_id();
  if (!(st.busy && st.owner == me)) ctx->lease_freed.wait(lock, [&] { return !st.busy; });
  return take(std::move(ctx), i, me);
}

Lease Lease::any(const Context& c) {
  auto ctx = c.impl();
  Lock lock(ctx->lease_mutex);
  const auto me = std::this_thread::get_id();
  const auto& qs = ctx->queue_state;
  std::size_t pick = qs.size();
  for (std::size_t i = 0; i < qs.size() && pick == qs.size(); ++i)
    if (qs[i].busy && qs[i].owner == me) pick = i;
  while (pick == qs.size()) {
    for (std::size_t i = 0; i < qs.size() && pick == qs.size(); ++i)
      if (!qs[i].busy) pick = i;
    if (pick == qs.size()) ctx->lease_freed.wait(lock);
  }
  return take(std::move(ctx), pick, me);
}

Lease Lease::try_another(const Context& c) {
  auto ctx = c.impl();
  Lock lock(ctx->lease_mutex);
  for (std::size_t i = 0; i < ctx->queue_state.size(); ++i)
    if (!ctx->queue_state[i].busy) return take(std::move(ctx), i, std::this_thread::get_id());
  return Lease();
}

Lease Lease::pending(const Queue& q) {
  auto ctx = q.context().impl();
  const std::size_t i = q.index();
  Lock lock(ctx->lease_mutex);
  auto& st = ctx->queue_state[i];
  ctx->lease_freed.wait(lock, [&] { return !st.busy; });
  return take(std::move(ctx), i, std::thread::id());  // owned by no thread until adopt()
}

void Lease::adopt() {
  Lock lock(ctx_->lease_mutex);
  ctx_->queue_state[index_].owner = std::this_thread::get_id();
}

void Lease::release() noexcept {
  if (!ctx_) return;
  bool outermost = false;
  {
    Lock lock(ctx_->lease_mutex);
    outermost = ctx_->queue_state[index_].depth == 1;
  }
  // What the holder enqueued goes to the device now: OpenCL does not promise to submit a queue's
  // commands before a flush, and an async call's caller may next wait on another queue's event.
  // (The NVIDIA overlap figure in staged_write's comment was measured with this flush in place.)
  if (outermost) clFlush(ctx_->queues[index_]());
  {
    Lock lock(ctx_->lease_mutex);
    auto& st = ctx_->queue_state[index_];
    if (--st.depth == 0) {
      st.busy = false;
      st.owner = std::thread::id();
    }
  }
  ctx_->lease_freed.notify_all();
  ctx_.reset();
}

bool holds_lease(const Queue& q) {
  auto ctx = q.context().impl();
  Lock lock(ctx->lease_mutex);
  const auto& st = ctx->queue_state[q.index()];
  return st.busy && st.owner == std::this_thread::get_id();
}

void require_lease(const Queue& q, const char* what) {
  if (!holds_lease(q))
    throw std::logic_error(std::string("clstat internal error: ") + what + " on queue " + std::to_string(q.index()) +
                           " without holding its lease");
}

void ContextImpl::trim_scratch(std::size_t keep) {
  std::vector<std::map<ScratchKey, ScratchEntry>::iterator> free;
  for (auto it = scratch_pool.begin(); it != scratch_pool.end(); ++it)
    if (!queue_state[it->second.queue].busy) free.push_back(it);
  std::sort(free.begin(), free.end(), [](const auto& a, const auto& b) { return a->second.last_use < b->second.last_use; });
  for (auto& it : free) {
    if (scratch_total <= keep) break;
    scratch_total -= it->second.bytes;
    scratch_pool.erase(it);
  }
}

cl::Buffer scratch_buffer(const Queue& q, const std::type_info& type, int which, int part, std::size_t bytes,
                          bool zero_new) {
  auto ctx = q.context().impl();
  const std::size_t i = q.index();
  std::lock_guard<std::mutex> slock(ctx->scratch_mutex);
  const ContextImpl::ScratchKey key{i, reinterpret_cast<std::uintptr_t>(&type), which, part};
  {
    Lock lock(ctx->lease_mutex);
    const auto& st = ctx->queue_state[i];
    if (!(st.busy && st.owner == std::this_thread::get_id()))
      throw std::logic_error("clstat internal error: scratch on queue " + std::to_string(i) + " without its lease");
  }
  auto& e = ctx->scratch_pool[key];
  e.queue = i;
  e.last_use = ++ctx->scratch_clock;
  if (e.bytes < bytes) {
    const std::size_t size = std::max<std::size_t>(bytes, 4096);
    ctx->scratch_total -= e.bytes;
    e.bytes = 0;
    e.buffer = cl::Buffer();
    {
      // Make room under the cap first: the least recently used buffers of idle queues go.
      Lock lock(ctx->lease_mutex);
      if (ctx->scratch_total + size > ctx->scratch_cap)
        ctx->trim_scratch(ctx->scratch_cap > size ? ctx->scratch_cap - size : 0);
    }
    try {
      e.buffer = cl::Buffer(ctx->context, CL_MEM_READ_WRITE, size);
    } catch (const cl::Error& err) {
      ctx->scratch_pool.erase(key);
      throw Error(err.err(), "allocate scratch of " + std::to_string(size) + " bytes", ctx->device_name());
    }
    e.bytes = size;
    ctx->scratch_total += size;
    if (zero_new) {
      static const cl_uint zero = 0;
      queue_of(q).enqueueFillBuffer(e.buffer, zero, 0, size);
    }
  }
  return e.buffer;
}

cl::Buffer region_copy(const Queue& q, const cl::Buffer& src, std::size_t byte_offset, std::size_t bytes,
                       const cl::Buffer& dst, std::vector<Event>& deps) {
  const auto waits = to_cl(deps);
  cl::Event e;
  queue_of(q).enqueueCopyBuffer(src, dst, byte_offset, 0, bytes, waits.empty() ? nullptr : &waits, &e);
  deps = {from_cl(e)};
  return dst;
}

Event copy_out(const Queue& q, const cl::Buffer& src, const cl::Buffer& dst, std::size_t byte_offset,
               std::size_t bytes, const Event& after) {
  const auto waits = to_cl({after});
  cl::Event e;
  queue_of(q).enqueueCopyBuffer(src, dst, 0, byte_offset, bytes, waits.empty() ? nullptr : &waits, &e);
  return from_cl(e);
}

void ContextImpl::post(std::size_t i, std::function<void()> task) {
  std::shared_ptr<Worker> w;
  {
    std::lock_guard<std::mutex> lock(workers_mutex);
    if (workers.size() < queues.size()) workers.resize(queues.size());
    if (!workers[i]) {
      w = std::make_shared<Worker>();
      w->thread = std::thread([w] {
        std::unique_lock<std::mutex> l(w->mutex);
        for (;;) {
          w->wake.wait(l, [&] { return w->stop || !w->tasks.empty(); });
          if (w->tasks.empty()) return;  // stopped, nothing left
          std::vector<std::function<void()>> run;
          run.swap(w->tasks);
          l.unlock();
          for (auto& t : run) t();  // a task never throws: host_task catches into its promise
          run.clear();              // before the lock: a task's captures may hold the context
          l.lock();
        }
      });
      workers[i] = w;
    }
    w = workers[i];
  }
  {
    std::lock_guard<std::mutex> l(w->mutex);
    w->tasks.push_back(std::move(task));
  }
  w->wake.notify_one();
}

ContextImpl::~ContextImpl() {
  // The last reference can be dropped by a task on a worker: that worker cannot join itself, so
  // it is detached and ends after the task (its state is shared with it).
  for (auto& w : workers) {
    if (!w) continue;
    {
      std::lock_guard<std::mutex> l(w->mutex);
      w->stop = true;
    }
    w->wake.notify_one();
    if (w->thread.get_id() == std::this_thread::get_id()) w->thread.detach();
    else if (w->thread.joinable()) w->thread.join();
  }
}

cl::UserEvent user_event(ContextImpl& ctx) {
  try {
    return cl::UserEvent(ctx.context);
  } catch (const cl::Error& e) {
    throw Error(e.err(), "create user event", ctx.device_name());
  }
}

cl::Buffer staged_write(const Queue& q, const cl::Buffer& dst, const void* src, std::size_t bytes) {
  require_lease(q, "staged_write");
  auto* copy = new std::vector<unsigned char>(static_cast<const unsigned char*>(src),
                                              static_cast<const unsigned char*>(src) + bytes);
  cl::Event ev;
  try {
    queue_of(q).enqueueWriteBuffer(dst, CL_FALSE, 0, bytes, copy->data(), nullptr, &ev);
    ev.setCallback(CL_COMPLETE, [](cl_event, cl_int, void* p) { delete static_cast<std::vector<unsigned char>*>(p); },
                   copy);
  } catch (...) {
    if (!ev()) delete copy;  // not enqueued: nothing will read it
    throw;
  }
  return dst;
}

void wait_event(const cl::CommandQueue& q, const cl::Event& e, bool poll) {
  q.flush();
  if (!poll) {
    e.wait();
    return;
  }
  for (;;) {
    const cl_int s = e.getInfo<CL_EVENT_COMMAND_EXECUTION_STATUS>();
    if (s == CL_COMPLETE) return;
    if (s < 0) throw cl::Error(s, "clWaitForEvents");
  }
}

void read_wait(const cl::CommandQueue& q, const cl::Buffer& src, std::size_t byte_offset, std::size_t bytes,
               void* dst, bool poll) {
  if (bytes == 0) return;
  cl::Event ev;
  q.enqueueReadBuffer(src, CL_FALSE, byte_offset, bytes, dst, nullptr, &ev);
  wait_event(q, ev, poll);
}

void write_wait(const cl::CommandQueue& q, const cl::Buffer& dst, std::size_t byte_offset, std::size_t bytes,
                const void* src) {
  if (bytes == 0) return;
  cl::Event ev;
  q.enqueueWriteBuffer(dst, CL_FALSE, byte_offset, bytes, src, nullptr, &ev);
  q.flush();
  ev.wait();
}

}  // namespace clstat::detail
