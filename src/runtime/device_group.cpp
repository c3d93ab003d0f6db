// DeviceGroup: members, weights and the split of n elements among them.
#include "clstat/group.hpp"

#include <cmath>
#include <stdexcept>

#include "runtime/impl.hpp"
#include "runtime/tuning.hpp"

namespace clstat {

DeviceGroup::DeviceGroup(std::vector<Context> members, std::vector<double> weights)
    : members_(std::move(members)), weights_(std::move(weights)) {
  if (members_.empty()) throw std::invalid_argument("clstat::DeviceGroup: no members");
  for (std::size_t i = 0; i < members_.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (members_[i].impl() == members_[j].impl())
        throw std::invalid_argument("clstat::DeviceGroup: members " + std::to_string(j) + " and " + std::to_string(i) +
                                    " are the same Context (a device twice takes two Contexts on it)");
  if (weights_.empty()) {
    // The members' measured rates when every one has one (the tuning entry group.rate), else equal.
    for (const Context& m : members_) {
      const std::size_t rate = detail::tuned(m.impl()->tuning, "group.rate", 0);
      if (rate == 0) {
        weights_.assign(members_.size(), 1.0);
        break;
      }
      weights_.push_back(static_cast<double>(rate));
    }
  }
  if (weights_.size() != members_.size())
    throw std::invalid_argument("clstat::DeviceGroup: " + std::to_string(weights_.size()) + " weights for " +
                                std::to_string(members_.size()) + " members");
  double sum = 0;
  for (double w : weights_) {
    if (!std::isfinite(w) || w < 0)
      throw std::invalid_argument("clstat::DeviceGroup: weights must be finite and >= 0, got " + std::to_string(w));
    sum += w;
  }
  if (!(sum > 0)) throw std::invalid_argument("clstat::DeviceGroup: the weights sum to 0");
}

DeviceGroup DeviceGroup::from_spec(const std::string& spec) {
  std::vector<Context> members;
  if (spec == "all") {
    for (const Device& d : devices()) members.emplace_back(d);
  } else {
    std::size_t at = 0;
    while (at <= spec.size()) {
      const std::size_t comma = spec.find(',', at);
      const std::string one = spec.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
      if (one.empty()) throw std::invalid_argument("clstat::DeviceGroup: empty member in \"" + spec + "\"");
      members.emplace_back(select_device(one));
      if (comma == std::string::npos) break;
      at = comma + 1;
    }
  }
  if (members.empty()) throw std::invalid_argument("clstat::DeviceGroup: \"" + spec + "\" names no device");
  return DeviceGroup(std::move(members));
}

std::vector<std::size_t> DeviceGroup::split(std::size_t n) const {
  double sum = 0;
  for (double w : weights_) sum += w;
  std::vector<std::size_t> out(members_.size(), 0);
  std::size_t given = 0, last = 0;
  for (std::size_t i = 0; i < members_.size(); ++i) {
    if (weights_[i] > 0) last = i;
    out[i] = static_cast<std::size_t>(std::floor(static_cast<double>(n) * (weights_[i] / sum)));
    if (given + out[i] > n) out[i] = n - given;
    given += out[i];
  }
  out[last] += n - given;
  return out;
}

}  // namespace clstat
