// The cutting-plane selection of Beliakov (2011, sec. IV), made exact. The k-th smallest value
// minimises the convex piecewise-linear F(y) = sum_i max(y - x_i, 0) - (k - 1/2) y, whose
// one-sided slopes are #{x < y} - (k - 1/2) and #{x <= y} - (k - 1/2). Kelley's method keeps a
// bracket [a, b] with F and the slopes at both ends and moves an end to where the two tangents
// meet. The paper's log transform of wide-range data is not used: a step that falls outside the
// bracket (rounding in F for ranges past ~1e13) bisects the bracket in key space instead, which
// ends in at most 64 steps. Once at most n/16 values lie strictly inside (the paper's hybrid),
// they are copied and selected exactly, the ties at the ends accounted for by the counts.
// Signed zeros compare equal as values but not as keys; bounds at zero are widened to both.
// Each step reads the data once (select_cut_step: the sum and both counts); NaNs or integer
// input go to the radix selection.
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "build/program_cache.hpp"
#include "clstat/primitives.hpp"
#include "order/selector.hpp"
#include "runtime/lease.hpp"
#include "runtime/launch.hpp"

namespace clstat::order::detail {

namespace {
// A step's per-group sums and counts, and the copy's counter.
enum class CutScratch { sums, counts, copied };
}  // namespace

namespace {

constexpr std::uint64_t kRemainder = 1u << 15;  // up to here the bracket is selected on the host
constexpr int kMaxSteps = 400;

template <class T>
class CuttingPlane final : public Selector<T> {
 public:
  using Key = key_t<T>;
  CuttingPlane(const Queue& q, const Buffer<T>& x, std::size_t offset, std::uint64_t n)
      : q_(q), x_(x), off_(offset), n_(n) {}

  void prepare(const std::vector<std::uint64_t>& hint) override {
    // Extrema are NaN when any value is (primitives.hpp), so NaN-free data, the common case, is
    // not read a second time just to count NaNs.
    const auto e = extrema_async(q_, x_, off_, n_).get();
    if (std::isnan(e.min) || std::isnan(e.max)) {  // the sums would be NaN: the radix selection answers
      nan_ = count_if_async(q_, x_, off_, n_, Predicate::is_nan, T(0), T(0)).get();
      fallback_ = make_radix_selector(q_, x_, off_, n_);
      fallback_->prepare(hint);
      return;
    }
    min_ = e.min;
    max_ = e.max;
  }
  std::uint64_t nan_count() const override { return nan_; }

  std::vector<Key> select(const std::vector<std::uint64_t>& ranks) override {
    if (fallback_) return fallback_->select(ranks);
    // Close ranks (an even n's two middle ones, close quantiles) share one bracket.
    if (ranks.size() > 1) {
      const auto [lo, hi] = std::minmax_element(ranks.begin(), ranks.end());
      if (*hi - *lo <= n_ / 256) {
        std::vector<std::uint64_t> ks;
        for (auto r : ranks) ks.push_back(r + 1);
        auto got = kth_set(ks);
        if (!got.empty()) return got;
      }
    }
    std::vector<Key> out;
    for (auto r : ranks) out.push_back(kth_set({r + 1})[0]);
    return out;
  }

  unsigned steps() const { return steps_; }

 private:
  std::uint64_t count(Predicate p, T c) { return count_if_async(q_, x_, off_, n_, p, c, T(0)).get(); }

  struct Step {
    double below_sum;            // sum of max(y - x, 0)
    std::uint64_t less, le;      // #{x < y}, #{x <= y}
  };
  // One read of the data (select_cut_step); the groups' partials are added here in order.
  Step step_at(T y) {
    auto ci = q_.context().impl();
    const std::string op = "clstat::order::select (cutting plane)";
    Step st{0, 0, 0};
    ::clstat::detail::cl_guard(op, *ci, [&] {
      const std::size_t wg = 256;
      std::string opt = build::base_options(*ci, std::is_same_v<T, double>, op) + " -DELEM_KIND=" +
                        std::to_string(elem_kind<T>()) + " -DWG=" + std::to_string(wg);
      auto prog = build::program(*ci, "order/radix_select", opt);
      const bool fp64 = ci->info().fp64;
      const std::size_t G = std::max<std::size_t>(1, ci->info().compute_units) *
                            (ci->info().type == DeviceType::gpu ? 8 : 1);
      cl::Buffer sums = ::clstat::detail::scratch(q_, CutScratch::sums, G * 8);
      cl::Buffer counts = ::clstat::detail::scratch(q_, CutScratch::counts, 2 * G * sizeof(cl_ulong));
      cl::Kernel k = build::kernel(*prog, "select_cut_step", q_.index());
      k.setArg(0, x_.raw().impl()->buffer);
      k.setArg(1, static_cast<cl_ulong>(off_));
      k.setArg(2, static_cast<cl_ulong>(n_));
      k.setArg(3, y);
      k.setArg(4, sums);
      k.setArg(5, counts);
      ::clstat::detail::launch(q_, k, cl::NDRange(G * wg), cl::NDRange(wg), {}, op);
      const cl::CommandQueue& cq = ::clstat::detail::queue_of(q_);
      std::vector<cl_ulong> c(2 * G);
      std::vector<double> sd(G);
      std::vector<float> sf(G);
      if (fp64) cq.enqueueReadBuffer(sums, CL_FALSE, 0, G * sizeof(double), sd.data());
      else cq.enqueueReadBuffer(sums, CL_FALSE, 0, G * sizeof(float), sf.data());
      ::clstat::detail::read_wait(cq, counts, 0, c.size() * sizeof(cl_ulong), c.data());
      for (std::size_t g = 0; g < G; ++g) {
        st.below_sum += fp64 ? sd[g] : static_cast<double>(sf[g]);
        st.less += c[2 * g];
        st.le += c[2 * g + 1];
      }
    });
    return st;
  }

  // The value strictly inside (a, b) halfway between their keys.
  static T key_mid(T a, T b) {
    const Key ka = to_key(a), kb = to_key(b);
    return from_key<T>(static_cast<Key>(ka + (kb - ka) / 2));
  }

  // The keys of ranks ks (1-based, among the m keys strictly between lo and hi): the paper's
  // second stage. The values are copied to a device buffer by work-group-aggregated compaction;
  // up to kRemainder of them are read back and selected on the host, more are selected there by
  // radix selection (the paper sorts them; selection is exact too and reads them fewer times).
  std::vector<Key> select_between(Key lo, Key hi, std::uint64_t m, const std::vector<std::uint64_t>& ks) {
    auto ci = q_.context().impl();
    Buffer<T> z(q_.context(), std::max<std::uint64_t>(m, 1));
    std::vector<Key> out;
    ::clstat::detail::cl_guard("clstat::order::select (cutting plane)", *ci, [&] {
      const std::string op = "clstat::order::select (cutting plane)";
      std::string opt = build::base_options(*ci, std::is_same_v<T, double>, op) + " -DELEM_KIND=" +
                        std::to_string(elem_kind<T>()) + " -DWG=256";
      auto prog = build::program(*ci, "order/radix_select", opt);
      const cl::CommandQueue& cq = ::clstat::detail::queue_of(q_);
      cl::Buffer cnt = ::clstat::detail::scratch(q_, CutScratch::copied, sizeof(cl_uint));
      const cl_uint zero = 0;
      cq.enqueueWriteBuffer(cnt, CL_FALSE, 0, sizeof zero, &zero);
      cl::Kernel k = build::kernel(*prog, "select_copy_values_between", q_.index());
      k.setArg(0, x_.raw().impl()->buffer);
      k.setArg(1, static_cast<cl_ulong>(off_));
      k.setArg(2, static_cast<cl_ulong>(n_));
      k.setArg(3, lo);
      k.setArg(4, hi);
      k.setArg(5, z.raw().impl()->buffer);
      k.setArg(6, cnt);
      const std::size_t tiles = (n_ + 8 * 256 - 1) / (8 * 256);
      const std::size_t groups = std::min<std::size_t>(tiles, std::max<std::size_t>(1, ci->info().compute_units) * 16);
      ::clstat::detail::launch(q_, k, cl::NDRange(groups * 256), cl::NDRange(256), {}, op);
      cl_uint got = 0;
      ::clstat::detail::read_wait(cq, cnt, 0, sizeof got, &got);
      if (got != m)
        throw std::logic_error(op + ": copied " + std::to_string(got) + " values, the counts said " + std::to_string(m));
      if (m <= kRemainder) {
        std::vector<T> v(m);
        if (m) ::clstat::detail::read_wait(cq, z.raw().impl()->buffer, 0, m * sizeof(T), v.data());
        std::vector<Key> keys(m);
        for (std::size_t i = 0; i < m; ++i) keys[i] = to_key(v[i]);
        for (auto kk : ks) {
          std::nth_element(keys.begin(), keys.begin() + (kk - 1), keys.end());
          out.push_back(keys[kk - 1]);
        }
      }
    });
    if (m <= kRemainder) return out;
    auto sel = make_radix_selector(q_, z, 0, m);
    std::vector<std::uint64_t> r0;
    for (auto kk : ks) r0.push_back(kk - 1);
    sel->prepare(r0);
    return sel->select(r0);
  }

  // The answer when it is the value v, `less` values lying below it: a nonzero value is its own
  // key; at zero, -0 and +0 are told apart by copying both.
  Key at_value(T v, std::uint64_t less, std::uint64_t k) {
    if (v != 0) return to_key(v);
    const Key lo = to_key(-T(0)) - 1, hi = to_key(T(0)) + 1;
    return select_between(lo, hi, count(Predicate::less_equal, T(0)) - less, {k - less})[0];
  }

  // Ranks ks (1-based, ascending) that share a bracket; empty when some rank lies at an end of
  // the data's range (the caller then takes them one by one).
  std::vector<Key> kth_set(const std::vector<std::uint64_t>& ks) {
    const std::uint64_t kmin = ks.front(), kmax = ks.back();
    const bool one = ks.size() == 1;
    const double h = static_cast<double>(kmin) - 0.5;
    T a = min_, b = max_;
    const Step sa = step_at(a), sb = step_at(b);
    std::uint64_t ea = sa.le;    // #{x <= a}
    std::uint64_t lb = sb.less;  // #{x < b}
    if (one && kmin <= ea) return {at_value(a, 0, kmin)};
    if (one && kmin > lb) return {at_value(b, lb, kmin)};
    if (kmin <= ea || kmax > lb) return {};
    double fa = sa.below_sum - h * a, fb = sb.below_sum - h * b;
    // The paper's hybrid: Kelley's steps only until the bracket holds n / 16 values (Beliakov
    // stops after 7 steps at 2^25, under 2^19 values left); each step halves the bracket or so
    // and costs a read of all n, while one copy and a radix selection of n / 16 values cost less
    // (H100, 2^27 doubles: 6.5 ms stopping at n / 64).
    const std::uint64_t stop = std::max<std::uint64_t>(kRemainder, n_ / 16);
    for (int step = 0; lb - ea > stop && step < kMaxSteps; ++step) {
      ++steps_;
      const double ga = static_cast<double>(ea) - h, gb = static_cast<double>(lb) - h;  // ga < 0 < gb
      T y = static_cast<T>((fb - fa + ga * a - gb * b) / (ga - gb));  // where the tangents meet
      if (!(y > a && y < b)) y = key_mid(a, b);
      const Step sy = step_at(y);
      const std::uint64_t less = sy.less, le = sy.le;
      const double fy = sy.below_sum - h * y;
      if (le < kmin) {
        a = y, ea = le, fa = fy;
      } else if (less >= kmax) {
        b = y, lb = less, fb = fy;
      } else if (one) {
        return {at_value(y, less, kmin)};  // x_(k) == y
      } else {
        break;  // y lies among the ranks: the bracket still holds them all
      }
    }
    // The bounds in key space: at zero a value bound covers both signed zeros.
    const Key lo = a == 0 ? to_key(T(0)) : to_key(a);
    const Key hi = b == 0 ? to_key(-T(0)) : to_key(b);
    std::vector<std::uint64_t> inner;
    for (auto k : ks) inner.push_back(k - ea);
    return select_between(lo, hi, lb - ea, inner);
  }

  Queue q_;
  Buffer<T> x_;
  std::size_t off_;
  std::uint64_t n_, nan_ = 0;
  T min_{}, max_{};
  unsigned steps_ = 0;
  std::unique_ptr<Selector<T>> fallback_;
};

}  // namespace

template <class T>
std::unique_ptr<Selector<T>> make_cutting_plane_selector(const Queue& q, const Buffer<T>& x, std::size_t offset,
                                                         std::uint64_t n) {
  if constexpr (std::is_floating_point_v<T>) return std::make_unique<CuttingPlane<T>>(q, x, offset, n);
  else return make_radix_selector(q, x, offset, n);  // the reductions are float and double only
}

template std::unique_ptr<Selector<float>> make_cutting_plane_selector(const Queue&, const Buffer<float>&, std::size_t,
                                                                      std::uint64_t);
template std::unique_ptr<Selector<double>> make_cutting_plane_selector(const Queue&, const Buffer<double>&, std::size_t,
                                                                       std::uint64_t);
template std::unique_ptr<Selector<std::int32_t>> make_cutting_plane_selector(const Queue&, const Buffer<std::int32_t>&,
                                                                             std::size_t, std::uint64_t);
template std::unique_ptr<Selector<std::int64_t>> make_cutting_plane_selector(const Queue&, const Buffer<std::int64_t>&,
                                                                             std::size_t, std::uint64_t);

}  // namespace clstat::order::detail
