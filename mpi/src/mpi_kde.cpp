// clstat::mpi::kde: each process's samples at all the points, the parts added in rank order.
#include <cmath>
#include <cstring>
#include <exception>
#include <stdexcept>
#include <string>

#include "clstat/mpi.hpp"

namespace clstat::mpi {

std::vector<double> kde(const Context& ctx, MPI_Comm comm, const double* x, std::size_t n_local, std::size_t d,
                        const double* y, std::size_t m, const KdeOptions& options) {
  const std::string op = "clstat::mpi::kde";
  Comm c(comm);
  std::vector<double> part;
  // Each process's share of the total weight: its sample count, or the sum of its weights.
  double mass = static_cast<double>(n_local);
  KdeOptions local = options;
  local.log_density = false;  // the parts are added as densities
  std::exception_ptr err;
  try {
    if (n_local > 0) part = ::clstat::kde(ctx, x, n_local, d, y, m, local);
    if (!options.weights.empty()) {
      mass = 0;
      for (double w : options.weights) mass += w;
    }
  } catch (...) {
    err = std::current_exception();
  }
  // The processes must agree on the points; each sends its mass and its densities.
  const bool logd = options.log_density;
  std::uint64_t h = hash_bytes(hash_bytes(hash_bytes(hash_seed, &d, sizeof d), &m, sizeof m), &logd, sizeof logd);
  if (y) h = hash_bytes(h, y, m * d * sizeof(double));
  std::vector<unsigned char> mine(sizeof mass + part.size() * sizeof(double));
  std::memcpy(mine.data(), &mass, sizeof mass);
  if (!part.empty()) std::memcpy(mine.data() + sizeof mass, part.data(), part.size() * sizeof(double));
  const auto parts = agree_before(c, op, err, h, mine);
  double total = 0;
  for (const auto& pr : parts) {
    double mr;
    std::memcpy(&mr, pr.data(), sizeof mr);
    total += mr;
  }
  // f = sum over processes of (mass_r / mass) f_r, in rank order.
  std::vector<double> f(m, 0.0);
  bool any = false;
  for (const auto& pr : parts) {
    if (pr.size() == sizeof(double)) continue;  // no samples there
    any = true;
    double mr;
    std::memcpy(&mr, pr.data(), sizeof mr);
    const double w = mr / total;
    for (std::size_t i = 0; i < m; ++i) {
      double v;
      std::memcpy(&v, pr.data() + sizeof(double) * (1 + i), sizeof v);
      f[i] += w * v;
    }
  }
  if (!any) throw std::invalid_argument(op + ": no samples (n = 0 on every process)");
  if (logd)
    for (double& v : f) v = std::log(v);
  return f;
}

}  // namespace clstat::mpi
