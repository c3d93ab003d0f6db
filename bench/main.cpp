// clstat-bench: measures each selected device's ceilings, then clstat's workloads on it, then the
// ceilings again (each rate the higher of the two), and reports median / min / spread of kernel
// time (event profiling), wall time with transfers, throughput and the fraction of the device's
// own ceiling.
//
//   clstat-bench [--device all|SPEC] [--suite all|LIST] (LIST: comma-separated ceilings,reduce,pairwise,kde,bandwidth,stable,stable-law,stable-fit,order,robust,grid,runtime,python,scaling)
//                [--tune kde|group]
//   mpirun -np P clstat-bench --suite mpi [--device SPEC,SPEC,...] [--weights W,W,...] (built with MPI)
//                [--repeat N] [--grid-large] [--max-log2 K] [--pair-max-log2 K] [--kde-max-log2 K]
//                [--peers DIR | --no-peers] [--out PREFIX] [--report FILE.html] [--compare A.json B.json ...]
// --device all runs every device found; SPEC is as CLSTAT_DEVICE, or a comma-separated list of
// them, run in that order. Writes PREFIX.json and
// PREFIX.csv (default bench-results.json / .csv in the current directory).
// --report FILE.html also writes the run as one self-contained HTML page with charts
// (report_html.hpp); --compare adds earlier result files to that page. --compare without
// --device, --suite or --tune runs nothing: it only draws the files given.
// --tune kde searches the KDE launch settings on each device and stores the best in the tuning
// file (clstat/tuning.hpp) before the suites run, so they measure the tuned settings;
// --tune-classes f32.d16,f64.d1 limits it to those precision.dimension classes.
// --tune group measures each device's float KDE rate and stores it as the device's default
// weight in a DeviceGroup (group.rate; bench/suite_scaling.hpp).
// --max-log2 K: the largest n, 2^K, of the reduce, order and robust suites' rows.
// --suite mpi (alone, under mpirun): one call split across the processes against one process
// (bench/suite_mpi.hpp); process r takes the r-th SPEC of --device, the shards follow --weights,
// and process 0 writes the files.
// --peers DIR: where the peer scripts are (default: this source tree's bench/peers); the KDE
// suite runs kde_torch.py there with python3 when PyTorch is installed.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <set>
#include <iostream>
#include <string>
#include <vector>

#include "progress.hpp"
#include "report.hpp"
#include "report_html.hpp"
#include "result_json.hpp"
#include "suite_bandwidth.hpp"
#include "suite_stable.hpp"
#include "suite_kde.hpp"
#include "suite_order.hpp"
#include "suite_primitives.hpp"
#include "suite_robust.hpp"
#include "suite_grid.hpp"
#include "suite_runtime.hpp"
#include "suite_python.hpp"
#include "suite_scaling.hpp"
#ifdef CLSTAT_BENCH_MPI
#include <mpi.h>

#include "suite_mpi.hpp"
#endif
#include "host_ceilings.hpp"

namespace {
// The items of a comma-separated list ("a,b,c"; "" is one empty item).
std::vector<std::string> comma_list(const std::string& s) {
  std::vector<std::string> out;
  for (std::size_t b = 0; b <= s.size();) {
    const std::size_t e = std::min(s.find(',', b), s.size());
    out.push_back(s.substr(b, e - b));
    b = e + 1;
  }
  return out;
}

int usage(const char* msg) {
  std::cerr << "clstat-bench: " << msg
            << "\nusage: clstat-bench [--device all|SPEC[,SPEC...]] [--suite all|LIST] [--tune kde|group]"
               " [--tune-classes LIST] [--repeat N] [--grid-large] [--max-log2 K] [--pair-max-log2 K] [--kde-max-log2 K] [--peers DIR | --no-peers]"
               " [--out PREFIX] [--report FILE.html] [--compare A.json B.json ...]\n"
               "LIST: one or more of ceilings,reduce,pairwise,kde,bandwidth,stable,stable-law,stable-fit,order,robust,grid,runtime,python,\n"
               "scaling, comma-separated; all = every suite but stable-fit and scaling (one call over every --device)\n"
               "       mpirun -np P clstat-bench --suite mpi [--device SPEC,SPEC,...] [--weights W,W,...] [--repeat N]"
               " [--max-log2 K] [--kde-max-log2 K] [--pair-max-log2 K] [--out PREFIX] (built with MPI)\n";
  return 2;
}
}  // namespace

int main(int argc, char** argv) {
  std::string device_spec, suite = "all", out = "bench-results", command = "clstat-bench";
  std::string tune, tune_classes, peers_dir = CLSTAT_PEERS_DIR, report;
  std::vector<std::string> compare;
  bool run_asked = false;  // --device, --suite or --tune given
  bool peers = true;
  int repeat = -1, max_log2 = -1, pair_log2 = -1, kde_log2 = -1;
  bool grid_large = false;  // the paper's grid shapes on CPU devices too
  std::vector<double> weights;  // --weights (the mpi suite's shards)
  for (int i = 1; i < argc; ++i) {
    command += std::string(" ") + argv[i];
    const std::string a = argv[i];
    // The option's value, or nullptr when it is missing.
    auto value = [&]() -> const char* {
      if (i + 1 >= argc) return nullptr;
      command += std::string(" ") + argv[i + 1];
      return argv[++i];
    };
    const char* v = nullptr;
    if (a == "--device" && (v = value())) device_spec = v, run_asked = true;
    else if (a == "--suite" && (v = value())) suite = v, run_asked = true;
    else if (a == "--report" && (v = value())) report = v;
    else if (a == "--compare") {
      while (i + 1 < argc && std::strncmp(argv[i + 1], "--", 2) != 0) command += std::string(" ") + argv[i + 1], compare.push_back(argv[++i]);
      if (compare.empty()) return usage("--compare needs at least one result file");
    }
    else if (a == "--repeat" && (v = value())) repeat = std::atoi(v);
    else if (a == "--grid-large") grid_large = true;
    else if (a == "--max-log2" && (v = value())) max_log2 = std::atoi(v);
    else if (a == "--pair-max-log2" && (v = value())) pair_log2 = std::atoi(v);
    else if (a == "--out" && (v = value())) out = v;
    else if (a == "--tune" && (v = value())) tune = v, run_asked = true;
    else if (a == "--tune-classes" && (v = value())) tune_classes = v;
    else if (a == "--kde-max-log2" && (v = value())) kde_log2 = std::atoi(v);
    else if (a == "--peers" && (v = value())) peers_dir = v;
    else if (a == "--no-peers") peers = false;
    else if (a == "--weights" && (v = value())) {
      for (const std::string& item : comma_list(v)) {
        char* end = nullptr;
        const double w = std::strtod(item.c_str(), &end);
        if (item.empty() || *end || !(w >= 0) || !std::isfinite(w))
          return usage("bad --weights (numbers >= 0, comma-separated)");
        weights.push_back(w);
      }
    }
    else if (a == "--help" || a == "-h") return usage("help"), 0;
    else return usage(("unknown or incomplete argument " + a).c_str());
  }
  // --suite takes one name or a comma-separated list; "all" is every suite but the long fit study.
  std::set<std::string> suites;
  for (const std::string& name : comma_list(suite)) {
    static const std::set<std::string> known{"all", "ceilings", "reduce", "pairwise", "kde", "bandwidth", "stable",
                                             "stable-law", "stable-fit", "order", "robust", "grid", "runtime", "python", "scaling", "mpi"};
    if (!known.count(name)) return usage(("bad --suite " + name).c_str());
#ifndef CLSTAT_BENCH_MPI
    if (name == "mpi") return usage("--suite mpi: this clstat-bench was built without MPI (libopenmpi-dev)");
#endif
    suites.insert(name);
  }
  auto want = [&](const char* name) {
    return suites.count(name) ||
           (suites.count("all") && std::string(name) != "stable-fit" && std::string(name) != "scaling");
  };
  if (suites.count("mpi") && (suites.size() > 1 || !tune.empty() || !compare.empty()))
    return usage("--suite mpi runs alone (under mpirun), without --tune or --compare");
  if (!weights.empty() && !suites.count("mpi")) return usage("--weights is for --suite mpi");
#ifdef CLSTAT_BENCH_MPI
  if (suites.count("mpi")) {
    MPI_Init(&argc, &argv);
    int rank = 0, rc = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    try {
      bench::MpiBenchOptions mo;
      if (!device_spec.empty()) mo.devices = comma_list(device_spec);
      if (!weights.empty()) mo.weights = weights;
      if (repeat > 0) mo.repeats = repeat;
      mo.median_log2 = max_log2;
      mo.kde_log2 = kde_log2;
      mo.plugin_log2 = pair_log2;
      const bench::DeviceReport rep = bench::run_mpi(mo);
      bool pass = true;
      for (const auto& r : rep.rows) pass = pass && r.pass;
      if (rank == 0) {
        bench::print_table(rep);
        int size = 1;
        MPI_Comm_size(MPI_COMM_WORLD, &size);
        const bench::Json doc = bench::result_json({rep}, "mpirun -np " + std::to_string(size) + " " + command);
        bench::write_json(out + ".json", doc);
        bench::write_csv(out + ".csv", {rep});
        if (!report.empty()) bench::write_html_report(report, {{"this run", doc}});
        std::cout << "\nwrote " << out << ".json and " << out << ".csv" << (report.empty() ? "" : " and " + report) << "\n";
      }
      rc = pass ? 0 : 1;
    } catch (const std::exception& e) {
      std::cerr << "clstat-bench (process " << rank << "): " << e.what() << "\n";
    }
    MPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Finalize();
    return rc;
  }
#endif
  if (!tune.empty() && tune != "kde" && tune != "group") return usage("bad --tune (kde or group)");
  if (!compare.empty() && report.empty()) return usage("--compare needs --report FILE.html");
  const auto start = std::chrono::steady_clock::now();
  // "[clstat-bench] <device>: <what> (at N s)": the log shows where the time went. On a terminal
  // the line also says how far the run is, counted in suites (a crude unit: suites differ in
  // length, so the estimate of the time left firms up as the run goes on).
  std::size_t steps_done = 0, steps_total = 1;
  auto header = [&](const clstat::Device& d, const std::string& what) {
    const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::cerr << "[clstat-bench] " << d.info().label() << ": " << what << " (at " << static_cast<long>(t) << " s";
    if (clstat_tools::stderr_is_terminal() && steps_done > 0)
      std::cerr << "; " << clstat_tools::progress_text(static_cast<double>(steps_done), static_cast<double>(steps_total), t);
    std::cerr << ")\n";
    ++steps_done;
  };
  try {
    std::vector<bench::LabelledResult> pages;
    for (const auto& f : compare) {
      std::string label = f.substr(f.find_last_of('/') + 1);
      if (label.size() > 5 && label.compare(label.size() - 5, 5, ".json") == 0) label.resize(label.size() - 5);
      pages.push_back({label, bench::read_result(f)});
    }
    if (!compare.empty() && !run_asked) {
      bench::write_html_report(report, pages);
      std::cout << "wrote " << report << "\n";
      return 0;
    }
    std::vector<clstat::Device> devs;
    if (device_spec == "all") devs = clstat::devices();
    else if (device_spec.empty()) devs.push_back(clstat::default_device());
    else  // one SPEC or a comma-separated list, run in that order
      for (const std::string& spec : comma_list(device_spec)) devs.push_back(clstat::select_device(spec));
    if (devs.empty()) throw std::runtime_error("no OpenCL device found");
    std::vector<bench::DeviceReport> reports;
    bool all_pass = true;
    // The JSON, CSV and (with --report) HTML of every device reported so far.
    auto write_outputs = [&] {
      const bench::Json doc = bench::result_json(reports, command);
      bench::write_json(out + ".json", doc);
      bench::write_csv(out + ".csv", reports);
      if (!report.empty()) {
        std::vector<bench::LabelledResult> page{{"this run", doc}};
        page.insert(page.end(), pages.begin(), pages.end());
        bench::write_html_report(report, page);
      }
    };
    {  // steps: the ceilings, tuning, each suite asked for and the ceilings again, on every device
      std::size_t per_device = 1 + (tune.empty() ? 0 : 1);
      // Seconds each suite took at the default sizes, with its peers: on a CI-sized machine (2
      // cores of an AMD EPYC, PoCL 3.1, 2026-11-29, PoCL's kernel cache empty, as on a first run)
      // and on an H100 (bench/results/, 2026-11-24). Other machines differ; this is to say
      // "minutes" or "an hour" before a run starts, not a measurement.
      struct Typical {
        const char* suite;
        double cpu_s, gpu_s;
      };
      static const Typical typical[] = {{"reduce", 15, 14},    {"pairwise", 7, 30},  {"kde", 36, 175},
                                        {"bandwidth", 22, 17}, {"stable", 35, 70},   {"stable-law", 9, 120},
                                        {"order", 66, 325},    {"grid", 17, 17},     {"runtime", 27, 20},
                                        {"robust", 27, 140},   {"python", 33, 180},  {"stable-fit", 100, 300}};
      double seconds = 0;
      for (const auto& t : typical)
        if (want(t.suite)) {
          ++per_device;
          for (const auto& d : devs) seconds += d.info().type == clstat::DeviceType::cpu ? t.cpu_s : t.gpu_s;
        }
      if (seconds > 0) ++per_device;  // the ceilings again, after the suites
      steps_total = per_device * devs.size();
      std::cerr << "[clstat-bench] " << devs.size() << (devs.size() == 1 ? " device" : " devices") << ": "
                << (seconds < 60 ? std::string("under a minute")
                                 : "about " + std::to_string(std::lround(seconds / 60)) + " min")
                << " (judged from the suites' times on a 2-core CPU and on an H100)\n";
    }
    for (const auto& d : devs) {
      clstat::Context ctx(d);  // assigned anew after tuning
      const bool cpu = d.info().type == clstat::DeviceType::cpu;
      bench::Options o;
      o.repeats = repeat > 0 ? repeat : (cpu ? 3 : 5);
      o.max_log2 = max_log2 > 0 ? max_log2 : (cpu ? 25 : 27);
      o.pair_max_log2 = pair_log2 > 0 ? pair_log2 : (cpu ? 14 : 17);
      bench::DeviceReport rep;
      rep.info = d.info();
      // The ceilings, measured before the suites and (again = true, below) after them, each rate
      // the higher of the two measurements.
      auto measure_ceilings_of = [&](bool again) {
        const clstat::Ceilings m = clstat::measure_ceilings(ctx);
        rep.device_ceilings = again ? bench::higher(rep.device_ceilings, m) : m;
        rep.ceilings = rep.device_ceilings;
        if (cpu) {  // the driver's micro-kernels can understate the cores: take the higher rate
          const clstat::Ceilings h = bench::measure_host_ceilings();
          rep.host_ceilings = again ? bench::higher(rep.host_ceilings, h) : h;
          rep.ceilings = bench::higher(rep.device_ceilings, rep.host_ceilings);
        }
      };
      header(d, "ceilings");
      measure_ceilings_of(false);
      if (tune == "kde") {
        header(d, "tuning KDE");
        for (auto& r : bench::tune_kde(ctx, rep.ceilings, o.repeats, tune_classes)) rep.rows.push_back(r);
        ctx = clstat::Context(d);  // a new context reads the stored settings
      } else if (tune == "group") {
        header(d, "measuring its rate in a device group");
        for (auto& r : bench::tune_group(ctx, o.repeats)) rep.rows.push_back(r);
        ctx = clstat::Context(d);
      }
      rep.tuning = ctx.tuning_summary();
      if (want("reduce")) {
        header(d, "reductions");
        for (auto& r : bench::run_reductions(ctx, rep.ceilings, o)) rep.rows.push_back(r);
      }
      if (want("pairwise")) {
        header(d, "pairwise");
        for (auto& r : bench::run_pairwise(ctx, rep.ceilings, o)) rep.rows.push_back(r);
      }
      if (want("kde")) {
        header(d, "kde");
        bench::KdeBenchOptions ko;
        ko.repeats = o.repeats;
        // 2^20 on GPUs: the largest size whose 1e12 pairs take seconds, not minutes, in fp64.
        ko.max_log2 = kde_log2 > 0 ? kde_log2 : (cpu ? 14 : 20);
        ko.peers_dir = peers_dir;
        ko.peers = peers;
        for (auto& r : bench::run_kde(ctx, rep.ceilings, ko)) rep.rows.push_back(r);
      }
      if (want("bandwidth")) {
        header(d, "bandwidth");
        bench::BandwidthBenchOptions bo;
        bo.repeats = o.repeats;
        bo.large = !cpu;
        bo.peers = peers;
        bo.peers_dir = peers_dir;
        for (auto& r : bench::run_bandwidth(ctx, bo)) rep.rows.push_back(r);
      }
      bench::StableBenchOptions so;
      so.repeats = o.repeats;
      so.large = !cpu;
      so.peers = peers;
      so.peers_dir = peers_dir;
      if (want("stable")) {
        header(d, "stable");
        for (auto& r : bench::run_stable(ctx, so)) rep.rows.push_back(r);
      }
      if (want("stable-law")) {
        header(d, "stable, one law");
        for (auto& r : bench::run_stable_law(ctx, so)) rep.rows.push_back(r);
      }
      if (want("order")) {
        header(d, "order statistics");
        bench::OrderBenchOptions oo;
        oo.repeats = o.repeats;
        oo.max_log2 = max_log2 > 0 ? max_log2 : (cpu ? 23 : 27);
        oo.peers = peers;
        oo.peers_dir = peers_dir;
        for (auto& r : bench::run_order(ctx, rep.ceilings, oo)) rep.rows.push_back(r);
      }
      if (want("grid")) {
        header(d, "density grids");
        bench::GridBenchOptions go;
        go.large = !cpu || grid_large;
        go.repeats = repeat > 0 ? repeat : 3;
        // The point-wise baseline is checked and timed on 2^12 projected points: at 2^16 it alone took
        // minutes on a GPU, and its rate does not change with the count.
        go.ep_points = 1u << 12;
        for (auto& r : bench::run_grid(ctx, go)) rep.rows.push_back(r);
      }
      if (want("runtime")) {
        header(d, "runtime (queues overlapping)");
        for (auto& r : bench::run_runtime(ctx, o.repeats, !cpu)) rep.rows.push_back(r);
      }
      if (want("robust")) {
        header(d, "robust regression (LTS)");
        bench::RobustBenchOptions ro;
        ro.large = !cpu;
        if (max_log2 > 0) ro.max_log2 = max_log2;
        for (auto& r : bench::run_robust(ctx, ro)) rep.rows.push_back(r);
      }
      if (want("python")) {
        header(d, "python (import clstat against the C++ call and the Python peers)");
        bench::PythonBenchOptions po;
        po.repeats = o.repeats;
        po.large = !cpu;
        po.peers_dir = peers_dir;
        if (peers) for (auto& r : bench::run_python(ctx, po)) rep.rows.push_back(r);
      }
      // The fit study is long (1200 MLE fits of n = 1000): only when asked for by name.
      if (want("stable-fit")) {
        header(d, "stable fit study");
        bench::StableBenchOptions fit;
        fit.study_sets = cpu ? 10 : 200;
        for (auto& r : bench::run_stable_fit_study(ctx, fit)) rep.rows.push_back(r);
      }
      if (!rep.rows.empty()) {
        // A ceiling is the most the device reached: on a shared or throttled machine one
        // measurement before the suites can fall below what a suite reaches later (2 cores of a
        // shared EPYC: a reduction at 107% of the read rate measured at the start). So the
        // ceilings are measured again, each rate the higher of the two, and every row's fraction
        // is taken against them.
        header(d, "ceilings again");
        measure_ceilings_of(true);
        bench::rebase_fractions(rep);
      }
      for (const auto& r : rep.rows) all_pass = all_pass && r.pass;
      bench::print_table(rep);
      reports.push_back(rep);
      write_outputs();  // after every device, so a run cut short keeps the devices it finished
    }
    // The devices together: one call split over all of them, against each alone.
    if (want("scaling") && devs.size() > 1) {
      std::cerr << "[clstat-bench] scaling: one call over " << devs.size() << " devices\n";
      bench::DeviceReport& rep = reports.front();
      const auto rows = bench::run_scaling(devs, repeat > 0 ? repeat : 3);
      for (const auto& r : rows) all_pass = all_pass && r.pass;
      rep.rows.insert(rep.rows.end(), rows.begin(), rows.end());
      bench::print_table(rep);
      write_outputs();
    }
    std::cout << "\nwrote " << out << ".json and " << out << ".csv" << (report.empty() ? "" : " and " + report) << "\n";
    return all_pass ? 0 : 1;
  } catch (const std::exception& e) {
    std::cerr << "clstat-bench: " << e.what() << "\n";
    return 1;
  }
}
