// Internal: the host side shared by every reduction (stage 1 over the slots, then reduce_pass
// until one state is left), and the host mirrors of the kernels' state structs.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "clstat/primitives.hpp"
#include "runtime/impl.hpp"

namespace clstat::primitives {

/// Canonical slot count for n elements: the next power of two >= n / 16, at most 2^16 below 2^24
/// elements and 2^18 from there. A function of n only, so results do not depend on the device or
/// the work-group size.
std::uint64_t slot_count(std::uint64_t n);

/// Element count of one chunk for host-array reductions on this device.
std::size_t host_chunk_elements(const DeviceInfo& info, std::size_t elem_size);

template <class T> struct CSumState { T s, c; };
template <class T> struct ExtremaState { T vmin, vmax; std::uint64_t imin, imax; };
template <class T> struct MomentsState { T mean, m2; std::uint64_t n; };

template <class T> CSumState<T> merge(CSumState<T> a, CSumState<T> b);
template <class T> ExtremaState<T> merge(ExtremaState<T> a, ExtremaState<T> b);
template <class T> MomentsState<T> merge(MomentsState<T> a, MomentsState<T> b);
inline std::uint64_t merge(std::uint64_t a, std::uint64_t b) { return a + b; }
template <class T> T csum_value(CSumState<T> a);

/// What one reduction needs: its kernel source, extra -D options and two parameters.
struct ReduceKind {
  std::string source;   // e.g. "primitives/reduce_sum"
  std::string options;  // e.g. " -DTRANSFORM=3"
  double pa = 0, pb = 0;
  std::string operation;  // for messages: "clstat::sum"
};

/// Enqueues the reduction of x[offset, offset + n) on q and returns a Future of the final state.
template <class State, class T>
Future<State> reduce_async(const Queue& q, const Buffer<T>& x, std::size_t offset, std::size_t n,
                           const ReduceKind& kind, const std::vector<Event>& wait);

/// Every row of the rows x cols matrix at x[offset ..) reduced on its own (one work-group a row):
/// row r's state is reduce_async's for that row, bit for bit. Returns the rows' final states.
template <class State, class T>
Future<std::vector<State>> reduce_each_row_async(const Queue& q, const Buffer<T>& x, std::size_t offset,
                                                 std::size_t rows, std::size_t cols, const ReduceKind& kind,
                                                 const std::vector<Event>& wait);

/// Host-array form: chunks, uploads, reduces, merges chunk states in order.
template <class State, class T>
State reduce_host(const Context& ctx, const T* x, std::size_t n, const ReduceKind& kind);

}  // namespace clstat::primitives
