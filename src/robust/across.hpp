// Internal: where a robust fit's rows are. Either one process holds them all, or each process of
// an Exchange (clstat/exchange.hpp) holds a contiguous part of them, the parts in rank order. The
// fit's passes over rows run on each process's own rows; what they learn is combined here.
// Every combination is collective (each process makes the same sequence of them), adds
// floating-point parts in rank order (never in an order the transport picks), and raises a
// failure of any process's own part on every process (agree_before) instead of leaving the
// others waiting. With one process each combination is the local part itself, so the one-process
// fit is unchanged bit for bit.
#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <string>
#include <type_traits>
#include <vector>

#include "clstat/exchange.hpp"

namespace clstat::robust::detail {

class Across {
 public:
  /// One process holding all n rows.
  static Across one(std::size_t n) {
    Across a;
    a.n_ = a.n_local_ = n;
    return a;
  }
  /// This process of ex, holding sizes[ex.rank()] rows; sizes: every process's row count, in rank
  /// order (the same on every process).
  Across(Exchange& ex, std::string op, const std::vector<std::uint64_t>& sizes);

  bool split() const { return ex_ != nullptr; }
  Exchange* exchange() const { return ex_; }
  std::size_t n() const { return n_; }              // rows over all processes
  std::size_t n_local() const { return n_local_; }  // this process's rows
  std::size_t offset() const { return offset_; }    // this process's first row, globally
  const std::vector<std::uint64_t>& sizes() const { return sizes_; }

  /// The element-wise sum over the processes of what local() returns (the same length on every
  /// process), added in rank order. One process: local() itself.
  std::vector<double> sum(const std::function<std::vector<double>()>& local) const;
  /// What local() returns on every process, concatenated in rank order. One process: local().
  std::vector<double> gather(const std::function<std::vector<double>()>& local) const;
  /// The same as gather, each process's part apart.
  std::vector<std::vector<double>> parts(const std::function<std::vector<double>()>& local) const;
  /// Raises err (or another process's failure) on every process. One process: rethrows err.
  void agree(std::exception_ptr err) const;
  /// f()'s result (f may return nothing), from work this process does alone (its device's
  /// passes between combinations): a failure of f on any process is raised on every process, so
  /// none waits at the next combination for a process that left. One process: f().
  template <class F>
  auto local(F&& f) const -> decltype(f()) {
    if (!ex_) return f();
    std::exception_ptr err;
    if constexpr (std::is_void_v<decltype(f())>) {
      try {
        f();
      } catch (...) {
        err = std::current_exception();
      }
      agree(err);
    } else {
      decltype(f()) r{};
      try {
        r = f();
      } catch (...) {
        err = std::current_exception();
      }
      agree(err);
      return r;
    }
  }

 private:
  Across() = default;
  Exchange* ex_ = nullptr;
  std::string op_;
  std::vector<std::uint64_t> sizes_;
  std::size_t n_ = 0, n_local_ = 0, offset_ = 0;
};

}  // namespace clstat::robust::detail
