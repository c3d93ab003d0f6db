// Internal: a fixed set of tasks spread over the host's threads.
#pragma once

#include <algorithm>
#include <cstddef>
#include <thread>
#include <vector>

namespace clstat::detail {

/// Runs body(t) for t = 0..tasks-1 on min(hardware threads, max_threads, tasks) threads, thread i
/// taking tasks i, i + T, i + 2T, ...; returns when all are done. Which thread runs a task must not
/// matter to the result (callers give each task its own output). body must not throw.
template <class F>
void parallel_tasks(std::size_t tasks, std::size_t max_threads, F&& body) {
  const std::size_t threads =
      std::max<std::size_t>(1, std::min<std::size_t>({std::thread::hardware_concurrency(), max_threads, tasks}));
  auto run = [&](std::size_t first) {
    for (std::size_t t = first; t < tasks; t += threads) body(t);
  };
  std::vector<std::thread> pool;
  for (std::size_t i = 1; i < threads; ++i) pool.emplace_back(run, i);
  run(0);
  for (auto& th : pool) th.join();
}

}  // namespace clstat::detail
