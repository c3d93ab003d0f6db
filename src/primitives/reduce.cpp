// The public reductions: each names its kernel source and options and maps the final state to
// the result type.
#include <cmath>

#include "clstat/error.hpp"
#include "primitives/reduce_plan.hpp"
#include "runtime/lease.hpp"

namespace clstat {
using namespace primitives;

namespace {

ReduceKind sum_kind(Transform t, double c, const char* op) {
  const int id = static_cast<int>(t);
  if (id < 0 || id > 6) throw std::invalid_argument(std::string(op) + ": unknown Transform " + std::to_string(id));
  return {"primitives/reduce_sum", " -DTRANSFORM=" + std::to_string(id), c, 0, op};
}

ReduceKind count_kind(Predicate p, double a, double b) {
  const int id = static_cast<int>(p);
  if (id < 0 || id > 9) throw std::invalid_argument("clstat::count_if: unknown Predicate " + std::to_string(id));
  return {"primitives/reduce_count", " -DPREDICATE=" + std::to_string(id), a, b, "clstat::count_if"};
}

const ReduceKind k_extrema{"primitives/reduce_extrema", "", 0, 0, "clstat::extrema"};
const ReduceKind k_moments{"primitives/reduce_moments", "", 0, 0, "clstat::moments"};

template <class T>
Extrema<T> to_extrema(const ExtremaState<T>& s) {
  return {s.vmin, s.vmax, s.imin, s.imax};
}
template <class T>
Moments<T> to_moments(const MomentsState<T>& s) {
  return {s.n, s.mean, s.m2};
}

}  // namespace

template <class T>
T sum(const Context& ctx, const T* x, std::size_t n) {
  return csum_value(reduce_host<CSumState<T>>(ctx, x, n, sum_kind(Transform::identity, 0, "clstat::sum")));
}
template <class T>
Future<T> sum_async(const Queue& q, const Buffer<T>& x, std::size_t offset, std::size_t n, const std::vector<Event>& wait) {
  auto f = reduce_async<CSumState<T>>(q, x, offset, n, sum_kind(Transform::identity, 0, "clstat::sum"), wait);
  return Future<T>(f.event(), [f]() mutable { return csum_value(f.get()); });
}

template <class T>
T transform_reduce(const Context& ctx, const T* x, std::size_t n, Transform t, T c) {
  return csum_value(reduce_host<CSumState<T>>(ctx, x, n, sum_kind(t, c, "clstat::transform_reduce")));
}
template <class T>
Future<T> transform_reduce_async(const Queue& q, const Buffer<T>& x, std::size_t offset, std::size_t n, Transform t,
                                 T c, const std::vector<Event>& wait) {
  auto f = reduce_async<CSumState<T>>(q, x, offset, n, sum_kind(t, c, "clstat::transform_reduce"), wait);
  return Future<T>(f.event(), [f]() mutable { return csum_value(f.get()); });
}

template <class T>
Extrema<T> extrema(const Context& ctx, const T* x, std::size_t n) {
  return to_extrema(reduce_host<ExtremaState<T>>(ctx, x, n, k_extrema));
}
template <class T>
Future<Extrema<T>> extrema_async(const Queue& q, const Buffer<T>& x, std::size_t offset, std::size_t n,
                                 const std::vector<Event>& wait) {
  auto f = reduce_async<ExtremaState<T>>(q, x, offset, n, k_extrema, wait);
  return Future<Extrema<T>>(f.event(), [f]() mutable { return to_extrema(f.get()); });
}

template <class T>
std::uint64_t count_if(const Context& ctx, const T* x, std::size_t n, Predicate p, T a, T b) {
  return reduce_host<std::uint64_t>(ctx, x, n, count_kind(p, a, b));
}
template <class T>
Future<std::uint64_t> count_if_async(const Queue& q, const Buffer<T>& x, std::size_t offset, std::size_t n,
                                     Predicate p, T a, T b, const std::vector<Event>& wait) {
  return reduce_async<std::uint64_t>(q, x, offset, n, count_kind(p, a, b), wait);
}

template <class T>
Moments<T> moments(const Context& ctx, const T* x, std::size_t n) {
  return to_moments(reduce_host<MomentsState<T>>(ctx, x, n, k_moments));
}
template <class T>
Future<Moments<T>> moments_async(const Queue& q, const Buffer<T>& x, std::size_t offset, std::size_t n,
                                 const std::vector<Event>& wait) {
  auto f = reduce_async<MomentsState<T>>(q, x, offset, n, k_moments, wait);
  return Future<Moments<T>>(f.event(), [f]() mutable { return to_moments(f.get()); });
}

namespace {
// The host forms of the batched reductions: the matrix uploaded whole, then the queue form.
template <class R, class T, class F>
std::vector<R> rows_on_host(const Context& ctx, const T* x, std::size_t rows, std::size_t cols, const char* op, F&& f) {
  if (rows == 0 || cols == 0)
    throw std::invalid_argument(std::string(op) + ": empty matrix (" + std::to_string(rows) + " x " + std::to_string(cols) + ")");
  if (cols > static_cast<std::size_t>(-1) / rows / sizeof(T))
    throw std::invalid_argument(std::string(op) + ": rows * cols overflows");
  if (!x) throw std::invalid_argument(std::string(op) + ": null input pointer");
  if (rows * cols * sizeof(T) > ctx.info().max_alloc_bytes)
    throw UnsupportedFeature(op, ctx.info().name,
                             std::to_string(rows * cols * sizeof(T)) + " bytes exceed the largest allocation, " +
                                 std::to_string(ctx.info().max_alloc_bytes) + " bytes");
  detail::Lease lease = detail::Lease::any(ctx);
  const Buffer<T> dev(ctx, rows * cols);
  dev.write(lease.queue(), x, rows * cols);
  return f(lease.queue(), dev).get();
}
}  // namespace

template <class T>
Future<std::vector<T>> sum_rows_async(const Queue& q, const Buffer<T>& x, std::size_t offset, std::size_t rows,
                                      std::size_t cols, const std::vector<Event>& wait) {
  auto f = reduce_each_row_async<CSumState<T>>(q, x, offset, rows, cols, sum_kind(Transform::identity, 0, "clstat::sum"), wait);
  return Future<std::vector<T>>(f.event(), [f]() mutable {
    std::vector<T> out;
    for (const auto& s : f.get()) out.push_back(csum_value(s));
    return out;
  });
}
template <class T>
std::vector<T> sum_rows(const Context& ctx, const T* x, std::size_t rows, std::size_t cols) {
  return rows_on_host<T>(ctx, x, rows, cols, "clstat::sum_rows",
                         [&](const Queue& q, const Buffer<T>& b) { return sum_rows_async(q, b, 0, rows, cols); });
}

template <class T>
Future<std::vector<Moments<T>>> moments_rows_async(const Queue& q, const Buffer<T>& x, std::size_t offset,
                                                   std::size_t rows, std::size_t cols, const std::vector<Event>& wait) {
  auto f = reduce_each_row_async<MomentsState<T>>(q, x, offset, rows, cols, k_moments, wait);
  return Future<std::vector<Moments<T>>>(f.event(), [f]() mutable {
    std::vector<Moments<T>> out;
    for (const auto& s : f.get()) out.push_back(to_moments(s));
    return out;
  });
}
template <class T>
std::vector<Moments<T>> moments_rows(const Context& ctx, const T* x, std::size_t rows, std::size_t cols) {
  return rows_on_host<Moments<T>>(ctx, x, rows, cols, "clstat::moments_rows",
                                  [&](const Queue& q, const Buffer<T>& b) { return moments_rows_async(q, b, 0, rows, cols); });
}

#define CLSTAT_INSTANTIATE(T)                                                                                   \
  template CLSTAT_EXPORT T sum(const Context&, const T*, std::size_t);                                         \
  template CLSTAT_EXPORT std::vector<T> sum_rows(const Context&, const T*, std::size_t, std::size_t);           \
  template CLSTAT_EXPORT Future<std::vector<T>> sum_rows_async(const Queue&, const Buffer<T>&, std::size_t,     \
                                                               std::size_t, std::size_t, const std::vector<Event>&); \
  template CLSTAT_EXPORT std::vector<Moments<T>> moments_rows(const Context&, const T*, std::size_t, std::size_t); \
  template CLSTAT_EXPORT Future<std::vector<Moments<T>>> moments_rows_async(const Queue&, const Buffer<T>&,     \
                                                                            std::size_t, std::size_t, std::size_t, \
                                                                            const std::vector<Event>&);         \
  template CLSTAT_EXPORT Future<T> sum_async(const Queue&, const Buffer<T>&, std::size_t, std::size_t,         \
                                             const std::vector<Event>&);                                       \
  template CLSTAT_EXPORT T transform_reduce(const Context&, const T*, std::size_t, Transform, T);              \
  template CLSTAT_EXPORT Future<T> transform_reduce_async(const Queue&, const Buffer<T>&, std::size_t,         \
                                                          std::size_t, Transform, T, const std::vector<Event>&); \
  template CLSTAT_EXPORT Extrema<T> extrema(const Context&, const T*, std::size_t);                            \
  template CLSTAT_EXPORT Future<Extrema<T>> extrema_async(const Queue&, const Buffer<T>&, std::size_t,         \
                                                          std::size_t, const std::vector<Event>&);             \
  template CLSTAT_EXPORT std::uint64_t count_if(const Context&, const T*, std::size_t, Predicate, T, T);       \
  template CLSTAT_EXPORT Future<std::uint64_t> count_if_async(const Queue&, const Buffer<T>&, std::size_t,     \
                                                              std::size_t, Predicate, T, T,                    \
                                                              const std::vector<Event>&);                      \
  template CLSTAT_EXPORT Moments<T> moments(const Context&, const T*, std::size_t);                            \
  template CLSTAT_EXPORT Future<Moments<T>> moments_async(const Queue&, const Buffer<T>&, std::size_t,         \
                                                          std::size_t, const std::vector<Event>&);
CLSTAT_INSTANTIATE(float)
CLSTAT_INSTANTIATE(double)
#undef CLSTAT_INSTANTIATE

}  // namespace clstat
