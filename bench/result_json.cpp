#include "result_json.hpp"

#include <sys/utsname.h>

#include <ctime>
#include <fstream>
#include <stdexcept>

namespace bench {
namespace {

// The host's CPU model (the first "model name" line of /proc/cpuinfo), or "" where there is none.
std::string cpu_model() {
  std::ifstream f("/proc/cpuinfo");
  for (std::string line; std::getline(f, line);)
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(line.find_first_not_of(" \t", colon + 1));
    }
  return "";
}

Json stats(const Stats& s) { return Json{{"median", s.median}, {"min", s.min}, {"spread", s.spread}}; }

}  // namespace

namespace {
Json ceilings_json(const clstat::Ceilings& c) {
  return Json{{"copy_gbs", c.copy_gbs},         {"read_gbs", c.read_gbs}, {"fp32_fma_gflops", c.fp32_fma_gflops},
              {"fp64_fma_gflops", c.fp64_fma_gflops}, {"exp32_gps", c.exp32_gps},
              {"native_exp32_gps", c.native_exp32_gps}, {"exp64_gps", c.exp64_gps}};
}
}  // namespace

Json result_json(const std::vector<DeviceReport>& devices, const std::string& command) {
  const std::time_t now = std::time(nullptr);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  utsname u{};
  uname(&u);
  Json doc;
  doc["tool"] = "clstat-bench";
  doc["clstat_version"] = CLSTAT_VERSION_STRING;
  doc["git_commit"] = CLSTAT_GIT_COMMIT;
  doc["date"] = stamp;
  doc["command"] = command;
  doc["host"] = Json{{"name", u.nodename},
                     {"os", std::string(u.sysname) + " " + u.release},
                     {"cpu", cpu_model()}};
  doc["devices"] = Json::array();
  for (const auto& d : devices) {
    const auto& c = d.ceilings;
    Json dev{{"device", d.info.name},
             {"platform", d.info.platform_name},
             {"vendor", d.info.vendor},
             {"driver", d.info.driver_version},
             {"opencl_c", d.info.opencl_c_version},
             {"type", d.info.type == clstat::DeviceType::cpu ? "cpu" : d.info.type == clstat::DeviceType::gpu ? "gpu" : "other"},
             {"compute_units", d.info.compute_units},
             {"fp64", d.info.fp64},
             {"tuning", d.tuning},
             {"ceilings", ceilings_json(c)},
             {"rows", Json::array()}};
    if (d.host_ceilings.copy_gbs > 0) {  // a CPU device: the two measurements "ceilings" takes the higher of
      dev["device_ceilings"] = ceilings_json(d.device_ceilings);
      dev["host_ceilings"] = ceilings_json(d.host_ceilings);
    }
    for (const Row& r : d.rows) {
      Json row{{"suite", r.suite},         {"workload", r.name},       {"precision", r.precision},
               {"n", r.n},                 {"repeats", r.repeats},     {"kernel_ms", stats(r.kernel_ms)},
               {"wall_ms", stats(r.wall_ms)}, {"work", r.work},        {"unit", r.unit},
               {"throughput", r.throughput}, {"ceiling", r.ceiling_name}, {"ceiling_value", r.ceiling},
               {"fraction_of_ceiling", r.fraction}, {"check", r.check}, {"error", r.error},
               {"pass", r.pass}};
      if (r.peer_throughput > 0) {
        row["peer"] = r.peer;
        row["peer_throughput"] = r.peer_throughput;
        row["ratio_to_peer"] = r.throughput / r.peer_throughput;
      }
      if (!r.peer_error.empty()) row["peer_error"] = r.peer_error;
      dev["rows"].push_back(std::move(row));
    }
    doc["devices"].push_back(std::move(dev));
  }
  return doc;
}

void write_json(const std::string& path, const Json& doc) {
  std::ofstream o(path);
  // Invalid UTF-8 (a peer's stderr may hold some) is replaced, not thrown on.
  o << doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
  if (!o) throw std::runtime_error("cannot write " + path);
}

Json read_result(const std::string& path) {
  std::ifstream f(path);
  if (!f) throw std::runtime_error("cannot open " + path);
  Json doc;
  try {
    doc = Json::parse(f);
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(path + ": not JSON (" + e.what() + ")");
  }
  if (!doc.is_object() || !doc.contains("devices") || !doc["devices"].is_array())
    throw std::runtime_error(path + ": not a clstat-bench result (no \"devices\" array)");
  return doc;
}

}  // namespace bench
