// Parameter checks and the exact S0 <-> S1 conversion (Nolan, "Stable Distributions", ch. 1,
// eq. 1.7: delta0 = delta1 + beta gamma tan(pi alpha / 2) for alpha != 1,
// delta0 = delta1 + beta (2/pi) gamma log(gamma) for alpha = 1).
#include <cmath>
#include <stdexcept>
#include <string>

#include "clstat/stable.hpp"
#include "stable/near_one.hpp"

namespace clstat::stable {
namespace {

double shift(const Params& p) {
  if (p.alpha == 1) return p.beta * (2 / M_PI) * p.scale * std::log(p.scale);
  return p.beta * p.scale * tan_pi_alpha_half(p.alpha);
}

}  // namespace

void check(const Params& p) {
  const std::string op = "clstat::stable";
  if (!(p.alpha > 0 && p.alpha <= 2))
    throw std::invalid_argument(op + ": alpha must be in (0, 2], got " + std::to_string(p.alpha));
  if (!(p.beta >= -1 && p.beta <= 1))
    throw std::invalid_argument(op + ": beta must be in [-1, 1], got " + std::to_string(p.beta));
  if (!(p.scale > 0 && std::isfinite(p.scale)))
    throw std::invalid_argument(op + ": scale must be positive and finite, got " + std::to_string(p.scale));
  if (!std::isfinite(p.loc)) throw std::invalid_argument(op + ": loc must be finite");
  if (p.param != Param::S0 && p.param != Param::S1) throw std::invalid_argument(op + ": unknown parameterisation");
}

Params to_s0(const Params& p) {
  check(p);
  if (p.param == Param::S0) return p;
  Params q = p;
  q.param = Param::S0;
  q.loc = p.loc + shift(p);
  return q;
}

Params to_s1(const Params& p) {
  check(p);
  if (p.param == Param::S1) return p;
  Params q = p;
  q.param = Param::S1;
  q.loc = p.loc - shift(p);
  return q;
}

}  // namespace clstat::stable
