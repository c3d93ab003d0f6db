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
  std::uint64_t kind = 0;  // 0: fine, 1: bad input, 2: another failure
  std::string what;
  try {
    if (n_local > 0) part = ::clstat::kde(ctx, x, n_local, d, y, m, local);
    if (!options.weights.empty()) {
      mass = 0;
      for (double w : options.weights) mass += w;
    }
  } catch (const std::invalid_argument& e) {
    err = std::current_exception(), kind = 1, what = e.what();
  } catch (const std::exception& e) {
    err = std::current_exception(), kind = 2, what = e.what();
  }
  // The processes must agree on the points: their hash travels with each part.
  std::uint64_t h = 1469598103934665603ull;
  auto mix = [&h](const void* p, std::size_t bytes) {
    for (std::size_t i = 0; i < bytes; ++i) h = (h ^ static_cast<const unsigned char*>(p)[i]) * 1099511628211ull;
  };
  const bool logd = options.log_density;
  mix(&d, sizeof d);
  mix(&m, sizeof m);
  mix(&logd, sizeof logd);
  if (y) mix(y, m * d * sizeof(double));
  // Record: mass (as bits), hash, error kind, message length, parts count; the message; the parts.
  std::uint64_t mass_bits;
  std::memcpy(&mass_bits, &mass, sizeof mass);
  const std::uint64_t head[5] = {mass_bits, h, kind, what.size(), part.size()};
  std::vector<unsigned char> mine(sizeof head + what.size() + part.size() * sizeof(double));
  std::memcpy(mine.data(), head, sizeof head);
  std::memcpy(mine.data() + sizeof head, what.data(), what.size());
  if (!part.empty()) std::memcpy(mine.data() + sizeof head + what.size(), part.data(), part.size() * sizeof(double));
  const std::vector<unsigned char> all = c.gather(mine);

  double total = 0;
  std::string bad, failed;
  std::vector<std::pair<double, std::size_t>> parts;  // (mass, offset of its densities)
  std::size_t at = 0;
  for (int r = 0; r < c.size(); ++r) {
    std::uint64_t hr[5];
    std::memcpy(hr, all.data() + at, sizeof hr);
    at += sizeof hr;
    const std::string msg(reinterpret_cast<const char*>(all.data() + at), static_cast<std::size_t>(hr[3]));
    at += static_cast<std::size_t>(hr[3]);
    const std::string who = "process " + std::to_string(r) + " of " + std::to_string(c.size());
    if (hr[2] == 1) bad += (bad.empty() ? "" : "; ") + who + ": " + msg;
    if (hr[2] == 2) failed += (failed.empty() ? "" : "; ") + who + ": " + msg;
    if (hr[2] == 0 && kind == 0 && hr[1] != h)
      bad += (bad.empty() ? "" : "; ") + who + " has other points than process " + std::to_string(c.rank());
    double mr;
    std::memcpy(&mr, &hr[0], sizeof mr);
    if (hr[4] > 0) parts.emplace_back(mr, at);
    total += mr;
    at += static_cast<std::size_t>(hr[4]) * sizeof(double);
  }
  if (err) std::rethrow_exception(err);
  if (!bad.empty()) throw std::invalid_argument(op + ": " + bad);
  if (!failed.empty()) throw std::runtime_error(op + ": " + failed);
  if (parts.empty()) throw std::invalid_argument(op + ": no samples (n = 0 on every process)");
  // f = sum over processes of (mass_r / mass) f_r, in rank order.
  std::vector<double> f(m, 0.0);
  for (const auto& [mr, off] : parts) {
    const double w = mr / total;
    for (std::size_t i = 0; i < m; ++i) {
      double v;
      std::memcpy(&v, all.data() + off + i * sizeof(double), sizeof v);
      f[i] += w * v;
    }
  }
  if (logd)
    for (double& v : f) v = std::log(v);
  return f;
}

}  // namespace clstat::mpi
