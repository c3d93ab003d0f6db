#include "suite_python.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>

#include <nlohmann/json.hpp>

#include "clstat/clstat.hpp"
#include "peer_process.hpp"
#include "support.hpp"

namespace bench {

namespace {

namespace fs = std::filesystem;

template <class T>
void write_raw(const fs::path& p, const std::vector<T>& v) {
  std::ofstream f(p, std::ios::binary);
  f.write(reinterpret_cast<const char*>(v.data()), static_cast<std::streamsize>(v.size() * sizeof(T)));
  if (!f) throw std::runtime_error("clstat-bench: cannot write " + p.string());
}

// A temporary folder for the workloads' data, removed when the suite ends.
struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() / ("clstat-bench-python-" + std::to_string(::getpid()));
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

struct Script {
  nlohmann::json out = nlohmann::json::object();  // what the script printed
  std::string why;                                // why it gave no clstat time
};

Script run_script(const PythonBenchOptions& o, const std::string& device, const std::string& args) {
  Script s;
  const std::string python = CLSTAT_BENCH_PYTHON, path = CLSTAT_BENCH_PYTHONPATH;
  if (path.empty()) {
    s.why = "the Python package was not built (CLSTAT_PYTHON off: pybind11-dev or python3-dev missing)";
    return s;
  }
  const auto run = clstat_bench::run_peer("PYTHONPATH='" + path + "' '" + python + "' '" + o.peers_dir +
                                         "/python_api.py' --device '" + device + "' " + args);
  std::cerr << "[clstat-bench] python: " << (run.ok ? run.out : run.why + "\n");
  if (!run.ok) {
    s.why = "python_api.py: " + run.why;
    return s;
  }
  s.out = nlohmann::json::parse(run.out, nullptr, false);
  if (!s.out.is_object() || !s.out.contains("clstat_ms")) {
    s.why = "python_api.py gave no clstat_ms: " + run.out;
    s.out = nlohmann::json::object();
  }
  return s;
}

double ms_of(const Script& s, const std::string& key) {
  const auto it = s.out.find(key);
  return it != s.out.end() && it->is_number() ? it->get<double>() : 0;
}

// The C++ row and the Python row of one workload. work: units per call; scale: 1e9 or 1e6.
void add_rows(std::vector<Row>& rows, const std::string& name, const std::string& prec, std::uint64_t n,
              double work, const std::string& unit, double scale, const Stats& cpp, const Script& py,
              const std::vector<std::pair<std::string, std::string>>& peers, int repeats) {
  auto rate = [&](double ms) { return ms > 0 ? work / (ms * 1e-3) / scale : 0; };
  std::string peer, listed, errors;
  double best = 0;
  for (const auto& [label, key] : peers) {
    const double ms = ms_of(py, key + "_ms");
    if (ms > 0) {
      listed += (listed.empty() ? "" : ", ") + label + " " + fixed(ms, 3) + " ms";
      if (rate(ms) > best) best = rate(ms), peer = label;
    } else {
      const auto err = py.out.find(key + "_error");
      errors += (errors.empty() ? "" : "; ") + label + ": " +
                (!py.why.empty() ? py.why : err != py.out.end() && err->is_string() ? err->get<std::string>() : "not run");
    }
  }
  Row c{"python", name + " (C++)", prec, n};
  c.repeats = repeats;
  c.wall_ms = c.kernel_ms = cpp;
  c.work = work;
  c.unit = unit;
  c.throughput = rate(cpp.median);
  c.check = "the library's call, wall clock" + (listed.empty() ? std::string() : "; peers: " + listed);
  c.peer = peer;
  c.peer_throughput = best;
  c.peer_error = errors;
  rows.push_back(c);
  Row p = c;
  p.name = name + " (Python)";
  const double py_ms = ms_of(py, "clstat_ms");
  p.wall_ms = p.kernel_ms = Stats::of({py_ms});
  p.throughput = rate(py_ms);
  if (py_ms > 0)
    p.check = "import clstat, wall clock; " + fixed((py_ms / cpp.median - 1) * 100, 1) + "% over the C++ call" +
              (listed.empty() ? std::string() : "; peers: " + listed);
  else  // a package that is not there is not a wrong answer: the row says why and passes
    p.check = "not run: " + py.why;
  rows.push_back(p);
}

}  // namespace

std::vector<Row> run_python(const clstat::Context& ctx, const PythonBenchOptions& o) {
  std::vector<Row> rows;
  const std::string device = ctx.info().label().substr(0, ctx.info().label().find(' '));
  const bool gpu = ctx.info().type == clstat::DeviceType::gpu;
  const std::string reps = " --repeats " + std::to_string(o.repeats) + (gpu ? " --gpu" : "");
  // On a GPU the calls take 1 to 15 ms, and one call's wall time varies by 10-20%: every C++ and
  // Python side takes at least 25 calls, so that the overhead compares medians, not single noisy
  // calls (SciPy's side runs once: it takes a minute).
  const int fast = std::max(o.repeats, 25);
  const std::string fast_reps = " --repeats " + std::to_string(fast) + (gpu ? " --gpu" : "");
  TempDir tmp;
  const bool fp64 = ctx.info().fp64;

  if (fp64) {  // gaussian_kde, 1-d, Scott's bandwidth (SciPy's default)
    const std::size_t n = o.large ? 1u << 16 : 1u << 13;
    const auto x = clstat_test::normal<double>(n, 91), y = clstat_test::normal<double>(n, 92, 0, 1.5);
    write_raw(tmp.path / "x", x), write_raw(tmp.path / "y", y);
    // Both sides do what gaussian_kde(x)(y) does: Scott's bandwidth (SciPy's default), then the
    // evaluation.
    const Stats cpp = wall_stats([&] {
      clstat::KdeOptions ko;
      ko.bandwidth = clstat::Bandwidth::matrix(clstat::bandwidth::scott(x.data(), n, 1));
      clstat::kde(ctx, x.data(), n, 1, y.data(), n, ko);
    }, fast);
    const Script py = run_script(o, device, "--workload kde --x '" + (tmp.path / "x").string() + "' --y '" +
                                                (tmp.path / "y").string() + "'" + fast_reps);
    add_rows(rows, "gaussian_kde d=1", "f64", n, double(n) * n, "Gpairs/s", 1e9, cpp, py,
             {{"scipy.gaussian_kde", "scipy.gaussian_kde"}}, fast);
  }
  // The median of data already on the device, float32 and (NumPy's default) float64.
  auto median_rows = [&](auto zero) {
    using T = decltype(zero);
    const std::string prec = sizeof(T) == 4 ? "f32" : "f64";
    const std::size_t n = o.large ? std::size_t(1) << 27 : std::size_t(1) << 23;
    std::vector<T> x(n);
    for_blocks(n, [&](std::size_t b, std::size_t lo, std::size_t hi) {
      std::mt19937_64 g(7000 + b);
      std::normal_distribution<T> d;
      for (std::size_t i = lo; i < hi; ++i) x[i] = d(g);
    });
    write_raw(tmp.path / "m", x);
    const clstat::Buffer<T> xb(ctx, x.data(), n);
    x = {};
    const Stats cpp = wall_stats([&] { clstat::order::median_async(ctx.queue(0), xb, 0, n).get(); }, fast);
    const Script py = run_script(o, device, "--workload median --dtype " + std::string(sizeof(T) == 4 ? "float32" : "float64") +
                                                " --x '" + (tmp.path / "m").string() + "'" + fast_reps);
    add_rows(rows, "median resident", prec, n, double(n) * sizeof(T), "GB/s", 1e9, cpp, py,
             gpu ? std::vector<std::pair<std::string, std::string>>{{"cupy.median", "cupy.median"}, {"torch.median", "torch.median"}}
                 : std::vector<std::pair<std::string, std::string>>{{"numpy.median", "numpy.median"}},
             fast);
  };
  median_rows(float{});
  if (fp64) median_rows(double{});
  if (fp64) {  // stable pdf
    const clstat::stable::Params law{1.5, 0.5, 1, 0, clstat::stable::Param::S0};
    const std::size_t n = o.large ? 100000 : 10000;
    std::vector<double> x(n);
    for (std::size_t i = 0; i < n; ++i) x[i] = -20 + 40 * (static_cast<double>(i) + 0.5) / static_cast<double>(n);
    write_raw(tmp.path / "s", x);
    const Stats cpp = wall_stats([&] { clstat::stable::pdf(ctx, x.data(), n, law); }, fast);
    const Script py = run_script(o, device, "--workload stable --x '" + (tmp.path / "s").string() + "'" + fast_reps);
    add_rows(rows, "stable pdf (1.5, 0.5) S0", "f64", n, double(n), "Mpt/s", 1e6, cpp, py,
             {{"scipy.levy_stable.pdf", "scipy.levy_stable.pdf"}}, fast);

    // 8 chunks: one after another, then 8 Python threads sharing the context.
    const std::size_t m = o.large ? 80000 : 8000;
    std::vector<double> xt(m);
    for (std::size_t i = 0; i < m; ++i) xt[i] = -20 + 40 * (static_cast<double>(i) + 0.5) / static_cast<double>(m);
    write_raw(tmp.path / "t", xt);
    const Script t = run_script(o, device, "--workload threads --x '" + (tmp.path / "t").string() + "'" + reps);
    const double seq = ms_of(t, "clstat_ms"), par = ms_of(t, "clstat_8_threads_ms");
    Row r{"python", "stable pdf 8 threads (Python)", "f64", m};
    r.repeats = o.repeats;
    r.wall_ms = r.kernel_ms = Stats::of({par});
    r.work = double(m);
    r.unit = "Mpt/s";
    r.throughput = par > 0 ? r.work / (par * 1e-3) / 1e6 : 0;
    if (par > 0) {
      const bool same = t.out.value("threads_equal", false);
      r.check = "8 calls of " + std::to_string(m / 8) + " points; results == the sequential calls': " + std::string(same ? "yes" : "NO") + "; 8 calls one after another " +
                fixed(seq, 3) + " ms, 8 threads " + fixed(par, 3) + " ms: " + fixed(seq / par, 2) + "x";
      r.pass = same;
    } else {
      r.check = "not run: " + t.why;
    }
    rows.push_back(r);
  }
  return rows;
}

}  // namespace bench
