// The host side of the weighted selection: the weight check, the first brackets from a sample,
// and the descent through exact interval sums (cl/order/weighted_select.cl).
#include "order/weighted_select.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>

#include "build/program_cache.hpp"
#include "order/run.hpp"
#include "runtime/launch.hpp"
#include "runtime/lease.hpp"
#include "runtime/tuning.hpp"

namespace clstat::order::detail {

namespace {

constexpr unsigned kNB = 8;                      // the most brackets a pass takes (NB 1, 2, 4, 8)
// The pass's meta: the brackets, s (META_S), then the plan (META_WORDS in the kernel).
constexpr std::size_t kMetaS = 4 * kNB, kPlanState = kMetaS + 1, kPlanOff = kMetaS + 2, kPlanN = kMetaS + 3,
                      kPlanNb = kMetaS + 4, kPlanBase = kMetaS + 5, kPlanTarget = kMetaS + 7, kPlanLo = kMetaS + 9,
                      kPlanHi = kMetaS + 10, kPlanRound = kMetaS + 11, kPlanFound = kMetaS + 12,
                      kMetaWords = kMetaS + 13;
// Then the pass's results in 32-bit words (SUMS_AT on in the kernel): per interval four limbs of
// its summed q and its count, then the NaN, bad and oversized counts and the largest weight's
// high word, then the values found per bracket. The meta and the results are one transfer each way.
constexpr std::size_t kNI = 2 * kNB + 1, kSumsAt = 2 * kMetaWords, kScalarsAt = kSumsAt + 5 * kNI,
                      kFoundAt = kScalarsAt + 4, kStateUints = kFoundAt + kNB, kStateWords = (kStateUints + 1) / 2,
                      kStateBytes = kStateWords * sizeof(cl_ulong);
enum PlanState : cl_ulong { kPlanHost = 0, kPlanRun = 1, kPlanDone = 2, kPlanStop = 3 };
constexpr int kNoScale = 0x7fffffff;             // NO_SCALE: the device's sample held no weight
constexpr std::uint64_t kDeviceBracketMin = 1u << 20;  // the one-cluster device bracket from this n
constexpr std::size_t kSample = 16384;           // the first brackets' sample
// Candidates the host selects among itself. Its selection by halves of 11500 candidates took
// about half a millisecond after the last pass (weighted median of 2^27 doubles on an H200): a
// pass that leaves an eighth of them costs less.
constexpr std::uint64_t kHost = 4096;
constexpr std::uint64_t kDirect = 2 * kSample;   // inputs copied whole by the first pass
// The meta scratch (every use asks for all of it: a larger request would reallocate it and lose
// what the device wrote): the meta and results, then from word kFinalAt (FINAL_AT) the final
// candidates of a plan, kHost keys and then their q, read with the meta in one transfer.
constexpr std::size_t kFinalAt = 96;
static_assert(kStateWords <= kFinalAt, "the results run into the final candidates");
// Candidates live in scratch of three roles (the part): 0 the first pass's, which every target
// reads, then 1 and 2 in turn as a target's passes narrow them (a pass reads one, writes the other).
enum class WeightedScratch { check, sample_keys, sample_weights, meta, no_keys, no_weights, cand_keys, cand_weights, sample_bracket, sample_hist, sample_done, pass_done };

using ::clstat::detail::launch;
using ::clstat::detail::read_wait;

template <class T>
class WeightedSelect {
 public:
  using Key = key_t<T>;
  WeightedSelect(const Queue& q, const Buffer<T>& x, const Buffer<double>& w, std::size_t off, std::uint64_t n,
                 const std::string& op)
      : q_(q), ci_(q.context().impl()), x_(x.raw().impl()->buffer), w_(w.raw().impl()->buffer), off_(off), n_(n),
        op_(op) {
    const bool cpu = ci_->info().type == DeviceType::cpu;
    poll_ = ci_->info().type == DeviceType::gpu;  // (wait_event)
    // GITEMS: a work-item's elements a round of the interval pass (order.weighted_items).
    // H100, weighted median of 2^27 doubles, items x groups a compute unit: 1 x 4 (the old
    // shape) 7.58 ms wall, 4.40 ms in kernels; 4 x 16 6.24 and 2.70; 8 x 4 6.26 and 3.10; 16 x 4
    // 8.07 and 5.03 (registers).
    base_ = build::base_options(*ci_, true, op) + " -DELEM_KIND=" + std::to_string(elem_kind<T>()) +
            " -DGITEMS=" + std::to_string(::clstat::detail::tuned(ci_->tuning, "order.weighted_items", 4));
    // A GPU wants several groups per compute unit to hide its memory latency; PoCL runs a group's
    // work-items as loops on one core (order.weighted_groups_per_cu).
    groups_ = std::max<std::size_t>(
        1, ::clstat::detail::tuned(ci_->tuning, "order.weighted_groups_per_cu", cpu ? 1 : 16) * ci_->info().compute_units);
    // The device bracket's second sample (weighted_sample2; at most 2^20, the tunable's range,
    // whose rounded weights then sum below 2^31): fewer on CPUs, whose scattered reads cost more.
    sample2_ = ::clstat::detail::tuned(ci_->tuning, "order.weighted_sample2", cpu ? 1u << 18 : 1u << 20);
    // The staged first pass (STAGED in the kernel) on GPUs: the first pass of a weighted median of
    // 2^27 doubles on an H200 took 1.03 ms with two barriers a round, 0.83 ms staged; on PoCL
    // (2 cores) the weighted median of 2^22 doubles took 41 ms unstaged, 46 staged.
    staged_ = ::clstat::detail::tuned(ci_->tuning, "order.weighted_staged", poll_ ? 1 : 0) != 0;
    // Planned passes over the candidates a look of the host's (0: enough at an eighth a pass, and
    // one more; fewer only make the host look more often).
    planned_passes_ = ::clstat::detail::tuned(ci_->tuning, "order.weighted_planned_passes", 0);
  }

  WeightedOutcome<T> run(const std::vector<double>& approx, const WeightedTargets& targets, const Options& o);

 private:
  struct Bracket {
    Key lo, hi;
    std::uint64_t cap = 0;  // candidate slots (0: count only)
  };
  struct Source {  // what a pass reads
    bool raw = true;
    cl::Buffer keys, q;  // candidates (raw = false)
    std::uint64_t start = 0, n = 0;
    int role = 0;        // the candidates' scratch role
  };
  struct Pass {
    std::vector<u128> sum;                 // per interval
    std::vector<std::uint64_t> count;      // per interval
    std::vector<std::uint64_t> found;      // per bracket
    std::uint64_t nan = 0, bad = 0, over = 0;  // NaN values; bad weights; weights past 2^95
    double wmax = 0;                       // the largest weight, to 20 bits (its exponent exact)
    cl::Buffer ckey, cq;                   // candidates, bracket b's from start[b]
    std::vector<std::uint64_t> start;
    Bracket made{};                        // the device's bracket (pass with device_meta)
  };

  int scale();
  std::vector<Bracket> first_brackets(const std::vector<double>& approx, double& sample_max);
  // The one-cluster bracket and s made on the device (weighted_sample1/2) into the meta of the
  // first pass, which then runs with no host round trip; pass() reads them back.
  void device_bracket(double p_lo, double p_hi, std::uint64_t cap);
  void raise_bad(std::uint64_t bad) const;
  // With `device_meta`, the bracket (one, br's capacity) and s come from the device
  // (device_bracket): the pass returns the bracket in `made` and sets s_.
  Pass pass(const Source& src, const std::vector<Bracket>& br, int role = 0, bool device_meta = false);
  // meta_host_ for a pass over brackets br: their keys, each its cap of slots from the end of the
  // one before, s, and zero results and plan; returns the slots in all.
  std::uint64_t set_meta(const std::vector<Bracket>& br);
  Key resolve_candidates(Source src, Key lo, Key hi, u128 base, u128 target);
  Key select_on_host(const Key* k, const cl_ulong* w, std::size_t m, u128 base, u128 target) const;
  Key resolve_range(Key lo, Key hi, u128 base, std::uint64_t count, u128 target);
  Key max_key() const { return std::is_floating_point_v<T> ? Key(~Key(0) - 1) : Key(~Key(0)); }
  struct Variant {
    std::shared_ptr<::clstat::detail::BuiltProgram> prog;
    std::size_t wg = 0;
    unsigned nb = 0;
  };
  void enqueue_intervals(const Variant& var, const cl::Buffer& x, const cl::Buffer& w, std::uint64_t off,
                         std::uint64_t n, std::size_t nb, const cl::Buffer& ckey, const cl::Buffer& cq);
  // The interval kernel for at least nb brackets (the fewest of 1, 2, 4, 8); `staged`, for one
  // bracket that holds few values (STAGED in the kernel).
  const Variant& variant(bool from_keys, std::size_t nb, bool staged = false) {
    unsigned v = 0;
    while ((1u << v) < nb) ++v;
    staged = staged && v == 0;
    Variant& b = staged ? built_staged_[from_keys ? 1 : 0] : built_[from_keys ? 1 : 0][v];
    if (!b.prog) {
      b.nb = 1u << v;
      b.prog = build::program_for_wg(*ci_, "order/weighted_select",
                                     base_ + " -DNB=" + std::to_string(b.nb) + " -DFROM_KEYS=" + (from_keys ? "1" : "0") +
                                         " -DSTAGED=" + (staged ? "1" : "0"),
                                     "weighted_intervals", 128, b.wg);
    }
    return b;
  }
  static constexpr std::size_t kMetaBytes = kFinalAt * sizeof(cl_ulong) + kHost * (sizeof(Key) + sizeof(cl_ulong2));
  cl::Buffer meta_scratch() const { return ::clstat::detail::scratch(q_, WeightedScratch::meta, kMetaBytes); }
  // Arguments 0 to 3 of the kernels that read the input: values, weights, offset, n.
  void input_args(cl::Kernel& k) const {
    k.setArg(0, x_);
    k.setArg(1, w_);
    k.setArg(2, static_cast<cl_ulong>(off_));
    k.setArg(3, static_cast<cl_ulong>(n_));
  }
  // [lo, hi] as at most kNB sorted disjoint ranges that cover it: equal steps of value for a
  // floating-point interval across zero whose ends are within 2^10 in size, of key otherwise.
  std::vector<Bracket> split(Key lo, Key hi) const;

  Queue q_;
  std::shared_ptr<::clstat::detail::ContextImpl> ci_;
  cl::Buffer x_, w_;
  std::size_t off_;
  std::uint64_t n_;
  std::string op_;
  std::string base_;
  Variant built_[2][4];
  Variant built_staged_[2];
  std::size_t groups_ = 1;
  std::size_t sample2_ = 0;
  int s_ = 0;
  // The meta scratch's host copy, of its whole size from the start (a transfer in flight reads
  // or writes it: it is never reallocated): the pass's meta on the way out, the results and a
  // plan's final candidates on the way back.
  std::vector<cl_ulong> meta_host_ = std::vector<cl_ulong>(kMetaBytes / sizeof(cl_ulong));
  bool poll_ = false;  // poll the waits: a call waits once a pass
  bool staged_ = false;  // order.weighted_staged
  std::size_t planned_passes_ = 0;  // order.weighted_planned_passes
};

template <class T>
void WeightedSelect<T>::raise_bad(std::uint64_t bad) const {
  if (bad > 0)
    throw std::invalid_argument(op_ + ": " + std::to_string(bad) + " weight" + (bad == 1 ? " is" : "s are") +
                                " negative, NaN or infinite (weights must be finite and >= 0)");
}

// The scale s from all the weights: every q = floor(w 2^s) below 2^95.
template <class T>
int WeightedSelect<T>::scale() {
  const cl::CommandQueue& cq = ::clstat::detail::queue_of(q_);
  std::size_t wg = 0;
  auto prog = build::program_for_wg(*ci_, "order/weighted_select", base_ + " -DNB=1 -DFROM_KEYS=0", "weight_check",
                                    256, wg);
  cl::Kernel k = build::kernel(*prog, "weight_check", q_.index());
  cl::Buffer part = ::clstat::detail::scratch(q_, WeightedScratch::check, 2 * groups_ * sizeof(cl_ulong));
  k.setArg(0, w_);
  k.setArg(1, static_cast<cl_ulong>(off_));
  k.setArg(2, static_cast<cl_ulong>(n_));
  k.setArg(3, part);
  launch(q_, k, cl::NDRange(groups_ * wg), cl::NDRange(wg), {}, op_, false);
  std::vector<cl_ulong> h(2 * groups_);
  read_wait(cq, part, 0, h.size() * sizeof(cl_ulong), h.data(), poll_);
  std::uint64_t mx = 0, bad = 0;
  for (std::size_t g = 0; g < groups_; ++g) {
    mx = std::max<std::uint64_t>(mx, h[2 * g]);
    bad += h[2 * g + 1];
  }
  raise_bad(bad);
  double wmax;
  std::memcpy(&wmax, &mx, sizeof wmax);
  if (wmax == 0) throw std::invalid_argument(op_ + ": every weight is zero");
  return 94 - std::ilogb(wmax);
}

template <class T>
std::vector<typename WeightedSelect<T>::Bracket> WeightedSelect<T>::split(Key lo, Key hi) const {
  std::vector<Bracket> out;
  if constexpr (std::is_floating_point_v<T>) {
    // An interval across zero whose ends are within 2^10 of each other in size: equal steps of
    // value. A float's key is about the logarithm of its size, so equal key ranges of an interval
    // around the median of zero-centred data gave most of the key space to sizes far below the
    // data's and left most of its values in the two outer ranges (whose copies, sized for even
    // shares, overflowed). Elsewhere keys: within a binade they are linear in the value, and
    // across many binades equal steps of value shrink the interval by only 8 a pass (in a test
    // whose data defeat the sample, an interval [4.5e-39, 2e77] around values below 4 took a
    // pass for each factor 8, about 85) where equal steps of key shrink its binades.
    const double a = from_key<T>(lo), b = from_key<T>(hi), w = b - a;
    if (a < 0 && b > 0 && std::isfinite(w) && std::max(-a, b) <= 1024 * std::min(-a, b)) {
      Key from = lo;
      for (unsigned i = 1; i <= kNB && from <= hi; ++i) {
        Key to = hi;
        if (i < kNB) {
          const Key edge = to_key<T>(static_cast<T>(a + w * i / kNB));  // the next range's first key
          if (edge <= from || edge > hi) continue;
          to = edge - 1;
        }
        out.push_back(Bracket{from, to, 0});
        from = to + 1;
      }
      if (out.size() > 1) return out;
      out.clear();
    }
  }
  const u128 width = static_cast<u128>(hi) - lo + 1;
  const u128 step = (width + kNB - 1) / kNB;
  for (u128 a = lo; a <= hi; a += step) {
    const u128 b = std::min<u128>(a + step - 1, hi);
    out.push_back(Bracket{static_cast<Key>(a), static_cast<Key>(b), 0});
  }
  return out;
}

// Enqueues weighted_intervals over n elements of x and w (values and weights, or candidates' keys
// and q) from `off`, with nb brackets from the meta scratch, copying to (ckey, cq); its results
// are added into the meta scratch, which must hold zeros there. A planned pass (the meta's plan
// running) takes its source from the plan: off and n then only size the launch.
template <class T>
void WeightedSelect<T>::enqueue_intervals(const Variant& var, const cl::Buffer& x, const cl::Buffer& w,
                                          std::uint64_t off, std::uint64_t n, std::size_t nb, const cl::Buffer& ckey,
                                          const cl::Buffer& cq) {
  const std::size_t wg = var.wg;
  // A group per 16 work-items' worth of rounds: a group's end (its sums and their atomics) costs
  // about as much as a round.
  const std::size_t per = 16;
  const std::size_t groups = static_cast<std::size_t>(
      std::min<std::uint64_t>(groups_, std::max<std::uint64_t>(1, (n + per * wg - 1) / (per * wg))));
  cl::Kernel k = build::kernel(*var.prog, "weighted_intervals", q_.index());
  k.setArg(0, x);
  k.setArg(1, w);
  k.setArg(2, static_cast<cl_ulong>(off));
  k.setArg(3, static_cast<cl_ulong>(n));
  k.setArg(4, meta_scratch());
  k.setArg(5, static_cast<cl_uint>(nb));
  k.setArg(6, ckey);
  k.setArg(7, cq);
  k.setArg(8, ::clstat::detail::scratch_zeroed(q_, WeightedScratch::pass_done, sizeof(cl_uint)));
  launch(q_, k, cl::NDRange(groups * wg), cl::NDRange(wg), {}, op_, false);
}

template <class T>
std::uint64_t WeightedSelect<T>::set_meta(const std::vector<Bracket>& br) {
  std::vector<cl_ulong>& meta = meta_host_;
  std::fill(meta.begin(), meta.begin() + kStateWords, cl_ulong{0});
  std::uint64_t slots = 0;
  for (std::size_t b = 0; b < br.size(); ++b) {
    meta[4 * b] = br[b].lo;
    meta[4 * b + 1] = br[b].hi;
    meta[4 * b + 2] = slots;
    meta[4 * b + 3] = br[b].cap;
    slots += br[b].cap;
  }
  meta[kMetaS] = static_cast<cl_ulong>(static_cast<std::int64_t>(s_));
  return slots;
}

// One launch over src with brackets br (sorted, disjoint, at most kNB).
template <class T>
typename WeightedSelect<T>::Pass WeightedSelect<T>::pass(const Source& src, const std::vector<Bracket>& br, int role,
                                                         bool device_meta) {
  const cl::CommandQueue& cq = ::clstat::detail::queue_of(q_);
  Pass p;
  // The meta and the zeroed results are written from (or, made on the device, read into)
  // meta_host_: the pass waits below.
  std::vector<cl_ulong>& meta = meta_host_;
  const std::uint64_t slots = set_meta(br);
  for (std::size_t b = 0; b < br.size(); ++b) p.start.push_back(meta[4 * b + 2]);
  // Candidates go to the scratch of `role` (reused call after call: an allocation of the first
  // bracket's 10^7 slots a call cost more than the pass); a count-only pass copies nothing.
  if (slots == 0) {
    p.ckey = ::clstat::detail::scratch(q_, WeightedScratch::no_keys, sizeof(Key));
    p.cq = ::clstat::detail::scratch(q_, WeightedScratch::no_weights, sizeof(cl_ulong2));
  } else {
    p.ckey = ::clstat::detail::scratch(q_, WeightedScratch::cand_keys, slots * sizeof(Key), static_cast<std::size_t>(role));
    p.cq = ::clstat::detail::scratch(q_, WeightedScratch::cand_weights, slots * sizeof(cl_ulong2),
                                     static_cast<std::size_t>(role));
  }
  const std::uint64_t n = src.raw ? n_ : src.n;
  // One bracket whose copy is at most n / 16 (the device bracket's is n / 32) takes the staged
  // form where order.weighted_staged is on: about 256 candidates a group between its flushes,
  // half its stage.
  const Variant& var = variant(!src.raw, br.size(), staged_ && br.size() == 1 && br[0].cap <= n / 16);
  // The meta by a plain non-blocking write (a staged copy and a write from the host cost 90 and
  // 150 us of host time a pass, PoCL 3.1, 2 cores, when the queue had emptied); the device's
  // bracket (weighted_sample2) writes its own and zeroes the results.
  cl::Buffer mbuf = meta_scratch();
  if (!device_meta) cq.enqueueWriteBuffer(mbuf, CL_FALSE, 0, kStateBytes, meta.data());
  enqueue_intervals(var, src.raw ? x_ : src.keys, src.raw ? w_ : src.q, src.raw ? off_ : src.start, n, br.size(),
                    p.ckey, p.cq);
  read_wait(cq, mbuf, 0, kStateBytes, meta.data(), poll_);
  std::array<cl_uint, 2 * kStateWords> r;
  std::memcpy(r.data(), meta.data(), kStateBytes);
  const std::size_t used = 2 * br.size() + 1;
  p.sum.assign(used, 0);
  p.count.assign(used, 0);
  for (std::size_t j = 0; j < used; ++j) {
    const cl_uint* d = &r[kSumsAt + 5 * j];
    p.sum[j] = (static_cast<u128>((static_cast<std::uint64_t>(d[3]) << 32) | d[2]) << 64) |
               ((static_cast<std::uint64_t>(d[1]) << 32) | d[0]);
    p.count[j] = d[4];
  }
  p.nan = r[kScalarsAt];
  p.bad = r[kScalarsAt + 1];
  p.over = r[kScalarsAt + 2];
  const std::uint64_t wbits = static_cast<std::uint64_t>(r[kScalarsAt + 3]) << 32;  // (its exponent is all we use)
  std::memcpy(&p.wmax, &wbits, sizeof p.wmax);
  p.found.assign(&r[kFoundAt], &r[kFoundAt] + br.size());
  if (device_meta) {
    p.made = Bracket{static_cast<Key>(meta[0]), static_cast<Key>(meta[1]), br[0].cap};
    s_ = static_cast<int>(static_cast<std::int64_t>(meta[kMetaS]));
  }
  return p;
}

// For thresholds t[0 .. k) (ascending) of cumulative weight, pos[j] = the position in (key,
// weight) order of the first element of e[a, b) whose cumulative weight, from `base` at a,
// reaches t[j] (b when none does). Selects, as nth_element does, so that e holds at each answer
// position the element sorted order would put there: O((b - a) log k) expected.
template <class Key>
void weighted_positions(std::vector<std::pair<Key, double>>& e, std::size_t a, std::size_t b, double base,
                        const double* t, std::size_t k, std::size_t* pos) {
  if (k == 0) return;
  if (b - a == 1) {
    // A threshold routed here is reached at a unless it lies past the total (rounding in the
    // partial sums aside): so every answer but e.size() is a position nth_element has settled.
    for (std::size_t j = 0; j < k; ++j) pos[j] = base + e[a].second >= t[j] || b < e.size() ? a : b;
    return;
  }
  const std::size_t mid = a + (b - a) / 2;
  std::nth_element(e.begin() + static_cast<std::ptrdiff_t>(a), e.begin() + static_cast<std::ptrdiff_t>(mid),
                   e.begin() + static_cast<std::ptrdiff_t>(b));
  double below = base;
  for (std::size_t i = a; i < mid; ++i) below += e[i].second;
  // Thresholds reached within [a, mid) go left; the rest lie at mid or after.
  const std::size_t left = static_cast<std::size_t>(std::upper_bound(t, t + k, below) - t);
  weighted_positions(e, a, mid, base, t, left, pos);
  weighted_positions(e, mid, b, below, t + left, k - left, pos + left);
}

// The first brackets: about four standard deviations of each target's sampled weighted
// quantile either side, merged where they overlap, at most kNB (the closest joined).
template <class T>
std::vector<typename WeightedSelect<T>::Bracket> WeightedSelect<T>::first_brackets(const std::vector<double>& approx,
                                                                                   double& sample_max) {
  sample_max = 0;
  if (n_ <= kDirect) return {Bracket{Key(0), max_key(), n_}};
  const cl::CommandQueue& cq = ::clstat::detail::queue_of(q_);
  const std::size_t m = kSample;
  cl::Buffer sk = ::clstat::detail::scratch(q_, WeightedScratch::sample_keys, m * sizeof(Key));
  cl::Buffer sw = ::clstat::detail::scratch(q_, WeightedScratch::sample_weights, m * sizeof(double));
  cl::Kernel k = build::kernel(*variant(false, 1).prog, "weighted_sample", q_.index());
  input_args(k);
  k.setArg(4, static_cast<cl_uint>(m));
  k.setArg(5, sk);
  k.setArg(6, sw);
  launch(q_, k, cl::NDRange((m + 63) / 64 * 64), cl::NDRange(64), {}, op_, false);
  std::vector<Key> keys(m);
  std::vector<double> wts(m);
  cq.enqueueReadBuffer(sk, CL_FALSE, 0, m * sizeof(Key), keys.data());  // one wait for both
  read_wait(cq, sw, 0, m * sizeof(double), wts.data(), poll_);
  std::vector<std::pair<Key, double>> smp;
  for (std::size_t i = 0; i < m; ++i) {
    if (wts[i] >= 0 && std::isfinite(wts[i])) sample_max = std::max(sample_max, wts[i]);
    if (!(std::is_floating_point_v<T> && keys[i] == Key(~Key(0))) && wts[i] >= 0 && std::isfinite(wts[i]))
      smp.emplace_back(keys[i], wts[i]);
  }
  double sw1 = 0, sw2 = 0;
  for (const auto& e : smp) {
    sw1 += e.second;
    sw2 += e.second * e.second;
  }
  if (smp.empty() || !(sw1 > 0)) return {Bracket{Key(0), max_key(), 0}};
  const double spread = std::sqrt(sw2) / sw1;
  // Each target's sampled quantile about four standard deviations either side, as fractions of
  // the sample's weight; then the sample positions (in key order) where the cumulative weight
  // first reaches them, by a selection, not a sort (sorting the 16384 pairs took 1.3 ms of host
  // time on the H100 machine, more than the first pass over 2^27 values).
  std::vector<double> lows, highs;
  for (double p : approx) {
    const double d = 4 * std::sqrt(p * (1 - p) + 1.0 / m) * spread + 2.0 / m;
    lows.push_back(p - d);
    highs.push_back(p + d);
  }
  std::vector<double> t;
  for (double f : lows)
    if (f > 0) t.push_back(f * sw1);
  for (double f : highs)
    if (f < 1) t.push_back(f * sw1);
  std::sort(t.begin(), t.end());
  t.erase(std::unique(t.begin(), t.end()), t.end());
  std::vector<std::size_t> pos(t.size());
  weighted_positions(smp, 0, smp.size(), 0.0, t.data(), t.size(), pos.data());
  auto at = [&](double f) {
    return pos[static_cast<std::size_t>(std::lower_bound(t.begin(), t.end(), f * sw1) - t.begin())];
  };
  std::vector<std::pair<std::size_t, std::size_t>> idx;  // sample index ranges
  for (std::size_t i = 0; i < approx.size(); ++i) {
    const std::size_t a = lows[i] <= 0 ? 0 : std::min(smp.size() - 1, at(lows[i]));
    const std::size_t b = highs[i] >= 1 ? smp.size() : std::min(smp.size(), at(highs[i]) + 1);
    idx.emplace_back(a, b);  // [a, b) of the sample; b = size means up to the largest key
  }
  std::sort(idx.begin(), idx.end());
  std::vector<std::pair<std::size_t, std::size_t>> merged;
  for (const auto& r : idx)
    if (!merged.empty() && r.first <= merged.back().second) merged.back().second = std::max(merged.back().second, r.second);
    else merged.push_back(r);
  while (merged.size() > kNB) {  // join across the smallest gap
    std::size_t best = 0;
    for (std::size_t i = 1; i + 1 < merged.size(); ++i)
      if (merged[i + 1].first - merged[i].second < merged[best + 1].first - merged[best].second) best = i;
    merged[best].second = merged[best + 1].second;
    merged.erase(merged.begin() + static_cast<std::ptrdiff_t>(best) + 1);
  }
  std::vector<Bracket> out;
  const std::uint64_t max_slots = ci_->info().max_alloc_bytes / sizeof(cl_ulong);
  for (const auto& [a, b] : merged) {
    const Key lo = a == 0 ? Key(0) : smp[a].first;
    const Key hi = b >= smp.size() ? max_key() : smp[b - 1].first;
    const double frac = static_cast<double>(b - a) / static_cast<double>(smp.size());
    const std::uint64_t cap = std::min<std::uint64_t>(n_, static_cast<std::uint64_t>(2 * frac * n_) + 65536);
    if (!out.empty() && lo <= out.back().hi) {  // equal keys at the seam
      out.back().hi = std::max(out.back().hi, hi);
      out.back().cap = std::min<std::uint64_t>(n_, out.back().cap + cap);
      continue;
    }
    out.push_back(Bracket{lo, hi, cap});
  }
  std::uint64_t total = 0;
  for (const auto& b : out) total += b.cap;
  if (total > max_slots)
    for (auto& b : out) b.cap = b.cap * max_slots / total;
  return out;
}

// The smallest key among m candidates (keys k, their q as lo and hi words in w) whose
// cumulative q, from base below them, reaches target: a selection by halves, O(m) (equal keys
// may fall in both halves; all smaller keys come before the answer either way).
template <class T>
typename WeightedSelect<T>::Key WeightedSelect<T>::select_on_host(const Key* k, const cl_ulong* w, std::size_t m,
                                                                  u128 base, u128 target) const {
  std::vector<std::pair<Key, u128>> e(m);
  for (std::size_t i = 0; i < m; ++i) e[i] = {k[i], (static_cast<u128>(w[2 * i + 1]) << 64) | w[2 * i]};
  std::size_t a = 0, b = e.size();
  u128 c = base;
  while (b - a > 1) {
    const std::size_t mid = a + (b - a) / 2;
    std::nth_element(e.begin() + a, e.begin() + mid, e.begin() + b);
    u128 below = 0;
    for (std::size_t i = a; i < mid; ++i) below += e[i].second;
    if (c + below >= target) {
      b = mid;
    } else {
      c += below;
      a = mid;
    }
  }
  if (e.empty() || c + e[a].second < target) throw std::logic_error(op_ + ": the target lies past the candidates");
  return e[a].first;
}

// The smallest key of the candidates (all the values in [lo, hi], whose summed q below lo is
// base) whose cumulative q reaches target. At most kHost: the host selects. More: planned passes
// over them, each counting and copying NB ranges of the range that holds the target (split: the
// candidates lie in a narrow interval, over which they spread about evenly in value, so each
// range is copied up to twice its even share), whose last group then picks the range and writes
// the next pass's brackets, so the host waits once for several passes. (Weighted median of 2^27
// doubles on an H100: a count pass and a copy pass a round, each with its host round trip, were
// six of the call's seven passes and half its time; on an H200 a host round trip a pass cost
// 0.13 to 0.3 ms each, for passes of 60 to 85 us.) A range whose copy overflowed is copied again
// alone by a pass of the host's.
template <class T>
typename WeightedSelect<T>::Key WeightedSelect<T>::resolve_candidates(Source src, Key lo, Key hi, u128 base,
                                                                      u128 target) {
  const cl::CommandQueue& cq = ::clstat::detail::queue_of(q_);
  const std::uint64_t max_slots = ci_->info().max_alloc_bytes / sizeof(cl_ulong2);
  for (;;) {
    if (lo == hi) return lo;
    if (src.n <= kHost) {
      std::vector<Key> k(src.n);
      std::vector<cl_ulong> w(2 * src.n);
      if (src.n) {
        cq.enqueueReadBuffer(src.keys, CL_FALSE, src.start * sizeof(Key), src.n * sizeof(Key), k.data());
        read_wait(cq, src.q, src.start * sizeof(cl_ulong2), src.n * sizeof(cl_ulong2), w.data(), poll_);  // both
      }
      return select_on_host(k.data(), w.data(), src.n, base, target);
    }
    // Passes enough to bring src.n below kHost at an eighth a pass, and one more (or the tunable's).
    std::size_t rounds = planned_passes_;
    if (rounds == 0) {
      rounds = 1;
      for (std::uint64_t m = src.n; m > kHost; m /= kNB) ++rounds;
    }
    auto br = split(lo, hi);
    const std::uint64_t share = std::min<std::uint64_t>(src.n, 2 * src.n / br.size() + 4096);
    // Every pass's copies fit: a pass of r ranges over m <= src.n keys copies up to
    // r (2 m / r + 4096) of them. (Past the largest allocation the first pass copies nothing and
    // the plan stops there: the host copies the target's range alone.)
    const std::uint64_t slots = 2 * src.n + kNB * 4096;
    const bool copy = slots <= max_slots;
    for (auto& r : br) r.cap = copy ? share : 0;
    set_meta(br);
    std::vector<cl_ulong>& meta = meta_host_;
    meta[kPlanState] = kPlanRun;
    meta[kPlanOff] = src.start;
    meta[kPlanN] = src.n;
    meta[kPlanNb] = br.size();
    meta[kPlanBase] = static_cast<cl_ulong>(base);
    meta[kPlanBase + 1] = static_cast<cl_ulong>(base >> 64);
    meta[kPlanTarget] = static_cast<cl_ulong>(target);
    meta[kPlanTarget + 1] = static_cast<cl_ulong>(target >> 64);
    meta[kPlanLo] = lo;
    meta[kPlanHi] = hi;
    const cl::Buffer mbuf = meta_scratch();
    cq.enqueueWriteBuffer(mbuf, CL_FALSE, 0, kStateBytes, meta.data());
    // Pass r reads role[r] and writes role[r + 1] (1 and 2 in turn; 0 is the first pass's copy).
    std::vector<int> role{src.role};
    std::vector<Source> at{src};
    const Variant& var = variant(true, kNB);
    // Each pass's launch sized for its expected source: an eighth of the last, twice that for luck
    // (a larger source only takes more rounds a group). The last group of a planned pass waits
    // for all the others, so a pass over 15,000 candidates launched as for a million took as long.
    std::uint64_t expect = src.n;
    for (std::size_t r = 0; r < rounds; ++r) {
      const int d = role[r] == 1 ? 2 : 1;
      const cl::Buffer dk = ::clstat::detail::scratch(q_, WeightedScratch::cand_keys, copy ? slots * sizeof(Key) : sizeof(Key),
                                                      static_cast<std::size_t>(d));
      const cl::Buffer dq = ::clstat::detail::scratch(q_, WeightedScratch::cand_weights,
                                                      copy ? slots * sizeof(cl_ulong2) : sizeof(cl_ulong2),
                                                      static_cast<std::size_t>(d));
      enqueue_intervals(var, at[r].keys, at[r].q, 0, expect, kNB, dk, dq);
      expect = std::max<std::uint64_t>(kHost, expect / (kNB / 2));
      role.push_back(d);
      at.push_back(Source{false, dk, dq, 0, 0, d});
    }
    // The meta and the final candidates in one read (meta_scratch).
    read_wait(cq, mbuf, 0, kMetaBytes, meta.data(), poll_);
    const cl_ulong* m = meta.data();
    const Key plo = static_cast<Key>(m[kPlanLo]), phi = static_cast<Key>(m[kPlanHi]);
    const u128 pbase = (static_cast<u128>(m[kPlanBase + 1]) << 64) | m[kPlanBase];
    const std::size_t done = static_cast<std::size_t>(m[kPlanRound]);  // passes that moved the range
    if (m[kPlanState] == kPlanDone) {
      if (plo == phi) return plo;
      return select_on_host(reinterpret_cast<const Key*>(m + kFinalAt), m + kFinalAt + kHost * sizeof(Key) / sizeof(cl_ulong),
                            static_cast<std::size_t>(m[kPlanN]), pbase, target);
    }
    if (m[kPlanState] == kPlanRun) {  // more passes: from the last one's copy
      src = Source{false, at[done].keys, at[done].q, m[kPlanOff], m[kPlanN], role[done]};
    } else {
      if (m[kPlanFound] == ~cl_ulong(0)) throw std::logic_error(op_ + ": the target lies past the candidates' ranges");
      // Pass `done` copied its range incompletely: that range alone, again, from its source.
      const Source from{false, at[done].keys, at[done].q, m[kPlanOff], m[kPlanN], role[done]};
      const int d = role[done] == 1 ? 2 : 1;
      Pass cp = pass(from, {Bracket{plo, phi, m[kPlanFound]}}, d);
      src = Source{false, cp.ckey, cp.cq, 0, cp.found[0], d};
    }
    lo = plo;
    hi = phi;
    base = pbase;
  }
}

// The same when the values in [lo, hi] are known only by their count and summed q: count-only
// passes over the data narrow the range until a copy of it is small enough.
template <class T>
typename WeightedSelect<T>::Key WeightedSelect<T>::resolve_range(Key lo, Key hi, u128 base, std::uint64_t count,
                                                                 u128 target) {
  const std::uint64_t copy_limit = std::max<std::uint64_t>(1u << 20, n_ / 16);
  for (;;) {
    if (lo == hi) return lo;
    if (count <= copy_limit) {
      Pass cp = pass(Source{}, {Bracket{lo, hi, count}}, 1);
      return resolve_candidates(Source{false, cp.ckey, cp.cq, 0, cp.found[0], 1}, lo, hi, base, target);
    }
    auto br = split(lo, hi);
    Pass p = pass(Source{}, br);
    // In a pass over all the data, the sum below the first range is C(< lo) itself.
    u128 c = p.sum[0];
    std::size_t b = 0;
    for (; b < br.size(); ++b) {
      if (c + p.sum[2 * b + 1] >= target) break;
      c += p.sum[2 * b + 1] + p.sum[2 * b + 2];
    }
    if (b == br.size()) throw std::logic_error(op_ + ": the target lies past the ranges");
    lo = br[b].lo;
    hi = br[b].hi;
    base = c;
    count = p.count[2 * b + 1];
  }
}

template <class T>
void WeightedSelect<T>::device_bracket(double p_lo, double p_hi, std::uint64_t cap) {
  const Variant& var = variant(false, 1);
  ::clstat::detail::BuiltProgram& prog = *var.prog;
  const std::size_t wg = var.wg;
  cl::Buffer wb = ::clstat::detail::scratch(q_, WeightedScratch::sample_bracket, 4 * sizeof(cl_ulong));
  cl::Buffer hist = ::clstat::detail::scratch(q_, WeightedScratch::sample_hist, (4096 + 2) * sizeof(cl_uint));
  cl::Kernel k1 = build::kernel(prog, "weighted_sample1", q_.index());
  input_args(k1);
  k1.setArg(4, p_lo);
  k1.setArg(5, p_hi);
  k1.setArg(6, wb);
  k1.setArg(7, hist);
  launch(q_, k1, cl::NDRange(wg), cl::NDRange(wg), {}, op_, false);
  cl::Kernel k2 = build::kernel(prog, "weighted_sample2", q_.index());
  input_args(k2);
  k2.setArg(4, static_cast<cl_uint>(sample2_));
  k2.setArg(5, p_lo);
  k2.setArg(6, p_hi);
  k2.setArg(7, wb);
  k2.setArg(8, hist);
  k2.setArg(9, ::clstat::detail::scratch_zeroed(q_, WeightedScratch::sample_done, sizeof(cl_uint)));
  k2.setArg(10, meta_scratch());
  k2.setArg(11, static_cast<cl_ulong>(cap));
  // Four samples a work-item: the scattered reads are latency-bound, and a group's sums and its
  // two atomics are paid per group.
  const std::size_t groups = std::max<std::size_t>(1, sample2_ / (4 * wg));
  launch(q_, k2, cl::NDRange(groups * wg), cl::NDRange(wg), {}, op_, false);
}

template <class T>
WeightedOutcome<T> WeightedSelect<T>::run(const std::vector<double>& approx, const WeightedTargets& targets,
                                          const Options& o) {
  // The scale from the sample's largest weight, with 16 bits of room (weights up to 2^16 times it
  // fit: the largest of n exponential weights is about ln(n / 16384) times the sample's), checked
  // by the pass itself: a weight past 2^95 at that scale repeats the pass with the true maximum's.
  // Targets within 2% of each other in probability (a median, a quantile of type 7) on 2^20
  // values or more take the device's bracket and sample, the others the host's.
  const auto [pmin, pmax] = std::minmax_element(approx.begin(), approx.end());
  const bool on_device = n_ >= kDeviceBracketMin && !approx.empty() && *pmax - *pmin <= 0.02 && sample2_ > 0;
  std::vector<Bracket> br;
  Pass p;
  if (on_device) {
    const std::uint64_t cap = std::min<std::uint64_t>(n_ / 32, ci_->info().max_alloc_bytes / sizeof(cl_ulong2));
    device_bracket(*pmin, *pmax, cap);
    p = pass(Source{}, {Bracket{Key(0), Key(0), cap}}, 0, true);
    br.assign(1, p.made);
    if (s_ == kNoScale) {  // the sample held no positive weight: the scale from all of them
      s_ = scale();
      p = pass(Source{}, br);
    }
  } else {
    double sample_max = 0;
    br = first_brackets(approx, sample_max);
    s_ = sample_max > 0 ? 78 - std::ilogb(sample_max) : scale();
    p = pass(Source{}, br);
  }
  raise_bad(p.bad);
  if (p.over > 0) {
    s_ = 94 - std::ilogb(p.wmax);
    p = pass(Source{}, br);
  }
  WeightedOutcome<T> out;
  raise_on_nan(op_, p.nan, o);
  std::uint64_t values = 0;
  u128 total = 0;
  for (std::size_t j = 0; j < p.sum.size(); ++j) {
    total += p.sum[j];
    values += p.count[j];
  }
  if ((p.nan > 0 && o.nan == NanPolicy::propagate) || values == 0) {
    out.nan_result = true;
    return out;
  }
  if (total == 0) throw std::invalid_argument(op_ + ": the weights of the values that are not NaN sum to zero");
  for (u128 t : targets(total, s_)) {
    u128 c = 0;
    std::size_t j = 0;
    for (; j < p.sum.size(); ++j) {
      if (c + p.sum[j] >= t) break;
      c += p.sum[j];
    }
    if (j == p.sum.size()) throw std::logic_error(op_ + ": a target past the total");
    Key lo, hi;
    if (j % 2 == 1) {
      lo = br[j / 2].lo;
      hi = br[j / 2].hi;
    } else {
      lo = j == 0 ? Key(0) : Key(br[j / 2 - 1].hi + 1);
      hi = j / 2 == br.size() ? max_key() : Key(br[j / 2].lo - 1);
    }
    if (j % 2 == 1 && br[j / 2].cap > 0 && p.found[j / 2] <= br[j / 2].cap)
      out.keys.push_back(resolve_candidates(Source{false, p.ckey, p.cq, p.start[j / 2], p.found[j / 2]}, lo, hi, c, t));
    else
      out.keys.push_back(resolve_range(lo, hi, c, p.count[j], t));
  }
  return out;
}

}  // namespace

template <class T>
WeightedOutcome<T> weighted_select(const Queue& q, const Buffer<T>& x, const Buffer<double>& w, std::size_t offset,
                                   std::uint64_t n, const std::vector<double>& approx, const WeightedTargets& targets,
                                   const Options& o, const std::string& op) {
  if (n >= (std::uint64_t(1) << 32))
    throw std::invalid_argument(op + ": n = " + std::to_string(n) + " is past the 32-bit candidate counts (2^32 - 1)");
  auto ci = q.context().impl();
  return ::clstat::detail::cl_guard(op, *ci, [&] {
    WeightedSelect<T> sel(q, x, w, offset, n, op);
    return sel.run(approx, targets, o);
  });
}

#define CLSTAT_INSTANTIATE(T)                                                                                   \
  template WeightedOutcome<T> weighted_select(const Queue&, const Buffer<T>&, const Buffer<double>&, std::size_t, \
                                              std::uint64_t, const std::vector<double>&, const WeightedTargets&,  \
                                              const Options&, const std::string&);
CLSTAT_INSTANTIATE(float)
CLSTAT_INSTANTIATE(double)
CLSTAT_INSTANTIATE(std::int32_t)
CLSTAT_INSTANTIATE(std::int64_t)
#undef CLSTAT_INSTANTIATE

}  // namespace clstat::order::detail
