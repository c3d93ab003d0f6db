// The sort baseline of issue 7: Boost.Compute sorts a copy of the order-preserving keys (its
// radix sort for unsigned integers), then the ranks are read from the sorted copy. Used only as
// the reference point in benchmarks and tests; Boost.Compute's own nth_element is not used (it
// is slow and unsafe on NVIDIA, boostorg/compute issues 768 and 813).
#include <boost/compute/algorithm/sort.hpp>
#include <boost/compute/command_queue.hpp>
#include <boost/compute/iterator/buffer_iterator.hpp>

#include "build/program_cache.hpp"
#include "clstat/primitives.hpp"
#include "order/selector.hpp"
#include "order/sort_values.hpp"
#include "runtime/launch.hpp"

namespace clstat::order::detail {

namespace {

template <class T>
class SortSelect final : public Selector<T> {
 public:
  using Key = key_t<T>;
  SortSelect(const Queue& q, const Buffer<T>& x, std::size_t offset, std::uint64_t n) : q_(q), n_(n) {
    const char* op = "clstat::order::select (sort)";
    auto ci = q.context().impl();
    if constexpr (std::is_floating_point_v<T>) nan_ = count_if_async(q, x, offset, n, Predicate::is_nan, T(0), T(0)).get();
    keys_ = ::clstat::detail::cl_guard(op, *ci, [&] {
      std::string o = build::base_options(*ci, std::is_same_v<T, double>, op) +
                      " -DELEM_KIND=" + std::to_string(elem_kind<T>()) + " -DFIRST=0 -DCOMPACT=0 -DFROM_KEYS=0 -DWG=64";
      auto prog = build::program(*ci, "order/radix_select", o);
      cl::Buffer keys(ci->context, CL_MEM_READ_WRITE, n * sizeof(Key));
      cl::Kernel k = build::kernel(*prog, "select_keys", q.index());
      k.setArg(0, x.raw().impl()->buffer);
      k.setArg(1, static_cast<cl_ulong>(offset));
      k.setArg(2, static_cast<cl_ulong>(n));
      k.setArg(3, keys);
      ::clstat::detail::launch(q, k, cl::NDRange((n + 255) / 256 * 256), cl::NDRange(256), {}, op);
      namespace bc = boost::compute;
      bc::command_queue bq(::clstat::detail::queue_of(q)(), true);
      bc::buffer bb(keys(), true);
      bc::sort(bc::make_buffer_iterator<Key>(bb, 0), bc::make_buffer_iterator<Key>(bb, n), bq);
      bq.finish();
      return keys;
    });
  }
  void prepare(const std::vector<std::uint64_t>&) override {}
  std::uint64_t nan_count() const override { return nan_; }
  std::vector<Key> select(const std::vector<std::uint64_t>& ranks) override {
    auto ci = q_.context().impl();
    std::vector<Key> out(ranks.size());
    ::clstat::detail::cl_guard("clstat::order::select (sort)", *ci, [&] {
      const cl::CommandQueue& cq = ::clstat::detail::queue_of(q_);
      for (std::size_t i = 0; i < ranks.size(); ++i)
        cq.enqueueReadBuffer(keys_, CL_FALSE, ranks[i] * sizeof(Key), sizeof(Key), &out[i]);
      cq.finish();
    });
    return out;
  }

 private:
  Queue q_;
  std::uint64_t n_, nan_ = 0;
  cl::Buffer keys_;
};

}  // namespace

void sort_values(const Queue& q, const Buffer<double>& x, std::size_t offset, std::size_t n) {
  auto ci = q.context().impl();
  ::clstat::detail::cl_guard("clstat::order::sort_values", *ci, [&] {
    namespace bc = boost::compute;
    bc::command_queue bq(::clstat::detail::queue_of(q)(), true);
    bc::buffer bb(x.raw().impl()->buffer(), true);
    bc::sort(bc::make_buffer_iterator<double>(bb, offset), bc::make_buffer_iterator<double>(bb, offset + n), bq);
    bq.finish();
  });
}

template <class T>
std::unique_ptr<Selector<T>> make_sort_selector(const Queue& q, const Buffer<T>& x, std::size_t offset,
                                                std::uint64_t n) {
  return std::make_unique<SortSelect<T>>(q, x, offset, n);
}

template std::unique_ptr<Selector<float>> make_sort_selector(const Queue&, const Buffer<float>&, std::size_t, std::uint64_t);
template std::unique_ptr<Selector<double>> make_sort_selector(const Queue&, const Buffer<double>&, std::size_t, std::uint64_t);
template std::unique_ptr<Selector<std::int32_t>> make_sort_selector(const Queue&, const Buffer<std::int32_t>&, std::size_t,
                                                                    std::uint64_t);
template std::unique_ptr<Selector<std::int64_t>> make_sort_selector(const Queue&, const Buffer<std::int64_t>&, std::size_t,
                                                                    std::uint64_t);

}  // namespace clstat::order::detail
