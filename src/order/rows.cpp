// Batched order statistics: one selection per row of a row-major matrix. Rows of up to 32 keys a
// work-item are selected by a work-group each (cl/order/select_rows.cl), or on CPUs by a
// work-item each (cl/order/select_rows_seq.cl), every row in one launch that reads the matrix
// once; rows with NaNs come back with their NaN counts, for the host to apply the NaN policy
// (under omit, a second launch over just those rows). Longer rows use the single-array selection
// row by row.
#include <algorithm>
#include <functional>
#include <stdexcept>
#include <string>

#include "build/program_cache.hpp"
#include "order/quantile_rule.hpp"
#include "order/run.hpp"
#include "runtime/launch.hpp"
#include "runtime/lease.hpp"
#include "runtime/tuning.hpp"

namespace clstat::order {

namespace {
using namespace detail;

template <class T>
struct RowOutcome {
  std::vector<char> nan_result;       // per row
  std::vector<std::uint64_t> n_eff;   // per row: the values ranked (cols, less NaNs under omit)
  std::vector<T> values;              // per row, width values
  std::size_t width = 0;
};

template <class T>
void check_matrix(const std::string& op, const Buffer<T>& b, std::size_t off, std::size_t rows, std::size_t cols,
                  const Options& o) {
  check_policy(o, op);
  check_shape(op, rows, cols);
  if (off > b.size() || rows * cols > b.size() - off)
    throw std::invalid_argument(op + ": a " + std::to_string(rows) + " x " + std::to_string(cols) + " matrix at element " +
                                std::to_string(off) + " runs past the buffer's " + std::to_string(b.size()));
}

// The rows kernel's buffers in the lease's scratch: ranks (and rows) asked for, keys found, NaN counts.
enum class RowsScratch { ranks, row_list, keys, nan_counts };

// The largest number of keys a work-item of select_rows holds; longer rows take the
// single-array selection row by row.
constexpr std::size_t kMaxRowItems = 32;
// The most ranks a row one launch of select_rows answers (its MAXR).
constexpr std::size_t kRowRanks = 64;

// What select_rows.cl's shape depends on besides its group's width.
struct RowsShape {
  std::size_t cols;  // the row's keys
  std::size_t cand;  // order.rows_cand: the candidates' local keys, per work-item
};

std::string rows_shape(std::size_t w, const void* arg) {
  const auto& shape = *static_cast<const RowsShape*>(arg);
  std::size_t items = 1, lg = 0;
  while (items * w < shape.cols) items *= 2;
  while ((std::size_t(1) << lg) < w) ++lg;
  return " -DRITEMS=" + std::to_string(items) + " -DLOG2_WG=" + std::to_string(lg) +
         " -DCAND=" + std::to_string(shape.cand * w) + " -DMAXR=" + std::to_string(kRowRanks);
}

// The program of the rows kernels for rows of `cols` keys, in `chosen` its group's width and in
// `seq` whether it is the one-work-item form; null when such rows are too long for it. Either
// form has the kernels select_rows and top_k_rows_gather with the same arguments and results:
// - cl/order/select_rows_seq.cl, a work-item per row, where order.rows_seq is 1 (the default
//   on CPUs) and the row's keys fit the device's local memory (at most kMaxRowItems * 256);
// - cl/order/select_rows.cl otherwise: cols / order.rows_items work-items a row, a power of two
//   from 32 to 256 (fewer for a device that takes fewer), each holding RITEMS keys (at most
//   kMaxRowItems). A narrower group pays less for each barrier and leaves room for more groups
//   at once; a wider one holds longer rows. Its kernel select_rows_buckets answers launches of
//   order.rows_bucket_ranks ranks a row or more, select_rows fewer; order.rows_cand keys a
//   work-item of local memory hold select_rows_buckets's candidates (0: each rank searched alone).
template <class T>
std::shared_ptr<::clstat::detail::BuiltProgram> rows_program(::clstat::detail::ContextImpl& ci, std::size_t cols,
                                                             const std::string& op, std::size_t& chosen, bool& seq) {
  const std::string opt =
      build::base_options(ci, std::is_same_v<T, double>, op) + " -DELEM_KIND=" + std::to_string(elem_kind<T>());
  std::shared_ptr<::clstat::detail::BuiltProgram> prog;
  const bool cpu = ci.info().type == DeviceType::cpu;
  if (::clstat::detail::tuned(ci.tuning, "order.rows_seq", cpu ? 1 : 0)) {
    std::size_t cap = 64;  // a power of two, so that few programs serve all widths
    while (cap < cols) cap *= 2;
    if (cap <= kMaxRowItems * 256 && cap * sizeof(key_t<T>) <= ci.info().local_mem_bytes / 2) {
      ::clstat::detail::cl_guard(op, ci, [&] {
        prog = build::program(ci, "order/select_rows_seq", opt + " -DCAP=" + std::to_string(cap));
      });
      chosen = 1;
      seq = true;
      return prog;
    }
  }
  const std::size_t aim = ::clstat::detail::tuned(ci.tuning, "order.rows_items", 16);
  std::size_t wg = 32;
  while (wg < 256 && wg * aim < cols) wg *= 2;
  wg = std::min<std::size_t>(wg, ci.info().max_work_group_size);
  if (cols > kMaxRowItems * wg) return nullptr;
  const RowsShape shape{cols, ::clstat::detail::tuned(ci.tuning, "order.rows_cand", 4)};
  seq = false;
  // The width is checked on select_rows_buckets, the kernel of the most local memory.
  ::clstat::detail::cl_guard(op, ci, [&] {
    prog = build::program_for_wg(ci, "order/select_rows", opt, "select_rows_buckets", wg, chosen, rows_shape, &shape);
  });
  return cols <= kMaxRowItems * chosen ? prog : nullptr;
}

// The values of the 1-based ranks need(n_eff) of every row; need returns the same count for
// every n_eff of these rows except that shorter lists are padded with their last rank.
// With nan_is_value (top_k's propagate), NaNs are ranked as the largest keys, never a NaN
// result; only for rows the rows kernel takes (the row-by-row path applies the policy).
// after_launch, with nan_is_value and one launch's ranks (at most kRowRanks), is called with the
// device buffer of every row's keys of need(cols), row by row, as soon as their launch is
// enqueued: work that reads them can follow on the queue without a trip through the host. It is
// not called when the rows take another path.
template <class T>
RowOutcome<T> select_rows(const Queue& q, const Buffer<T>& b, std::size_t off, std::size_t rows, std::size_t cols,
                          const Options& o, const std::function<std::vector<std::uint64_t>(std::uint64_t)>& need,
                          const std::string& op, bool nan_is_value = false,
                          const std::function<void(const cl::Buffer&)>& after_launch = nullptr) {
  using Key = key_t<T>;
  check_matrix(op, b, off, rows, cols, o);
  ::clstat::detail::Lease lease = ::clstat::detail::Lease::named(q);
  auto ci = q.context().impl();
  RowOutcome<T> out;
  out.nan_result.assign(rows, 0);
  out.n_eff.assign(rows, cols);
  std::size_t chosen = 0;
  bool seq = false;
  const auto prog = rows_program<T>(*ci, cols, op, chosen, seq);
  if (!prog) {  // long rows: the radix selection, row by row
    std::vector<std::vector<T>> per(rows);
    for (std::size_t r = 0; r < rows; ++r) {
      auto res = run<T>(op + " (row " + std::to_string(r) + ")", q, b, off + r * cols, cols, o, need);
      out.nan_result[r] = res.nan_result;
      out.n_eff[r] = res.n_eff;
      per[r] = res.values;
      out.width = std::max(out.width, per[r].size());
    }
    out.values.assign(rows * out.width, T());
    for (std::size_t r = 0; r < rows; ++r)
      for (std::size_t j = 0; j < out.width && !per[r].empty(); ++j)
        out.values[r * out.width + j] = per[r][std::min(j, per[r].size() - 1)];
    return out;
  }
  // One launch for every row with the ranks of a row without NaNs; rows with NaNs come back
  // with their counts, and under omit go again with ranks of their own.
  const cl::CommandQueue& cq = ::clstat::detail::queue_of(q);
  // all_ranks: this launch answers every rank of its rows (launch did not split them).
  auto launch_part = [&](std::size_t groups, const cl::Buffer& row_list, bool use_list, const std::vector<cl_uint>& ranks,
                         std::size_t stride, std::size_t R, std::vector<Key>& keys, std::vector<cl_uint>& nan,
                         bool all_ranks) {
    const cl::Buffer rb = ::clstat::detail::staged(q, RowsScratch::ranks, ranks.data(), ranks.size() * sizeof(cl_uint));
    const cl::Buffer ob = ::clstat::detail::scratch(q, RowsScratch::keys, groups * R * sizeof(Key));
    const cl::Buffer nb = ::clstat::detail::scratch(q, RowsScratch::nan_counts, groups * sizeof(cl_uint));
    const bool buckets = !seq && R >= ::clstat::detail::tuned(ci->tuning, "order.rows_bucket_ranks", 3);
    cl::Kernel k = build::kernel(*prog, buckets ? "select_rows_buckets" : "select_rows", q.index());
    k.setArg(0, b.raw().impl()->buffer);
    k.setArg(1, static_cast<cl_ulong>(off));
    k.setArg(2, static_cast<cl_uint>(cols));
    k.setArg(3, static_cast<cl_ulong>(cols));
    k.setArg(4, use_list ? row_list : rb);
    k.setArg(5, static_cast<cl_uint>(use_list));
    k.setArg(6, rb);
    k.setArg(7, static_cast<cl_uint>(stride));
    k.setArg(8, static_cast<cl_uint>(R));
    k.setArg(9, static_cast<cl_uint>(!use_list && !nan_is_value));
    k.setArg(10, ob);
    k.setArg(11, nb);
    ::clstat::detail::launch(q, k, cl::NDRange(groups * chosen), cl::NDRange(chosen), {}, op);
    if (after_launch && nan_is_value && !use_list && all_ranks) after_launch(ob);
    keys.resize(groups * R);
    nan.resize(groups);
    cq.enqueueReadBuffer(ob, CL_FALSE, 0, keys.size() * sizeof(Key), keys.data());
    ::clstat::detail::read_wait(cq, nb, 0, nan.size() * sizeof(cl_uint), nan.data());
  };
  // At most kRowRanks ranks a launch of select_rows.cl: more take further launches over the same
  // rows (select_rows_seq.cl takes any number).
  auto launch = [&](std::size_t groups, const cl::Buffer& row_list, bool use_list, const std::vector<cl_uint>& ranks,
                    std::size_t stride, std::size_t R, std::vector<Key>& keys, std::vector<cl_uint>& nan) {
    if (seq || R <= kRowRanks) return launch_part(groups, row_list, use_list, ranks, stride, R, keys, nan, true);
    keys.assign(groups * R, Key());
    std::vector<Key> part;
    for (std::size_t j0 = 0; j0 < R; j0 += kRowRanks) {
      const std::size_t rc = std::min(kRowRanks, R - j0), rows_of_ranks = stride == 0 ? 1 : groups;
      std::vector<cl_uint> sub;
      for (std::size_t g = 0; g < rows_of_ranks; ++g)
        sub.insert(sub.end(), ranks.begin() + g * stride + j0, ranks.begin() + g * stride + j0 + rc);
      launch_part(groups, row_list, use_list, sub, stride == 0 ? 0 : rc, rc, part, nan, false);
      for (std::size_t g = 0; g < groups; ++g)
        std::copy(part.begin() + g * rc, part.begin() + (g + 1) * rc, keys.begin() + g * R + j0);
    }
  };
  auto zero_based = [](const std::vector<std::uint64_t>& r, std::size_t width, std::vector<cl_uint>& flat) {
    for (std::size_t j = 0; j < width; ++j) flat.push_back(static_cast<cl_uint>(r[std::min(j, r.size() - 1)] - 1));
  };
  ::clstat::detail::cl_guard(op, *ci, [&] {
    const std::vector<std::uint64_t> full = need(cols);
    std::vector<cl_uint> ranks;
    zero_based(full, full.size(), ranks);
    std::vector<Key> keys;
    std::vector<cl_uint> nan;
    launch(rows, cl::Buffer(), false, ranks, 0, full.size(), keys, nan);
    // Rows with NaNs, by policy.
    std::vector<cl_uint> again;
    std::vector<std::vector<std::uint64_t>> again_ranks;
    out.width = full.size();
    for (std::size_t r = 0; r < rows; ++r) {
      if (nan[r] == 0 || nan_is_value) continue;
      if (o.nan == NanPolicy::raise)
        throw std::invalid_argument(op + ": row " + std::to_string(r) + " holds " + std::to_string(nan[r]) +
                                    " NaN value" + (nan[r] == 1 ? "" : "s") + " (NanPolicy::raise)");
      out.nan_result[r] = 1;
      if (o.nan != NanPolicy::omit) continue;
      out.n_eff[r] = cols - nan[r];
      if (out.n_eff[r] == 0) continue;
      again_ranks.push_back(need(out.n_eff[r]));  // may throw: a k past the row's values
      again.push_back(static_cast<cl_uint>(r));
      out.nan_result[r] = 0;
      out.width = std::max(out.width, again_ranks.back().size());
    }
    out.values.resize(rows * out.width);
    for (std::size_t r = 0; r < rows; ++r)
      for (std::size_t j = 0; j < out.width; ++j)
        out.values[r * out.width + j] = from_key<T>(keys[r * full.size() + std::min(j, full.size() - 1)]);
    if (again.empty()) return;
    std::vector<cl_uint> flat;
    for (const auto& r : again_ranks) zero_based(r, out.width, flat);
    const cl::Buffer lb =
        ::clstat::detail::staged(q, RowsScratch::row_list, again.data(), again.size() * sizeof(cl_uint));
    launch(again.size(), lb, true, flat, out.width, out.width, keys, nan);
    for (std::size_t i = 0; i < again.size(); ++i)
      for (std::size_t j = 0; j < out.width; ++j)
        out.values[again[i] * out.width + j] = from_key<T>(keys[i * out.width + j]);
  });
  return out;
}

template <class T>
std::vector<T> kth_rows_on(const Queue& q, const Buffer<T>& x, std::size_t off, std::size_t rows, std::size_t cols,
                           const std::vector<std::uint64_t>& ks, const Options& o) {
  const std::string op = "clstat::order::kth_smallest_rows";
  if (cols > 0) check_ks(ks, cols, op);
  if (ks.empty()) return {};
  auto res = select_rows<T>(q, x, off, rows, cols, o, [&](std::uint64_t n_eff) {
    for (auto k : ks)
      if (k > n_eff)
        throw std::out_of_range(op + ": k = " + std::to_string(k) + " but a row has only " + std::to_string(n_eff) +
                                " values that are not NaN");
    return ks;
  }, op);
  std::vector<T> out(rows * ks.size());
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t j = 0; j < ks.size(); ++j)
      out[r * ks.size() + j] = res.nan_result[r] ? nan_of<T>() : res.values[r * res.width + j];
  return out;
}

template <class T>
std::vector<double> median_rows_on(const Queue& q, const Buffer<T>& x, std::size_t off, std::size_t rows,
                                   std::size_t cols, const Options& o) {
  auto res = select_rows<T>(q, x, off, rows, cols, o, [](std::uint64_t m) {
    if (m % 2 == 1) return std::vector<std::uint64_t>{(m + 1) / 2};
    return std::vector<std::uint64_t>{m / 2, m / 2 + 1};
  }, "clstat::order::median_rows");
  std::vector<double> out(rows);
  for (std::size_t r = 0; r < rows; ++r) {
    if (res.nan_result[r]) {
      out[r] = std::numeric_limits<double>::quiet_NaN();
      continue;
    }
    const T a = res.values[r * res.width], b = res.values[r * res.width + res.width - 1];
    out[r] = midpoint(a, b);  // a == b (the same rank twice) for an odd count: exact
  }
  return out;
}

template <class T>
std::vector<double> quantiles_rows_on(const Queue& q, const Buffer<T>& x, std::size_t off, std::size_t rows,
                                      std::size_t cols, const std::vector<double>& probs, int type, const Options& o) {
  const std::string op = "clstat::order::quantiles_rows";
  if (type < 1 || type > 9) throw std::invalid_argument(op + ": type must be 1..9, got " + std::to_string(type));
  for (double p : probs)
    if (!(p >= 0 && p <= 1)) throw std::invalid_argument(op + ": probability " + std::to_string(p) + " is outside [0, 1]");
  if (probs.empty()) return {};
  auto need = [&](std::uint64_t m) {
    std::vector<std::uint64_t> v;
    if (m == 0) return v;
    for (double p : probs) {
      const QuantileRule rule = quantile_rule(type, p, m);
      v.push_back(rule.lo);
      v.push_back(rule.hi);
    }
    return v;
  };
  auto res = select_rows<T>(q, x, off, rows, cols, o, need, op);
  // Each row's rules again, from its own count of values (which omit may have changed); those of
  // rows without NaNs, the same for all, made once.
  const std::size_t np = probs.size();
  std::vector<QuantileRule> whole;
  for (double p : probs) whole.push_back(quantile_rule(type, p, cols));
  std::vector<QuantileRule> own(np);
  std::vector<double> out(rows * np, std::numeric_limits<double>::quiet_NaN());
  for (std::size_t r = 0; r < rows; ++r) {
    if (res.nan_result[r]) continue;
    const std::uint64_t m = res.n_eff[r];
    if (m != cols)
      for (std::size_t j = 0; j < np; ++j) own[j] = quantile_rule(type, probs[j], m);
    const QuantileRule* rule = m == cols ? whole.data() : own.data();
    const T* v = res.values.data() + r * res.width;
    for (std::size_t j = 0; j < np; ++j)
      out[r * np + j] = quantile_combine(rule[j], static_cast<double>(v[2 * j]), static_cast<double>(v[2 * j + 1]));
  }
  return out;
}

enum class TopRowsScratch { thresholds, keys, cols };

// top_k along rows: each row's threshold key (its k-th largest or smallest, NaNs ranked above
// +Inf under propagate) by the rows kernel, then top_k_rows_gather, then a sort of each row's k.
// Rows too long for the rows kernel take top_k one row after another.
template <class T>
TopK<T> top_k_rows_on(const Queue& q, const Buffer<T>& x, std::size_t off, std::size_t rows, std::size_t cols,
                      std::uint64_t k, bool largest, const Options& o) {
  using Key = key_t<T>;
  const std::string op = "clstat::order::top_k_rows";
  check_matrix(op, x, off, rows, cols, o);
  if (k > cols) throw std::invalid_argument(op + ": k = " + std::to_string(k) + " exceeds cols = " + std::to_string(cols));
  TopK<T> out;
  if (k == 0) return out;
  auto ci = q.context().impl();
  ::clstat::detail::Lease lease = ::clstat::detail::Lease::named(q);
  std::size_t chosen = 0;
  bool seq = false;
  const auto prog = rows_program<T>(*ci, cols, op, chosen, seq);
  out.values.resize(rows * k);
  out.indices.resize(rows * k);
  if (!prog) {
    for (std::size_t r = 0; r < rows; ++r) {
      const TopK<T> one = top_k_async(q, x, off + r * cols, cols, k, largest, o).get();
      std::copy(one.values.begin(), one.values.end(), out.values.begin() + r * k);
      std::copy(one.indices.begin(), one.indices.end(), out.indices.begin() + r * k);
    }
    return out;
  }
  std::vector<Key> keys(rows * k);
  std::vector<cl_uint> where(rows * k);
  cl::Buffer kb, cb;
  ::clstat::detail::cl_guard(op, *ci, [&] {
    kb = ::clstat::detail::scratch(q, TopRowsScratch::keys, rows * k * sizeof(Key));
    cb = ::clstat::detail::scratch(q, TopRowsScratch::cols, rows * k * sizeof(cl_uint));
  });
  // The gather of every row's k keys beyond (or at) the threshold keys tb, one group a row.
  auto gather = [&](const cl::Buffer& tb) {
    cl::Kernel g = build::kernel(*prog, "top_k_rows_gather", q.index());
    g.setArg(0, x.raw().impl()->buffer);
    g.setArg(1, static_cast<cl_ulong>(off));
    g.setArg(2, static_cast<cl_uint>(cols));
    g.setArg(3, static_cast<cl_ulong>(cols));
    g.setArg(4, tb);
    g.setArg(5, static_cast<cl_uint>(largest));
    g.setArg(6, static_cast<cl_uint>(o.nan == NanPolicy::omit));
    g.setArg(7, static_cast<cl_uint>(k));
    g.setArg(8, kb);
    g.setArg(9, cb);
    ::clstat::detail::launch(q, g, cl::NDRange(rows * chosen), cl::NDRange(chosen), {}, op);
  };
  // Under propagate no row goes again, so the gather follows the thresholds' launch on the queue
  // straight from its keys (H200, 4096 x 4096 floats, k = 8: the host's 140-200 us between the
  // two kernels gone).
  bool gathered = false;
  auto res = select_rows<T>(q, x, off, rows, cols, o, [&](std::uint64_t m) {
    if (k > m)
      throw std::invalid_argument(op + ": k = " + std::to_string(k) + " exceeds the " + std::to_string(m) +
                                  " values of a row that are not NaN");
    return std::vector<std::uint64_t>{largest ? m - k + 1 : k};
  }, op, o.nan == NanPolicy::propagate, [&](const cl::Buffer& thresholds) {
    gather(thresholds);
    gathered = true;
  });
  ::clstat::detail::cl_guard(op, *ci, [&] {
    const cl::CommandQueue& cq = ::clstat::detail::queue_of(q);
    if (!gathered) {
      std::vector<Key> thr(rows);
      for (std::size_t r = 0; r < rows; ++r) thr[r] = to_key(res.values[r * res.width]);
      gather(::clstat::detail::staged(q, TopRowsScratch::thresholds, thr.data(), rows * sizeof(Key)));
    }
    cq.enqueueReadBuffer(kb, CL_FALSE, 0, keys.size() * sizeof(Key), keys.data());
    ::clstat::detail::read_wait(cq, cb, 0, where.size() * sizeof(cl_uint), where.data());
  });
  std::vector<std::pair<Key, cl_uint>> one(k);
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t j = 0; j < k; ++j) one[j] = {keys[r * k + j], where[r * k + j]};
    std::sort(one.begin(), one.end(), [largest](const auto& a, const auto& b) {
      if (a.first != b.first) return largest ? a.first > b.first : a.first < b.first;
      return a.second < b.second;
    });
    for (std::size_t j = 0; j < k; ++j) {
      out.values[r * k + j] = from_key<T>(one[j].first);
      out.indices[r * k + j] = one[j].second;
    }
  }
  return out;
}

// Host-array forms upload the matrix on a queue they hold, then select there.
template <class T, class F>
auto on_host_matrix(const Context& ctx, const T* x, std::size_t rows, std::size_t cols, const std::string& op, F&& f) {
  if (rows > 0 && cols > static_cast<std::size_t>(-1) / rows)
    throw std::invalid_argument(op + ": rows * cols overflows (" + std::to_string(rows) + " x " + std::to_string(cols) + ")");
  if (rows == 0 || cols == 0)
    throw std::invalid_argument(op + ": empty matrix (" + std::to_string(rows) + " x " + std::to_string(cols) + ")");
  ::clstat::detail::Lease lease = ::clstat::detail::Lease::any(ctx);
  return f(lease.queue(), upload(ctx, x, rows * cols, op));
}

}  // namespace

template <class T>
std::vector<T> kth_smallest_rows(const Context& ctx, const T* x, std::size_t rows, std::size_t cols,
                                 const std::vector<std::uint64_t>& ks, const Options& o) {
  return on_host_matrix(ctx, x, rows, cols, "clstat::order::kth_smallest_rows",
                        [&](const Queue& q, const Buffer<T>& b) { return kth_rows_on(q, b, 0, rows, cols, ks, o); });
}
template <class T>
Future<std::vector<T>> kth_smallest_rows_async(const Queue& q, const Buffer<T>& x, std::size_t offset,
                                               std::size_t rows, std::size_t cols,
                                               const std::vector<std::uint64_t>& ks, const Options& o,
                                               const std::vector<Event>& wait) {
  check_matrix("clstat::order::kth_smallest_rows_async", x, offset, rows, cols, o);
  return ::clstat::detail::host_task<std::vector<T>>(q, wait, [=] { return kth_rows_on(q, x, offset, rows, cols, ks, o); });
}

template <class T>
std::vector<double> median_rows(const Context& ctx, const T* x, std::size_t rows, std::size_t cols, const Options& o) {
  return on_host_matrix(ctx, x, rows, cols, "clstat::order::median_rows",
                        [&](const Queue& q, const Buffer<T>& b) { return median_rows_on(q, b, 0, rows, cols, o); });
}
template <class T>
Future<std::vector<double>> median_rows_async(const Queue& q, const Buffer<T>& x, std::size_t offset, std::size_t rows,
                                              std::size_t cols, const Options& o, const std::vector<Event>& wait) {
  check_matrix("clstat::order::median_rows_async", x, offset, rows, cols, o);
  return ::clstat::detail::host_task<std::vector<double>>(q, wait, [=] { return median_rows_on(q, x, offset, rows, cols, o); });
}

template <class T>
std::vector<double> quantiles_rows(const Context& ctx, const T* x, std::size_t rows, std::size_t cols,
                                   const std::vector<double>& probs, int type, const Options& o) {
  return on_host_matrix(ctx, x, rows, cols, "clstat::order::quantiles_rows", [&](const Queue& q, const Buffer<T>& b) {
    return quantiles_rows_on(q, b, 0, rows, cols, probs, type, o);
  });
}
template <class T>
Future<std::vector<double>> quantiles_rows_async(const Queue& q, const Buffer<T>& x, std::size_t offset,
                                                 std::size_t rows, std::size_t cols, const std::vector<double>& probs,
                                                 int type, const Options& o, const std::vector<Event>& wait) {
  check_matrix("clstat::order::quantiles_rows_async", x, offset, rows, cols, o);
  return ::clstat::detail::host_task<std::vector<double>>(
      q, wait, [=] { return quantiles_rows_on(q, x, offset, rows, cols, probs, type, o); });
}

template <class T>
TopK<T> top_k_rows(const Context& ctx, const T* x, std::size_t rows, std::size_t cols, std::uint64_t k, bool largest,
                   const Options& o) {
  return on_host_matrix(ctx, x, rows, cols, "clstat::order::top_k_rows", [&](const Queue& q, const Buffer<T>& b) {
    return top_k_rows_on(q, b, 0, rows, cols, k, largest, o);
  });
}
template <class T>
Future<TopK<T>> top_k_rows_async(const Queue& q, const Buffer<T>& x, std::size_t offset, std::size_t rows,
                                 std::size_t cols, std::uint64_t k, bool largest, const Options& o,
                                 const std::vector<Event>& wait) {
  check_matrix("clstat::order::top_k_rows_async", x, offset, rows, cols, o);
  return ::clstat::detail::host_task<TopK<T>>(q, wait, [=] { return top_k_rows_on(q, x, offset, rows, cols, k, largest, o); });
}

#define CLSTAT_INSTANTIATE(T)                                                                                        \
  template CLSTAT_EXPORT TopK<T> top_k_rows(const Context&, const T*, std::size_t, std::size_t, std::uint64_t, bool, \
                                            const Options&);                                                        \
  template CLSTAT_EXPORT Future<TopK<T>> top_k_rows_async(const Queue&, const Buffer<T>&, std::size_t, std::size_t, \
                                                          std::size_t, std::uint64_t, bool, const Options&,         \
                                                          const std::vector<Event>&);                               \
  template CLSTAT_EXPORT std::vector<T> kth_smallest_rows(const Context&, const T*, std::size_t, std::size_t,       \
                                                          const std::vector<std::uint64_t>&, const Options&);      \
  template CLSTAT_EXPORT std::vector<double> median_rows(const Context&, const T*, std::size_t, std::size_t,       \
                                                         const Options&);                                          \
  template CLSTAT_EXPORT std::vector<double> quantiles_rows(const Context&, const T*, std::size_t, std::size_t,    \
                                                            const std::vector<double>&, int, const Options&);     \
  template CLSTAT_EXPORT Future<std::vector<T>> kth_smallest_rows_async(                                            \
      const Queue&, const Buffer<T>&, std::size_t, std::size_t, std::size_t, const std::vector<std::uint64_t>&,     \
      const Options&, const std::vector<Event>&);                                                                   \
  template CLSTAT_EXPORT Future<std::vector<double>> median_rows_async(const Queue&, const Buffer<T>&, std::size_t, \
                                                                       std::size_t, std::size_t, const Options&,   \
                                                                       const std::vector<Event>&);                 \
  template CLSTAT_EXPORT Future<std::vector<double>> quantiles_rows_async(                                          \
      const Queue&, const Buffer<T>&, std::size_t, std::size_t, std::size_t, const std::vector<double>&, int,       \
      const Options&, const std::vector<Event>&);
CLSTAT_INSTANTIATE(float)
CLSTAT_INSTANTIATE(double)
CLSTAT_INSTANTIATE(std::int32_t)
CLSTAT_INSTANTIATE(std::int64_t)
#undef CLSTAT_INSTANTIATE

}  // namespace clstat::order
