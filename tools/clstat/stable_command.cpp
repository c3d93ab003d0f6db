// clstat stable: the alpha-stable functions on points given on the command line or in a CSV file,
// CSV to stdout; or random numbers to a file or stdout.
#include "stable_command.hpp"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "clstat/clstat.hpp"
#include "clstat/group.hpp"
#include "clstat/stable.hpp"
#include "cli_common.hpp"
#include "mpi_run.hpp"
#include "table_input.hpp"

#ifdef CLSTAT_CLI_MPI
#include "clstat/mpi.hpp"
#endif

namespace clstat_cli {
namespace {

const char* k_usage =
    "usage: clstat stable pdf|logpdf|cdf|sf|quantile|isf --alpha A --beta B [options] (--x v1,v2,... | --at FILE)\n"
    "       clstat stable sample --alpha A --beta B --n N [--seed S] [--first K] [options] [--out FILE]\n"
    "       clstat stable fit --data FILE [--method mle|mcculloch|koutrouvelis] [--param 0|1] [--tol T] [--json] [--mpi]\n"
    "  --alpha A          stability index in (0, 2]\n"
    "  --beta B           skewness in [-1, 1]\n"
    "  --scale S          scale gamma > 0 (default 1)\n"
    "  --loc L            location delta (default 0), in the parameterisation --param\n"
    "  --param 0|1        Nolan's S0 (default; continuous in alpha) or S1\n"
    "  --x v1,v2,...      points (probabilities for quantile and isf)\n"
    "  --at FILE          the same from the first column of a CSV, or a .f64 file\n"
    "  --error            pdf, logpdf, cdf, sf: add the quadrature's error estimate column\n"
    "  --data FILE        fit: the data, the first column of a CSV or a .f64 file (at least 10 values)\n"
    "  --method M         fit: mle (default; progress on stderr), mcculloch or koutrouvelis\n"
    "  --tol T            fit: stopping tolerance (default 1e-6); --json: one JSON object on stdout\n"
    "  --n N, --seed S, --first K   sample: count, seed (default 1), index of the first sample\n"
    "  --out FILE         sample: raw little-endian doubles if FILE ends in .f64, else one per line\n"
    "  --device SPEC      as CLSTAT_DEVICE: gpu, cpu, nvidia, pocl, P:D or a name substring; \"all\"\n"
    "                     or a comma-separated list splits the points, probabilities, draws or\n"
    "                     fit's likelihoods over those devices (not with --error)\n"
    "  --mpi              fit under mpirun: each process reads its share of --data; every\n"
    "                     likelihood is the sum of the processes' shares' (one device per process,\n"
    "                     as --device or the host's GPUs by local rank); process 0 prints\n"
    "Output: CSV with a header, one row per point: x,pdf[,pdf_error] (and so on), or p,quantile.\n";

std::vector<double> read_values(const std::string& path) {
  // Raw files (.f64, .f32) hold one value a row here: stable takes no --dims.
  return read_table(path, "1", ends_with(path, ".f64") || ends_with(path, ".f32") ? 1 : 0).values;
}

int fit_command(const std::string& data, const std::string& method, clstat::stable::Param param, double tol, bool json,
                const std::string& device, bool mpi) {
  namespace st = clstat::stable;
  if (data.empty()) {
    std::cerr << "clstat stable: fit needs --data FILE (clstat stable --help lists the options)\n";
    return 2;
  }
  st::FitOptions o;
  if (method == "mle") o.method = st::FitMethod::mle;
  else if (method == "mcculloch") o.method = st::FitMethod::mcculloch;
  else if (method == "koutrouvelis") o.method = st::FitMethod::koutrouvelis;
  else throw std::invalid_argument("--method is mle, mcculloch or koutrouvelis");
  o.param = param;
  o.tol = tol;
  o.progress = [](const clstat::ProgressReport& r) { std::cerr << "[clstat stable fit] " << r.message << "\n"; };
  const int pm = param == st::Param::S0 ? 0 : 1;
  // The fit r of n values, computed on `where`.
  auto print = [&](const st::FitResult& r, std::size_t n, const std::string& where) {
    if (json) {
      std::cout << "{\"method\": \"" << method << "\", \"n\": " << n << ", \"param\": " << pm
                << ", \"alpha\": " << json_number(r.params.alpha) << ", \"beta\": " << json_number(r.params.beta)
                << ", \"scale\": " << json_number(r.params.scale) << ", \"loc\": " << json_number(r.params.loc)
                << ", \"loglik\": " << json_number(r.loglik) << ", \"iterations\": " << r.iterations
                << ", \"converged\": " << (r.converged ? "true" : "false") << ", \"se\": {\"alpha\": "
                << json_number(r.se_alpha) << ", \"beta\": " << json_number(r.se_beta)
                << ", \"scale\": " << json_number(r.se_scale) << ", \"loc\": " << json_number(r.se_loc)
                << "}, \"device\": \"" << where << "\"}\n";
    } else {
      std::cout.precision(10);
      std::cout << "parameter,estimate,std_error\n"
                << "alpha," << r.params.alpha << "," << r.se_alpha << "\n"
                << "beta," << r.params.beta << "," << r.se_beta << "\n"
                << "scale," << r.params.scale << "," << r.se_scale << "\n"
                << "loc" << pm << "," << r.params.loc << "," << r.se_loc << "\n"
                << "# method " << method << ", n " << n << ", loglik " << r.loglik << ", iterations "
                << r.iterations << (r.converged ? ", converged" : ", not converged") << "\n";
    }
    return 0;
  };
  if (mpi) {
    if (names_group(device)) throw std::invalid_argument("--mpi takes one device per process, not a list");
#ifdef CLSTAT_CLI_MPI
    return with_mpi("clstat stable", [&](int rank, int size) {
      if (rank != 0) o.progress = nullptr;  // one report, not one a process
      const std::vector<double> x =
          read_table_part(data, "1", ends_with(data, ".f64") || ends_with(data, ".f32") ? 1 : 0,
                          static_cast<std::size_t>(rank), static_cast<std::size_t>(size))
              .values;
      const clstat::Context ctx(clstat::mpi::rank_device(MPI_COMM_WORLD, device));
      const st::FitResult r = clstat::mpi::fit(ctx, MPI_COMM_WORLD, x.data(), x.size(), o);
      std::uint64_t n = x.size();
      MPI_Allreduce(MPI_IN_PLACE, &n, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
      return rank == 0 ? print(r, n, std::to_string(size) + " processes") : 0;
    });
#else
    throw std::invalid_argument("--mpi: this clstat was built without MPI (CMake found no MPI; Debian: libopenmpi-dev)");
#endif
  }
  const std::vector<double> x = read_values(data);
  // One device, or a group whose members' shares of the data each give a part of every likelihood.
  std::string where;
  st::FitResult r;
  if (names_group(device)) {
    const clstat::DeviceGroup g = clstat::DeviceGroup::from_spec(device);
    for (std::size_t i = 0; i < g.size(); ++i) where += (i ? " + " : "") + g.member(i).info().name;
    r = st::fit(g, x.data(), x.size(), o);
  } else {
    const clstat::Context ctx = context_for(device);
    where = ctx.info().name;
    r = st::fit(ctx, x.data(), x.size(), o);
  }
  return print(r, x.size(), where);
}

}  // namespace

int stable_command(int argc, char** argv) {
  if (argc < 1) {
    std::cerr << k_usage;
    return 2;
  }
  const std::string what = argv[0];
  if (what == "--help" || what == "-h") return std::cout << k_usage, 0;
  std::string xs, at, out, device, data, method = "mle";
  clstat::stable::Params p;
  bool have_alpha = false, have_beta = false, error = false, json = false, mpi = false;
  double tol = 1e-6;
  std::size_t n = 0;
  std::uint64_t seed = 1, first = 0;
  SeenOptions seen;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    seen.add(a);
    auto value = [&] { return next_value(i, argc, argv); };
    if (a == "--alpha") p.alpha = parse_real("--alpha", value()), have_alpha = true;
    else if (a == "--beta") p.beta = parse_real("--beta", value()), have_beta = true;
    else if (a == "--scale") p.scale = parse_real("--scale", value());
    else if (a == "--loc") p.loc = parse_real("--loc", value());
    else if (a == "--param") {
      const std::string v = value();
      if (v != "0" && v != "1") throw std::invalid_argument("--param is 0 or 1");
      p.param = v == "0" ? clstat::stable::Param::S0 : clstat::stable::Param::S1;
    } else if (a == "--x") xs = value();
    else if (a == "--at") at = value();
    else if (a == "--error") error = true;
    else if (a == "--n") n = parse_count("--n", value(), 1);
    else if (a == "--seed") seed = parse_count("--seed", value());
    else if (a == "--first") first = parse_count("--first", value());
    else if (a == "--out") out = value();
    else if (a == "--device") device = value();
    else if (a == "--data") data = value();
    else if (a == "--method") method = value();
    else if (a == "--tol") tol = parse_real("--tol", value());
    else if (a == "--json") json = true;
    else if (a == "--mpi") mpi = true;
    else if (a == "--help" || a == "-h") return std::cout << k_usage, 0;
    else {
      std::cerr << "clstat stable: unknown argument '" << a << "' (clstat stable --help lists the options)\n";
      return 2;
    }
  }
  if (names_group(device) && error)
    throw std::invalid_argument("--device " + device +
                                ": --error takes one device (a list or \"all\" splits pdf, logpdf, cdf, sf, quantile, isf, "
                                "sample and fit's likelihoods)");
  if (mpi && what != "fit") throw std::invalid_argument("--mpi splits fit; " + what + " takes one process");
  if (what == "fit") return fit_command(data, method, p.param, tol, json, device, mpi);
  if (!have_alpha || !have_beta) {
    std::cerr << "clstat stable: --alpha and --beta are required (clstat stable --help lists the options)\n";
    return 2;
  }
  clstat::stable::check(p);
  namespace st = clstat::stable;
  // One device, or the devices of --device's list with the work split over them (clstat/group.hpp).
  const bool group = names_group(device);
  const clstat::DeviceGroup g = group ? clstat::DeviceGroup::from_spec(device) : clstat::DeviceGroup({context_for(device)});
  const clstat::Context& ctx = g.member(0);
  std::cout.precision(17);
  if (what == "sample") {
    if (n == 0) {
      std::cerr << "clstat stable: sample needs --n N > 0\n";
      return 2;
    }
    const std::vector<double> y = group ? st::sample(g, n, p, seed, first) : st::sample(ctx, n, p, seed, first);
    if (out.size() > 4 && out.substr(out.size() - 4) == ".f64") {
      std::ofstream f(out, std::ios::binary);
      f.write(reinterpret_cast<const char*>(y.data()), static_cast<std::streamsize>(y.size() * sizeof(double)));
      if (!f) throw std::runtime_error("cannot write " + out);
    } else {
      std::ofstream f;
      if (!out.empty()) f.open(out);
      std::ostream& o = out.empty() ? std::cout : f;
      o.precision(17);
      for (double v : y) o << v << "\n";
      if (!o) throw std::runtime_error("cannot write " + out);
    }
    return 0;
  }
  if (xs.empty() == at.empty()) {
    std::cerr << "clstat stable: give the points by exactly one of --x and --at (clstat stable --help lists the options)\n";
    return 2;
  }
  std::vector<double> x;
  if (!xs.empty()) x = parse_list("--x", xs);
  else {
    x = read_values(at);
  }
  if (what == "pdf" || what == "logpdf" || what == "cdf" || what == "sf") {
    const unsigned fn = what == "pdf" ? st::fn_pdf : what == "logpdf" ? st::fn_logpdf : what == "cdf" ? st::fn_cdf : st::fn_sf;
    st::Values v;
    if (!group) {
      v = st::evaluate(ctx, fn, x.data(), x.size(), p, error);
    } else {
      auto& slot = fn == st::fn_pdf ? v.pdf : fn == st::fn_logpdf ? v.logpdf : fn == st::fn_cdf ? v.cdf : v.sf;
      slot = fn == st::fn_pdf      ? st::pdf(g, x.data(), x.size(), p)
             : fn == st::fn_logpdf ? st::logpdf(g, x.data(), x.size(), p)
             : fn == st::fn_cdf    ? st::cdf(g, x.data(), x.size(), p)
                                   : st::sf(g, x.data(), x.size(), p);
    }
    const auto& val = fn == st::fn_pdf ? v.pdf : fn == st::fn_logpdf ? v.logpdf : fn == st::fn_cdf ? v.cdf : v.sf;
    const auto& err = fn == st::fn_pdf     ? v.pdf_error
                      : fn == st::fn_logpdf ? v.logpdf_error
                      : fn == st::fn_cdf    ? v.cdf_error
                                            : v.sf_error;
    std::cout << "x," << what << (error ? "," + what + "_error" : "") << "\n";
    for (std::size_t i = 0; i < x.size(); ++i) {
      std::cout << x[i] << "," << val[i];
      if (error) std::cout << "," << err[i];
      std::cout << "\n";
    }
  } else if (what == "quantile" || what == "isf") {
    const auto v = group ? (what == "quantile" ? st::quantile(g, x.data(), x.size(), p) : st::isf(g, x.data(), x.size(), p))
                         : (what == "quantile" ? st::quantile(ctx, x.data(), x.size(), p) : st::isf(ctx, x.data(), x.size(), p));
    std::cout << "p," << what << "\n";
    for (std::size_t i = 0; i < x.size(); ++i) std::cout << x[i] << "," << v[i] << "\n";
  } else {
    std::cerr << "clstat stable: unknown function '" << what << "' (clstat stable --help lists the options)\n";
    return 2;
  }
  return 0;
}

}  // namespace clstat_cli
