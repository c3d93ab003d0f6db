// One law's piecewise Chebyshev interpolant (interpolant.hpp): nodes, coefficients, the check
// between the nodes, refinement, and the device layout of cl/stable/stable_interp.clh.
#include "stable/interpolant.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <memory>

#include "stable/near_one.hpp"

namespace clstat::stable::interp {
namespace {

constexpr int k_max_depth = 7;
constexpr int k_fine = 2 * k_deg;  // 33 points a piece: the 17 nodes are the even ones
constexpr double k_pi = 3.14159265358979323846;
constexpr double k_floor = 1e-290;  // below this a value's logarithm has lost digits (subnormal)

// The cosines the build needs, each computed once (with the expressions that used to make them
// inline, so the tables' bits are unchanged): cos(pi k i / k_deg), the DCT-I matrix of the
// coefficients, and cos(pi i / k_fine), the 33 points of a piece (the even ones are its nodes).
// A build computed them per piece, about 1200 calls a piece, and in the layout's re-expansion
// per part.
struct Cosines {
  double dct[k_deg + 1][k_deg + 1];
  double fine[k_fine + 1];
  Cosines() {
    for (int k = 0; k <= k_deg; ++k)
      for (int i = 0; i <= k_deg; ++i) dct[k][i] = std::cos(k_pi * static_cast<double>(k * i) / k_deg);
    for (int i = 0; i <= k_fine; ++i) fine[i] = std::cos(k_pi * i / k_fine);
  }
};
const Cosines& cosines() {
  static const Cosines c;
  return c;
}

double cheb(const double* c, double t) {
  const double t2 = t + t;
  double b1 = 0, b2 = 0;
  for (int k = k_deg; k >= 1; --k) {
    const double b0 = std::fma(t2, b1, c[k] - b2);
    b2 = b1, b1 = b0;
  }
  return std::fma(t, b1, c[0] - b2);
}

// Chebyshev coefficients of the values f[2 i] at t_i = cos(pi i / k_deg), i = 0 .. k_deg (DCT-I).
void coefficients(const double* f, double* c) {
  const auto& dct = cosines().dct;
  for (int k = 0; k <= k_deg; ++k) {
    double s = 0;
    for (int i = 0; i <= k_deg; ++i) {
      const double w = (i == 0 || i == k_deg) ? 0.5 : 1.0;
      s += w * f[2 * i] * dct[k][i];
    }
    c[k] = s * 2.0 / k_deg * ((k == 0 || k == k_deg) ? 0.5 : 1.0);
  }
}

// ok; edge: some values below the floor (a support's end, or the light tail's underflow), so a
// smaller piece may be covered; outside: all of them (nothing to cover); noisy: the quadrature's own estimate is too large to follow;
// inaccurate: missed the check.
enum class Status { ok, edge, outside, noisy, inaccurate };

// One piece from its 33 points' values (offset o into v): the record of the layout and its status.
Status piece(const NodeValues& v, std::size_t o, double rel, double s_max, double half, double* rec, double* over,
             bool* noisy) {
  const std::size_t mid = o + k_deg;
  const int side = v.cdf[mid] <= v.sf[mid] ? 0 : 1;
  double lf[k_fine + 1], lg[k_fine + 1];
  double ef = 0, eg = 0;
  int low = 0;
  for (int i = 0; i <= k_fine; ++i) {
    const std::size_t j = o + static_cast<std::size_t>(i);
    const double p = v.pdf[j], tail = side ? v.sf[j] : v.cdf[j];
    low += !(p >= k_floor && tail >= k_floor && std::isfinite(p));
  }
  if (low) return low == k_fine + 1 ? Status::outside : Status::edge;
  for (int i = 0; i <= k_fine; ++i) {
    const std::size_t j = o + static_cast<std::size_t>(i);
    const double p = v.pdf[j], tail = side ? v.sf[j] : v.cdf[j], et = side ? v.sf_error[j] : v.cdf_error[j];
    lf[i] = std::log(p), lg[i] = std::log(tail);
    ef = std::max(ef, v.pdf_error[j] / p), eg = std::max(eg, et / tail);
  }
  // Where the quadrature's own error estimate exceeds 1e-8 (alpha = 1 in the far tails, where
  // the integrand's peak is narrower than doubles resolve), its values are noise that no
  // polynomial follows: the quadrature answers there, with its estimate.
  if (!(ef <= 1e-8 && eg <= 1e-8)) return Status::noisy;
  std::fill(rec, rec + k_piece, 0.0);
  rec[0] = side;
  double* cf = rec + 4;
  double* cg = rec + 5 + k_deg;
  coefficients(lf, cf);
  coefficients(lg, cg);
  // The check between the nodes. Tolerances: rel / 2 in log f (the density's relative error)
  // and rel / 10 in log G (so F's absolute error stays below rel / 20 where F <= 1/2), each plus
  // 16 ulps of the value, the rounding of a 17-term sum of numbers up to its size, plus half the
  // quadrature's own error estimate at the nodes: where the quadrature is that uncertain (near
  // alpha = 1, the light tail of |beta| = 1) no refinement can follow it more closely than its
  // noise (with 2 estimates, pieces near alpha = 1 were accepted 9e-12 from it; with 1/2, 5e-13).
  double df = 0, dg = 0, miss = 0;  // miss: the largest deviation over its tolerance
  const double* fine = cosines().fine;
  for (int i = 1; i < k_fine; i += 2) {
    const double t = fine[i];
    const double a = std::abs(cheb(cf, t) - lf[i]), b = std::abs(cheb(cg, t) - lg[i]);
    df = std::max(df, a), dg = std::max(dg, b);
    miss = std::max({miss, a / (0.5 * rel + 16 * 0x1p-53 * std::abs(lf[i]) + 0.5 * ef),
                     b / (0.1 * rel + 16 * 0x1p-53 * std::abs(lg[i]) + 0.5 * eg)});
  }
  const bool ok = miss <= 1;
  *over = miss, *noisy = ef > rel || eg > rel;
  // Between the checks the error can be larger than at them (the 1e6-point comparisons saw up to
  // 1.5 times): twice the largest seen, beside three times the nodes' estimates; the sums'
  // rounding; and the rounding of s itself, 8 ulps of |s| + 2 (z's and asinh's), times the slope
  // in s, which in a steep light tail (log f of -100 falling 100 per unit of s) is the largest.
  double mf = 0, mg = 0, sf = 0, sg = 0;
  for (int i = 0; i <= k_fine; ++i) mf = std::max(mf, std::abs(lf[i])), mg = std::max(mg, std::abs(lg[i]));
  for (int i = 0; i < k_fine; ++i) {
    const double ds = half * (fine[i] - fine[i + 1]);
    sf = std::max(sf, std::abs(lf[i + 1] - lf[i]) / ds), sg = std::max(sg, std::abs(lg[i + 1] - lg[i]) / ds);
  }
  const double ulps_s = 8 * 0x1p-53 * (s_max + 2);  // 8: the H100's asinh, exp and log are not correctly rounded
  // The nodes' errors reach the polynomial through its Lebesgue constant, below 3 for 17
  // Chebyshev-Lobatto nodes ((2 / pi) log 17 + 1 = 2.8).
  rec[1] = 3 * ef + 2 * df + 16 * 0x1p-53 * mf + ulps_s * sf;
  rec[2] = 3 * eg + 2 * dg + 16 * 0x1p-53 * mg + ulps_s * sg;
  return ok ? Status::ok : Status::inaccurate;
}

}  // namespace

Mapping mapping(double alpha, double beta, bool s1_coordinate) {
  if (s1_coordinate && alpha < 1) return {0.0, 0x1p-10};
  return {s1_coordinate ? beta * tan_pi_alpha_half(alpha) : 0.0, 1.0};
}

Table build(double alpha, double beta, bool s1_coordinate, double rel, std::size_t budget, bool speculate,
            const Quadrature& q) {
  Table out;
  const Mapping mp = mapping(alpha, beta, s1_coordinate);
  const double c = mp.c, w = mp.w;
  // The kernel's tail series answers beyond max(1e18 (1 + |zeta|), 10^(19 / alpha)); s =
  // asinh(u / w) is log(2 u / w) there. Beyond |u| = 1e43 the quadrature answers.
  const double log_t = std::min(std::max(std::log(1e18 * (1 + std::abs(c))), 19 * std::log(10.0) / alpha), 99.0);
  const int S = static_cast<int>(std::ceil(log_t + std::log(2.0 / w) + 1));
  const int cells = 2 * S;
  // Pieces are refined one by one: a piece that misses its check is replaced by its two halves,
  // each with new nodes, so a feature costs pieces only where it is.
  struct Piece {
    int cell, depth, j;  // [j, j + 1) / 2^depth of the cell
    std::vector<double> rec;
    double parent_miss = HUGE_VAL;  // the parent's deviation over its tolerance
    // Its 33 points' values when a speculative pass has already made them (at `at` of *values).
    std::shared_ptr<const NodeValues> values;
    std::size_t at = 0;
    bool halves_too = false;  // its pass evaluated its halves after it
  };
  auto fresh = [](int cell, int depth, int j, double parent_miss) {
    Piece p{};
    p.cell = cell, p.depth = depth, p.j = j, p.parent_miss = parent_miss;
    return p;
  };
  std::vector<std::vector<Piece>> leaves(static_cast<std::size_t>(cells));
  std::vector<Piece> pending;
  for (int k = 0; k < cells; ++k) pending.push_back(fresh(k, 0, 0, HUGE_VAL));
  // One piece's check at offset o of the round's values: done (a leaf, recorded) or to be halved.
  auto settle = [&](Piece& p, const NodeValues& v, std::size_t o, double* miss) {
    p.rec.assign(k_piece, 0.0);
    const double width = std::ldexp(1.0, -p.depth), a = -S + p.cell + p.j * width;
    double over = 0;
    bool noisy = false;
    const Status st =
        piece(v, o, rel, std::max(std::abs(a), std::abs(a + width)), 0.5 * width, p.rec.data(), &over, &noisy);
    // Halving a piece divides a smooth function's error by up to 2^17. Where the quadrature's
    // estimate is above its target and the miss did not fall by 4 from the parent's, the
    // deviation is the quadrature's noise (alpha = 1 far out, where it exceeds the estimate),
    // not the polynomial's: refining would only cost passes, and the quadrature answers there.
    // (Without the first condition, the steep pieces by a support's end, whose misses fall
    // slowly at first, were left to the quadrature too: alpha = 0.8, beta = 1 ran 12x slower.)
    const bool stalled = st == Status::inaccurate && noisy && over > p.parent_miss / 4;
    if ((st == Status::inaccurate || st == Status::edge) && p.depth < k_max_depth && !stalled) {
      *miss = st == Status::edge ? HUGE_VAL : over;
      return false;
    }
    if (st != Status::ok) p.rec[0] = -1;  // outside, noisy, stalled, or missing at the deepest level
    leaves[static_cast<std::size_t>(p.cell)].push_back(std::move(p));
    return true;
  };
  auto halves = [&](const Piece& p, double miss) {
    return std::array<Piece, 2>{fresh(p.cell, p.depth + 1, 2 * p.j, miss), fresh(p.cell, p.depth + 1, 2 * p.j + 1, miss)};
  };
  auto nodes = [&](const Piece& p, std::vector<double>& z) {
    const double width = std::ldexp(1.0, -p.depth), a = -S + p.cell + p.j * width, h = 0.5 * width;
    for (int i = 0; i <= k_fine; ++i) z.push_back(c + w * std::sinh(a + h + h * cosines().fine[i]));
  };
  // One refinement level a step: the pieces still open are settled, and those that miss give
  // their halves to the next level. With speculate (on GPUs, where a pass costs its latency and
  // points are nearly free), a pass after the first also evaluates every piece's halves, ready if
  // it misses, so the next level needs no pass: half the passes. (From the first pass on, it
  // tripled that pass for no fewer passes: the MLE of 1e6 values took 150 ms against 115 on an
  // H100.) Everything else is the same with or without it: the same nodes and values, the same
  // decisions, and the budget counts the nodes of the pieces each level settles (the
  // evaluations a build without speculation makes).
  std::size_t charged = 0;
  while (!pending.empty()) {
    // Past the budget, the pieces still open are left to the quadrature (their parents missed).
    const std::size_t level = pending.size() * (k_fine + 1);
    if (charged > 0 && charged + level > budget) {
      for (Piece& p : pending) {
        p.rec.assign(k_piece, 0.0);
        p.rec[0] = -1;
        leaves[static_cast<std::size_t>(p.cell)].push_back(std::move(p));
      }
      break;
    }
    charged += level;
    if (!pending.front().values) {  // a level's pieces all have values, or none has
      std::vector<double> z;
      for (Piece& p : pending) {
        p.halves_too = speculate && p.depth > 0 && p.depth < k_max_depth;
        p.at = z.size();
        nodes(p, z);
        if (p.halves_too)
          for (const Piece& h : halves(p, 0)) nodes(h, z);
      }
      ++out.rounds;
      out.points += z.size();
      auto v = std::make_shared<const NodeValues>(q(z));
      for (Piece& p : pending) p.values = v;
    }
    std::vector<Piece> next;
    for (Piece& p : pending) {
      const std::shared_ptr<const NodeValues> v = p.values;
      const std::size_t at = p.at;
      const bool ahead = p.halves_too;
      double miss = 0;
      if (settle(p, *v, at, &miss)) continue;
      std::array<Piece, 2> hs = halves(p, miss);
      for (int m = 0; m < 2; ++m) {
        if (ahead) hs[m].values = v, hs[m].at = at + (k_fine + 1) * (1 + m);
        next.push_back(std::move(hs[m]));
      }
    }
    pending = std::move(next);
  }
  // The layout cuts each cell into 2^D equal pieces, D its deepest leaf's depth: a shallower
  // leaf's polynomial is re-expanded on each of its parts (a polynomial of degree 16 on a part is
  // one of degree 16, so this is exact up to rounding) and a kept leaf's mark repeated.
  const std::size_t head = k_head + 2 * static_cast<std::size_t>(cells);
  out.data.assign(head, 0.0);
  out.data[0] = cells, out.data[1] = -S, out.data[2] = c, out.data[3] = static_cast<double>(head);
  out.data[4] = 1 / w;
  std::size_t first = 0;
  for (int k = 0; k < cells; ++k) {
    auto& ls = leaves[static_cast<std::size_t>(k)];
    int D = 0;
    for (const Piece& p : ls) D = std::max(D, p.depth);
    std::vector<double> recs(static_cast<std::size_t>(k_piece) << D, 0.0);
    for (const Piece& p : ls) {
      const int parts = 1 << (D - p.depth);
      for (int m = 0; m < parts; ++m) {
        double* r = &recs[static_cast<std::size_t>(k_piece) * static_cast<std::size_t>((p.j << (D - p.depth)) + m)];
        std::copy(p.rec.begin(), p.rec.end(), r);
        if (parts == 1 || p.rec[0] < 0) continue;
        for (int f = 0; f < 2; ++f) {  // log f, then G
          const double* pc = p.rec.data() + (f ? 5 + k_deg : 4);
          double y[k_fine + 1];
          for (int i = 0; i <= k_deg; ++i) {
            const double t = -1 + (2.0 * m + 1 + cosines().dct[1][i]) / parts;
            y[2 * i] = cheb(pc, t);
          }
          coefficients(y, r + (f ? 5 + k_deg : 4));
        }
      }
    }
    out.data[k_head + 2 * static_cast<std::size_t>(k)] = static_cast<double>(first);
    out.data[k_head + 2 * static_cast<std::size_t>(k) + 1] = D;
    out.data.insert(out.data.end(), recs.begin(), recs.end());
    first += std::size_t{1} << D;
  }
  return out;
}

}  // namespace clstat::stable::interp
