// clstat-bench: measures each selected device's ceilings, then clstat's workloads on it, and
// reports median / min / spread of kernel time (event profiling), wall time with transfers,
// throughput and the fraction of the device's own ceiling.
//
//   clstat-bench [--device all|SPEC] [--suite all|ceilings|reduce|pairwise] [--repeat N]
//                [--max-log2 K] [--pair-max-log2 K] [--out PREFIX]
// --device all runs every device found; SPEC is as CLSTAT_DEVICE. Writes PREFIX.json and
// PREFIX.csv (default bench-results.json / .csv in the current directory).
#include <cstring>
#include <iostream>
#include <string>

#include "report.hpp"
#include "suite_primitives.hpp"

namespace {
int usage(const char* msg) {
  std::cerr << "clstat-bench: " << msg
            << "\nusage: clstat-bench [--device all|SPEC] [--suite all|ceilings|reduce|pairwise] [--repeat N]"
               " [--max-log2 K] [--pair-max-log2 K] [--out PREFIX]\n";
  return 2;
}
}  // namespace

int main(int argc, char** argv) {
  std::string device_spec, suite = "all", out = "bench-results", command = "clstat-bench";
  int repeat = -1, max_log2 = -1, pair_log2 = -1;
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
    if (a == "--device" && (v = value())) device_spec = v;
    else if (a == "--suite" && (v = value())) suite = v;
    else if (a == "--repeat" && (v = value())) repeat = std::atoi(v);
    else if (a == "--max-log2" && (v = value())) max_log2 = std::atoi(v);
    else if (a == "--pair-max-log2" && (v = value())) pair_log2 = std::atoi(v);
    else if (a == "--out" && (v = value())) out = v;
    else if (a == "--help" || a == "-h") return usage("help"), 0;
    else return usage(("unknown or incomplete argument " + a).c_str());
  }
  if (suite != "all" && suite != "ceilings" && suite != "reduce" && suite != "pairwise") return usage("bad --suite");
  try {
    std::vector<clstat::Device> devs;
    if (device_spec == "all") devs = clstat::devices();
    else devs.push_back(device_spec.empty() ? clstat::default_device() : clstat::select_device(device_spec));
    if (devs.empty()) throw std::runtime_error("no OpenCL device found");
    std::vector<bench::DeviceReport> reports;
    bool all_pass = true;
    for (const auto& d : devs) {
      clstat::Context ctx(d);
      const bool cpu = d.info().type == clstat::DeviceType::cpu;
      bench::Options o;
      o.repeats = repeat > 0 ? repeat : (cpu ? 3 : 10);
      o.max_log2 = max_log2 > 0 ? max_log2 : (cpu ? 25 : 27);
      o.pair_max_log2 = pair_log2 > 0 ? pair_log2 : (cpu ? 14 : 17);
      bench::DeviceReport rep;
      rep.info = d.info();
      rep.tuning = ctx.tuning_summary();
      std::cerr << "[clstat-bench] " << d.info().label() << ": ceilings\n";
      rep.ceilings = clstat::measure_ceilings(ctx);
      if (suite == "all" || suite == "reduce") {
        std::cerr << "[clstat-bench] " << d.info().label() << ": reductions\n";
        for (auto& r : bench::run_reductions(ctx, rep.ceilings, o)) rep.rows.push_back(r);
      }
      if (suite == "all" || suite == "pairwise") {
        std::cerr << "[clstat-bench] " << d.info().label() << ": pairwise\n";
        for (auto& r : bench::run_pairwise(ctx, rep.ceilings, o)) rep.rows.push_back(r);
      }
      for (const auto& r : rep.rows) all_pass = all_pass && r.pass;
      bench::print_table(rep);
      reports.push_back(rep);
    }
    bench::write_json(out + ".json", reports, command);
    bench::write_csv(out + ".csv", reports);
    std::cout << "\nwrote " << out << ".json and " << out << ".csv\n";
    return all_pass ? 0 : 1;
  } catch (const std::exception& e) {
    std::cerr << "clstat-bench: " << e.what() << "\n";
    return 1;
  }
}
