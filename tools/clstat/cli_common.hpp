// Pieces every clstat subcommand shares.
#pragma once

#include <cmath>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "clstat/clstat.hpp"

namespace clstat_cli {

/// The value after flag argv[i] (advancing i); throws std::invalid_argument when there is none.
inline std::string next_value(int& i, int argc, char** argv) {
  if (i + 1 >= argc) throw std::invalid_argument(std::string(argv[i]) + " needs a value");
  return argv[++i];
}

/// The comma-separated numbers in s; throws std::invalid_argument on a field that is not one.
inline std::vector<double> parse_list(const std::string& s) {
  std::vector<double> v;
  std::istringstream in(s);
  std::string f;
  while (std::getline(in, f, ',')) {
    std::size_t used = 0;
    const double d = std::stod(f, &used);
    if (used != f.size()) throw std::invalid_argument("not a number: '" + f + "'");
    v.push_back(d);
  }
  return v;
}

/// The context on --device SPEC, or on CLSTAT_DEVICE / the default device when SPEC is empty.
/// Whether s ends with t (file suffixes: .f64, .f32, .csv).
inline bool ends_with(const std::string& s, const std::string& t) {
  return s.size() >= t.size() && s.compare(s.size() - t.size(), t.size(), t) == 0;
}

/// v as a JSON number with 17 significant digits; null when not finite.
inline std::string json_number(double v) {
  if (!std::isfinite(v)) return "null";
  std::ostringstream s;
  s.precision(17);
  s << v;
  return s.str();
}

inline clstat::Context context_for(const std::string& device) {
  return clstat::Context(device.empty() ? clstat::default_device() : clstat::select_device(device));
}

}  // namespace clstat_cli
