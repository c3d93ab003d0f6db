// Host side of the pairwise engine: validation, -D options, the triangle's tile batches and the
// canonical tree over tile partials, and the points form.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <type_traits>

#include "build/program_cache.hpp"
#include "primitives/reduce_plan.hpp"
#include "runtime/launch.hpp"
#include "runtime/lease.hpp"

namespace clstat {
namespace {

// The scratch of one triangle sum: per-tile partial states, the canonical tree's levels and roots.
enum class PairScratch { partials, tmp, roots, tmp2, result, columns, params };

// Checks that rows [offset, offset + n) of d values lie in b.
template <class T>
void check_rows(const char* op, const char* what, const Buffer<T>& b, std::size_t offset, std::size_t n, std::size_t d) {
  if (d != 0 && n > (static_cast<std::size_t>(-1) - offset) / d)
    throw std::invalid_argument(std::string(op) + ": " + what + ": offset + n * d overflows");
  if (offset + n * d > b.size())
    throw std::invalid_argument(std::string(op) + ": " + what + " buffer holds " + std::to_string(b.size()) +
                                " values; offset + n*d = " + std::to_string(offset + n * d));
}

// The n row-major points of b from `offset`, dimension-major in q's scratch (part `part`), as
// the pairwise kernels read them; `ready` becomes the copy's event. d = 1 at offset 0 is b itself.
template <class T>
cl::Buffer columns(const Queue& q, const Buffer<T>& b, std::size_t offset, std::size_t n, std::size_t d,
                   std::size_t part, std::vector<Event>& deps, const char* op) {
  if (d == 1 && offset == 0) return b.raw().impl()->buffer;
  auto ctx = q.context().impl();
  auto prog = build::program(*ctx, "primitives/transpose", build::base_options(*ctx, std::is_same<T, double>::value, op));
  cl::Kernel k = build::kernel(*prog, "to_columns", q.index());
  cl::Buffer dst = detail::scratch(q, PairScratch::columns, n * d * sizeof(T), part);
  k.setArg(0, b.raw().impl()->buffer);
  k.setArg(1, static_cast<cl_ulong>(offset));
  k.setArg(2, static_cast<cl_uint>(n));
  k.setArg(3, static_cast<cl_uint>(d));
  k.setArg(4, dst);
  const std::size_t wg = std::min<std::size_t>(256, ctx->info().max_work_group_size);
  deps = {detail::launch(q, k, cl::NDRange((n * d + wg - 1) / wg * wg), cl::NDRange(wg), deps, op)};
  return dst;
}

using primitives::CSumState;

constexpr std::size_t k_chunk = 64;              // columns summed in T before the wide fold
constexpr std::size_t k_outputs_per_pass = 16;   // accumulators per row kept in registers
constexpr std::size_t k_local_budget = 16384;    // bytes of staged columns

// The tile edge fixes rounding together with k_chunk; it shrinks with d so the registers that
// hold a work-item's rows stay bounded.
std::size_t tile_for(std::size_t d) { return d <= 4 ? 512 : d <= 16 ? 256 : 128; }

std::size_t staged_columns(std::size_t d, std::size_t tile, std::size_t elem) {
  std::size_t lj = tile;
  while (lj > k_chunk && d * lj * elem > k_local_budget) lj /= 2;
  return lj;
}

template <class T>
void validate(const char* op, std::size_t n_min, std::size_t n, std::size_t d, PairFunction f,
              const std::vector<double>& params) {
  if (n < n_min)
    throw std::invalid_argument(std::string(op) + ": needs at least " + std::to_string(n_min) + " points, got " +
                                std::to_string(n));
  if (n >= (std::size_t(1) << 32)) throw std::invalid_argument(std::string(op) + ": n must be below 2^32");
  if (d == 0 || d > pairwise_max_dim)
    throw std::invalid_argument(std::string(op) + ": dimension d = " + std::to_string(d) + " outside [1, " +
                                std::to_string(pairwise_max_dim) + "]");
  const int id = static_cast<int>(f);
  if (id < 0 || id > 4) throw std::invalid_argument(std::string(op) + ": unknown PairFunction " + std::to_string(id));
  if (params.empty()) throw std::invalid_argument(std::string(op) + ": params is empty (one per output)");
  for (double p : params)
    if (!std::isfinite(p)) throw std::invalid_argument(std::string(op) + ": every parameter must be finite");
}

template <class T>
std::string pair_options(detail::ContextImpl& ctx, std::size_t d, std::size_t nout, PairFunction f, std::size_t tile,
                         std::size_t lj, const char* op) {
  const bool dbl = std::is_same<T, double>::value;
  std::string o = build::base_options(ctx, dbl, op);
  o += " -DDIM=" + std::to_string(d) + " -DNOUT=" + std::to_string(nout) + " -DPAIR_FN=" +
       std::to_string(static_cast<int>(f)) + " -DTILE=" + std::to_string(tile) + " -DCHUNK=" + std::to_string(k_chunk) +
       " -DLJ=" + std::to_string(lj) + " -DNATIVE_EXP=" + ((!dbl && ctx.tuning.native_exp) ? "1" : "0");
  return o;
}

std::string rows_for_tile(std::size_t w, const void* tile) {
  return " -DROWS=" + std::to_string(*static_cast<const std::size_t*>(tile) / w);
}
std::string rows_fixed(std::size_t, const void* rows) {
  return " -DROWS=" + std::to_string(*static_cast<const std::size_t*>(rows));
}

template <class T>
cl::Buffer param_buffer(const Queue& q, const std::vector<double>& params, std::size_t k0, std::size_t count) {
  std::vector<T> p(count);
  for (std::size_t k = 0; k < count; ++k) p[k] = static_cast<T>(params[k0 + k]);
  return detail::staged(q, PairScratch::params, p.data(), count * sizeof(T));
}

// Reduces K sequences of `count` states (sequence k at in[k * in_stride]) to one each, written to
// dst[k * dst_stride + dst_offset], by reduce_pass: the canonical tree, whatever wg is.
Event tree_reduce(const Queue& q, cl::Kernel& pass, std::size_t wg, std::size_t K, cl::Buffer in, std::uint64_t count,
                  std::uint64_t in_stride, const cl::Buffer& dst, std::uint64_t dst_offset, std::uint64_t dst_stride,
                  const cl::Buffer& tmp_a, const cl::Buffer& tmp_b, Event after, const char* op) {
  bool to_a = true;
  for (;;) {
    const std::uint64_t groups = (count + wg - 1) / wg;
    const bool last = groups == 1;
    const cl::Buffer& out = last ? dst : (to_a ? tmp_a : tmp_b);
    pass.setArg(0, in);
    pass.setArg(1, static_cast<cl_ulong>(count));
    pass.setArg(2, static_cast<cl_ulong>(in_stride));
    pass.setArg(3, out);
    pass.setArg(4, static_cast<cl_ulong>(last ? dst_offset : 0));
    pass.setArg(5, static_cast<cl_ulong>(last ? dst_stride : groups));
    after = detail::launch(q, pass, cl::NDRange(groups * wg, K), cl::NDRange(wg, 1), {after}, op);
    if (last) return after;
    in = out;
    in_stride = groups;
    count = groups;
    to_a = !to_a;
  }
}

}  // namespace

template <class T>
Future<std::vector<double>> pairwise_sum_async(const Queue& q, const Buffer<T>& x, std::size_t offset, std::size_t n,
                                               std::size_t d, PairFunction f, const std::vector<double>& params,
                                               const std::vector<Event>& wait) {
  const char* op = "clstat::pairwise_sum";
  validate<T>(op, 2, n, d, f, params);
  check_rows(op, "the", x, offset, n, d);
  auto ctx = q.context().impl();
  detail::Lease lease = detail::Lease::named(q);
  return detail::cl_guard(op, *ctx, [&] {
    using State = CSumState<double>;  // csumd; csumf (8 bytes) on devices without fp64
    const bool fp64 = ctx->info().fp64;
    const std::size_t state_bytes = fp64 ? sizeof(CSumState<double>) : sizeof(CSumState<float>);
    std::size_t tile = tile_for(d);
    const std::size_t lj = staged_columns(d, tile, sizeof(T));
    const std::uint64_t nb = (n + tile - 1) / tile;
    const std::uint64_t tiles = nb * (nb + 1) / 2;
    const std::uint64_t k_batch = std::max<std::size_t>(1, ctx->tuning.pair_batch_tiles);  // a power of two
    const std::uint64_t batches = (tiles + k_batch - 1) / k_batch;

    const std::size_t nout = params.size();
    auto host = std::make_shared<std::vector<unsigned char>>(nout * state_bytes);
    Event ev;
    std::vector<Event> deps = wait;
    const cl::Buffer xc = columns(q, x, offset, n, d, 0, deps, op);
    for (std::size_t k0 = 0; k0 < nout; k0 += k_outputs_per_pass) {
      const std::size_t K = std::min(k_outputs_per_pass, nout - k0);
      const std::string opts = pair_options<T>(*ctx, d, K, f, tile, lj, op);
      std::size_t wg = 0;
      auto prog = build::program_for_wg(*ctx, "primitives/pairwise_triangle", opts, "pairwise_triangle",
                                        std::min(ctx->tuning.pair_wg, tile), wg, rows_for_tile, &tile);
      cl::Kernel tri = build::kernel(*prog, "pairwise_triangle", q.index());
      cl::Kernel pass = build::kernel(*prog, "reduce_pass", q.index());
      cl::Buffer params_buf = param_buffer<T>(q, params, k0, K);
      const std::uint64_t tmp_states = K * ((k_batch + wg - 1) / wg + 1);
      cl::Buffer partials = detail::scratch(q, PairScratch::partials, K * k_batch * state_bytes);
      cl::Buffer tmp = detail::scratch(q, PairScratch::tmp, tmp_states * state_bytes);
      cl::Buffer roots = detail::scratch(q, PairScratch::roots, K * batches * state_bytes);
      cl::Buffer tmp2 =
          detail::scratch(q, PairScratch::tmp2, std::max<std::uint64_t>(K * batches, tmp_states) * state_bytes);
      cl::Buffer result = detail::scratch(q, PairScratch::result, K * state_bytes);
      for (std::uint64_t b = 0; b < batches; ++b) {
        const std::uint64_t count = std::min<std::uint64_t>(k_batch, tiles - b * k_batch);
        tri.setArg(0, xc);
        tri.setArg(1, static_cast<cl_uint>(n));
        tri.setArg(2, static_cast<cl_uint>(nb));
        tri.setArg(3, static_cast<cl_ulong>(b * k_batch));
        tri.setArg(4, params_buf);
        tri.setArg(5, partials);
        tri.setArg(6, static_cast<cl_ulong>(k_batch));
        ev = detail::launch(q, tri, cl::NDRange(count * wg), cl::NDRange(wg), deps, op);
        deps.clear();
        // The batch's tiles reduce to node b of the canonical tree; the roots then reduce to the top.
        ev = tree_reduce(q, pass, wg, K, partials, count, k_batch, roots, b, batches, tmp, partials, ev, op);
      }
      ev = tree_reduce(q, pass, wg, K, roots, batches, batches, result, 0, 1, tmp2, tmp, ev, op);
      cl::Event read;
      detail::queue_of(q).enqueueReadBuffer(result, CL_FALSE, 0, K * state_bytes, host->data() + k0 * state_bytes,
                                            nullptr, &read);
      ev = detail::from_cl(read);
    }
    return Future<std::vector<double>>(ev, [host, nout, fp64] {
      std::vector<double> out(nout);
      for (std::size_t k = 0; k < nout; ++k) {
        if (fp64) {
          State s;
          std::memcpy(&s, host->data() + k * sizeof(State), sizeof(State));
          out[k] = primitives::csum_value(s);
        } else {
          CSumState<float> s;
          std::memcpy(&s, host->data() + k * sizeof(s), sizeof(s));
          out[k] = static_cast<double>(s.s) + static_cast<double>(s.c);
        }
      }
      return out;
    });
  });
}

template <class T>
std::vector<double> pairwise_sum(const Context& ctx, const T* x, std::size_t n, std::size_t d, PairFunction f,
                                 const std::vector<double>& params) {
  validate<T>("clstat::pairwise_sum", 2, n, d, f, params);
  if (!x) throw std::invalid_argument("clstat::pairwise_sum: null input pointer");
  Buffer<T> dev(ctx, x, n * d);
  detail::Lease lease = detail::Lease::any(ctx);
  return pairwise_sum_async(lease.queue(), dev, 0, n, d, f, params).get();
}

template <class T>
Event pairwise_points_sum_async(const Queue& q, const Buffer<T>& y, std::size_t y_offset, std::size_t m,
                                const Buffer<T>& x, std::size_t x_offset, std::size_t n, std::size_t d, PairFunction f,
                                const std::vector<double>& params, const Buffer<T>& out, std::size_t out_offset,
                                const std::vector<Event>& wait) {
  const char* op = "clstat::pairwise_points_sum";
  validate<T>(op, 1, n, d, f, params);
  if (m == 0 || m >= (std::size_t(1) << 32))
    throw std::invalid_argument(std::string(op) + ": m must be in [1, 2^32), got " + std::to_string(m));
  check_rows(op, "the target (y)", y, y_offset, m, d);
  check_rows(op, "the sample (x)", x, x_offset, n, d);
  if (out_offset > out.size() || out.size() - out_offset < params.size() * m)
    throw std::invalid_argument(std::string(op) + ": output buffer holds " + std::to_string(out.size()) +
                                " values, needs out_offset + params.size() * m = " +
                                std::to_string(out_offset + params.size() * m));
  auto ctx = q.context().impl();
  detail::Lease lease = detail::Lease::named(q);
  return detail::cl_guard(op, *ctx, [&] {
    const std::size_t lj = staged_columns(d, 512, sizeof(T));
    std::size_t rows = std::max<std::size_t>(1, ctx->tuning.points_rows);
    if (d > 16) rows = 1;
    else if (d > 4) rows = std::min<std::size_t>(rows, 2);
    const std::size_t nout = params.size();
    Event ev;
    std::vector<Event> deps = wait;
    const cl::Buffer yc = columns(q, y, y_offset, m, d, 0, deps, op);
    const cl::Buffer xc = columns(q, x, x_offset, n, d, 1, deps, op);
    for (std::size_t k0 = 0; k0 < nout; k0 += k_outputs_per_pass) {
      const std::size_t K = std::min(k_outputs_per_pass, nout - k0);
      const std::string opts = pair_options<T>(*ctx, d, K, f, 512, lj, op);
      std::size_t wg = 0;
      auto prog = build::program_for_wg(*ctx, "primitives/pairwise_points", opts, "pairwise_points",
                                        ctx->tuning.points_wg, wg, rows_fixed, &rows);
      cl::Kernel kern = build::kernel(*prog, "pairwise_points", q.index());
      cl::Buffer params_buf = param_buffer<T>(q, params, k0, K);
      const std::uint64_t groups = (m + wg * rows - 1) / (wg * rows);
      kern.setArg(0, yc);
      kern.setArg(1, static_cast<cl_uint>(m));
      kern.setArg(2, xc);
      kern.setArg(3, static_cast<cl_uint>(n));
      kern.setArg(4, params_buf);
      kern.setArg(5, out.raw().impl()->buffer);
      kern.setArg(6, static_cast<cl_ulong>(out_offset + k0 * m));
      ev = detail::launch(q, kern, cl::NDRange(groups * wg), cl::NDRange(wg), deps, op);
      deps.clear();
    }
    return ev;
  });
}

template <class T>
std::vector<T> pairwise_points_sum(const Context& ctx, const T* y, std::size_t m, const T* x, std::size_t n,
                                   std::size_t d, PairFunction f, const std::vector<double>& params) {
  validate<T>("clstat::pairwise_points_sum", 1, n, d, f, params);
  if (!x || !y) throw std::invalid_argument("clstat::pairwise_points_sum: null input pointer");
  if (m == 0) throw std::invalid_argument("clstat::pairwise_points_sum: no target points (m = 0)");
  Buffer<T> ydev(ctx, y, m * d), xdev(ctx, x, n * d);
  Buffer<T> out(ctx, params.size() * m);
  detail::Lease lease = detail::Lease::any(ctx);
  const Queue q = lease.queue();
  pairwise_points_sum_async(q, ydev, 0, m, xdev, 0, n, d, f, params, out, 0).wait();
  return out.to_host(q);
}

#define CLSTAT_INSTANTIATE(T)                                                                                    \
  template CLSTAT_EXPORT Future<std::vector<double>> pairwise_sum_async(                                        \
      const Queue&, const Buffer<T>&, std::size_t, std::size_t, std::size_t, PairFunction,                      \
      const std::vector<double>&, const std::vector<Event>&);                                                   \
  template CLSTAT_EXPORT std::vector<double> pairwise_sum(const Context&, const T*, std::size_t, std::size_t,    \
                                                          PairFunction, const std::vector<double>&);            \
  template CLSTAT_EXPORT Event pairwise_points_sum_async(                                                       \
      const Queue&, const Buffer<T>&, std::size_t, std::size_t, const Buffer<T>&, std::size_t, std::size_t,     \
      std::size_t, PairFunction, const std::vector<double>&, const Buffer<T>&, std::size_t,                     \
      const std::vector<Event>&);                                                                               \
  template CLSTAT_EXPORT std::vector<T> pairwise_points_sum(const Context&, const T*, std::size_t, const T*,     \
                                                            std::size_t, std::size_t, PairFunction,             \
                                                            const std::vector<double>&);
CLSTAT_INSTANTIATE(float)
CLSTAT_INSTANTIATE(double)
#undef CLSTAT_INSTANTIATE

}  // namespace clstat
