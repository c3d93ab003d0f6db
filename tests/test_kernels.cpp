#include <doctest/doctest.h>

#include <algorithm>

#include "support.hpp"

using namespace clstat;
using clstat_test::ctx;

namespace {
struct Variant {
  std::string source, options;
  bool dbl;
};

std::vector<Variant> representative() {
  std::vector<Variant> v;
  for (bool dbl : {false, true}) {
    for (int t = 0; t <= 6; ++t) v.push_back({"primitives/reduce_sum", "-DWG=64 -DROW_SLOTS=256 -DTRANSFORM=" + std::to_string(t), dbl});
    for (int p : {0, 3, 9}) v.push_back({"primitives/reduce_count", "-DWG=64 -DROW_SLOTS=256 -DPREDICATE=" + std::to_string(p), dbl});
    v.push_back({"primitives/reduce_extrema", "-DWG=64 -DROW_SLOTS=256", dbl});
    v.push_back({"primitives/transpose", "", dbl});
    v.push_back({"primitives/reduce_moments", "-DWG=64 -DROW_SLOTS=256", dbl});
    for (int f = 0; f <= 4; ++f) {
      const std::string common = " -DNOUT=2 -DPAIR_FN=" + std::to_string(f) + " -DCHUNK=64 -DNATIVE_EXP=" + (dbl ? "0" : "1");
      v.push_back({"primitives/pairwise_triangle", "-DWG=64 -DROWS=8 -DTILE=512 -DLJ=512 -DDIM=1" + common, dbl});
      v.push_back({"primitives/pairwise_points", "-DWG=64 -DROWS=4 -DTILE=512 -DLJ=256 -DDIM=3" + common, dbl});
    }
    v.push_back({"primitives/pairwise_triangle", "-DWG=128 -DROWS=1 -DTILE=128 -DLJ=64 -DDIM=64 -DNOUT=1 -DPAIR_FN=0 -DCHUNK=64 -DNATIVE_EXP=0", dbl});
    for (int k = 0; k <= 6; ++k) {
      const std::string c = " -DDIM=3 -DKERN=" + std::to_string(k) + " -DFORM=" + (k == 0 ? "1" : "0") +
                            " -DDOT=" + (k == 0 ? "1" : "0") + " -DWEIGHTED=1 -DNATIVE_EXP=" + (dbl ? "0" : "1");
      v.push_back({"kde/kde_prepare", c + " -DROLE=0", dbl});
      v.push_back({"kde/kde_prepare", c + " -DROLE=1", dbl});
      for (int var = 0; var <= 2; ++var)
        v.push_back({"kde/kde_eval", c + " -DLOO=1 -DVARIANT=" + std::to_string(var) +
                                         " -DPPT=2 -DTILE=128 -DCHUNK=64 -DUNROLL=4 -DPER_POINT=1 -DLOG_DENSITY=1 -DWG=64",
                     dbl});
    }
    if (dbl) {  // fp64 only, as the selectors
      v.push_back({"bandwidth/lscv", "-DDIM=3 -DWG=64 -DKB=8 -DRS=4 -DZW=64", dbl});
      // The band the host passes (src/stable/near_one.hpp); the kernel refuses to build without one.
      v.push_back({"stable/stable_point", "-DSTABLE_NEAR_ONE=1e-3", dbl});
      v.push_back({"stable/stable_point", "-DSTABLE_NEAR_ONE=1e-3 -DPAIRED=0", dbl});
      for (int mode = 0; mode <= 2; ++mode)
        v.push_back({"robust/lts_block", "-DQ=11 -DM=2048 -DWG=256 -DTILE=16 -DNACC=1 -DMODE=" + std::to_string(mode), dbl});
      v.push_back({"robust/lts_block", "-DQ=32 -DM=64 -DWG=64 -DTILE=16 -DNACC=9 -DMODE=0", dbl});
      v.push_back({"kde/kde_grid", "-DD=3 -DKERN=1 -DWG=256 -DT0=4 -DT1=8 -DT2=8", dbl});
      v.push_back({"kde/kde_grid", "-DD=1 -DKERN=0 -DWG=256 -DT0=256 -DROWS_MAX=2", dbl});
      v.push_back({"kde/kde_grid", "-DD=2 -DKERN=5 -DWG=256 -DT0=32 -DT1=8 -DPPI=4", dbl});
      v.push_back({"kde/grid_bin", "-DD=3", dbl});
      v.push_back({"robust/lts_full", "-DQ=11 -DKC=10 -DWG=256 -DTILE=32 -DCH=1024 -DNACC=4", dbl});
      for (int term = 1; term <= 3; ++term)
        v.push_back({"bandwidth/pair_sums", "-DTERM=" + std::to_string(term) +
                                                " -DWG=32 -DROWS=2 -DCHUNK=32 -DFWG=256 -DDIM=5 -DRS=6", dbl});
    }
    for (int kind : {0, 1, 2, 3}) {
      if ((kind == 1) != dbl) continue;
      for (const char* f : {"-DFIRST=1 -DCOMPACT=0 -DFROM_KEYS=0 -DITEMS=8", "-DFIRST=0 -DCOMPACT=1 -DFROM_KEYS=1 -DITEMS=8", "-DFILTER=1 -DCOMPACT=1 -DITEMS=8"})
        v.push_back({"order/radix_select", std::string("-DWG=64 -DHBINS=4096 -DLCAP=2048 -DELEM_KIND=") +
                                               std::to_string(kind) + " " + f, dbl});
    }
    for (int kind : {0, 1, 2, 3}) {
      if ((kind == 1) != dbl) continue;
      for (const char* shape : {"-DWG=64 -DLOG2_WG=6 -DRITEMS=1", "-DWG=256 -DLOG2_WG=8 -DRITEMS=16 -DCAND=0",
                                "-DWG=128 -DLOG2_WG=7 -DRITEMS=32 -DCAND=512 -DMAXR=16"})
        v.push_back({"order/select_rows", std::string(shape) + " -DELEM_KIND=" + std::to_string(kind), dbl});
      v.push_back({"order/select_rows_seq", "-DCAP=8192 -DELEM_KIND=" + std::to_string(kind), dbl});
    }
    if (dbl) v.push_back({"robust/mcd_distances", "-DMAXP=32", true});
    if (dbl) v.push_back({"robust/mcd_distances", "-DMAXP=32 -DQ=9 -DWG=128 -DTILE=32 -DCH=1024 -DNACC=1", true});
    if (dbl) v.push_back({"robust/mm_irls", "-DQ=11 -DWG=128 -DTILE=64", true});
    if (dbl)  // the weights are doubles whatever the values are
      for (int kind : {0, 1, 2, 3})
        for (int from_keys : {0, 1})
          v.push_back({"order/weighted_select", "-DWG=128 -DNB=8 -DELEM_KIND=" + std::to_string(kind) +
                                                    " -DFROM_KEYS=" + std::to_string(from_keys), true});
    v.push_back({"bench/ceilings", std::string("-DEXP_FN=") + (dbl ? "exp" : "native_exp2"), dbl});
  }
  return v;
}
}  // namespace

TEST_CASE("kernels.compile_all") {
  // Every embedded source has at least one representative build here.
  const auto names = embedded_kernel_names();
  const auto reps = representative();
  for (const auto& n : names) {
    INFO(n);
    CHECK(std::any_of(reps.begin(), reps.end(), [&](const Variant& v) { return v.source == n; }));
  }
  for (const auto& v : reps) {
    if (v.dbl && !clstat_test::has_fp64()) continue;
    INFO(v.source << " " << v.options << (v.dbl ? " double" : " float"));
    CHECK_NOTHROW(build_kernel(ctx(), v.source, v.dbl, v.options));
  }
}

TEST_CASE("kernels.build_error_carries_log") {
  try {
    build_kernel(ctx(), "primitives/reduce_count", false, "-DWG=64 -DPREDICATE=99");
    FAIL("expected BuildError");
  } catch (const BuildError& e) {
    CHECK(e.kernel() == "primitives/reduce_count");
    CHECK(e.options().find("PREDICATE=99") != std::string::npos);
    CHECK(e.log().find("unknown PREDICATE") != std::string::npos);
    CHECK(std::string(e.what()).find("build log") != std::string::npos);
  }
  CHECK_THROWS_AS(build_kernel(ctx(), "primitives/no_such_kernel", false, ""), std::invalid_argument);
  if (!clstat_test::has_fp64())
    CHECK_THROWS_AS(build_kernel(ctx(), "primitives/reduce_sum", true, "-DWG=64"), UnsupportedFeature);
}
