// OpenCL interop: an application's own context, queue and buffers, made with plain CLHPP, used by
// clstat without a copy.
#include <doctest/doctest.h>

#include <algorithm>

#include "clstat/interop/opencl.hpp"
#include "support.hpp"

using namespace clstat;

TEST_CASE("interop.application_context_and_buffers") {
  const auto seed = clstat_test::fresh_seed();
  INFO("seed " << seed);
  // The application's objects, made without clstat.
  cl_device_id dev = interop::native_device(clstat_test::ctx());
  cl_int err = CL_SUCCESS;
  cl_context app_ctx = clCreateContext(nullptr, 1, &dev, nullptr, nullptr, &err);
  REQUIRE(err == CL_SUCCESS);
  cl_command_queue app_q = clCreateCommandQueue(app_ctx, dev, CL_QUEUE_PROFILING_ENABLE, &err);
  REQUIRE(err == CL_SUCCESS);
  const std::size_t n = 3000, m = 500;
  const auto x = clstat_test::normal<float>(n, seed), y = clstat_test::normal<float>(m, seed + 1);
  cl_mem xm = clCreateBuffer(app_ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * sizeof(float),
                             const_cast<float*>(x.data()), &err);
  REQUIRE(err == CL_SUCCESS);
  cl_mem ym = clCreateBuffer(app_ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, m * sizeof(float),
                             const_cast<float*>(y.data()), &err);
  cl_mem om = clCreateBuffer(app_ctx, CL_MEM_READ_WRITE, m * sizeof(float), nullptr, &err);
  REQUIRE(err == CL_SUCCESS);
  {
    const Context c = interop::adopt_context(app_ctx, dev, {app_q});
    CHECK(interop::native_context(c) == app_ctx);
    CHECK(c.queue_count() == 1);
    CHECK(interop::native_queue(c.queue(0)) == app_q);
    const auto xb = interop::adopt_buffer_of<float>(c, xm), yb = interop::adopt_buffer_of<float>(c, ym);
    const auto ob = interop::adopt_buffer_of<float>(c, om);
    CHECK(xb.size() == n);
    CHECK(interop::native_buffer(xb) == xm);
    // kde and median on the application's memory, against the host forms on copies.
    KdeOptions ko;
    ko.precision = Precision::float32;
    ko.bandwidth = Bandwidth::scalar(0.3);
    const Event done = kde_async(c.queue(0), xb, 0, n, 1, yb, 0, m, ob, 0, ko);
    std::vector<float> got(m);
    REQUIRE(clEnqueueReadBuffer(app_q, om, CL_TRUE, 0, m * sizeof(float), got.data(), 1,
                                [&] { static cl_event e; e = interop::native_event(done); return &e; }(),
                                nullptr) == CL_SUCCESS);
    const std::vector<double> xd(x.begin(), x.end()), yd(y.begin(), y.end());
    const auto want = kde(clstat_test::ctx(), xd.data(), n, 1, yd.data(), m, ko);
    for (std::size_t i = 0; i < m; ++i) CHECK(got[i] == doctest::Approx(want[i]).epsilon(1e-5));
    CHECK(order::median_async(c.queue(0), xb, 0, n).get() == order::median(clstat_test::ctx(), x.data(), n));
    // The application's data are still there, untouched.
    std::vector<float> back(n);
    clEnqueueReadBuffer(app_q, xm, CL_TRUE, 0, n * sizeof(float), back.data(), 0, nullptr, nullptr);
    CHECK(back == x);
    // Misuse: a buffer of another context, a null handle.
    CHECK_THROWS_AS(interop::adopt_buffer(clstat_test::ctx(), xm), std::invalid_argument);
    CHECK_THROWS_AS(interop::adopt_buffer(c, nullptr), std::invalid_argument);
    CHECK_THROWS_AS(interop::adopt_context(nullptr, dev), std::invalid_argument);
  }
  // clstat released what it retained: the application's objects are still valid and release cleanly.
  CHECK(clReleaseMemObject(om) == CL_SUCCESS);
  CHECK(clReleaseMemObject(ym) == CL_SUCCESS);
  CHECK(clReleaseMemObject(xm) == CL_SUCCESS);
  CHECK(clReleaseCommandQueue(app_q) == CL_SUCCESS);
  CHECK(clReleaseContext(app_ctx) == CL_SUCCESS);
}

TEST_CASE("runtime.release_scratch_and_limits") {
  const Context c = clstat_test::fresh_ctx();
  CHECK(c.scratch_bytes() == 0);
  const auto x = clstat_test::normal<double>(50000, 11);
  order::median(c, x.data(), x.size());
  sum(c, x.data(), x.size());
  CHECK(c.scratch_buffers() > 0);
  CHECK(c.scratch_bytes() > 0);
  c.release_scratch();
  CHECK(c.scratch_bytes() == 0);
  CHECK(c.scratch_buffers() == 0);
  // A cap: what idle queues pool is trimmed to it; results are unchanged.
  const double m1 = order::median(c, x.data(), x.size());
  c.set_scratch_limit(0);
  CHECK(c.scratch_bytes() == 0);
  CHECK(c.scratch_limit() == 0);
  CHECK(order::median(c, x.data(), x.size()) == m1);
}

TEST_CASE("runtime.moved_from_and_default_objects") {
  Context a = clstat_test::fresh_ctx();
  Context b = std::move(a);
  CHECK(b.queue_count() == 4);
  CHECK_THROWS_AS(a.queue_count(), std::logic_error);  // NOLINT: the moved-from object is the point
  CHECK_THROWS_AS(a.queue(0), std::logic_error);
  const std::vector<double> x{1, 2, 3};
  CHECK_THROWS_AS(sum(a, x.data(), 3), std::logic_error);
  Future<double> f;
  CHECK_FALSE(f.valid());
  CHECK_THROWS_AS(f.get(), std::logic_error);
  Queue q;
  CHECK_THROWS_AS(q.finish(), std::logic_error);
  Buffer<double> none;
  CHECK_THROWS_AS(sum_async(b.queue(0), none, 0, 1).get(), std::invalid_argument);  // empty: range check first
  RawBuffer raw;
  CHECK_THROWS_AS(raw.impl(), std::logic_error);
}
