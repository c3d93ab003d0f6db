// Golden files of tagged lines, as tools/golden/robust_*.R write them: '<tag> <name> <numbers...>',
// where 'data' lines give n and p before the numbers. Lines starting with '#' are comments; tags in
// `skip` are left out (their lines have another layout).
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

inline std::map<std::string, TaggedSet> load_tagged(const std::string& path, const std::set<std::string>& skip = {}) {
  std::ifstream f(path);
  std::map<std::string, TaggedSet> g;
  std::string line;
  while (std::getline(f, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream is(line);
    std::string tag, name;
    is >> tag >> name;
    if (skip.count(tag)) continue;
    TaggedSet& e = g[name];
    if (tag == "data") is >> e.n >> e.p;
    double x;
    while (is >> x) e.v[tag].push_back(x);
  }
  return g;
}

}  // namespace clstat_ref
