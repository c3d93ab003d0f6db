// Golden files of tagged lines, as tools/golden/*.R write them: '<tag> <name> <fields...>'. Lines
// starting with '#' (and empty ones) are comments. for_each_tagged hands every other line's tag,
// name and the rest to the caller; load_tagged reads the robust_*.R layout, where 'data' lines give
// n and p before the numbers (tags in `skip` are left out: their lines have another layout).
#pragma once

#include <cstddef>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace clstat_ref {

struct TaggedSet {
  std::size_t n = 0, p = 0;
  std::map<std::string, std::vector<double>> v;  // tag -> numbers
};

// Calls line(tag, name, rest) for every line of the file that is not a comment; false when the
// file cannot be read.
template <class F>
bool for_each_tagged(const std::string& path, F&& line) {
  std::ifstream f(path);
  if (!f.good()) return false;
  std::string text;
  while (std::getline(f, text)) {
    if (text.empty() || text[0] == '#') continue;
    std::istringstream is(text);
    std::string tag, name;
    is >> tag >> name;
    line(tag, name, is);
  }
  return true;
}

inline std::map<std::string, TaggedSet> load_tagged(const std::string& path, const std::set<std::string>& skip = {}) {
  std::map<std::string, TaggedSet> g;
  for_each_tagged(path, [&](const std::string& tag, const std::string& name, std::istringstream& is) {
    if (skip.count(tag)) return;
    TaggedSet& e = g[name];
    if (tag == "data") is >> e.n >> e.p;
    double x;
    while (is >> x) e.v[tag].push_back(x);
  });
  return g;
}

}  // namespace clstat_ref
