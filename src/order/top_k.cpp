// top_k: the threshold by selection, then one gather of the values beyond it and of the indices
// of the values equal to it; the host keeps the lowest indices among the ties and sorts.
#include <algorithm>
#include <stdexcept>
#include <string>

#include "build/program_cache.hpp"
#include "clstat/order.hpp"
#include "order/run.hpp"
#include "runtime/launch.hpp"
#include "runtime/lease.hpp"

namespace clstat::order {

namespace {

// The gather's buffers: the values beyond the threshold, their indices, and the two counts.
enum class TopKScratch { keys, indices, counts };

template <class T>
void check_top_k(const std::string& op, const Buffer<T>& x, std::size_t offset, std::size_t n, std::uint64_t k,
                 const Options& o) {
  detail::check_input(op, x, offset, n, o);
  if (k > n) throw std::invalid_argument(op + ": k = " + std::to_string(k) + " exceeds n = " + std::to_string(n));
  if (n > 0xffffffffull)
    throw std::invalid_argument(op + ": n = " + std::to_string(n) + " is past the gather's 32-bit counts (2^32 - 1)");
}

template <class T>
TopK<T> top_k_on(const Queue& q, const Buffer<T>& x, std::size_t offset, std::size_t n, std::uint64_t k, bool largest,
                 const Options& o) {
  using namespace detail;
  using Key = key_t<T>;
  const std::string op = "clstat::order::top_k";
  check_top_k(op, x, offset, n, k, o);
  if (k == 0) return {};
  ::clstat::detail::Lease lease = ::clstat::detail::Lease::named(q);
  auto sel = make_selector(o, q, x, offset, n, op);
  sel->prepare({largest ? n - k : k - 1});
  const std::uint64_t nan = sel->nan_count();
  raise_on_nan(op, nan, o);
  const bool skip_nan = nan > 0 && o.nan == NanPolicy::omit;
  const std::uint64_t n_eff = skip_nan ? n - nan : n;
  if (k > n_eff)
    throw std::invalid_argument(op + ": k = " + std::to_string(k) + " exceeds the " + std::to_string(n_eff) +
                                " values that are not NaN");
  const Key t = sel->select({largest ? n_eff - k : k - 1})[0];

  auto ci = q.context().impl();
  std::vector<Key> bkey;
  std::vector<cl_ulong> bidx, eidx;
  ::clstat::detail::cl_guard(op, *ci, [&] {
    std::string opt = build::base_options(*ci, std::is_same_v<T, double>, op) + " -DELEM_KIND=" +
                      std::to_string(elem_kind<T>()) + " -DWG=64";
    auto prog = build::program(*ci, "order/radix_select", opt);
    const cl::CommandQueue& cq = ::clstat::detail::queue_of(q);
    // At most k - 1 values lie beyond the threshold (kept across calls in the scratch); up to n
    // may equal it (allocated per call: n words is too much to keep).
    cl::Buffer bk = ::clstat::detail::scratch(q, TopKScratch::keys, k * sizeof(Key));
    cl::Buffer bi = ::clstat::detail::scratch(q, TopKScratch::indices, k * sizeof(cl_ulong));
    cl::Buffer ei(ci->context, CL_MEM_READ_WRITE, n * sizeof(cl_ulong));
    cl::Buffer counts = ::clstat::detail::scratch(q, TopKScratch::counts, 2 * sizeof(cl_uint));  // beyond, equal
    static const cl_uint zero[2] = {0, 0};
    cq.enqueueWriteBuffer(counts, CL_FALSE, 0, sizeof zero, zero);
    cl::Kernel g = build::kernel(*prog, "select_gather", q.index());
    g.setArg(0, x.raw().impl()->buffer);
    g.setArg(1, static_cast<cl_ulong>(offset));
    g.setArg(2, static_cast<cl_ulong>(n));
    g.setArg(3, t);
    g.setArg(4, static_cast<cl_uint>(largest ? 1 : 0));
    g.setArg(5, static_cast<cl_uint>(skip_nan ? 1 : 0));
    g.setArg(6, bk);
    g.setArg(7, bi);
    g.setArg(8, counts);
    g.setArg(9, ei);
    ::clstat::detail::launch(q, g, cl::NDRange((n + 255) / 256 * 256), cl::NDRange(256), {}, op);
    cl_uint c[2] = {0, 0};
    ::clstat::detail::read_wait(cq, counts, 0, sizeof c, c);
    const cl_uint nb = c[0], ne = c[1];
    if (nb >= k || nb + static_cast<std::uint64_t>(ne) < k)
      throw std::logic_error(op + ": gathered " + std::to_string(nb) + " + " + std::to_string(ne) +
                             " values for k = " + std::to_string(k));
    bkey.resize(nb);
    bidx.resize(nb);
    eidx.resize(ne);
    if (nb) {
      ::clstat::detail::read_wait(cq, bk, 0, nb * sizeof(Key), bkey.data());
      ::clstat::detail::read_wait(cq, bi, 0, nb * sizeof(cl_ulong), bidx.data());
    }
    if (ne) ::clstat::detail::read_wait(cq, ei, 0, ne * sizeof(cl_ulong), eidx.data());
  });
  // The ties at the threshold: the lowest indices.
  const std::size_t need = static_cast<std::size_t>(k - bkey.size());
  std::nth_element(eidx.begin(), eidx.begin() + (need - 1), eidx.end());
  std::vector<std::pair<Key, std::uint64_t>> all;
  all.reserve(k);
  for (std::size_t i = 0; i < bkey.size(); ++i) all.emplace_back(bkey[i], bidx[i]);
  for (std::size_t i = 0; i < need; ++i) all.emplace_back(t, eidx[i]);
  std::sort(all.begin(), all.end(), [largest](const auto& a, const auto& b) {
    if (a.first != b.first) return largest ? a.first > b.first : a.first < b.first;
    return a.second < b.second;
  });
  TopK<T> out;
  out.values.reserve(k);
  out.indices.reserve(k);
  for (const auto& [key, idx] : all) {
    out.values.push_back(from_key<T>(key));
    out.indices.push_back(idx);
  }
  return out;
}

}  // namespace

template <class T>
TopK<T> top_k(const Context& ctx, const T* x, std::size_t n, std::uint64_t k, bool largest, const Options& o) {
  const std::string op = "clstat::order::top_k";
  if (k > n) throw std::invalid_argument(op + ": k = " + std::to_string(k) + " exceeds n = " + std::to_string(n));
  ::clstat::detail::Lease lease = ::clstat::detail::Lease::any(ctx);
  return top_k_on(lease.queue(), detail::upload(ctx, x, n, op), 0, n, k, largest, o);
}

template <class T>
Future<TopK<T>> top_k_async(const Queue& q, const Buffer<T>& x, std::size_t offset, std::size_t n, std::uint64_t k,
                            bool largest, const Options& o, const std::vector<Event>& wait) {
  check_top_k("clstat::order::top_k_async", x, offset, n, k, o);
  return ::clstat::detail::host_task<TopK<T>>(q, wait, [=] { return top_k_on(q, x, offset, n, k, largest, o); });
}

#define CLSTAT_INSTANTIATE(T)                                                                                    \
  template CLSTAT_EXPORT TopK<T> top_k(const Context&, const T*, std::size_t, std::uint64_t, bool, const Options&); \
  template CLSTAT_EXPORT Future<TopK<T>> top_k_async(const Queue&, const Buffer<T>&, std::size_t, std::size_t,      \
                                                     std::uint64_t, bool, const Options&, const std::vector<Event>&);
CLSTAT_INSTANTIATE(float)
CLSTAT_INSTANTIATE(double)
CLSTAT_INSTANTIATE(std::int32_t)
CLSTAT_INSTANTIATE(std::int64_t)
#undef CLSTAT_INSTANTIATE

}  // namespace clstat::order
