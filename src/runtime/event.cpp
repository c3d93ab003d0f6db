#include "runtime/lease.hpp"

namespace clstat {
namespace detail {

std::vector<cl::Event> to_cl(const std::vector<Event>& events) {
  std::vector<cl::Event> out;
  out.reserve(events.size());
  for (const Event& e : events)
    if (e.impl()) out.push_back(e.impl()->event);
  return out;
}

Event from_cl(const cl::Event& e) {
  auto impl = std::make_shared<EventImpl>();
  impl->event = e;
  return Event(impl);
}

}  // namespace detail

void Event::wait() const {
  if (!impl_) return;
  try {
    impl_->event.wait();
  } catch (const cl::Error& e) {
    throw Error(e.err(), "wait for event", "");
  }
  cl_int status = impl_->event.getInfo<CL_EVENT_COMMAND_EXECUTION_STATUS>();
  if (status < 0) throw Error(status, "enqueued command", "");
}

bool Event::complete() const {
  if (!impl_) return true;
  return impl_->event.getInfo<CL_EVENT_COMMAND_EXECUTION_STATUS>() == CL_COMPLETE;
}

std::uint64_t Event::duration_ns() const {
  if (!impl_) return 0;
  wait();
  try {
    return impl_->event.getProfilingInfo<CL_PROFILING_COMMAND_END>() -
           impl_->event.getProfilingInfo<CL_PROFILING_COMMAND_START>();
  } catch (const cl::Error& e) {
    throw Error(e.err(), "read event profiling", "");
  }
}

RawBuffer::RawBuffer(const Context& ctx, std::size_t bytes) : bytes_(bytes) {
  const DeviceInfo& info = ctx.info();
  if (bytes == 0) throw std::invalid_argument("clstat: a device buffer needs at least one byte");
  if (bytes > info.max_alloc_bytes)
    throw UnsupportedFeature("allocate buffer", info.name,
                             "a buffer of " + std::to_string(bytes) + " bytes exceeds the device's largest allocation (" +
                                 std::to_string(info.max_alloc_bytes) + " bytes)");
  auto impl = std::make_shared<detail::BufferImpl>();
  impl->ctx = ctx.impl();
  try {
    impl->buffer = cl::Buffer(ctx.impl()->context, CL_MEM_READ_WRITE, bytes);
  } catch (const cl::Error& e) {
    throw Error(e.err(), "allocate " + std::to_string(bytes) + " bytes", info.name);
  }
  impl_ = std::move(impl);
}

std::shared_ptr<detail::BufferImpl> RawBuffer::impl() const {
  if (!impl_) throw std::logic_error("clstat::Buffer: use of a default-constructed or moved-from buffer");
  return impl_;
}

namespace {
void check_range(std::size_t have, std::size_t bytes, std::size_t offset, const char* what) {
  if (offset > have || bytes > have - offset)
    throw std::out_of_range(std::string("clstat: ") + what + " of " + std::to_string(bytes) + " bytes at offset " +
                            std::to_string(offset) + " past a buffer of " + std::to_string(have) + " bytes");
}
}  // namespace

Event RawBuffer::write_async(const Queue& q, const void* src, std::size_t bytes, std::size_t offset,
                             const std::vector<Event>& wait) const {
  check_range(bytes_, bytes, offset, "write");
  if (bytes && !src) throw std::invalid_argument("clstat: buffer write from a null pointer");
  const auto buf = impl();
  detail::Lease lease = detail::Lease::named(q);
  cl::Event ev;
  auto waits = detail::to_cl(wait);
  try {
    lease.cl().enqueueWriteBuffer(buf->buffer, CL_FALSE, offset, bytes, src, waits.empty() ? nullptr : &waits, &ev);
  } catch (const cl::Error& e) {
    throw Error(e.err(), "write buffer", impl_->ctx->device_name());
  }
  return detail::from_cl(ev);
}

Event RawBuffer::read_async(const Queue& q, void* dst, std::size_t bytes, std::size_t offset,
                            const std::vector<Event>& wait) const {
  check_range(bytes_, bytes, offset, "read");
  if (bytes && !dst) throw std::invalid_argument("clstat: buffer read into a null pointer");
  const auto buf = impl();
  detail::Lease lease = detail::Lease::named(q);
  cl::Event ev;
  auto waits = detail::to_cl(wait);
  try {
    lease.cl().enqueueReadBuffer(buf->buffer, CL_FALSE, offset, bytes, dst, waits.empty() ? nullptr : &waits, &ev);
  } catch (const cl::Error& e) {
    throw Error(e.err(), "read buffer", impl_->ctx->device_name());
  }
  return detail::from_cl(ev);
}

void RawBuffer::write(const Queue& q, const void* src, std::size_t bytes, std::size_t offset) const {
  write_async(q, src, bytes, offset).wait();
}

void RawBuffer::upload(const Context& ctx, const void* src, std::size_t bytes) const {
  detail::Lease lease = detail::Lease::any(ctx);
  write_async(lease.queue(), src, bytes, 0).wait();
}

void RawBuffer::read(const Queue& q, void* dst, std::size_t bytes, std::size_t offset) const {
  read_async(q, dst, bytes, offset).wait();
}

Event RawBuffer::fill_async(const Queue& q, const void* pattern, std::size_t pattern_size,
                            const std::vector<Event>& wait) const {
  if (pattern_size == 0 || bytes_ % pattern_size != 0)
    throw std::invalid_argument("clstat: fill pattern size must divide the buffer size");
  const auto buf = impl();
  detail::Lease lease = detail::Lease::named(q);
  cl::Event ev;
  auto waits = detail::to_cl(wait);
  cl_int err = clEnqueueFillBuffer(lease.cl()(), buf->buffer(), pattern, pattern_size, 0, bytes_,
                                   static_cast<cl_uint>(waits.size()),
                                   waits.empty() ? nullptr : reinterpret_cast<const cl_event*>(waits.data()), &ev());
  if (err != CL_SUCCESS) throw Error(err, "fill buffer", impl_->ctx->device_name());
  return detail::from_cl(ev);
}

}  // namespace clstat
