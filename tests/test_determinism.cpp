// The same bits whatever the work-group size, rows per work-item or launch batching: the
// canonical tree (cl/common/reduce_tree.clh) in action.
#include <doctest/doctest.h>

#include "support.hpp"

using namespace clstat;

TEST_CASE_TEMPLATE("determinism.reductions_any_work_group", T, float, double) {
  if (std::is_same<T, double>::value && !clstat_test::has_fp64()) return;
  const auto seed = clstat_test::fresh_seed();
  INFO("seed " << seed);
  // (1 << 23) + 5: whole blocks of eight rows, then the slots' own tails. (1 << 16) + 7 and
  // (1 << 17) + 1 (2^13 and 2^14 slots): the GPU form's last group takes 2, 4, 8 or 16 states a
  // work-item at work-groups of 64 and 32.
  for (std::size_t n : {1ul, 1000ul, (1ul << 16) + 7, (1ul << 17) + 1, (1ul << 20) + 3, (1ul << 23) + 5}) {
    const auto x = clstat_test::normal<T>(n, seed + n, 1e3, 1e2);
    T sum0{}, tr0{};
    Moments<T> m0{};
    Extrema<T> e0{};
    bool first = true;
    // Both first-stage forms (a work-item a slot, the GPUs'; rows of slots, the CPUs', with runs of
    // 1024, 64 and 256 slots a work-item: a GPU's work-item cannot hold many more states; and of 8,
    // fewer than a float vector's 16 lanes, which the rows form takes without its vectors) on this
    // device.
    const std::size_t forms[][3] = {{16, 0, 1024}, {64, 1, 1024}, {256, 0, 1024}, {1024, 1, 64},
                                    {64, 0, 1024}, {256, 1, 256}, {128, 1, 8}, {32, 0, 1024}};
    for (const auto& f : forms) {
      const std::size_t wg = f[0], rows = f[1], slots = f[2];
      const Context c =
          clstat_test::tuned_ctx({{"reduce.wg", wg}, {"reduce.rows", rows}, {"reduce.row_slots", slots}});
      const T s = sum(c, x.data(), n), tr = transform_reduce(c, x.data(), n, Transform::sq_dev, T(1000));
      const Moments<T> m = moments(c, x.data(), n);
      const Extrema<T> e = extrema(c, x.data(), n);
      INFO("n " << n << " wg " << wg << " rows " << rows << " row_slots " << slots);
      if (first) {
        sum0 = s, tr0 = tr, m0 = m, e0 = e, first = false;
        continue;
      }
      CHECK(std::memcmp(&s, &sum0, sizeof s) == 0);
      CHECK(std::memcmp(&tr, &tr0, sizeof tr) == 0);
      CHECK(std::memcmp(&m.mean, &m0.mean, sizeof m.mean) == 0);
      CHECK(std::memcmp(&m.m2, &m0.m2, sizeof m.m2) == 0);
      CHECK(e.argmin == e0.argmin);
      CHECK(e.argmax == e0.argmax);
    }
  }
}

TEST_CASE_TEMPLATE("determinism.pairwise_any_work_group", T, float, double) {
  if (std::is_same<T, double>::value && !clstat_test::has_fp64()) return;
  const auto seed = clstat_test::fresh_seed();
  INFO("seed " << seed);
  const std::size_t n = 1900;
  for (std::size_t d : {1ul, 3ul}) {
    const auto x = clstat_test::normal<T>(n * d, seed + d);
    std::vector<double> ref;
    // Work-group sizes (rows per work-item = tile / wg) and launch batches of 1, 4 or 2^16 tiles.
    for (auto [wg, batch] : {std::pair<std::size_t, std::size_t>{128, 65536}, {16, 65536}, {32, 4}, {64, 1}, {256, 65536}}) {
      const Context c = clstat_test::tuned_ctx({{"pair.wg", wg}, {"pair.batch_tiles", batch}});
      const auto s = pairwise_sum(c, x.data(), n, d, PairFunction::gaussian, {1.0, 0.25});
      INFO("d " << d << " wg " << wg << " batch " << batch);
      if (ref.empty()) ref = s;
      else CHECK(std::memcmp(s.data(), ref.data(), s.size() * sizeof(double)) == 0);
    }
    std::vector<T> pref;
    for (auto [wg, rows] : {std::pair<std::size_t, std::size_t>{64, 4}, {32, 1}, {256, 2}, {128, 8}}) {
      const Context c = clstat_test::tuned_ctx({{"points.wg", wg}, {"points.rows", rows}});
      const auto p = pairwise_points_sum(c, x.data(), 333, x.data(), n, d, PairFunction::gaussian, {1.0});
      INFO("points d " << d << " wg " << wg << " rows " << rows);
      if (pref.empty()) pref = p;
      else CHECK(std::memcmp(p.data(), pref.data(), p.size() * sizeof(T)) == 0);
    }
  }
}
