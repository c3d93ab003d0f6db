// clstat/exchange.hpp: the agreement every split call makes before its work.
#include "clstat/exchange.hpp"

#include "runtime/exchange_values.hpp"

#include <cstring>
#include <stdexcept>

namespace clstat {

Exchange::~Exchange() = default;

std::vector<std::vector<unsigned char>> agree_before(Exchange& ex, const std::string& op, std::exception_ptr err,
                                                     std::uint64_t args, const std::vector<unsigned char>& mine) {
  std::uint64_t kind = 0;  // 0: fine, 1: bad input, 2: another failure
  std::string what;
  if (err) {
    try {
      std::rethrow_exception(err);
    } catch (const std::invalid_argument& e) {
      kind = 1, what = e.what();
    } catch (const std::exception& e) {
      kind = 2, what = e.what();
    } catch (...) {
      kind = 2, what = "an exception that is not a std::exception";
    }
  }
  // Each process's record: argument hash, error kind, message length, payload length; the
  // message; the payload.
  const std::uint64_t head[4] = {args, kind, what.size(), mine.size()};
  std::vector<unsigned char> rec(sizeof head + what.size() + mine.size());
  std::memcpy(rec.data(), head, sizeof head);
  std::memcpy(rec.data() + sizeof head, what.data(), what.size());
  if (!mine.empty()) std::memcpy(rec.data() + sizeof head + what.size(), mine.data(), mine.size());
  const std::vector<unsigned char> all = ex.gather(rec);

  std::vector<std::vector<unsigned char>> parts;
  std::string bad, failed;
  std::size_t at = 0;
  for (int r = 0; r < ex.size(); ++r) {
    std::uint64_t h[4];
    std::memcpy(h, all.data() + at, sizeof h);
    at += sizeof h;
    const std::string msg(reinterpret_cast<const char*>(all.data() + at), static_cast<std::size_t>(h[2]));
    at += static_cast<std::size_t>(h[2]);
    parts.emplace_back(all.begin() + static_cast<std::ptrdiff_t>(at),
                       all.begin() + static_cast<std::ptrdiff_t>(at + static_cast<std::size_t>(h[3])));
    at += static_cast<std::size_t>(h[3]);
    const std::string who = "process " + std::to_string(r) + " of " + std::to_string(ex.size());
    if (h[1] == 1) bad += (bad.empty() ? "" : "; ") + who + ": " + msg;
    if (h[1] == 2) failed += (failed.empty() ? "" : "; ") + who + ": " + msg;
    if (h[1] == 0 && kind == 0 && h[0] != args)
      bad += (bad.empty() ? "" : "; ") + who + " was called with other arguments than process " + std::to_string(ex.rank());
  }
  if (err) std::rethrow_exception(err);
  if (!bad.empty()) throw std::invalid_argument(op + ": " + bad);
  if (!failed.empty()) throw std::runtime_error(op + ": " + failed);
  return parts;
}

namespace detail {
std::vector<double> gather_values(Exchange& ex, const std::string& op, std::exception_ptr err, std::uint64_t args,
                                  const double* x, std::size_t n) {
  const auto* b = reinterpret_cast<const unsigned char*>(x);
  const auto parts = agree_before(ex, op, err, args,
                                  err || n == 0 ? std::vector<unsigned char>{}
                                                : std::vector<unsigned char>(b, b + n * sizeof(double)));
  std::vector<double> all;
  for (const auto& p : parts) {
    const std::size_t at = all.size();
    all.resize(at + p.size() / sizeof(double));
    if (!p.empty()) std::memcpy(all.data() + at, p.data(), p.size());
  }
  return all;
}
}  // namespace detail

}  // namespace clstat
