// Internal: a context's memo of derived data (ContextImpl::memo), e.g. a stable law's
// interpolant, so repeated calls on the same inputs skip the work that made it.
#pragma once

#include <memory>
#include <mutex>
#include <string>

#include "runtime/impl.hpp"

namespace clstat::detail {

/// The entry under `key`, made by `make()` (returning std::shared_ptr<const T>) when absent and
/// then kept; at most k_memo_entries are kept, the least recently used dropped first (a dropped
/// entry is made again when next asked for). `make` runs
/// without the lock, so two threads asking for a new key at once may both make it (the first
/// stored is kept); an exception from `make` stores nothing. Thread-safe.
constexpr std::size_t k_memo_entries = 16;

template <class T, class Make>
std::shared_ptr<const T> memo(ContextImpl& ci, const std::string& key, Make&& make) {
  {
    std::lock_guard<std::mutex> g(ci.memo_mutex);
    for (auto it = ci.memo.begin(); it != ci.memo.end(); ++it)
      if (it->first == key) {
        ci.memo.splice(ci.memo.begin(), ci.memo, it);
        return std::static_pointer_cast<const T>(it->second);
      }
  }
  std::shared_ptr<const T> made = make();
  std::lock_guard<std::mutex> g(ci.memo_mutex);
  for (auto& e : ci.memo)
    if (e.first == key) return std::static_pointer_cast<const T>(e.second);
  ci.memo.emplace_front(key, made);
  while (ci.memo.size() > k_memo_entries) ci.memo.pop_back();
  return made;
}

}  // namespace clstat::detail
