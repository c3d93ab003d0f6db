// The tuning file: a two-level JSON object {device key: {name: integer}}. The reader accepts
// exactly that shape (any whitespace, keys in any order) and nothing more general, because the
// library writes the file itself.
#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "clstat/tuning.hpp"
#include "runtime/tuning.hpp"

namespace clstat {
namespace {

using Table = std::map<std::string, std::map<std::string, std::size_t>>;

struct Reader {
  const std::string& s;
  std::size_t i = 0;
  void ws() {
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
  }
  bool eat(char c) {
    ws();
    if (i < s.size() && s[i] == c) return ++i, true;
    return false;
  }
  void expect(char c) {
    if (!eat(c)) throw std::runtime_error("tuning file: expected '" + std::string(1, c) + "'");
  }
  std::string str() {
    expect('"');
    std::string out;
    while (i < s.size() && s[i] != '"') {
      if (s[i] == '\\' && i + 1 < s.size()) ++i;
      out += s[i++];
    }
    expect('"');
    return out;
  }
  std::size_t number() {
    ws();
    std::size_t start = i;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
    if (start == i) throw std::runtime_error("tuning file: expected a non-negative integer");
    return static_cast<std::size_t>(std::strtoull(s.c_str() + start, nullptr, 10));
  }
  template <class F>
  void object(F&& member) {
    expect('{');
    if (eat('}')) return;
    do {
      std::string k = str();
      expect(':');
      member(k);
    } while (eat(','));
    expect('}');
  }
};

Table parse(const std::string& text) {
  Table t;
  Reader r{text};
  r.object([&](const std::string& dev) { r.object([&](const std::string& k) { t[dev][k] = r.number(); }); });
  r.ws();
  if (r.i != text.size()) throw std::runtime_error("tuning file: trailing characters");
  return t;
}

Table read_table(const std::string& path) {
  std::ifstream in(path);
  if (!in) return {};
  std::ostringstream all;
  all << in.rdbuf();
  try {
    return parse(all.str());
  } catch (const std::runtime_error&) {
    return {};
  }
}

}  // namespace

std::string tuning_file() {
  if (const char* f = std::getenv("CLSTAT_TUNING_FILE"); f && *f) return f;
  const std::string dir = detail::cache_directory();
  return dir.empty() ? std::string() : dir + "/tuning.json";
}

std::string tuning_key(const DeviceInfo& info) {
  std::string k;
  for (unsigned char c : info.name) {
    if (std::isalnum(c)) k += static_cast<char>(std::tolower(c));
    else if (!k.empty() && k.back() != '-') k += '-';
  }
  while (!k.empty() && k.back() == '-') k.pop_back();
  return k;
}

std::map<std::string, std::size_t> load_tuning(const DeviceInfo& info) {
  const std::string path = tuning_file();
  if (path.empty()) return {};
  Table t = read_table(path);
  auto it = t.find(tuning_key(info));
  return it == t.end() ? std::map<std::string, std::size_t>{} : it->second;
}

void store_tuning(const DeviceInfo& info, const std::map<std::string, std::size_t>& values) {
  const std::string path = tuning_file();
  if (path.empty()) throw std::runtime_error("clstat::store_tuning: no cache directory (set CLSTAT_CACHE_DIR)");
  Table t = read_table(path);
  for (const auto& [k, v] : values) t[tuning_key(info)][k] = v;
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
  const std::string tmp = path + ".tmp" + std::to_string(::getpid());
  {
    std::ofstream out(tmp);
    if (!out) throw std::runtime_error("clstat::store_tuning: cannot write " + tmp);
    out << "{";
    bool first_dev = true;
    for (const auto& [dev, kv] : t) {
      out << (first_dev ? "\n" : ",\n") << "  \"" << dev << "\": {";
      bool first = true;
      for (const auto& [k, v] : kv) out << (first ? "\n" : ",\n") << "    \"" << k << "\": " << v, first = false;
      out << "\n  }";
      first_dev = false;
    }
    out << "\n}\n";
    if (!out) throw std::runtime_error("clstat::store_tuning: cannot write " + tmp);
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    throw std::runtime_error("clstat::store_tuning: cannot rename " + tmp + " to " + path);
  }
}

}  // namespace clstat
