// The host side of the radix selection: pass planning, histogram walks and the finish.
// Each pass's plan (which jobs, how many digit bits, whether to compact) depends on the previous
// pass's histogram, so the host reads one small histogram per pass: three or four round trips
// for a median of 2^27 values, each a few microseconds against the ~0.36 ms a pass takes there.
#include "order/radix_select.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <string>

#include "build/program_cache.hpp"
#include "runtime/launch.hpp"

namespace clstat::order::detail {

namespace {

constexpr unsigned kHBins = 4096;    // local histogram counters (must match HBINS in the kernel)
constexpr std::size_t kMaxJobs = 64; // local job table (jp[64] in the kernel)
constexpr int kSlot = 40;            // scratch slots 40..49

unsigned ceil_log2(std::size_t v) {
  unsigned b = 0;
  while ((std::size_t(1) << b) < v) ++b;
  return b;
}

}  // namespace

template <class T>
std::shared_ptr<::clstat::detail::BuiltProgram> RadixSelect<T>::program(bool first, bool compact, bool from_keys) {
  const char* op = "clstat::order::select";
  std::string o = build::base_options(*ctx_, std::is_same_v<T, double>, op);
  o += " -DELEM_KIND=" + std::to_string(elem_kind<T>());
  o += std::string(" -DFIRST=") + (first ? "1" : "0") + " -DCOMPACT=" + (compact ? "1" : "0") +
       " -DFROM_KEYS=" + (from_keys ? "1" : "0");
  // Compaction stages 2 * ITEMS * WG keys in local memory beside the 16 KB histogram.
  o += std::string(" -DITEMS=") + (compact ? "4" : "8") + " -DHBINS=" + std::to_string(kHBins) +
       " -DLCAP=" + std::to_string(lcap_);
  std::size_t chosen = 0;
  auto prog = build::program_for_wg(*ctx_, "order/radix_select", o, "select_hist", wg_, chosen);
  if (chosen != wg_) {
    // Every variant must run with the same work-group size as the finish kernel's build; a
    // device that cannot take wg_ for this variant gets the smaller size for all of them.
    wg_ = chosen;
  }
  return prog;
}

template <class T>
RadixSelect<T>::RadixSelect(const Queue& q, const Buffer<T>& x, std::size_t offset, std::uint64_t n)
    : q_(q), ctx_(q.context().impl()), x_(x.raw().impl()->buffer), offset_(offset), n_(n) {
  const DeviceInfo& info = ctx_->info();
  const bool gpu = info.type == DeviceType::gpu;
  wg_ = std::min<std::size_t>(256, info.max_work_group_size);
  std::size_t lc = 1;
  while (lc * 2 <= 4096 && lc * 2 * sizeof(Key) <= info.local_mem_bytes / 2) lc *= 2;
  lcap_ = lc;
  const std::uint64_t cap_alloc = info.max_alloc_bytes / sizeof(Key);
  cap_ = std::min<std::uint64_t>({std::max<std::uint64_t>(n / 8, 1u << 16), 1ull << 26, cap_alloc});
  groups_ = std::max<std::size_t>(1, info.compute_units) * (gpu ? 4 : 1);

  first_bits_ = std::min<unsigned>(12, 8 * sizeof(Key));
  Job all{0, n, {}, {}};
  first_ = run_pass(false, x_, n, 0, first_bits_, {all}, false, nullptr, true);
}

template <class T>
typename RadixSelect<T>::Pass RadixSelect<T>::run_pass(bool from_keys, const cl::Buffer& src, std::uint64_t m,
                                                        unsigned plen, unsigned bits, const std::vector<Job>& jobs,
                                                        bool compact, const cl::Buffer* dest, bool first) {
  const char* op = "clstat::order::select";
  return ::clstat::detail::cl_guard(op, *ctx_, [&]() -> Pass {
    auto prog = program(first, compact, from_keys);
    const std::size_t qi = q_.index();
    const cl::CommandQueue& cq = ::clstat::detail::queue_of(q_);
    const std::size_t per_group = wg_ * (compact ? 4 : 8);
    const std::size_t G = static_cast<std::size_t>(
        std::max<std::uint64_t>(1, std::min<std::uint64_t>(groups_, (m + per_group - 1) / per_group)));
    const unsigned nb = static_cast<unsigned>(jobs.size()) << bits;
    const unsigned row = nb + 1;
    cl::Buffer partials = ctx_->scratch(qi, kSlot + 0, G * row * sizeof(cl_uint));
    cl::Buffer totals = ctx_->scratch(qi, kSlot + 1, row * sizeof(cl_ulong));
    cl::Buffer minmax = ctx_->scratch(qi, kSlot + 2, 2 * G * sizeof(Key));
    cl::Buffer jobsb = ctx_->scratch(qi, kSlot + 3, kMaxJobs * sizeof(Key));
    cl::Buffer cursor = ctx_->scratch(qi, kSlot + 4, sizeof(cl_uint));
    jobs_host_.resize(jobs.size());
    for (std::size_t j = 0; j < jobs.size(); ++j) jobs_host_[j] = jobs[j].prefix;
    // Non-blocking: the staged vectors outlive the blocking read at the end of this pass.
    cq.enqueueWriteBuffer(jobsb, CL_FALSE, 0, jobs.size() * sizeof(Key), jobs_host_.data());
    static const cl_uint zero = 0;
    if (compact) cq.enqueueWriteBuffer(cursor, CL_FALSE, 0, sizeof zero, &zero);

    cl::Kernel k = build::kernel(*prog, "select_hist", qi);
    k.setArg(0, x_);
    k.setArg(1, static_cast<cl_ulong>(offset_));
    k.setArg(2, from_keys ? src : x_);
    k.setArg(3, static_cast<cl_ulong>(m));
    k.setArg(4, static_cast<cl_uint>(plen));
    k.setArg(5, static_cast<cl_uint>(8 * sizeof(Key) - plen - bits));
    k.setArg(6, static_cast<cl_uint>(bits));
    k.setArg(7, static_cast<cl_uint>(jobs.size()));
    k.setArg(8, jobsb);
    k.setArg(9, partials);
    k.setArg(10, static_cast<cl_uint>(row));
    k.setArg(11, compact ? *dest : partials);
    k.setArg(12, cursor);
    k.setArg(13, minmax);
    ::clstat::detail::launch(q_, k, cl::NDRange(G * wg_), cl::NDRange(wg_), {}, op);

    cl::Kernel s = build::kernel(*prog, "select_sum", qi);
    s.setArg(0, partials);
    s.setArg(1, static_cast<cl_uint>(G));
    s.setArg(2, static_cast<cl_uint>(row));
    s.setArg(3, totals);
    const std::size_t sw = 64;
    ::clstat::detail::launch(q_, s, cl::NDRange((row + sw - 1) / sw * sw), cl::NDRange(sw), {}, op);

    Pass p;
    p.bits = bits;
    std::vector<cl_ulong> t(row);
    cl_uint cur = 0;
    std::vector<Key> mm;
    if (compact) cq.enqueueReadBuffer(cursor, CL_FALSE, 0, sizeof cur, &cur);
    if (first) {
      mm.resize(2 * G);
      cq.enqueueReadBuffer(minmax, CL_FALSE, 0, mm.size() * sizeof(Key), mm.data());
    }
    cq.enqueueReadBuffer(totals, CL_TRUE, 0, row * sizeof(cl_ulong), t.data());
    ++stats_.passes;
    ++stats_.host_syncs;
    if (!from_keys) ++stats_.full_passes;
    stats_.keys_read += m;
    p.totals.assign(t.begin(), t.begin() + nb);
    if (first) {
      nan_ = t[nb];
      kmin_ = mm[0];
      kmax_ = mm[1];
      for (std::size_t g = 1; g < G; ++g) {
        kmin_ = std::min(kmin_, mm[2 * g]);
        kmax_ = std::max(kmax_, mm[2 * g + 1]);
      }
    }
    if (compact) {
      std::uint64_t total = 0;
      for (const Job& j : jobs) total += j.count;
      if (cur != total)
        throw std::logic_error(std::string(op) + ": compaction wrote " + std::to_string(cur) + " keys, expected " +
                               std::to_string(total));
    }
    return p;
  });
}

template <class T>
void RadixSelect<T>::finish(const cl::Buffer& src, std::uint64_t m, unsigned plen, const std::vector<Job>& jobs,
                            std::size_t ntargets, std::vector<Key>& out) {
  const char* op = "clstat::order::select";
  ::clstat::detail::cl_guard(op, *ctx_, [&] {
    auto prog = program(false, false, true);
    const std::size_t qi = q_.index();
    const cl::CommandQueue& cq = ::clstat::detail::queue_of(q_);
    std::vector<cl_uint> job_of(ntargets), rank_of(ntargets);
    for (std::size_t j = 0; j < jobs.size(); ++j)
      for (std::size_t i = 0; i < jobs[j].targets.size(); ++i) {
        job_of[jobs[j].targets[i]] = static_cast<cl_uint>(j);
        rank_of[jobs[j].targets[i]] = static_cast<cl_uint>(jobs[j].rank[i]);
      }
    jobs_host_.resize(jobs.size());
    for (std::size_t j = 0; j < jobs.size(); ++j) jobs_host_[j] = jobs[j].prefix;
    cl::Buffer jobsb = ctx_->scratch(qi, kSlot + 3, kMaxJobs * sizeof(Key));
    cl::Buffer jb = ctx_->scratch(qi, kSlot + 7, kMaxJobs * sizeof(cl_uint));
    cl::Buffer rb = ctx_->scratch(qi, kSlot + 8, kMaxJobs * sizeof(cl_uint));
    cl::Buffer ob = ctx_->scratch(qi, kSlot + 9, kMaxJobs * sizeof(Key));
    cq.enqueueWriteBuffer(jobsb, CL_FALSE, 0, jobs.size() * sizeof(Key), jobs_host_.data());
    cq.enqueueWriteBuffer(jb, CL_FALSE, 0, ntargets * sizeof(cl_uint), job_of.data());
    cq.enqueueWriteBuffer(rb, CL_FALSE, 0, ntargets * sizeof(cl_uint), rank_of.data());
    cl::Kernel k = build::kernel(*prog, "select_finish", qi);
    k.setArg(0, src);
    k.setArg(1, static_cast<cl_uint>(m));
    k.setArg(2, static_cast<cl_uint>(plen));
    k.setArg(3, jobsb);
    k.setArg(4, jb);
    k.setArg(5, rb);
    k.setArg(6, static_cast<cl_uint>(ntargets));
    k.setArg(7, ob);
    ::clstat::detail::launch(q_, k, cl::NDRange(jobs.size() * wg_), cl::NDRange(wg_), {}, op);
    cq.enqueueReadBuffer(ob, CL_TRUE, 0, ntargets * sizeof(Key), out.data());
    ++stats_.host_syncs;
    stats_.keys_read += m * jobs.size();
  });
}

template <class T>
std::vector<typename RadixSelect<T>::Key> RadixSelect<T>::select(const std::vector<std::uint64_t>& ranks) {
  for (std::uint64_t r : ranks)
    if (r >= n_) throw std::out_of_range("clstat::order::select: rank " + std::to_string(r) + " >= n = " + std::to_string(n_));
  std::vector<Key> out(ranks.size());
  // At most kMaxJobs targets per batch, so at most kMaxJobs jobs at any level. Sorted ranks keep
  // the targets of a batch close together, so they share more of their passes.
  std::vector<std::size_t> order(ranks.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return ranks[a] < ranks[b]; });
  for (std::size_t b0 = 0; b0 < order.size(); b0 += kMaxJobs) {
    const std::size_t b1 = std::min(order.size(), b0 + kMaxJobs);
    std::vector<std::uint64_t> br;
    for (std::size_t i = b0; i < b1; ++i) br.push_back(ranks[order[i]]);
    std::vector<Key> bo(br.size());
    select_batch(br, bo);
    for (std::size_t i = b0; i < b1; ++i) out[order[i]] = bo[i - b0];
  }
  return out;
}

template <class T>
void RadixSelect<T>::select_batch(const std::vector<std::uint64_t>& ranks, std::vector<Key>& out) {
  constexpr unsigned KB = 8 * sizeof(Key);
  if (ranks.empty()) return;
  if (kmin_ == kmax_) {  // every element has the same key
    std::fill(out.begin(), out.end(), kmin_);
    return;
  }
  Job root{0, n_, {}, {}};
  for (std::size_t t = 0; t < ranks.size(); ++t) {
    root.targets.push_back(t);
    root.rank.push_back(ranks[t]);
  }
  std::vector<Job> jobs{root};
  unsigned plen = 0;

  // Splits every job by the histogram of its next `bits` bits; ranks are sorted within a job.
  auto refine = [&](const Pass& p) {
    std::vector<Job> next;
    for (std::size_t j = 0; j < jobs.size(); ++j) {
      const std::uint64_t* tot = p.totals.data() + (j << p.bits);
      const std::size_t nbins = std::size_t(1) << p.bits;
      std::size_t b = 0;
      std::uint64_t below = 0;
      for (std::size_t i = 0; i < jobs[j].targets.size(); ++i) {
        const std::uint64_t r = jobs[j].rank[i];
        while (b < nbins && below + tot[b] <= r) below += tot[b++];
        if (b == nbins) throw std::logic_error("clstat::order::select: histogram lost elements");
        const Key prefix = static_cast<Key>((jobs[j].prefix << p.bits) | b);
        if (next.empty() || next.back().prefix != prefix)
          next.push_back(Job{prefix, tot[b], {}, {}});
        next.back().targets.push_back(jobs[j].targets[i]);
        next.back().rank.push_back(r - below);
      }
    }
    jobs.swap(next);
    plen += p.bits;
  };

  const unsigned common = static_cast<unsigned>(__builtin_clzll(static_cast<unsigned long long>(kmin_ ^ kmax_))) -
                          (64 - KB);
  if (common >= first_bits_) {
    // The first histogram has a single bin; every key shares the first `common` bits.
    jobs[0].prefix = static_cast<Key>(kmin_ >> (KB - common));
    plen = common;
  } else {
    refine(first_);
  }

  cl::Buffer src = x_;
  bool from_keys = false;
  std::uint64_t m = n_;
  int cand = 0;  // the candidate buffer to write next (ping-pong between two)
  for (;;) {
    if (plen == KB) {
      for (const Job& j : jobs)
        for (std::size_t t : j.targets) out[t] = j.prefix;
      return;
    }
    std::uint64_t total = 0, largest = 0;
    for (const Job& j : jobs) {
      total += j.count;
      largest = std::max(largest, j.count);
    }
    if (from_keys && largest <= lcap_ && m <= std::max<std::uint64_t>(1u << 16, 4 * total)) {
      finish(src, m, plen, jobs, ranks.size(), out);
      return;
    }
    const unsigned bits = std::min<unsigned>(12 - ceil_log2(jobs.size()), KB - plen);
    const bool compact = total <= cap_ && (!from_keys || 4 * total <= m);
    cl::Buffer dest;
    if (compact) dest = ctx_->scratch(q_.index(), kSlot + 5 + cand, cap_ * sizeof(Key));
    const Pass p = run_pass(from_keys, src, m, plen, bits, jobs, compact, compact ? &dest : nullptr, false);
    if (compact) {
      src = dest;
      from_keys = true;
      m = total;
      cand ^= 1;
    }
    refine(p);
  }
}

template <class T>
std::unique_ptr<Selector<T>> make_radix_selector(const Queue& q, const Buffer<T>& x, std::size_t offset,
                                                 std::uint64_t n) {
  return std::make_unique<RadixSelect<T>>(q, x, offset, n);
}

#define CLSTAT_INSTANTIATE(T)  \
  template class RadixSelect<T>; \
  template std::unique_ptr<Selector<T>> make_radix_selector(const Queue&, const Buffer<T>&, std::size_t, std::uint64_t);
CLSTAT_INSTANTIATE(float)
CLSTAT_INSTANTIATE(double)
CLSTAT_INSTANTIATE(std::int32_t)
CLSTAT_INSTANTIATE(std::int64_t)
#undef CLSTAT_INSTANTIATE

}  // namespace clstat::order::detail
