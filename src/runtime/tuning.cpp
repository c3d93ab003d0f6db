#include "runtime/tuning.hpp"

#include <pwd.h>
#include <unistd.h>

#include "clstat/tuning.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>

namespace clstat::detail {
namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

// KDE evaluation (src/kde): per precision and dimension class (d1: d = 1, d4: d <= 4, d16: d <= 16,
// d64: d <= 64), the variant (KdeVariant ids: 1 naive, 2 tiled, 3 unrolled, 4 simd), work-group
// size, points per work-item (simd: vectors of points), samples per local tile, unroll of the
// sample loop, whether the Gaussian uses the expanded square (dot, one multiply-add per dimension;
// GPUs only, where fma is native), whether sample rows are read as 16-byte vectors (vec), and how
// many groups per compute unit a small problem is split into at least (fill; src/kde/kde_plan.cpp),
// and (GPUs) of every 8 samples how many have their Gaussian exp2 computed by clstat's polynomial on
// the FMA pipes (exp_poly; cl/kde/kde_shapes.clh), whose steps of 8 samples the unrolled variant
// unrolls `unroll` times. On the H100 (clstat-bench --suite kde, kernel time, Gpairs/s, before ->
// with it): fp64 takes it for every term (d = 1 517 -> 701, d = 6 274 -> 420, d = 14 217 -> 346,
// full H d = 16 317 -> 338, the last two with one step unrolled; eight steps gave 314 and 260;
// d = 62 47 -> 96 with four steps, at the cost of d = 30, 164 -> 138, which one step keeps at 171
// but d = 62 at 46);
// fp32 for one term in 8 where the dimension loop shares the FMA pipes (d = 2 1831 -> 2230, d = 6
// 1203 -> 1492, d = 14 767 -> 849, full H d = 16 955 -> 1017), not at d = 1, where two in 8 cost
// (3049 -> 2949 in kde()'s wall time), nor at d = 30 and 62 (228 -> 202, 100 -> 85).
// With NVIDIA's one-instruction ex2 (NV_PTX, cl/kde/kde_shapes.clh) the 1-d fp32 pair costs three
// issue slots beside its exp2, so one term in 8 on the FMA pipes pays there too; the f32 d1 and d16
// rows were then re-measured on an H100 with one-off kernel timings (kernel time, Gpairs/s):
// d1 at n = m = 2^20, 256 x 4 points with every exp2 native 3828, one in 8: 4113, 512 x 4 with
// 8 steps unrolled 4294 (1024 x 4: 4331, but a 2^18 problem halves it to one point per item),
// with one group per compute unit at least (fill), so that 2^18 runs 512 x 2 (3905 in the suite);
// d16 full H at 2^17, 256 x 2 with one in 8 (the old row) 1022, 128 x 4 with 8 steps and none 1203.
// The NVIDIA rows for f32 d1, d4 and d16 are what `clstat-bench --tune kde` chose on an H100
// (the runs' logs, in git history: `git show a10d6fa:bench/results/2026-11-22-h100-nvidia-kde-tune-partial-2e18.log`
// for d1, `...-kde-tune-vec.log` for d4 and d16 with vector rows); the others keep registers per work-item bounded as d
// grows and have not been re-tuned with vector rows, so they keep scalar rows.
// CPU rows run the simd variant: on 2 cores of a Xeon with AVX-512 (PoCL 3.1) it evaluates the 1-d
// fp32 Gaussian at n = m = 2^16 at 6.6 Gpairs/s against 0.67 for the unrolled one, fp64 2.2 against
// 0.42, d = 6 fp32 at 2^14 4.2 against 0.18. Small groups (8 work-items of 1 or 2 vectors) balance
// the cores' loads; wider ones measured the same.
void kde_defaults(Tuning& t, bool gpu) {
  struct Row {
    const char* key;
    std::size_t variant, wg, ppt, tile, unroll, dot, vec, fill = 2, exp_poly = 0;
  };
  // d1 keeps the difference form: it costs the same as the expanded square at d = 1 and its fp32
  // error does not grow as h shrinks against the data's spread (`git show 9796294:bench/results/2026-11-22-h100-nvidia-kde.log`).
  static const Row nv[] = {{"f32.d1", 3, 512, 4, 512, 8, 0, 0, 1, 1},     {"f32.d4", 3, 256, 1, 512, 4, 1, 1, 2, 1},
                           {"f32.d16", 3, 128, 4, 256, 8, 1, 1, 1, 0},     {"f32.d64", 3, 64, 1, 256, 4, 1, 0},
                           {"f64.d1", 3, 256, 2, 256, 8, 0, 0, 2, 8},      {"f64.d4", 3, 128, 2, 256, 4, 1, 0, 2, 8},
                           {"f64.d16", 3, 64, 2, 256, 1, 1, 0, 2, 8},      {"f64.d64", 3, 64, 1, 256, 4, 1, 0, 2, 8}};
  static const Row cpu[] = {{"f32.d1", 4, 8, 2, 256, 1, 0, 0},  {"f32.d4", 4, 8, 2, 256, 1, 0, 0},
                            {"f32.d16", 4, 8, 1, 256, 1, 0, 0}, {"f32.d64", 4, 8, 1, 256, 1, 0, 0},
                            {"f64.d1", 4, 8, 2, 256, 1, 0, 0},  {"f64.d4", 4, 8, 2, 256, 1, 0, 0},
                            {"f64.d16", 4, 8, 1, 256, 1, 0, 0}, {"f64.d64", 4, 8, 1, 256, 1, 0, 0}};
  for (const Row& r : gpu ? nv : cpu) {
    const std::string k = std::string("kde.") + r.key + ".";
    t.table[k + "variant"] = r.variant;
    t.table[k + "wg"] = r.wg;
    t.table[k + "ppt"] = r.ppt;
    t.table[k + "tile"] = r.tile;
    t.table[k + "unroll"] = r.unroll;
    t.table[k + "dot"] = r.dot;
    t.table[k + "vec"] = r.vec;
    t.table[k + "fill"] = r.fill;
    if (gpu) t.table[k + "exp_poly"] = r.exp_poly;
  }
}

}  // namespace

std::size_t tuned(const Tuning& t, const std::string& key, std::size_t fallback) {
  auto it = t.table.find(key);
  return it == t.table.end() ? fallback : it->second;
}

std::string cache_directory() {
  if (const char* d = std::getenv("CLSTAT_CACHE_DIR"); d && *d) return d;
  // The home directory from the password database: the library reads no other variable.
  if (const passwd* pw = getpwuid(getuid()); pw && pw->pw_dir && *pw->pw_dir)
    return std::string(pw->pw_dir) + "/.cache/clstat";
  return {};
}

Tuning default_tuning(const DeviceInfo& info, const std::map<std::string, std::size_t>& overrides) {
  Tuning t;
  const std::string vendor = lower(info.vendor + " " + info.platform_name);
  if (info.type == DeviceType::gpu && vendor.find("nvidia") != std::string::npos) {
    t.reduce_wg = 256, t.pair_wg = 128, t.points_wg = 128, t.points_rows = 4, t.native_exp = true;
    t.ptx = true;
    t.source = "nvidia-gpu";
  } else if (info.type == DeviceType::gpu &&
             (vendor.find("amd") != std::string::npos || vendor.find("advanced micro") != std::string::npos)) {
    t.reduce_wg = 256, t.pair_wg = 256, t.points_wg = 256, t.points_rows = 4, t.native_exp = true;
    t.source = "amd-gpu";
  } else if (info.type == DeviceType::gpu) {
    t.reduce_wg = 256, t.pair_wg = 128, t.points_wg = 128, t.points_rows = 2, t.native_exp = true;
    t.source = "gpu";
  } else if (info.type == DeviceType::cpu) {
    // PoCL runs a work-group as vectorised loops: small groups, many rows per work-item.
    t.reduce_wg = 64, t.pair_wg = 64, t.points_wg = 64, t.points_rows = 8, t.native_exp = false;
    t.source = "cpu";
  }
  const bool is_gpu = info.type == DeviceType::gpu;
  kde_defaults(t, is_gpu);
  for (const auto& [k, v] : load_tuning(info)) {
    check_tunable(k, v, "tuning file " + tuning_file());
    t.table[k] = v;
    ++t.file_entries;
  }
  for (const auto& [k, v] : overrides) {
    check_tunable(k, v, "Context tuning override");
    t.table[k] = v;
  }
  // The fields every kernel family reads, from their keys when the file or an override gives one.
  t.reduce_wg = tuned(t, "reduce.wg", t.reduce_wg);
  t.pair_wg = tuned(t, "pair.wg", t.pair_wg);
  t.points_wg = tuned(t, "points.wg", t.points_wg);
  t.points_rows = tuned(t, "points.rows", t.points_rows);
  t.pair_batch_tiles = tuned(t, "pair.batch_tiles", t.pair_batch_tiles);
  t.native_exp = tuned(t, "pair.native_exp", t.native_exp ? 1 : 0) != 0;
  return t;
}

}  // namespace clstat::detail
