// Pieces every clstat subcommand shares.
#pragma once

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "clstat/clstat.hpp"

namespace clstat_cli {

/// Remembers the options a command has seen: an option given twice is an error (it is never
/// "last one wins" silently).
class SeenOptions {
 public:
  void add(const std::string& a) {
    if (a.size() > 2 && a[0] == '-' && a[1] == '-' && !seen_.insert(a).second)
      throw std::invalid_argument(a + " is given more than once");
  }
  bool has(const std::string& a) const { return seen_.count(a) != 0; }

 private:
  std::set<std::string> seen_;
};

/// The value after flag argv[i] (advancing i); throws std::invalid_argument when there is none.
inline std::string next_value(int& i, int argc, char** argv) {
  if (i + 1 >= argc) throw std::invalid_argument(std::string(argv[i]) + " needs a value");
  return argv[++i];
}

// The one number parser of every verb: the whole text must be the number (no prefix parse:
// "2e3" is not a count, "2.5" not an integer, "-1" not unsigned), and an error names the option
// and the text.

/// A real number, finite unless `allow_inf`.
inline double parse_real(const std::string& flag, const std::string& text, bool allow_inf = false) {
  const char* s = text.c_str();
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(s, &end);
  if (text.empty() || end != s + text.size() || std::isspace(static_cast<unsigned char>(text[0])))
    throw std::invalid_argument(flag + ": '" + text + "' is not a number");
  if (std::isnan(v) || (!allow_inf && !std::isfinite(v)) || (errno == ERANGE && std::isinf(v) && !allow_inf))
    throw std::invalid_argument(flag + ": '" + text + "' is not a finite number");
  return v;
}

/// A whole number in [lo, hi].
inline unsigned long long parse_count(const std::string& flag, const std::string& text, unsigned long long lo = 0,
                                      unsigned long long hi = ~0ull) {
  bool digits = !text.empty();
  for (char c : text) digits = digits && std::isdigit(static_cast<unsigned char>(c));
  if (!digits) throw std::invalid_argument(flag + ": '" + text + "' is not a whole number (digits only)");
  errno = 0;
  const unsigned long long v = std::strtoull(text.c_str(), nullptr, 10);
  if (errno == ERANGE || v < lo || v > hi)
    throw std::invalid_argument(flag + ": " + text + " is outside " + std::to_string(lo) + ".." + std::to_string(hi));
  return v;
}

/// The comma-separated whole numbers in s, each in [lo, hi].
inline std::vector<unsigned long long> parse_counts(const std::string& flag, const std::string& s,
                                                    unsigned long long lo, unsigned long long hi);

/// The comma-separated real numbers in s: every field a number, none empty (so a trailing comma
/// is an error, not dropped); finite unless `allow_inf`.
inline std::vector<double> parse_list(const std::string& flag, const std::string& s, bool allow_inf = false) {
  std::vector<double> v;
  std::size_t start = 0;
  for (;;) {
    const std::size_t comma = s.find(',', start);
    const std::string f = s.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (f.empty()) throw std::invalid_argument(flag + ": an empty field in '" + s + "'");
    v.push_back(parse_real(flag, f, allow_inf));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return v;
}

inline std::vector<unsigned long long> parse_counts(const std::string& flag, const std::string& s,
                                                    unsigned long long lo, unsigned long long hi) {
  std::vector<unsigned long long> v;
  std::size_t start = 0;
  for (;;) {
    const std::size_t comma = s.find(',', start);
    const std::string f = s.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (f.empty()) throw std::invalid_argument(flag + ": an empty field in '" + s + "'");
    v.push_back(parse_count(flag, f, lo, hi));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return v;
}

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

/// True for a --device value that names several devices ("all" or a comma-separated list): the
/// verbs that take a DeviceGroup split their work over them.
inline bool names_group(const std::string& device) {
  return device == "all" || device.find(',') != std::string::npos;
}

/// The context on --device SPEC, or on CLSTAT_DEVICE / the default device when SPEC is empty.
inline clstat::Context context_for(const std::string& device) {
  return clstat::Context(device.empty() ? clstat::default_device() : clstat::select_device(device));
}

}  // namespace clstat_cli
