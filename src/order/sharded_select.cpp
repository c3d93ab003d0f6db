// Exact selection across shards (sharded_select.hpp): RadixSelect's passes on every shard, the
// histograms added on the host.
#include "order/sharded_select.hpp"

#include <algorithm>
#include <cstring>
#include <numeric>
#include <stdexcept>
#include <string>

#include "runtime/lease.hpp"

namespace clstat::order::detail {

namespace {
constexpr std::uint64_t kHostFinish = 1u << 18;  // candidates the host reads and selects among
constexpr const char* kOp = "clstat::order::select (shards)";

}  // namespace

template <class T>
ShardedSelect<T>::ShardedSelect(const std::vector<ShardRef<T>>& shards, Exchange* ex) : ex_(ex) {
  local([&] {
    for (const auto& sh : shards) {
      if (sh.n == 0) continue;
      State st;
      st.sel = std::make_unique<RS>(sh.q, sh.x, sh.offset, sh.n);
      st.n = sh.n;
      st.src = st.sel->x_;
      st.m = sh.n;
      s_.push_back(std::move(st));
      n_ += sh.n;
    }
  });
  std::vector<std::uint64_t> n{n_};
  agree(n);
  n_ = n[0];
  if (n_ == 0) throw std::invalid_argument(std::string(kOp) + ": every shard is empty");
}

template <class T>
template <class F>
void ShardedSelect<T>::local(F&& f) {
  if (err_) return;
  try {
    f();
  } catch (...) {
    err_ = std::current_exception();
  }
}

template <class T>
void ShardedSelect<T>::agree(std::vector<std::uint64_t>& v) {
  if (!ex_) {
    if (err_) std::rethrow_exception(err_);
    return;
  }
  // One slot per process: which of them failed.
  const std::size_t base = v.size(), P = static_cast<std::size_t>(ex_->size());
  v.resize(base + P, 0);
  if (err_) v[base + static_cast<std::size_t>(ex_->rank())] = 1;
  ex_->sum(v);
  std::string failed;
  for (std::size_t r = 0; r < P; ++r)
    if (v[base + r]) failed += (failed.empty() ? "" : ", ") + std::to_string(r);
  v.resize(base);
  if (err_) std::rethrow_exception(err_);
  if (!failed.empty()) throw std::runtime_error(std::string(kOp) + ": process " + failed + " of " + std::to_string(P) + " failed");
}

template <class T>
std::vector<unsigned char> ShardedSelect<T>::gather(const std::vector<unsigned char>& mine) {
  if (!ex_) {
    if (err_) std::rethrow_exception(err_);
    return mine;
  }
  std::vector<std::uint64_t> none;
  agree(none);
  return ex_->gather(mine);
}

template <class T>
void ShardedSelect<T>::prepare(const std::vector<std::uint64_t>&) {
  const unsigned bits = std::min<unsigned>(12, 8 * sizeof(Key));
  first_ = Pass{};
  first_.bits = bits;
  first_.totals.assign(std::size_t(1) << bits, 0);
  std::uint64_t nan = 0;
  bool any = false;
  local([&] {
    // Every shard's pass is enqueued and sent before the host waits for any.
    for (State& st : s_) {
      std::size_t G = 0;
      st.sel->enqueue_pass(Kind::first, false, st.sel->x_, st.n, 0, bits, {Job{0, st.n, {}, {}}}, false, nullptr, G);
      ::clstat::detail::queue_of(st.sel->q_).flush();
    }
    for (State& st : s_) {
      st.first = st.sel->read_pass(Kind::first, 1u << bits, bits, RS::kNoCheck);
      for (std::size_t b = 0; b < first_.totals.size(); ++b) first_.totals[b] += st.first.totals[b];
      nan += st.first.nan;
      kmin_ = any ? std::min(kmin_, st.sel->kmin_) : st.sel->kmin_;
      kmax_ = any ? std::max(kmax_, st.sel->kmax_) : st.sel->kmax_;
      any = true;
    }
  });
  first_.totals.push_back(nan);
  agree(first_.totals);
  nan_ = first_.totals.back();
  first_.totals.pop_back();
  if (!ex_) return;
  // The key range over the processes that hold data.
  const std::uint64_t mine[3] = {any ? 1u : 0u, static_cast<std::uint64_t>(kmin_), static_cast<std::uint64_t>(kmax_)};
  const auto* p = reinterpret_cast<const unsigned char*>(mine);
  const std::vector<unsigned char> all = gather(std::vector<unsigned char>(p, p + sizeof mine));
  any = false;
  for (std::size_t at = 0; at + sizeof mine <= all.size(); at += sizeof mine) {
    std::uint64_t r[3];
    std::memcpy(r, all.data() + at, sizeof r);
    if (!r[0]) continue;
    kmin_ = any ? std::min(kmin_, static_cast<Key>(r[1])) : static_cast<Key>(r[1]);
    kmax_ = any ? std::max(kmax_, static_cast<Key>(r[2])) : static_cast<Key>(r[2]);
    any = true;
  }
}

template <class T>
std::vector<typename ShardedSelect<T>::Key> ShardedSelect<T>::select(const std::vector<std::uint64_t>& ranks) {
  return select_sorted<Key>(
      ranks, n_, kMaxJobs, kOp, [](const std::vector<std::uint64_t>&, std::vector<Key>&) { return false; },
      [&](const std::vector<std::uint64_t>& br, std::vector<Key>& out) { select_batch(br, out); });
}

template <class T>
void ShardedSelect<T>::shard_counts(const std::vector<Job>& jobs, const std::vector<Job>& next, unsigned bits) {
  // A next job's prefix is its parent's prefix and the digit of its bucket; jobs are ascending.
  for (State& st : s_) st.count.assign(next.size(), 0);
  std::size_t j = 0;
  const Key mask = static_cast<Key>((Key(1) << bits) - 1);
  for (std::size_t i = 0; i < next.size(); ++i) {
    const Key parent = bits ? static_cast<Key>(next[i].prefix >> bits) : next[i].prefix;
    while (j < jobs.size() && jobs[j].prefix != parent) ++j;
    if (j == jobs.size()) throw std::logic_error(std::string(kOp) + ": a job lost its parent");
    const std::size_t b = (j << bits) + static_cast<std::size_t>(next[i].prefix & mask);
    for (State& st : s_) st.count[i] = st.m == 0 ? 0 : st.last.totals[b];
  }
}

template <class T>
bool ShardedSelect<T>::host_finish(const std::vector<Job>& jobs, unsigned plen, std::vector<Key>& out) {
  constexpr unsigned KB = 8 * sizeof(Key);
  // Every process decides alike: on the candidates over all of them, and whether any still reads
  // its input.
  std::vector<std::uint64_t> m{0, 0};
  for (const State& st : s_) {
    if (st.m > 0 && !st.from_keys) m[1] = 1;
    m[0] += st.m;
  }
  agree(m);
  if (m[1] || m[0] > kHostFinish) return false;
  std::vector<Key> mine;
  local([&] {
    for (State& st : s_) {
      const std::vector<Key> k = st.sel->read_keys(st.src, st.m);
      mine.insert(mine.end(), k.begin(), k.end());
    }
  });
  const auto* p = reinterpret_cast<const unsigned char*>(mine.data());
  const std::vector<unsigned char> all = gather(std::vector<unsigned char>(p, p + mine.size() * sizeof(Key)));
  std::vector<std::vector<Key>> keys(jobs.size());
  for (std::size_t at = 0; at + sizeof(Key) <= all.size(); at += sizeof(Key)) {
    Key k;
    std::memcpy(&k, all.data() + at, sizeof k);
    const Key pre = plen ? static_cast<Key>(k >> (KB - plen)) : Key(0);
    const auto it = std::lower_bound(jobs.begin(), jobs.end(), pre, [](const Job& a, Key q) { return a.prefix < q; });
    if (it != jobs.end() && it->prefix == pre) keys[static_cast<std::size_t>(it - jobs.begin())].push_back(k);
  }
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    if (keys[j].size() != jobs[j].count)
      throw std::logic_error(std::string(kOp) + ": the shards hold " + std::to_string(keys[j].size()) +
                             " keys of a job of " + std::to_string(jobs[j].count));
    std::sort(keys[j].begin(), keys[j].end());
    for (std::size_t i = 0; i < jobs[j].targets.size(); ++i) out[jobs[j].targets[i]] = keys[j][jobs[j].rank[i]];
  }
  return true;
}

template <class T>
void ShardedSelect<T>::select_batch(const std::vector<std::uint64_t>& ranks, std::vector<Key>& out) {
  constexpr unsigned KB = 8 * sizeof(Key);
  if (ranks.empty()) return;
  if (kmin_ == kmax_) {  // every element has the same key
    std::fill(out.begin(), out.end(), kmin_);
    return;
  }
  // Every shard starts again from its input: a batch's jobs are its own.
  for (State& st : s_) {
    st.src = st.sel->x_;
    st.from_keys = false;
    st.m = st.n;
    st.cand = 0;
  }
  Job root{0, n_, {}, ranks};
  for (std::size_t t = 0; t < ranks.size(); ++t) root.targets.push_back(t);
  std::vector<Job> jobs;
  unsigned plen = 0;
  const unsigned common = static_cast<unsigned>(__builtin_clzll(static_cast<unsigned long long>(kmin_ ^ kmax_))) - (64 - KB);
  if (common >= first_.bits) {  // one bucket of the first histogram holds every key
    root.prefix = static_cast<Key>(kmin_ >> (KB - common));
    jobs = {root};
    plen = common;
    for (State& st : s_) st.count = {st.n};
  } else {
    jobs = RS::refine({root}, first_);
    plen = first_.bits;
    for (State& st : s_) st.last = st.first;
    shard_counts({Job{0, n_, {}, {}}}, jobs, first_.bits);
  }
  for (;;) {
    if (plen == KB) {
      for (const Job& j : jobs)
        for (std::size_t t : j.targets) out[t] = j.prefix;
      return;
    }
    if (host_finish(jobs, plen, out)) return;
    const unsigned bits = std::min<unsigned>(12 - ceil_log2(jobs.size()), KB - plen);
    const unsigned nb = static_cast<unsigned>(jobs.size()) << bits;
    std::vector<bool> compact(s_.size(), false);
    std::vector<std::uint64_t> in_jobs(s_.size(), 0);  // each shard's keys in the jobs
    Pass total;
    total.bits = bits;
    total.totals.assign(nb, 0);
    local([&] {
      for (std::size_t i = 0; i < s_.size(); ++i) {
        State& st = s_[i];
        if (st.m == 0) continue;
        const std::uint64_t c = in_jobs[i] = std::accumulate(st.count.begin(), st.count.end(), std::uint64_t(0));
        compact[i] = c <= st.sel->cap_ && (!st.from_keys || 4 * c <= st.m);
        cl::Buffer dest;
        if (compact[i]) dest = st.sel->candidates(st.cand);
        std::size_t G = 0;
        st.sel->enqueue_pass(Kind::plain, st.from_keys, st.src, st.m, plen, bits, jobs, compact[i],
                             compact[i] ? &dest : nullptr, G);
        ::clstat::detail::queue_of(st.sel->q_).flush();
        if (compact[i]) st.src = dest;
      }
      for (std::size_t i = 0; i < s_.size(); ++i) {
        State& st = s_[i];
        if (st.m == 0) continue;
        const std::uint64_t c = in_jobs[i];
        st.last = st.sel->read_pass(Kind::plain, nb, bits, compact[i] ? c : RS::kNoCheck);
        for (unsigned b = 0; b < nb; ++b) total.totals[b] += st.last.totals[b];
        if (compact[i]) {
          st.from_keys = true;
          st.m = c;
          st.cand ^= 1;
        }
      }
    });
    agree(total.totals);
    std::vector<Job> next = RS::refine(jobs, total);
    shard_counts(jobs, next, bits);
    // A shard with no key in any job has nothing more to say.
    for (State& st : s_)
      if (std::accumulate(st.count.begin(), st.count.end(), std::uint64_t(0)) == 0) st.m = 0;
    jobs = std::move(next);
    plen += bits;
  }
}

template class ShardedSelect<float>;
template class ShardedSelect<double>;
template class ShardedSelect<std::int32_t>;
template class ShardedSelect<std::int64_t>;

}  // namespace clstat::order::detail
