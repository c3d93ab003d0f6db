#include "robust/across.hpp"

#include <cstring>
#include <exception>
#include <stdexcept>

namespace clstat::robust::detail {

Across::Across(Exchange& ex, std::string op, const std::vector<std::uint64_t>& sizes)
    : ex_(&ex), op_(std::move(op)), sizes_(sizes) {
  for (std::size_t r = 0; r < sizes.size(); ++r) {
    if (static_cast<int>(r) < ex.rank()) offset_ += sizes[r];
    n_ += sizes[r];
  }
  n_local_ = sizes[static_cast<std::size_t>(ex.rank())];
}

std::vector<std::vector<double>> Across::parts(const std::function<std::vector<double>()>& local) const {
  if (!ex_) return {local()};
  std::exception_ptr err;
  std::vector<double> mine;
  try {
    mine = local();
  } catch (...) {
    err = std::current_exception();
  }
  const auto* b = reinterpret_cast<const unsigned char*>(mine.data());
  const auto bytes = agree_before(*ex_, op_, err, 0,
                                  err ? std::vector<unsigned char>{}
                                      : std::vector<unsigned char>(b, b + mine.size() * sizeof(double)));
  std::vector<std::vector<double>> out(bytes.size());
  for (std::size_t r = 0; r < bytes.size(); ++r) {
    out[r].resize(bytes[r].size() / sizeof(double));
    if (!out[r].empty()) std::memcpy(out[r].data(), bytes[r].data(), bytes[r].size());
  }
  return out;
}

std::vector<double> Across::sum(const std::function<std::vector<double>()>& local) const {
  if (!ex_) return local();
  auto p = parts(local);
  std::vector<double> s = std::move(p[0]);
  for (std::size_t r = 1; r < p.size(); ++r) {
    if (p[r].size() != s.size()) throw std::logic_error(op_ + ": parts of different lengths");
    for (std::size_t i = 0; i < s.size(); ++i) s[i] += p[r][i];
  }
  return s;
}

std::vector<double> Across::gather(const std::function<std::vector<double>()>& local) const {
  if (!ex_) return local();
  std::vector<double> all;
  for (const auto& p : parts(local)) all.insert(all.end(), p.begin(), p.end());
  return all;
}

void Across::agree(std::exception_ptr err) const {
  if (!ex_) {
    if (err) std::rethrow_exception(err);
    return;
  }
  agree_before(*ex_, op_, err, 0, {});
}

}  // namespace clstat::robust::detail
