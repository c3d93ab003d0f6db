// Nolan's STABLE tables (tests/data/stable/, from SciPy's test data; S1, unit scale, zero
// location): one row per point, read by the stable tests.
#pragma once

#include <doctest/doctest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace clstat_test {

struct Row {
  double x, value, alpha, beta, pct;
};

inline std::vector<Row> table(const std::string& name) {
  std::ifstream in(std::string(CLSTAT_TEST_DATA_DIR) + "/stable/" + name);
  REQUIRE(in.good());
  std::string line;
  std::getline(in, line);  // header: x,value,alpha,beta,pct
  std::vector<Row> rows;
  while (std::getline(in, line)) {
    Row r;
    char c;
    std::istringstream s(line);
    s >> r.x >> c >> r.value >> c >> r.alpha >> c >> r.beta >> c >> r.pct;
    rows.push_back(r);
  }
  return rows;
}

}  // namespace clstat_test
