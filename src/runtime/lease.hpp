// Internal: queue leases, the scratch workspace keyed by declarations, and host tasks.
//
// A queue of a Context's pool is held by at most one host thread at a time: the thread that
// enqueues an operation's commands holds the queue's lease for as long as it enqueues, so the
// queue's cl::Kernel objects (whose arguments are set before each launch) and its scratch buffers
// are touched by one thread at a time. Queues are in order, so the next holder's commands run
// after the previous holder's, and scratch can be reused without waiting on the host.
//
// Leases are re-entrant per thread: an operation that calls another on the queue it holds goes on
// holding it (the nested operation finds the lease and does not wait). A lease can be handed to a
// host task (the asynchronous form of an operation that decides on the host between passes): it
// is taken in the caller's thread, so later calls on the same queue queue up behind the task, and
// adopted by the task's thread.
#pragma once

#include <atomic>
#include <cstddef>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <vector>

#include "runtime/impl.hpp"

namespace clstat::detail {

class Lease {
 public:
  Lease() = default;
  /// Queue q, waiting while another thread holds it (re-entrant for the thread holding it).
  static Lease named(const Queue& q);
  /// A queue of ctx that this thread already holds, else the first free one, else waits for one.
  static Lease any(const Context& ctx);
  /// A free queue of ctx that this thread does not hold yet; an empty lease when there is none.
  static Lease try_another(const Context& ctx);
  Lease(Lease&& o) noexcept { swap(o); }
  Lease& operator=(Lease&& o) noexcept {
    if (this != &o) {
      release();
      swap(o);
    }
    return *this;
  }
  Lease(const Lease&) = delete;
  Lease& operator=(const Lease&) = delete;
  ~Lease() { release(); }

  explicit operator bool() const noexcept { return static_cast<bool>(ctx_); }
  Queue queue() const { return Queue(Context(ctx_), index_); }
  std::size_t index() const noexcept { return index_; }
  const cl::CommandQueue& cl() const { return ctx_->queues[index_]; }

  /// For host tasks: the lease is taken but owned by no thread until adopt() in the task.
  static Lease pending(const Queue& q);
  void adopt();

 private:
  static Lease take(std::shared_ptr<ContextImpl> ctx, std::size_t i, std::thread::id owner);
  void release() noexcept;
  void swap(Lease& o) noexcept {
    std::swap(ctx_, o.ctx_);
    std::swap(index_, o.index_);
  }
  std::shared_ptr<ContextImpl> ctx_;
  std::size_t index_ = 0;
};

/// True when the calling thread holds queue q's lease.
bool holds_lease(const Queue& q);

/// Throws std::logic_error unless the calling thread holds q's lease (an internal error: every
/// entry point leases before it enqueues).
void require_lease(const Queue& q, const char* what);

/// The scratch buffer `which` (a value of an enum declared next to the operation that uses it) of
/// at least `bytes`, in the workspace of the lease held on q; `part` tells apart the buffers of an
/// array declared as one value. Operations that nest use enums of their own, so their buffers never
/// meet. Reused call after call;
/// grows when too small (the old buffer is freed by OpenCL once its commands are done).
/// With `zero_new`, a buffer made by this call is filled with zero bytes by a command on q (ordered
/// before q's later commands).
cl::Buffer scratch_buffer(const Queue& q, const std::type_info& type, int which, int part, std::size_t bytes,
                          bool zero_new = false);

template <class E>
cl::Buffer scratch(const Queue& q, E which, std::size_t bytes, std::size_t part = 0) {
  static_assert(std::is_enum<E>::value, "scratch is keyed by an enum declared with the operation");
  return scratch_buffer(q, typeid(E), static_cast<int>(which), static_cast<int>(part), bytes);
}

/// Scratch that is zero when made and that its kernels leave zero (self-resetting counters): the
/// fill happens once per buffer, not per call.
template <class E>
cl::Buffer scratch_zeroed(const Queue& q, E which, std::size_t bytes) {
  static_assert(std::is_enum<E>::value, "scratch is keyed by an enum declared with the operation");
  return scratch_buffer(q, typeid(E), static_cast<int>(which), 0, bytes, true);
}

/// A small block of host data (an operation's parameters) for q's kernels: copied into q's scratch
/// `which` by a write the host does not wait for (the bytes are copied first and freed when the
/// write completes). Not a buffer made with CL_MEM_COPY_HOST_PTR per call: on NVIDIA a kernel that
/// read such a buffer waited for the kernels of the other queues, so 4 stable::evaluate_async calls
/// on 4 queues took 4 times one call (3.4 times faster with this; a buffer made but not read by
/// the kernel did not serialise). Ordered before q's later commands (queues are in order).
cl::Buffer staged_write(const Queue& q, const cl::Buffer& dst, const void* src, std::size_t bytes);
template <class E>
cl::Buffer staged(const Queue& q, E which, const void* src, std::size_t bytes) {
  return staged_write(q, scratch(q, which, bytes), src, bytes);
}

/// Reads bytes at byte_offset of src into dst (or writes src's bytes into dst) and waits for it,
/// without a blocking clEnqueueRead/WriteBuffer: a non-blocking transfer, a flush and a wait on its
/// event. On NVIDIA a blocking transfer held up the other host threads' commands: 8 threads making
/// kernel-and-read calls on 8 queues took as long as the 64 calls one after another (0.84x to
/// 1.06x), and 2.1x to 6x less with this (H100, calls of 0.15 to 1 ms).
/// With `poll` (GPUs), the wait polls the read's status (wait_event).
void read_wait(const cl::CommandQueue& q, const cl::Buffer& src, std::size_t byte_offset, std::size_t bytes,
               void* dst, bool poll = false);
void write_wait(const cl::CommandQueue& q, const cl::Buffer& dst, std::size_t byte_offset, std::size_t bytes,
                const void* src);

/// Flushes q and waits for e, one of its commands. With `poll` it polls e's status instead of the
/// driver's blocking wait: NVIDIA's OpenCL sleeps there and answers 100 us or more after the
/// command ends, which a selection that waits once a pass pays every pass. For GPUs only: on a
/// CPU device the polling thread takes a core from the kernels. Raises cl::Error with e's status
/// when the command failed.
void wait_event(const cl::CommandQueue& q, const cl::Event& e, bool poll);

/// Device-buffer forms whose kernels read from element 0: `bytes` of `src` from `byte_offset`,
/// which is src itself at offset 0, else a copy in q's scratch `which` (enqueued after `deps`,
/// which then becomes the copy's event). A copy, so no rounding; O(bytes) device traffic.
cl::Buffer region_copy(const Queue& q, const cl::Buffer& src, std::size_t byte_offset, std::size_t bytes,
                       const cl::Buffer& scratch_dst, std::vector<Event>& deps);
template <class E>
cl::Buffer region_in(const Queue& q, const cl::Buffer& src, std::size_t byte_offset, std::size_t bytes, E which,
                     std::vector<Event>& deps) {
  if (byte_offset == 0) return src;
  return region_copy(q, src, byte_offset, bytes, scratch(q, which, bytes), deps);
}

/// The other direction: `bytes` of `src` (a scratch result) copied to `dst` from `byte_offset`,
/// after `after`; returns the copy's event.
Event copy_out(const Queue& q, const cl::Buffer& src, const cl::Buffer& dst, std::size_t byte_offset,
               std::size_t bytes, const Event& after);

/// The asynchronous form of an operation that waits on the host between its passes: leases q in
/// the caller's thread, then runs body() on q's worker thread (ContextImpl::post), which waits for
/// `wait`, adopts the lease, runs, and releases it. The Future's event is a user event that completes when body returns
/// (or fails, with a negative status). Called by a thread that already holds q, it runs body
/// inline and returns a ready Future. body must only use the queue it is given.
template <class T>
Future<T> host_task(const Queue& q, const std::vector<Event>& wait, std::function<T()> body);

/// A user event of ctx (for host tasks).
cl::UserEvent user_event(ContextImpl& ctx);

template <class T>
Future<T> host_task(const Queue& q, const std::vector<Event>& wait, std::function<T()> body) {
  if (holds_lease(q)) {
    for (const Event& e : wait) e.wait();
    std::promise<T> p;
    p.set_value(body());
    return Future<T>(Event(), p.get_future().share());
  }
  const auto ctx = q.context().impl();
  cl::UserEvent done = user_event(*ctx);
  auto lease = std::make_shared<Lease>(Lease::pending(q));
  auto promise = std::make_shared<std::promise<T>>();
  std::shared_future<T> result = promise->get_future().share();
  // The task runs once, on the queue's task thread or on the thread that asks for the result
  // first (Future::get), whichever takes it: a caller that waits at once is spared two thread
  // wake-ups (tens of microseconds each on a virtual machine). Both may run it: the pending
  // lease already holds the queue, so the order of the queue's work is the same either way.
  auto taken = std::make_shared<std::atomic<bool>>(false);
  auto task = std::make_shared<std::function<void()>>([lease, done, wait, promise, body = std::move(body)]() mutable {
    // The queue is free, then the event completes, then the result is delivered: whoever learns
    // the result finds both done.
    auto close = [&](cl_int status) {
      lease.reset();
      try {
        done.setStatus(status);
      } catch (...) {  // the result still arrives through the promise
      }
    };
    std::optional<T> v;
    try {
      lease->adopt();
      for (const Event& e : wait) e.wait();
      v.emplace(body());
    } catch (...) {
      close(-1);
      promise->set_exception(std::current_exception());
      return;
    }
    close(CL_COMPLETE);
    promise->set_value(std::move(*v));
  });
  auto run_once = [taken, task] {
    if (taken->exchange(true)) return;
    (*task)();
    *task = nullptr;  // only the runner touches it: the captures go now, not with the Future
  };
  ctx->post(q.index(), run_once);
  return Future<T>(from_cl(done), std::move(result), run_once);
}

}  // namespace clstat::detail
