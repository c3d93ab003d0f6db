// clstat/interop/opencl.hpp: clstat objects over an application's own OpenCL objects, and the
// native handles of clstat's objects. The one public header that includes CLHPP.
//
// Nothing is copied: an adopted context, queue or buffer is the application's object, retained
// (its reference count raised) for as long as a clstat object refers to it, and released after.
// The application may go on using it; clstat's thread-safety contract (clstat/runtime.hpp) covers
// only what clstat itself enqueues, so work the application enqueues on an adopted queue is
// ordered with clstat's by that queue and by events, as usual in OpenCL.
#pragma once

// clstat targets OpenCL 1.2 (the library is built with these; an application may choose others).
#ifndef CL_HPP_TARGET_OPENCL_VERSION
#define CL_HPP_TARGET_OPENCL_VERSION 120
#endif
#ifndef CL_HPP_MINIMUM_OPENCL_VERSION
#define CL_HPP_MINIMUM_OPENCL_VERSION 120
#endif
#include <CL/opencl.hpp>

#include <cstddef>
#include <vector>

#include "clstat/runtime.hpp"

namespace clstat::interop {

/// A Context on the application's `context` and `device` (which must belong to it). With
/// `queues` empty, clstat creates four in-order profiling queues of its own on that context;
/// otherwise those queues are its pool (each in order, on `device` and `context`; profiling
/// enabled if Event::duration_ns or Context::set_profiling are to be used). Throws
/// std::invalid_argument for a null handle, a device or queue that does not belong to the
/// context, or an out-of-order queue; clstat::Error when a query fails. O(queues) driver calls.
/// The Context it returns follows clstat/runtime.hpp's thread-safety contract.
CLSTAT_EXPORT Context adopt_context(cl_context context, cl_device_id device,
                                    const std::vector<cl_command_queue>& queues = {});

/// The application's buffer `mem` (of ctx's OpenCL context) as untyped clstat memory of its
/// full size; no copy. Throws std::invalid_argument for a null handle or a buffer of another
/// context, clstat::Error when a query fails. O(1): two driver queries. Thread-safe.
CLSTAT_EXPORT RawBuffer adopt_buffer(const Context& ctx, cl_mem mem);

/// The same, typed: mem.size / sizeof(T) elements.
template <class T>
Buffer<T> adopt_buffer_of(const Context& ctx, cl_mem mem) {
  return Buffer<T>(adopt_buffer(ctx, mem));
}

/// Native handles, not retained (valid while the clstat object lives): the OpenCL context and
/// device of ctx, queue q's command queue, a buffer's memory object, an event's cl_event (null
/// for a default Event). O(1), never throw for a valid object (std::logic_error for a
/// moved-from one, as everywhere).
CLSTAT_EXPORT cl_context native_context(const Context& ctx);
CLSTAT_EXPORT cl_device_id native_device(const Context& ctx);
CLSTAT_EXPORT cl_command_queue native_queue(const Queue& q);
CLSTAT_EXPORT cl_mem native_buffer(const RawBuffer& b);
template <class T>
cl_mem native_buffer(const Buffer<T>& b) {
  return native_buffer(b.raw());
}
CLSTAT_EXPORT cl_event native_event(const Event& e);

}  // namespace clstat::interop
