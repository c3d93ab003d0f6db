// clstat/interop/opencl.hpp: adopting an application's OpenCL objects, and native handles out.
#include "clstat/interop/opencl.hpp"

#include <stdexcept>
#include <string>

#include "runtime/impl.hpp"

namespace clstat::interop {

Context adopt_context(cl_context context, cl_device_id device, const std::vector<cl_command_queue>& queues) {
  if (!context || !device) throw std::invalid_argument("clstat::interop::adopt_context: null context or device");
  const Device dev = detail::device_of(device);
  try {
    cl::Context ctx(context, true);
    bool member = false;
    for (const cl::Device& d : ctx.getInfo<CL_CONTEXT_DEVICES>()) member = member || d() == device;
    if (!member) throw std::invalid_argument("clstat::interop::adopt_context: the device is not in the context");
    std::vector<cl::CommandQueue> pool;
    for (cl_command_queue q : queues) {
      if (!q) throw std::invalid_argument("clstat::interop::adopt_context: null queue");
      cl::CommandQueue cq(q, true);
      if (cq.getInfo<CL_QUEUE_CONTEXT>()() != context || cq.getInfo<CL_QUEUE_DEVICE>()() != device)
        throw std::invalid_argument("clstat::interop::adopt_context: a queue of another context or device");
      if (cq.getInfo<CL_QUEUE_PROPERTIES>() & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE)
        throw std::invalid_argument("clstat::interop::adopt_context: queues must be in order (clstat reuses "
                                    "scratch memory in queue order)");
      pool.push_back(std::move(cq));
    }
    if (pool.empty())
      for (int i = 0; i < 4; ++i) pool.emplace_back(ctx, dev.impl()->device, CL_QUEUE_PROFILING_ENABLE);
    return Context(detail::make_context(dev, std::move(ctx), std::move(pool), {}));
  } catch (const cl::Error& e) {
    throw Error(e.err(), "adopt an OpenCL context", dev.info().name);
  }
}

RawBuffer adopt_buffer(const Context& ctx, cl_mem mem) {
  if (!mem) throw std::invalid_argument("clstat::interop::adopt_buffer: null buffer");
  auto impl = std::make_shared<detail::BufferImpl>();
  impl->ctx = ctx.impl();
  try {
    impl->buffer = cl::Buffer(mem, true);
    if (impl->buffer.getInfo<CL_MEM_CONTEXT>()() != impl->ctx->context())
      throw std::invalid_argument("clstat::interop::adopt_buffer: the buffer belongs to another OpenCL context");
    const std::size_t bytes = impl->buffer.getInfo<CL_MEM_SIZE>();
    return RawBuffer(std::move(impl), bytes);
  } catch (const cl::Error& e) {
    throw Error(e.err(), "adopt an OpenCL buffer", ctx.info().name);
  }
}

cl_context native_context(const Context& ctx) { return ctx.impl()->context(); }
cl_device_id native_device(const Context& ctx) { return ctx.device().impl()->device(); }
cl_command_queue native_queue(const Queue& q) { return q.context().impl()->queues.at(q.index())(); }
cl_mem native_buffer(const RawBuffer& b) { return b.impl()->buffer(); }
cl_event native_event(const Event& e) { return e.impl() ? e.impl()->event() : nullptr; }

}  // namespace clstat::interop
