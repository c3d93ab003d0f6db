// The operations a DeviceGroup splits by their points (clstat/group.hpp): every point's value is
// independent of the others, so each member evaluates a contiguous share, all at once.
#include <algorithm>
#include <exception>
#include <stdexcept>
#include <thread>
#include <vector>

#include "clstat/group.hpp"

namespace clstat {
namespace {

// Runs part(member, first, count) for every member with a non-empty share of m points, each on
// a thread of its own, and concatenates the results in member order; `width` values per point.
// The first member's exception (in member order) is rethrown once all have stopped.
template <class F>
std::vector<double> split_points(const DeviceGroup& g, std::size_t m, std::size_t width, F&& part) {
  const std::vector<std::size_t> share = g.split(m);
  // One member with every point: its call on this thread, its result as it is.
  if (std::count_if(share.begin(), share.end(), [](std::size_t s) { return s > 0; }) == 1) {
    const std::size_t i = static_cast<std::size_t>(
        std::find_if(share.begin(), share.end(), [](std::size_t s) { return s > 0; }) - share.begin());
    return part(g.member(i), 0, m);
  }
  std::vector<std::vector<double>> out(g.size());
  std::vector<std::exception_ptr> error(g.size());
  std::vector<std::thread> threads;
  std::size_t first = 0;
  for (std::size_t i = 0; i < g.size(); ++i) {
    if (share[i] > 0)
      threads.emplace_back([&, i, first] {
        try {
          out[i] = part(g.member(i), first, share[i]);
        } catch (...) {
          error[i] = std::current_exception();
        }
      });
    first += share[i];
  }
  for (auto& t : threads) t.join();
  for (auto& e : error)
    if (e) std::rethrow_exception(e);
  std::vector<double> all;
  all.reserve(m * width);
  for (auto& o : out) all.insert(all.end(), o.begin(), o.end());
  return all;
}

template <class F>
std::vector<double> stable_split(const DeviceGroup& g, const double* x, std::size_t n, const stable::Params& p,
                                 const char* op, F&& f) {
  if (n == 0) return {};
  if (!x) throw std::invalid_argument(std::string(op) + ": null input pointer with n = " + std::to_string(n));
  return split_points(g, n, 1, [&](const Context& c, std::size_t first, std::size_t count) {
    return f(c, x + first, count, p);
  });
}

}  // namespace

std::vector<double> kde(const DeviceGroup& g, const double* x, std::size_t n, std::size_t d, const double* y,
                        std::size_t m, const KdeOptions& options) {
  // An empty point set or bad input: the single-device call answers (and raises) as it would.
  if (m == 0 || !y || d == 0) return kde(g.member(0), x, n, d, y, m, options);
  return split_points(g, m, 1, [&](const Context& c, std::size_t first, std::size_t count) {
    return kde(c, x, n, d, y + first * d, count, options);
  });
}

namespace stable {
std::vector<double> pdf(const DeviceGroup& g, const double* x, std::size_t n, const Params& p) {
  return stable_split(g, x, n, p, "clstat::stable::pdf",
                      [](const Context& c, const double* v, std::size_t k, const Params& q) { return pdf(c, v, k, q); });
}
std::vector<double> logpdf(const DeviceGroup& g, const double* x, std::size_t n, const Params& p) {
  return stable_split(g, x, n, p, "clstat::stable::logpdf",
                      [](const Context& c, const double* v, std::size_t k, const Params& q) { return logpdf(c, v, k, q); });
}
std::vector<double> cdf(const DeviceGroup& g, const double* x, std::size_t n, const Params& p) {
  return stable_split(g, x, n, p, "clstat::stable::cdf",
                      [](const Context& c, const double* v, std::size_t k, const Params& q) { return cdf(c, v, k, q); });
}
std::vector<double> sf(const DeviceGroup& g, const double* x, std::size_t n, const Params& p) {
  return stable_split(g, x, n, p, "clstat::stable::sf",
                      [](const Context& c, const double* v, std::size_t k, const Params& q) { return sf(c, v, k, q); });
}
}  // namespace stable

}  // namespace clstat
