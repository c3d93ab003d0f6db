#include "primitives/reduce_plan.hpp"

#include <algorithm>
#include <cmath>

#include "build/program_cache.hpp"
#include "runtime/launch.hpp"
#include "runtime/lease.hpp"

namespace clstat::primitives {

// Slots a work-item of reduce_rows walks (at most; never more than the P slots there are): the
// tunable reduce.row_slots, by default 1024 contiguous elements a row step, an 8 KB run of
// doubles, long enough for the prefetchers that stop at 4 KB pages, while its states (16 KB for a
// compensated sum) stay in L1 or L2. PoCL 3.1, 2 cores, 2^25 doubles: sum 10.1 -> 13.1 GB/s,
// moments 11.6 -> 15.7, extrema 3.0 -> 4.0 with 1024 against 256; 2048 and 4096 measured the same
// or less. The slots' merge tree is the canonical one for any power of two: the same bits.
std::uint64_t row_slots(const detail::ContextImpl& ctx, std::uint64_t P) {
  return std::min<std::uint64_t>(detail::tuned(ctx.tuning, "reduce.row_slots", std::size_t{1024}), P);
}

std::uint64_t slot_count(std::uint64_t n) {
  std::uint64_t p = 1;
  // 2^18 slots keep about 60 warps of loads in flight per H100 multiprocessor (2^16 gave 15 and
  // left bandwidth unused); the cost is 2^18 / WG partial states, under 2 MB. Smaller inputs
  // take at least 16 elements a slot: fewer partial states, so one pass fewer after the first
  // kernel (H100, sum of 2^20 doubles: device span 39 us with a slot per element, 24 us at 16 a
  // slot, 21 us at 64). Below 2^24 elements, at most 2^16 slots: at most 256 groups of 256,
  // whose last group finishes the reduction in the first launch (H200, extrema of 2^22 floats
  // 35 -> 16 us, doubles 39 -> 19; of 2^23, 33-39 -> 21 and 47 -> 37); from 2^24 on the read
  // outweighs the second launch. (Measured when the last group took at most WG groups; it now
  // takes up to 16 WG, so 2^17 and 2^18 slots would also finish in one launch: not measured.)
  const std::uint64_t cap = n < (std::uint64_t(1) << 24) ? (1u << 16) : (1u << 18);
  while (p < (n + 15) / 16 && p < cap) p <<= 1;
  return p;
}

std::size_t host_chunk_elements(const DeviceInfo& info, std::size_t elem_size) {
  // A fixed 2^27 elements, so results agree between devices, unless the device cannot hold it.
  std::size_t c = std::size_t(1) << 27;
  while (c > 1 && c * elem_size > info.max_alloc_bytes / 2) c >>= 1;
  return c;
}

template <class T>
CSumState<T> merge(CSumState<T> a, CSumState<T> b) {
  // The same TwoSum merge as cl/common/compensated.clh.
  const T t = a.s + b.s;
  const T bp = t - a.s;
  const T e = (a.s - (t - bp)) + (b.s - bp);
  return {t, (a.c + b.c) + e};
}

template <class T>
T csum_value(CSumState<T> a) {
  return std::isfinite(a.s) ? a.s + a.c : a.s;
}

namespace {
// The scratch of one reduction: the partial states after a pass, and the next pass's.
enum class ReduceScratch { states, next, done, rows_next };
constexpr std::uint64_t k_empty = ~std::uint64_t(0);
template <class T>
bool before(T a, std::uint64_t ia, T b, std::uint64_t ib, bool less) {
  if (ib == k_empty) return ia != k_empty;
  if (ia == k_empty) return false;
  if (std::isnan(a)) return !std::isnan(b) || ia < ib;
  if (std::isnan(b)) return false;
  if (a == b) return ia < ib;
  return less ? a < b : a > b;
}
}  // namespace

template <class T>
ExtremaState<T> merge(ExtremaState<T> a, ExtremaState<T> b) {
  if (before(b.vmin, b.imin, a.vmin, a.imin, true)) a.vmin = b.vmin, a.imin = b.imin;
  if (before(b.vmax, b.imax, a.vmax, a.imax, false)) a.vmax = b.vmax, a.imax = b.imax;
  return a;
}

template <class T>
MomentsState<T> merge(MomentsState<T> a, MomentsState<T> b) {
  if (b.n == 0) return a;
  if (a.n == 0) return b;
  const std::uint64_t n = a.n + b.n;
  const T delta = b.mean - a.mean;
  const T fb = static_cast<T>(b.n) / static_cast<T>(n);
  return {a.mean + delta * fb, (a.m2 + b.m2) + delta * delta * (static_cast<T>(a.n) * fb), n};
}

namespace {
// The arguments every first-stage kernel takes (reduce_slots.clh): the data, its offset and
// length, the slot count, the kind's two parameters and where the states go.
template <class T>
void set_stage1(cl::Kernel& k, const Buffer<T>& x, std::size_t offset, std::uint64_t n, std::uint64_t P,
                const ReduceKind& kind, const cl::Buffer& out) {
  k.setArg(0, x.raw().impl()->buffer);
  k.setArg(1, static_cast<cl_ulong>(offset));
  k.setArg(2, static_cast<cl_ulong>(n));
  k.setArg(3, static_cast<cl_ulong>(P));
  k.setArg(4, static_cast<T>(kind.pa));
  k.setArg(5, static_cast<T>(kind.pb));
  k.setArg(6, out);
}
}  // namespace

template <class State, class T>
Future<State> reduce_async(const Queue& q, const Buffer<T>& x, std::size_t offset, std::size_t n,
                           const ReduceKind& kind, const std::vector<Event>& wait) {
  if (n == 0) throw std::invalid_argument(kind.operation + ": empty input (n = 0)");
  if (offset > x.size() || n > x.size() - offset)
    throw std::invalid_argument(kind.operation + ": range [" + std::to_string(offset) + ", " +
                                std::to_string(offset + n) + ") is past the end of a buffer of " +
                                std::to_string(x.size()) + " elements");
  auto ctx = q.context().impl();
  detail::Lease lease = detail::Lease::named(q);
  return detail::cl_guard(kind.operation, *ctx, [&] {
    const bool dbl = std::is_same<T, double>::value;
    const std::uint64_t P = slot_count(n), RS = row_slots(*ctx, P);
    const std::string options =
        build::base_options(*ctx, dbl, kind.operation) + kind.options + " -DROW_SLOTS=" + std::to_string(RS);
    // The first stage's form (same bits either way): a work-item a slot on GPUs, a work-item a run
    // of slots walking rows on CPUs (reduce_slots.clh says why).
    const bool rows = detail::tuned(ctx->tuning, "reduce.rows", ctx->info().type == DeviceType::cpu ? 1 : 0) != 0;
    std::size_t wg = 0;
    auto prog = build::program_for_wg(*ctx, kind.source, options, "reduce_slots", ctx->tuning.reduce_wg, wg);
    const std::uint64_t global = rows ? (P + RS - 1) / RS : std::max<std::uint64_t>(P, wg);
    const std::uint64_t local = rows ? 1 : wg;
    std::uint64_t count = global / local;  // partial states after stage 1
    // Up to 16 wg groups (every GPU input at the default 256): the first stage's last group does
    // the passes after it (reduce_slots_last; H100, sum of 2^20 doubles: one launch fewer; H200,
    // sum of 2^27 floats: two fewer, 138.5 -> 130.4 us).
    const bool fused = !rows && count > 1 && count <= 16 * wg;
    cl::Kernel k1 = build::kernel(*prog, rows ? "reduce_rows" : fused ? "reduce_slots_last" : "reduce_slots", q.index());
    cl::Kernel k2 = build::kernel(*prog, "reduce_pass", q.index());
    cl::Buffer a = detail::scratch(q, ReduceScratch::states, count * sizeof(State));
    cl::Buffer b = detail::scratch(q, ReduceScratch::next, ((count + wg - 1) / wg) * sizeof(State));
    set_stage1(k1, x, offset, n, P, kind, a);
    if (rows) k1.setArg(7, cl_ulong(0));
    if (fused) {
      k1.setArg(7, detail::scratch_zeroed(q, ReduceScratch::done, sizeof(cl_uint)));
      k1.setArg(8, b);
    }
    Event ev = detail::launch(q, k1, cl::NDRange(global), cl::NDRange(local), wait, kind.operation);
    if (fused) {
      std::swap(a, b);
      count = 1;
    }
    while (count > 1) {
      const std::uint64_t groups = (count + wg - 1) / wg;
      k2.setArg(0, a);
      k2.setArg(1, static_cast<cl_ulong>(count));
      k2.setArg(2, cl_ulong(0));
      k2.setArg(3, b);
      k2.setArg(4, cl_ulong(0));
      k2.setArg(5, cl_ulong(0));
      ev = detail::launch(q, k2, cl::NDRange(groups * wg, 1), cl::NDRange(wg, 1), {ev}, kind.operation);
      std::swap(a, b);
      count = groups;
    }
    auto host = std::make_shared<State>();
    cl::Event read;
    detail::queue_of(q).enqueueReadBuffer(a, CL_FALSE, 0, sizeof(State), host.get(), nullptr, &read);
    return Future<State>(detail::from_cl(read), [host] { return *host; });
  });
}

template <class State, class T>
Future<std::vector<State>> reduce_each_row_async(const Queue& q, const Buffer<T>& x, std::size_t offset,
                                                 std::size_t rows, std::size_t cols, const ReduceKind& kind,
                                                 const std::vector<Event>& wait) {
  const std::string op = kind.operation + "_rows";
  if (rows == 0 || cols == 0)
    throw std::invalid_argument(op + ": empty matrix (" + std::to_string(rows) + " x " + std::to_string(cols) + ")");
  if (cols > static_cast<std::size_t>(-1) / rows)
    throw std::invalid_argument(op + ": rows * cols overflows (" + std::to_string(rows) + " x " + std::to_string(cols) + ")");
  if (offset > x.size() || rows * cols > x.size() - offset)
    throw std::invalid_argument(op + ": a " + std::to_string(rows) + " x " + std::to_string(cols) +
                                " matrix at element " + std::to_string(offset) + " runs past the buffer's " +
                                std::to_string(x.size()));
  auto ctx = q.context().impl();
  detail::Lease lease = detail::Lease::named(q);
  return detail::cl_guard(op, *ctx, [&] {
    const bool dbl = std::is_same<T, double>::value;
    const std::uint64_t P = slot_count(cols), RS = row_slots(*ctx, P);
    const std::string options =
        build::base_options(*ctx, dbl, op) + kind.options + " -DROW_SLOTS=" + std::to_string(RS);
    std::size_t wg = 0;
    auto prog = build::program_for_wg(*ctx, kind.source, options, "reduce_slots", ctx->tuning.reduce_wg, wg);
    cl::Buffer out = detail::scratch(q, ReduceScratch::states, rows * sizeof(State));
    Event ev;
    // CPUs: reduce_rows over each row (a work-item walks ROW_SLOTS slots, SIMD across them), then
    // reduce_pass per row while a row has more than one state. PoCL 3.1, 2 cores, 4096 x 4096:
    // sum_rows 4.2 ms (floats) and 6.0 ms (doubles) against 12.6 and 13.0 with a work-group a row,
    // moments_rows 6.7 and 6.0-7.1 ms against 13.6-15.1 and 19.5-21.5.
    if (detail::tuned(ctx->tuning, "reduce.rows", ctx->info().type == DeviceType::cpu ? 1 : 0) != 0) {
      std::uint64_t count = (P + RS - 1) / RS;  // states per row
      // States ping-pong between two scratch buffers; the last pass writes `out`.
      const ReduceScratch pong[2] = {ReduceScratch::next, ReduceScratch::rows_next};
      int side = 0;
      cl::Buffer a = count > 1 ? detail::scratch(q, pong[side], rows * count * sizeof(State)) : out;
      cl::Kernel k = build::kernel(*prog, "reduce_rows", q.index());
      set_stage1(k, x, offset, cols, P, kind, a);
      k.setArg(7, static_cast<cl_ulong>(cols));
      ev = detail::launch(q, k, cl::NDRange(count, rows), cl::NDRange(1, 1), wait, op);
      cl::Kernel k2 = build::kernel(*prog, "reduce_pass", q.index());
      while (count > 1) {
        const std::uint64_t groups = (count + wg - 1) / wg;
        side ^= 1;
        cl::Buffer b = groups > 1 ? detail::scratch(q, pong[side], rows * groups * sizeof(State)) : out;
        k2.setArg(0, a);
        k2.setArg(1, static_cast<cl_ulong>(count));
        k2.setArg(2, static_cast<cl_ulong>(count));
        k2.setArg(3, b);
        k2.setArg(4, cl_ulong(0));
        k2.setArg(5, static_cast<cl_ulong>(groups));
        ev = detail::launch(q, k2, cl::NDRange(groups * wg, rows), cl::NDRange(wg, 1), {ev}, op);
        a = b;
        count = groups;
      }
    } else {
      cl::Kernel k = build::kernel(*prog, "reduce_each_row", q.index());
      set_stage1(k, x, offset, cols, P, kind, out);
      ev = detail::launch(q, k, cl::NDRange(rows * wg), cl::NDRange(wg), wait, op);
    }
    auto host = std::make_shared<std::vector<State>>(rows);
    cl::Event read;
    const std::vector<cl::Event> after = detail::to_cl({ev});
    detail::queue_of(q).enqueueReadBuffer(out, CL_FALSE, 0, rows * sizeof(State), host->data(), &after, &read);
    return Future<std::vector<State>>(detail::from_cl(read), [host] { return std::move(*host); });
  });
}

template <class State, class T>
State reduce_host(const Context& ctx, const T* x, std::size_t n, const ReduceKind& kind) {
  if (n == 0) throw std::invalid_argument(kind.operation + ": empty input (n = 0)");
  if (x == nullptr) throw std::invalid_argument(kind.operation + ": null input pointer with n = " + std::to_string(n));
  const std::size_t chunk = std::min(n, host_chunk_elements(ctx.info(), sizeof(T)));
  Buffer<T> dev(ctx, chunk);
  detail::Lease lease = detail::Lease::any(ctx);
  const Queue q = lease.queue();
  bool first = true;
  State total{};
  for (std::size_t off = 0; off < n; off += chunk) {
    const std::size_t len = std::min(chunk, n - off);
    dev.write(q, x + off, len);
    State s = reduce_async<State, T>(q, dev, 0, len, kind, {}).get();
    if constexpr (std::is_same<State, ExtremaState<T>>::value) {
      if (s.imin != k_empty) s.imin += off;
      if (s.imax != k_empty) s.imax += off;
    }
    total = first ? s : merge(total, s);
    first = false;
  }
  return total;
}

#define CLSTAT_INSTANTIATE(T)                                                                                 \
  template CSumState<T> merge(CSumState<T>, CSumState<T>);                                                   \
  template ExtremaState<T> merge(ExtremaState<T>, ExtremaState<T>);                                          \
  template MomentsState<T> merge(MomentsState<T>, MomentsState<T>);                                          \
  template T csum_value(CSumState<T>);                                                                       \
  template Future<CSumState<T>> reduce_async(const Queue&, const Buffer<T>&, std::size_t, std::size_t,      \
                                             const ReduceKind&, const std::vector<Event>&);                  \
  template Future<ExtremaState<T>> reduce_async(const Queue&, const Buffer<T>&, std::size_t, std::size_t,   \
                                                const ReduceKind&, const std::vector<Event>&);               \
  template Future<MomentsState<T>> reduce_async(const Queue&, const Buffer<T>&, std::size_t, std::size_t,   \
                                                const ReduceKind&, const std::vector<Event>&);               \
  template Future<std::uint64_t> reduce_async(const Queue&, const Buffer<T>&, std::size_t, std::size_t,     \
                                              const ReduceKind&, const std::vector<Event>&);                 \
  template CSumState<T> reduce_host(const Context&, const T*, std::size_t, const ReduceKind&);               \
  template ExtremaState<T> reduce_host(const Context&, const T*, std::size_t, const ReduceKind&);            \
  template MomentsState<T> reduce_host(const Context&, const T*, std::size_t, const ReduceKind&);            \
  template std::uint64_t reduce_host(const Context&, const T*, std::size_t, const ReduceKind&);              \
  template Future<std::vector<CSumState<T>>> reduce_each_row_async(const Queue&, const Buffer<T>&, std::size_t, \
                                                                   std::size_t, std::size_t, const ReduceKind&,  \
                                                                   const std::vector<Event>&);                   \
  template Future<std::vector<MomentsState<T>>> reduce_each_row_async(                                          \
      const Queue&, const Buffer<T>&, std::size_t, std::size_t, std::size_t, const ReduceKind&,                 \
      const std::vector<Event>&);
CLSTAT_INSTANTIATE(float)
CLSTAT_INSTANTIATE(double)
#undef CLSTAT_INSTANTIATE

}  // namespace clstat::primitives
