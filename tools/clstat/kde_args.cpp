// Argument parsing shared by clstat kde and clstat grid.
#include "kde_args.hpp"

#include "cli_common.hpp"

#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <stdexcept>

namespace clstat_cli {

clstat::Kernel kernel_of(const std::string& k) {
  const char* names[] = {"gaussian", "epanechnikov", "biweight", "triweight", "triangular", "uniform", "cosine"};
  for (int i = 0; i < 7; ++i)
    if (k == names[i]) return static_cast<clstat::Kernel>(i);
  throw std::invalid_argument("unknown kernel '" + k + "'");
}

clstat::Bandwidth bandwidth_of(const std::string& b, std::size_t d) {
  if (b.rfind("S:", 0) == 0) {
    const auto v = parse_list("--bandwidth S:h", b.substr(2));
    if (v.size() != 1) throw std::invalid_argument("--bandwidth S:h takes one value");
    return clstat::Bandwidth::scaled_covariance(v[0]);
  }
  if (b.rfind("H:", 0) == 0) {
    const auto v = parse_list("--bandwidth H:", b.substr(2));
    if (v.size() == d * d) return clstat::Bandwidth::matrix(v);
    if (v.size() == d * (d + 1) / 2) {  // vech: column j holds H(j..d-1, j)
      std::vector<double> H(d * d);
      std::size_t k = 0;
      for (std::size_t j = 0; j < d; ++j)
        for (std::size_t i = j; i < d; ++i) H[i * d + j] = H[j * d + i] = v[k++];
      return clstat::Bandwidth::matrix(H);
    }
    throw std::invalid_argument("--bandwidth H: has " + std::to_string(v.size()) + " values; d = " + std::to_string(d) +
                                " needs " + std::to_string(d * d) + " (row-major) or " + std::to_string(d * (d + 1) / 2) +
                                " (vech)");
  }
  const auto v = parse_list("--bandwidth", b);
  if (v.size() == 1) return clstat::Bandwidth::scalar(v[0]);
  return clstat::Bandwidth::per_dimension(v);
}

// The shortest decimal that reads back as the same double.
std::string g17(double v) {
  char buf[40];
  for (int p = 15; p <= 17; ++p) {
    std::snprintf(buf, sizeof buf, "%.*g", p, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  return buf;
}

}  // namespace clstat_cli
