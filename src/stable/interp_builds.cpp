// Interpolants of several unit laws built together (eval_internal.hpp: build_interpolants): one
// host thread per law runs interp::build, and their quadrature passes meet in Rendezvous, which
// evaluates every waiting build's nodes in one device pass. A build's refinement level is a few
// thousand points, which leaves a GPU mostly idle for a pass's latency; the MLE asks for 4 to 33
// new laws a step. Each build sees the values it would see alone, so its table is the same
// whether it is built alone (law_interp) or with others (log_likelihood).
#include <algorithm>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <mutex>
#include <thread>

#include "stable/eval_internal.hpp"
#include "stable/near_one.hpp"

namespace clstat::stable::eval_detail {
namespace {

// Builds that run together (threads, and the laws of one quadrature pass).
constexpr std::size_t k_builds_together = 64;

// Where interp::build's quadrature passes meet: ask() blocks until every build still running has
// asked (or left), then the last to arrive evaluates all their nodes in one pass.
class Rendezvous {
 public:
  Rendezvous(const Context& ctx, const char* op, const std::vector<UnitLaw>& laws, double rel)
      : ctx_(ctx), op_(op), rel_(rel), laws_(laws), active_(laws.size()), asked_(laws.size(), nullptr), got_(laws.size()) {}

  interp::NodeValues ask(std::size_t who, const std::vector<double>& z) {
    std::unique_lock<std::mutex> lk(mu_);
    if (failed_) std::rethrow_exception(failed_);
    asked_[who] = &z;
    ++waiting_;
    const std::uint64_t round = round_;
    if (waiting_ == active_) {
      run();
    } else {
      cv_.wait(lk, [&] { return round_ != round; });
    }
    if (failed_) std::rethrow_exception(failed_);
    return std::move(got_[who]);
  }

  // A build is done (or failed): the others no longer wait for it.
  void leave() {
    std::unique_lock<std::mutex> lk(mu_);
    --active_;
    if (active_ > 0 && waiting_ == active_) run();
  }

 private:
  // With mu_ held: every asker's nodes under its own unit law, then each its values.
  void run() {
    Laws l;
    std::vector<double> z;
    for (std::size_t i = 0; i < asked_.size(); ++i) {
      if (!asked_[i]) continue;
      const cl_uint id = static_cast<cl_uint>(l.prm.size() / k_prm);
      l.prm.insert(l.prm.end(), {laws_[i].first, laws_[i].second, 1.0, 0.0, 0.0});
      z.insert(z.end(), asked_[i]->begin(), asked_[i]->end());
      l.pid.insert(l.pid.end(), asked_[i]->size(), id);
    }
    try {
      const Values v = run_eval(ctx_, op_, fn_pdf | fn_cdf | fn_sf, z.data(), z.size(), l, true, rel_);
      std::size_t at = 0;
      for (std::size_t i = 0; i < asked_.size(); ++i) {
        if (!asked_[i]) continue;
        const auto b = static_cast<std::ptrdiff_t>(at), e = static_cast<std::ptrdiff_t>(at + asked_[i]->size());
        auto part = [&](const std::vector<double>& w) { return std::vector<double>(w.begin() + b, w.begin() + e); };
        got_[i] = {part(v.pdf), part(v.cdf), part(v.sf), part(v.pdf_error), part(v.cdf_error), part(v.sf_error)};
        at += asked_[i]->size();
      }
    } catch (...) {
      failed_ = std::current_exception();
    }
    std::fill(asked_.begin(), asked_.end(), nullptr);
    waiting_ = 0;
    ++round_;
    cv_.notify_all();
  }

  const Context& ctx_;
  const char* op_;
  const double rel_;
  const std::vector<UnitLaw>& laws_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::size_t active_, waiting_ = 0;
  std::uint64_t round_ = 0;
  std::vector<const std::vector<double>*> asked_;
  std::vector<interp::NodeValues> got_;
  std::exception_ptr failed_;
};

}  // namespace

std::vector<std::shared_ptr<const interp::Table>> build_interpolants(const Context& ctx, const char* op,
                                                                     const std::vector<UnitLaw>& todo, double rel) {
  std::vector<std::shared_ptr<const interp::Table>> out(todo.size());
  const bool gpu = ctx.info().type == DeviceType::gpu;
  for (std::size_t first = 0; first < todo.size(); first += k_builds_together) {
    const std::vector<UnitLaw> wave(todo.begin() + static_cast<std::ptrdiff_t>(first),
                                    todo.begin() + static_cast<std::ptrdiff_t>(std::min(todo.size(), first + k_builds_together)));
    Rendezvous meet(ctx, op, wave, rel);
    std::vector<std::exception_ptr> err(wave.size());
    std::vector<std::thread> threads;
    for (std::size_t i = 0; i < wave.size(); ++i)
      threads.emplace_back([&, i] {
        try {
          const auto [alpha, beta] = wave[i];
          const bool s1 = alpha != 1 && !near_one(alpha);
          out[first + i] = std::make_shared<const interp::Table>(interp::build(
              alpha, beta, s1, rel, k_interp_budget, gpu,
              [&](const std::vector<double>& z) { return meet.ask(i, z); }));
        } catch (...) {
          err[i] = std::current_exception();
        }
        meet.leave();
      });
    for (std::thread& t : threads) t.join();
    for (const auto& e : err)
      if (e) std::rethrow_exception(e);
  }
  return out;
}


}  // namespace clstat::stable::eval_detail
