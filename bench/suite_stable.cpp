#include "suite_stable.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iostream>
#include <map>
#include <sstream>
#include <tuple>

#include "clstat/stable.hpp"
#include "clstat/stable_fit.hpp"
#include "peer_process.hpp"
#include "result_json.hpp"

namespace bench {
namespace {

const double kAlphas[] = {0.3, 0.8, 1.0, 1.2, 1.5, 1.9};
const double kBetas[] = {0.0, 0.5, 1.0};

// scipy.stats.levy_stable's points per second by (op, alpha, beta), op one of pdf, cdf, ppf, in S0,
// at 100 points per call (its quadrature costs the same per point at any n, about 1e3 points/s
// for pdf and 1e2 for ppf). It runs on the host whatever the device, so once per process.
struct ScipyPeer {
  std::map<std::tuple<std::string, double, double>, double> points_per_s;
  std::string error;  // why there are no numbers
};

const ScipyPeer& scipy_peer(const StableBenchOptions& o) {
  static ScipyPeer peer;
  static bool ran = false;
  if (ran) return peer;
  ran = true;
  std::string laws;
  for (double a : kAlphas)
    for (double b : kBetas) laws += (laws.empty() ? "" : ",") + std::to_string(a) + ":" + std::to_string(b);
  std::cerr << "[clstat-bench]   stable: timing scipy.stats.levy_stable on the host (18 laws, 100 points)\n";
  const clstat_bench::PeerRun run = clstat_bench::run_peer("python3 '" + o.peers_dir +
                                                           "/stable_scipy.py' --sizes 100 --fit-n '' --budget 30 "
                                                           "--param S0 --laws " + laws);
  if (!run.ok) {
    peer.error = "scipy: " + run.why;
    std::cerr << "[clstat-bench] scipy peer unavailable: " << peer.error << "\n";
    return peer;
  }
  try {
    const Json doc = Json::parse(run.out);
    for (const auto& r : doc.at("rows"))
      peer.points_per_s[{r.at("op").get<std::string>(), r.at("alpha").get<double>(), r.at("beta").get<double>()}] =
          r.at("points_per_s").get<double>();
  } catch (const std::exception& e) {
    peer.error = std::string("scipy: unreadable output (") + e.what() + "): " + run.out.substr(0, 400);
  }
  return peer;
}

// Puts SciPy's rate for op (or, for "pdf_cdf", pdf then cdf) into r's peer columns, in Mpoints/s.
void add_scipy_peer(Row& r, const StableBenchOptions& o, const std::string& op, double a, double b) {
  if (!o.peers || o.peers_dir.empty()) return;
  const ScipyPeer& p = scipy_peer(o);
  if (!p.error.empty()) {
    r.peer_error = p.error;
    return;
  }
  auto rate = [&](const std::string& k) {
    const auto it = p.points_per_s.find({k, a, b});
    return it == p.points_per_s.end() ? 0.0 : it->second;
  };
  double pps = 0;
  if (op == "pdf_cdf") {
    const double f = rate("pdf"), F = rate("cdf");
    pps = f > 0 && F > 0 ? 1 / (1 / f + 1 / F) : 0;
  } else {
    pps = rate(op);
  }
  if (pps <= 0) return;
  r.peer = "scipy.levy_stable";
  r.peer_throughput = pps * 1e-6;
}

// A row of n points in wall time t, in Mpoints/s (no ceiling: the stable rows' work is not a
// count of one operation).
Row points_row(const std::string& suite, const std::string& name, std::size_t n, int reps, const Stats& t) {
  Row r{suite, name, "f64", n};
  r.repeats = reps;
  r.wall_ms = t;
  r.work = static_cast<double>(n);
  r.unit = "Mpoints/s";
  r.throughput = t.median > 0 ? static_cast<double>(n) / (t.median * 1e-3) * 1e-6 : 0;
  r.ceiling_name = "none";
  return r;
}

// The stable-law suite's laws: all 18 bench laws on GPUs, else `few`.
std::vector<std::pair<double, double>> law_list(bool large, std::vector<std::pair<double, double>> few) {
  if (!large) return few;
  std::vector<std::pair<double, double>> all;
  for (double a : kAlphas)
    for (double b : kBetas) all.emplace_back(a, b);
  return all;
}

}  // namespace

std::vector<Row> run_stable(const clstat::Context& ctx, const StableBenchOptions& o) {
  std::vector<Row> rows;
  if (!ctx.info().fp64) {
    std::cerr << "[clstat-bench]   stable: the device has no fp64; suite skipped\n";
    return rows;
  }
  namespace st = clstat::stable;
  std::vector<std::size_t> sizes{1000};
  if (o.large) sizes = {10000, 100000, 1000000};
  auto throughput_row = [](const std::string& name, std::size_t n, int reps, const Stats& t) {
    return points_row("stable", name, n, reps, t);
  };
  auto eval_rows = [&](std::size_t n, double a, double b) {
    std::vector<double> x(n);
    for (std::size_t i = 0; i < n; ++i) x[i] = -20 + 40 * (static_cast<double>(i) + 0.5) / static_cast<double>(n);
    const st::Params p{a, b, 1, 0, st::Param::S0};
    const int reps = n >= 1000000 ? 1 : o.repeats;
    std::ostringstream law;
    law << " a=" << a << " b=" << b;
    st::PdfCdf v;
    Row r = throughput_row("pdf_cdf" + law.str(), n, reps,
                           wall_stats([&] { v = st::pdf_cdf(ctx, x.data(), n, p); }, reps));
    double worst = 0, worst_cdf = 0;
    bool finite = true;
    for (std::size_t i = 0; i < n; ++i) {
      finite = finite && std::isfinite(v.pdf[i]) && std::isfinite(v.cdf[i]);
      if (v.pdf[i] > 0) worst = std::max(worst, v.pdf_error[i] / v.pdf[i]);
      worst_cdf = std::max(worst_cdf, v.cdf_error[i]);
    }
    r.check = "max pdf error estimate / pdf (< 1e-11), cdf's (< 2e-12) " + std::to_string(worst_cdf);
    r.error = worst;
    r.pass = finite && worst < 1e-11 && worst_cdf < 2e-12;
    add_scipy_peer(r, o, "pdf_cdf", a, b);
    std::cerr << "[clstat-bench]   " << r.name << " n=" << n << ": " << r.wall_ms.median << " ms, " << r.throughput
              << " Mpoints/s\n";
    rows.push_back(std::move(r));
    for (const char* fn : {"pdf", "cdf"}) {
      const bool is_pdf = fn[0] == 'p';
      std::vector<double> y;
      Row q = throughput_row(std::string(fn) + law.str(), n, reps, wall_stats([&] {
                               y = is_pdf ? st::pdf(ctx, x.data(), n, p) : st::cdf(ctx, x.data(), n, p);
                             }, reps));
      // Alone, each function gets its own panels, so it agrees with pdf_cdf's to the error bars.
      double worst_diff = 0;
      for (std::size_t i = 0; i < n; ++i) {
        const double r = is_pdf ? v.pdf[i] : v.cdf[i], d = std::abs(y[i] - r);
        worst_diff = std::max(worst_diff, is_pdf ? (r > 0 ? d / r : d) : d);
      }
      q.check = is_pdf ? "max relative difference from pdf_cdf's pdf (< 1e-11)"
                       : "max difference from pdf_cdf's cdf (< 2e-12)";
      q.error = worst_diff;
      q.pass = worst_diff < (is_pdf ? 1e-11 : 2e-12);
      add_scipy_peer(q, o, fn, a, b);
      std::cerr << "[clstat-bench]   " << q.name << " n=" << n << ": " << q.wall_ms.median << " ms, " << q.throughput
                << " Mpoints/s\n";
      rows.push_back(std::move(q));
    }
  };
  for (std::size_t n : sizes)
    for (double a : kAlphas)
      for (double b : kBetas) eval_rows(n, a, b);
  if (o.large) eval_rows(10000000, 1.5, 0.5);
  // Quantiles at N probabilities uniform in (0, 1), checked by the round trip through cdf.
  std::vector<std::size_t> qsizes{100};
  if (o.large) qsizes = {10000, 100000, 10000000};
  for (std::size_t n : qsizes) {
    std::vector<double> pr(n);
    for (std::size_t i = 0; i < n; ++i) pr[i] = (static_cast<double>(i) + 0.5) / static_cast<double>(n);
    for (double a : kAlphas)
      for (double b : kBetas) {
        const st::Params p{a, b, 1, 0, st::Param::S0};
        std::vector<double> q;
        // From 1e7 points the median of three: the first builds the law's interpolant.
        const int reps = n >= 10000000 ? 3 : n >= 100000 ? 1 : o.repeats;
        const Stats t = wall_stats([&] { q = st::quantile(ctx, pr.data(), n, p); }, reps);
        const std::vector<double> F = st::cdf(ctx, q.data(), n, p);
        double worst = 0;
        for (std::size_t i = 0; i < n; ++i) worst = std::max(worst, std::abs(F[i] - pr[i]));
        std::ostringstream name;
        name << "quantile a=" << a << " b=" << b;
        Row r{"stable", name.str(), "f64", n};
        r.repeats = reps;
        r.wall_ms = t;
        r.work = static_cast<double>(n);
        r.unit = "Mpoints/s";
        r.throughput = r.wall_ms.median > 0 ? static_cast<double>(n) / (r.wall_ms.median * 1e-3) * 1e-6 : 0;
        r.ceiling_name = "none";
        r.check = "max |cdf(quantile(p)) - p|";
        r.error = worst;
        r.pass = worst <= 1e-12;
        add_scipy_peer(r, o, "ppf", a, b);
        std::cerr << "[clstat-bench]   " << r.name << " n=" << n << ": " << r.wall_ms.median << " ms\n";
        rows.push_back(std::move(r));
      }
  }
  // Random numbers: throughput at 1e6 ... 1e8 samples (1e5 on CPUs), and a Kolmogorov-Smirnov
  // test of 1e6 samples (2e4 on CPUs) against our cdf for 12 laws.
  std::vector<std::size_t> rsizes{100000};
  if (o.large) rsizes = {1000000, 10000000, 100000000, 1000000000};
  for (std::size_t n : rsizes) {
    const st::Params p{1.5, 0.5, 1, 0, st::Param::S0};
    // 1e9 samples (8 GB) only into a device buffer, when the device can hold them.
    if (n > 100000000 && static_cast<double>(n) * 8 > 0.5 * static_cast<double>(ctx.info().global_mem_bytes)) continue;
    if (n <= 100000000) {  // the host array too
      std::vector<double> y;
      int call = 0;
      const Stats t = wall_stats([&] { y = st::sample(ctx, n, p, 42 + call++); }, o.repeats);
      Row r{"stable", "sample a=1.5 b=0.5 (host array)", "f64", n};
      r.repeats = o.repeats;
      r.wall_ms = t;
      r.work = static_cast<double>(n);
      r.unit = "Gsamples/s";
      r.throughput = static_cast<double>(n) / (r.wall_ms.median * 1e-3) * 1e-9;
      r.ceiling_name = "none";
      r.check = "finite";
      r.pass = std::all_of(y.begin(), y.end(), [](double v) { return std::isfinite(v); });
      std::cerr << "[clstat-bench]   " << r.name << " n=" << n << ": " << r.wall_ms.median << " ms\n";
      rows.push_back(std::move(r));
    }
    // Into a device buffer: wall time of the launch and its wait; kernel time from its event.
    clstat::Buffer<double> buf(ctx, n);
    const clstat::Queue q = ctx.queue(0);
    st::sample_async(q, buf, 0, n, p, 1).wait();
    std::vector<double> tw, tk;
    for (int k = 0; k < o.repeats; ++k) {
      const auto t0 = std::chrono::steady_clock::now();
      const clstat::Event ev = st::sample_async(q, buf, 0, n, p, 100 + k);
      ev.wait();
      tw.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
      tk.push_back(static_cast<double>(ev.duration_ns()) * 1e-6);
    }
    Row d{"stable", "sample a=1.5 b=0.5 (device buffer)", "f64", n};
    d.repeats = o.repeats;
    d.wall_ms = Stats::of(tw);
    d.kernel_ms = Stats::of(tk);
    d.work = static_cast<double>(n);
    d.unit = "Gsamples/s";
    d.throughput = static_cast<double>(n) / (d.kernel_ms.median * 1e-3) * 1e-9;
    d.ceiling_name = "none";
    d.check = "kernel time; wall in wall_ms";
    d.pass = true;
    std::cerr << "[clstat-bench]   " << d.name << " n=" << n << ": kernel " << d.kernel_ms.median << " ms\n";
    rows.push_back(std::move(d));
  }
  const std::size_t nks = o.large ? 1000000 : 20000;
  for (const auto& [a, b] : std::vector<std::pair<double, double>>{{0.3, 0.0}, {0.5, 1.0}, {0.8, -0.5}, {1.0, 0.0},
                                                                   {1.0, 0.7}, {1.0, -1.0}, {1.2, 0.3}, {1.5, 0.0},
                                                                   {1.5, 1.0}, {1.8, -0.7}, {1.95, 0.2}, {2.0, 0.0}}) {
    const st::Params p{a, b, 1, 0, st::Param::S1};
    std::vector<double> y = st::sample(ctx, nks, p, 2026);
    std::sort(y.begin(), y.end());
    const std::vector<double> F = st::cdf(ctx, y.data(), nks, p);
    double D = 0;
    for (std::size_t i = 0; i < nks; ++i)
      D = std::max({D, F[i] - static_cast<double>(i) / nks, static_cast<double>(i + 1) / nks - F[i]});
    std::ostringstream name;
    name << "sample KS a=" << a << " b=" << b;
    Row r{"stable", name.str(), "f64", nks};
    r.unit = "D";
    r.throughput = D;
    r.ceiling_name = "none";
    r.check = "KS D * sqrt(n) below 1.95 (0.1% level)";
    r.error = D * std::sqrt(static_cast<double>(nks));
    r.pass = r.error < 1.95;
    std::cerr << "[clstat-bench]   " << r.name << ": D sqrt(n) = " << r.error << "\n";
    rows.push_back(std::move(r));
  }
  // Maximum likelihood: wall time of one fit (sample in, estimates out).
  std::vector<std::size_t> msizes{300};  // CPUs: a small fit (one takes seconds on PoCL)
  if (o.large) msizes = {1000, 10000, 100000, 1000000};
  for (std::size_t n : msizes)
    for (const st::Params& p : {st::Params{1.5, 0.5, 1, 0}, st::Params{0.8, -0.3, 1, 0}, st::Params{1.1, 0.7, 1, 0}}) {
      const std::vector<double> y = st::sample(ctx, n, p, 77);
      st::FitResult f;
      const int reps = n >= 100000 || !o.large ? 1 : std::min(o.repeats, 3);
      const Stats t = wall_stats([&] { f = st::fit(ctx, y.data(), n); }, reps);
      std::ostringstream name, chk;
      name << "mle a=" << p.alpha << " b=" << p.beta;
      chk << "estimate a=" << f.params.alpha << " (se " << f.se_alpha << ") b=" << f.params.beta << " (se "
          << f.se_beta << ") scale=" << f.params.scale << " loc=" << f.params.loc << ", " << f.iterations
          << " rounds, converged " << f.converged;
      Row r = throughput_row(name.str(), n, reps, t);
      r.unit = "fits/s";
      r.throughput = 1e3 / t.median;
      r.check = chk.str();
      r.error = std::abs(f.params.alpha - p.alpha) / f.se_alpha;
      r.pass = f.converged && r.error < 5;
      std::cerr << "[clstat-bench]   " << r.name << " n=" << n << ": " << t.median << " ms; " << r.check << "\n";
      rows.push_back(std::move(r));
    }
  return rows;
}

std::vector<Row> run_stable_fit_study(const clstat::Context& ctx, const StableBenchOptions& o) {
  namespace st = clstat::stable;
  std::vector<Row> rows;
  if (!ctx.info().fp64) return rows;
  const std::size_t n = 1000;
  const char* pname[4] = {"alpha", "beta", "scale", "loc0"};
  for (double a : {0.5, 1.1, 1.7})
    for (double b : {0.0, 0.7}) {
      const st::Params truth{a, b, 1, 0, st::Param::S0};
      std::vector<std::vector<double>> sets;
      for (int s = 0; s < o.study_sets; ++s) sets.push_back(st::sample(ctx, n, truth, 1000 + s));
      double rmse_ref[4] = {0, 0, 0, 0};
      for (auto m : {st::FitMethod::mcculloch, st::FitMethod::koutrouvelis, st::FitMethod::mle}) {
        st::FitOptions fo;
        fo.method = m;
        const auto t0 = std::chrono::steady_clock::now();
        const auto fits = st::fit_many(ctx, sets, fo);
        const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        const char* mname = m == st::FitMethod::mle ? "mle" : m == st::FitMethod::mcculloch ? "mcculloch" : "koutrouvelis";
        int converged = 0;
        for (const auto& f : fits) converged += f.converged;
        for (int k = 0; k < 4; ++k) {
          const double tv = k == 0 ? a : k == 1 ? b : k == 2 ? 1 : 0;
          double bias = 0, mse = 0;
          for (const auto& f : fits) {
            const double e = (k == 0 ? f.params.alpha : k == 1 ? f.params.beta : k == 2 ? f.params.scale : f.params.loc) - tv;
            bias += e, mse += e * e;
          }
          bias /= static_cast<double>(fits.size());
          const double rmse = std::sqrt(mse / static_cast<double>(fits.size()));
          std::ostringstream name;
          name << "fit a=" << a << " b=" << b << " " << mname << " " << pname[k];
          Row r{"stable-fit", name.str(), "f64", n};
          r.repeats = o.study_sets;
          r.wall_ms = Stats::of({ms});
          r.unit = "rmse";
          r.throughput = rmse;
          r.error = bias;
          r.ceiling_name = "none";
          std::ostringstream chk;
          chk << "bias in error; " << converged << "/" << fits.size() << " converged; all sets " << ms << " ms";
          if (m == st::FitMethod::mcculloch) rmse_ref[k] = rmse;
          if (m == st::FitMethod::mle) {
            chk << "; RMSE <= McCulloch's " << rmse_ref[k];
            r.pass = rmse <= rmse_ref[k];
          }
          r.check = chk.str();
          std::cerr << "[clstat-bench]   " << r.name << ": bias " << bias << " rmse " << rmse << "\n";
          rows.push_back(std::move(r));
        }
      }
    }
  return rows;
}

std::vector<Row> run_stable_law(const clstat::Context& ctx, const StableBenchOptions& o) {
  std::vector<Row> rows;
  if (!ctx.info().fp64) {
    std::cerr << "[clstat-bench]   stable-law: the device has no fp64; suite skipped\n";
    return rows;
  }
  namespace st = clstat::stable;
  auto throughput_row = [](const std::string& name, std::size_t n, int reps, const Stats& t) {
    return points_row("stable-law", name, n, reps, t);
  };
  // Many points of one law on the device, through the law's interpolant: each law in a new
  // context (whose memo is empty, its programs loaded before timing), so the first call's time
  // includes building the interpolant; then the warm calls. Data: the law's own samples.
  {
    const std::size_t nr = o.large ? 100000000 : 1000000;
    const auto rl = law_list(o.large, {{1.5, 0.5}, {0.8, 1.0}, {1.2, 0.0}});
    const clstat::Context quad(ctx.device(), 4, {{"stable.interp_points", std::size_t{1} << 62}});
    for (const auto& [a, b] : rl) {
      const st::Params p{a, b, 1, 0, st::Param::S0};
      const clstat::Context fc(ctx.device());
      const clstat::Queue fq = fc.queue(0);
      const clstat::Buffer<double> xb(fc, nr), yb(fc, nr);
      st::sample_async(fq, xb, 0, nr, p, 99).wait();
      const double z0 = 0;
      (void)st::evaluate(fc, st::fn_pdf | st::fn_cdf | st::fn_sf, &z0, 1, p, true);
      (void)st::pdf(fc, &z0, 1, p);
      // 2000 of the points, to check against the quadrature.
      std::vector<double> xs(2000);
      const std::size_t stride = nr / xs.size();
      for (std::size_t i = 0; i < xs.size(); ++i) xb.read(fq, &xs[i], 1, i * stride);
      const st::Values ref = st::evaluate(quad, st::fn_pdf | st::fn_cdf | st::fn_logpdf, xs.data(), xs.size(), p);
      std::ostringstream law;
      law << " a=" << a << " b=" << b;
      struct Fn {
        const char* name;
        unsigned fn;
        const std::vector<double>* ref;
      } fns[] = {{"pdf", st::fn_pdf, &ref.pdf}, {"cdf", st::fn_cdf, &ref.cdf}, {"logpdf", st::fn_logpdf, &ref.logpdf}};
      bool first = true;
      for (const Fn& f : fns) {
        auto call = [&] { st::evaluate_async(fq, f.fn, xb, 0, nr, p, yb, 0).wait(); };
        std::vector<Row> made;
        if (first) {  // the first call, timed alone (wall_stats warms up): the build and the evaluation
          const auto t0 = std::chrono::steady_clock::now();
          call();
          const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
          made.push_back(throughput_row(std::string(f.name) + " resident, first call" + law.str(), nr, 1,
                                        Stats::of({ms})));
          first = false;
        }
        made.push_back(throughput_row(std::string(f.name) + " resident" + law.str(), nr, o.repeats,
                                      wall_stats(call, o.repeats)));
        if (o.large && f.fn == st::fn_pdf) {  // and 10^6 of the same points, the interpolant kept
          const std::size_t small = 1000000;
          made.push_back(throughput_row("pdf resident" + law.str(), small, o.repeats, wall_stats([&] {
                                          st::evaluate_async(fq, st::fn_pdf, xb, 0, small, p, yb, 0).wait();
                                        }, o.repeats)));
        }
        double worst = 0;
        for (std::size_t i = 0; i < xs.size(); ++i) {
          double y = 0;
          yb.read(fq, &y, 1, i * stride);
          const double r = (*f.ref)[i];
          const double d = f.fn == st::fn_cdf ? std::abs(y - r)
                           : f.fn == st::fn_logpdf ? std::abs(y - r) / std::max(1.0, std::abs(r))
                                                   : (r > 0 ? std::abs(y - r) / r : std::abs(y - r));
          if (!(y == r) && std::isfinite(r)) worst = std::max(worst, d);
        }
        for (Row& r : made) {
          r.check = std::string("max difference from the quadrature on 2000 of the points (") +
                    (f.fn == st::fn_cdf ? "absolute, < 1e-12)" : "relative, < 1e-11)");
          r.error = worst;
          r.pass = worst < (f.fn == st::fn_cdf ? 1e-12 : 1e-11);
          std::cerr << "[clstat-bench]   " << r.name << " n=" << nr << ": " << r.wall_ms.median << " ms, "
                    << r.throughput << " Mpoints/s\n";
          rows.push_back(std::move(r));
        }
      }
    }
  }
  // Quantiles of one law: host arrays (probabilities in, quantiles out), 1e8 on GPUs and 1e5 on
  // CPUs, median of three calls (the first builds the law's interpolant); then the same from and
  // into device buffers; each checked by the round trip through the quadrature's cdf on 2000.
  {
    const std::size_t nq = o.large ? 100000000 : 100000;
    const auto rl = law_list(o.large, {{1.5, 0.5}, {0.8, 1.0}});
    std::vector<double> pr(nq), qv;
    for (std::size_t i = 0; i < nq; ++i) pr[i] = (static_cast<double>(i) + 0.5) / static_cast<double>(nq);
    const clstat::Context quad(ctx.device(), 4, {{"stable.interp_points", std::size_t{1} << 62}});
    for (const auto& [a, b] : rl) {
      const st::Params p{a, b, 1, 0, st::Param::S0};
      std::ostringstream name;
      name << "quantile a=" << a << " b=" << b;
      Row r = throughput_row(name.str(), nq, 3, wall_stats([&] { qv = st::quantile(ctx, pr.data(), nq, p); }, 3));
      const clstat::Queue q0 = ctx.queue(0);
      const clstat::Buffer<double> pb(ctx, pr.data(), nq), qb(ctx, nq);
      Row d = throughput_row(name.str() + " resident", nq, o.repeats, wall_stats([&] {
                               st::quantile_async(q0, pb, 0, nq, p, qb, 0).wait();
                             }, o.repeats));
      auto round_trip = [&](Row& row, const std::vector<double>& values) {
        std::vector<double> xs, ps;
        for (std::size_t i = 0; i < nq; i += nq / 2000) xs.push_back(values[i]), ps.push_back(pr[i]);
        const std::vector<double> F = st::cdf(quad, xs.data(), xs.size(), p);
        double worst = 0;
        for (std::size_t i = 0; i < xs.size(); ++i) worst = std::max(worst, std::abs(F[i] - ps[i]));
        row.check = "max |cdf(quantile(p)) - p| on 2000 of them, by the quadrature (< 1e-12)";
        row.error = worst;
        row.pass = worst <= 1e-12;
        std::cerr << "[clstat-bench]   " << row.name << " n=" << nq << ": " << row.wall_ms.median << " ms, "
                  << row.throughput << " Mpoints/s\n";
        rows.push_back(std::move(row));
      };
      round_trip(r, qv);
      round_trip(d, qb.to_host(q0));
    }
  }
  return rows;
}

}  // namespace bench
