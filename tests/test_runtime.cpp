#include <doctest/doctest.h>

#include <filesystem>

#include "support.hpp"

using namespace clstat;
using clstat_test::ctx;

TEST_CASE("runtime.devices") {
  const auto all = devices();
  REQUIRE(!all.empty());
  for (const auto& d : all) {
    const auto& i = d.info();
    INFO(i.label());
    CHECK(!i.name.empty());
    CHECK(i.compute_units > 0);
    CHECK(i.max_work_group_size > 0);
    CHECK(i.global_mem_bytes > 0);
    CHECK(i.max_alloc_bytes > 0);
    CHECK(i.local_mem_bytes > 0);
    CHECK(i.opencl_c_version.find("OpenCL C") == 0);
  }
  // The device under test is the one CLSTAT_DEVICE names (a list's first).
  if (const char* spec = std::getenv("CLSTAT_DEVICE")) {
    const std::string s = spec;
    CHECK(select_device(s.substr(0, s.find(','))).info().label() == ctx().info().label());
    CHECK(default_device().info().label() == ctx().info().label());
  }
  // A list names a group; the default device is its first, whatever follows.
  const std::string pd = std::to_string(ctx().info().platform_index) + ":" + std::to_string(ctx().info().device_index);
  const clstat_test::ScopedEnv list("CLSTAT_DEVICE", pd + ",no-such-device-xyz");
  CHECK(default_device().info().label() == ctx().info().label());
}

TEST_CASE("runtime.select_device") {
  const auto& i = ctx().info();
  const std::string pd = std::to_string(i.platform_index) + ":" + std::to_string(i.device_index);
  CHECK(select_device(pd).info().label() == i.label());
  CHECK(select_device(i.name.substr(0, 6)).info().platform_index <= i.platform_index);
  if (i.type == DeviceType::cpu) CHECK(select_device("cpu").info().type == DeviceType::cpu);
  if (i.type == DeviceType::gpu) CHECK(select_device("gpu").info().type == DeviceType::gpu);
  if (i.is_pocl) CHECK(select_device("pocl").info().is_pocl);
  try {
    select_device("no-such-device-xyz");
    FAIL("expected std::invalid_argument");
  } catch (const std::invalid_argument& e) {
    CHECK(std::string(e.what()).find("no-such-device-xyz") != std::string::npos);
    CHECK(std::string(e.what()).find(i.name) != std::string::npos);  // lists what exists
  }
  CHECK_THROWS_AS(select_device("9:9"), std::invalid_argument);
}

TEST_CASE("runtime.context_and_buffers") {
  Context c(ctx().device(), 3);
  CHECK(c.queue_count() == 3);
  CHECK_THROWS_AS(c.queue(3), std::out_of_range);
  CHECK_THROWS_AS(Context(ctx().device(), 0), std::invalid_argument);
  std::vector<int> in(1000);
  for (int i = 0; i < 1000; ++i) in[i] = i * 7 - 3;
  Buffer<int> b(c, in.data(), in.size());
  std::vector<int> out(1000, -1);
  b.read(c.queue(2), out.data(), out.size());
  CHECK(out == in);
  CHECK_THROWS_AS(b.read(c.queue(0), out.data(), 10, 995), std::out_of_range);
  b.fill_async(c.queue(1), 42).wait();
  CHECK(b.to_host(c.queue(1)) == std::vector<int>(1000, 42));
  CHECK_THROWS_AS(RawBuffer(c, 0), std::invalid_argument);
  try {
    RawBuffer(c, static_cast<std::size_t>(c.info().max_alloc_bytes) + 1);
    FAIL("expected UnsupportedFeature");
  } catch (const UnsupportedFeature& e) {
    CHECK(std::string(e.what()).find("largest allocation") != std::string::npos);
  }
}

TEST_CASE("runtime.events_and_futures") {
  const Queue q = ctx().queue(1);
  std::vector<double> v(5000, 0.25);
  if (!clstat_test::has_fp64()) return;
  Buffer<double> b(ctx(), v.size());
  Event w = b.raw().write_async(q, v.data(), v.size() * sizeof(double), 0);
  Future<double> f = sum_async(q, b, 0, v.size(), {w});
  CHECK(f.get() == 1250.0);
  CHECK(f.get() == 1250.0);  // get() twice returns the same value
  CHECK(f.event().complete());
  CHECK(Event().complete());
}

TEST_CASE("runtime.program_disk_cache") {
  // The on-disk cache is off on PoCL (it has its own) and on elsewhere; either way results agree.
  const auto dir = std::filesystem::temp_directory_path() / ("clstat-cache-test-" + std::to_string(clstat_test::fresh_seed()));
  clstat_test::ScopedEnv env("CLSTAT_CACHE_DIR", dir.string());
  std::vector<float> v(777, 1.5f);
  const float a = sum(clstat_test::fresh_ctx(), v.data(), v.size());
  std::size_t files = 0;
  if (std::filesystem::exists(dir))
    for (auto& e : std::filesystem::directory_iterator(dir)) files += e.path().extension() == ".bin";
  if (ctx().info().is_pocl) CHECK(files == 0);
  else CHECK(files >= 1);
  const float b = sum(clstat_test::fresh_ctx(), v.data(), v.size());  // a new context loads from disk
  CHECK(a == 1165.5f);
  CHECK(b == a);
  std::filesystem::remove_all(dir);
}

TEST_CASE("runtime.profiling_records_kernels") {
  const Context c = clstat_test::fresh_ctx();
  std::vector<float> v(100000, 0.5f);
  Buffer<float> b(c, v.data(), v.size());
  sum_async(c.queue(0), b, 0, v.size()).get();
  CHECK(c.take_profile().empty());  // off by default: nothing recorded
  c.set_profiling(true);
  CHECK(sum_async(c.queue(0), b, 0, v.size()).get() == 50000.0f);
  c.set_profiling(false);
  const auto rec = c.take_profile();
  REQUIRE(!rec.empty());
  // The first stage's kernel is reduce_slots on GPUs (reduce_slots_last, which also finishes,
  // for inputs one group of passes can take), reduce_rows on CPUs.
  CHECK((rec.front().kernel == "reduce_slots" || rec.front().kernel == "reduce_slots_last" ||
         rec.front().kernel == "reduce_rows"));
  for (std::size_t i = 1; i < rec.size(); ++i) CHECK(rec[i].kernel == "reduce_pass");
  for (const auto& r : rec) {
    CHECK(r.start_ns >= r.queued_ns);
    CHECK(r.end_ns >= r.start_ns);
  }
  CHECK(c.take_profile().empty());  // taking clears the record
  sum_async(c.queue(0), b, 0, v.size()).get();
  CHECK(c.take_profile().empty());  // off again
}

TEST_CASE("runtime.tuning_summary") {
  const std::string s = ctx().tuning_summary();
  CHECK(s.find("reduce_wg=") != std::string::npos);
  CHECK(s.find("native_exp=") != std::string::npos);
  // Inline PTX (the KDE's one-instruction exp2) only where NVIDIA's OpenCL compiles the kernels.
  const auto& info = ctx().info();
  const bool nvidia = info.type == clstat::DeviceType::gpu &&
                      (info.vendor + " " + info.platform_name).find("NVIDIA") != std::string::npos;
  CHECK(s.find(nvidia ? "ptx=1" : "ptx=0") != std::string::npos);
  CHECK(clstat_test::tuned_ctx({{"reduce.wg", 64}}).tuning_summary().find("reduce_wg=64") != std::string::npos);
  // A value that cannot work is refused by name, never run (a reduction of groups of 1 never ends).
  CHECK_THROWS_WITH_AS(clstat_test::tuned_ctx({{"reduce.wg", 1}}), doctest::Contains("reduce.wg = 1"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(clstat_test::tuned_ctx({{"reduce.wg", 100}}), doctest::Contains("powers of two"),
                       std::invalid_argument);
  // The first-stage form is a switch: 0 (a work-item a slot) or 1 (rows of slots).
  CHECK_THROWS_WITH_AS(clstat_test::tuned_ctx({{"reduce.rows", 2}}), doctest::Contains("reduce.rows = 2"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(clstat_test::tuned_ctx({{"kde.f32.d1.wgg", 64}}), doctest::Contains("unknown tunable"),
                       std::invalid_argument);
  // The CPU shapes' keys: the simd variant's vector width (a power of two, 2 to 16), the variant
  // ids (1 to 4), and the blocks of the bracket pass (0 to 64 per compute unit).
  CHECK_THROWS_WITH_AS(clstat_test::tuned_ctx({{"kde.f32.d1.lanes", 12}}), doctest::Contains("powers of two"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(clstat_test::tuned_ctx({{"kde.f64.d4.lanes", 32}}), doctest::Contains("kde.f64.d4.lanes = 32"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(clstat_test::tuned_ctx({{"kde.f32.d1.variant", 5}}), doctest::Contains("kde.f32.d1.variant = 5"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(clstat_test::tuned_ctx({{"order.filter_blocks_per_cu", 65}}),
                       doctest::Contains("order.filter_blocks_per_cu = 65"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(clstat_test::tuned_ctx({{"order.rows_items", 24}}),
                       doctest::Contains("order.rows_items = 24"), std::invalid_argument);
  // The share of the Gaussian's exp2 on the FMA pipes: 0 to 8 of every 8 samples.
  CHECK_THROWS_WITH_AS(clstat_test::tuned_ctx({{"kde.f64.d16.exp_poly", 9}}),
                       doctest::Contains("kde.f64.d16.exp_poly = 9"), std::invalid_argument);
  CHECK_NOTHROW(clstat_test::tuned_ctx({{"kde.f32.d1.exp_poly", 8}}));
}

TEST_CASE("runtime.measure_ceilings") {
  const Ceilings c = measure_ceilings(ctx(), std::size_t(1) << 20, 1);
  CHECK(c.copy_gbs > 0);
  CHECK(c.read_gbs > 0);
  CHECK(c.fp32_fma_gflops > 0);
  CHECK(c.exp32_gps > 0);
  CHECK(c.native_exp32_gps > 0);
  CHECK((c.fp64_fma_gflops > 0) == ctx().info().fp64);
  CHECK((c.exp64_gps > 0) == ctx().info().fp64);
  try {
    measure_ceilings(ctx(), std::size_t(1) << 20, 0);
    FAIL("expected invalid_argument");
  } catch (const std::invalid_argument& e) {
    CHECK(std::string(e.what()).find("repeats") != std::string::npos);
  }
  try {
    measure_ceilings(ctx(), 1000, 1);
    FAIL("expected invalid_argument");
  } catch (const std::invalid_argument& e) {
    CHECK(std::string(e.what()).find("copy_bytes") != std::string::npos);
  }
}
