// clstat stable: the alpha-stable functions on points given on the command line or in a CSV file,
// CSV to stdout; or random numbers to a file or stdout.
#include "stable_command.hpp"

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "clstat/clstat.hpp"
#include "clstat/stable.hpp"
#include "cli_common.hpp"
#include "table_input.hpp"

namespace clstat_cli {
namespace {

const char* k_usage =
    "usage: clstat stable pdf|cdf|sf|quantile|isf --alpha A --beta B [options] (--x v1,v2,... | --at FILE)\n"
    "       clstat stable sample --alpha A --beta B --n N [--seed S] [--first K] [options] [--out FILE]\n"
    "  --alpha A          stability index in (0, 2]\n"
    "  --beta B           skewness in [-1, 1]\n"
    "  --scale S          scale gamma > 0 (default 1)\n"
    "  --loc L            location delta (default 0), in the parameterisation --param\n"
    "  --param 0|1        Nolan's S0 (default; continuous in alpha) or S1\n"
    "  --x v1,v2,...      points (probabilities for quantile and isf)\n"
    "  --at FILE          the same from the first column of a CSV, or a .f64 file\n"
    "  --error            pdf, cdf: add the quadrature's error estimate column\n"
    "  --n N, --seed S, --first K   sample: count, seed (default 1), index of the first sample\n"
    "  --out FILE         sample: raw little-endian doubles if FILE ends in .f64, else one per line\n"
    "  --device SPEC      as CLSTAT_DEVICE: gpu, cpu, nvidia, pocl, P:D or a name substring\n"
    "Output: CSV with a header, one row per point: x,pdf[,pdf_error] (and so on), or p,quantile.\n";

std::vector<double> parse_list(const std::string& s) {
  std::vector<double> v;
  std::istringstream in(s);
  std::string f;
  while (std::getline(in, f, ',')) {
    std::size_t used = 0;
    const double d = std::stod(f, &used);
    if (used != f.size()) throw std::invalid_argument("not a number: '" + f + "'");
    v.push_back(d);
  }
  return v;
}

}  // namespace

int stable_command(int argc, char** argv) {
  if (argc < 1) {
    std::cerr << k_usage;
    return 2;
  }
  const std::string what = argv[0];
  if (what == "--help" || what == "-h") return std::cout << k_usage, 0;
  std::string xs, at, out, device;
  clstat::stable::Params p;
  bool have_alpha = false, have_beta = false, error = false;
  std::size_t n = 0;
  std::uint64_t seed = 1, first = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&] { return next_value(i, argc, argv); };
    if (a == "--alpha") p.alpha = std::stod(value()), have_alpha = true;
    else if (a == "--beta") p.beta = std::stod(value()), have_beta = true;
    else if (a == "--scale") p.scale = std::stod(value());
    else if (a == "--loc") p.loc = std::stod(value());
    else if (a == "--param") {
      const std::string v = value();
      if (v != "0" && v != "1") throw std::invalid_argument("--param is 0 or 1");
      p.param = v == "0" ? clstat::stable::Param::S0 : clstat::stable::Param::S1;
    } else if (a == "--x") xs = value();
    else if (a == "--at") at = value();
    else if (a == "--error") error = true;
    else if (a == "--n") n = static_cast<std::size_t>(std::stoull(value()));
    else if (a == "--seed") seed = std::stoull(value());
    else if (a == "--first") first = std::stoull(value());
    else if (a == "--out") out = value();
    else if (a == "--device") device = value();
    else if (a == "--help" || a == "-h") return std::cout << k_usage, 0;
    else {
      std::cerr << "clstat stable: unknown argument '" << a << "'\n" << k_usage;
      return 2;
    }
  }
  if (!have_alpha || !have_beta) {
    std::cerr << "clstat stable: --alpha and --beta are required\n" << k_usage;
    return 2;
  }
  clstat::stable::check(p);
  const clstat::Context ctx = context_for(device);
  namespace st = clstat::stable;
  std::cout.precision(17);
  if (what == "sample") {
    if (n == 0) {
      std::cerr << "clstat stable: sample needs --n N > 0\n";
      return 2;
    }
    const std::vector<double> y = st::sample(ctx, n, p, seed, first);
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
    std::cerr << "clstat stable: give the points by exactly one of --x and --at\n" << k_usage;
    return 2;
  }
  std::vector<double> x;
  if (!xs.empty()) x = parse_list(xs);
  else {
    const Table t = read_table(at, "1", at.size() > 4 && at.substr(at.size() - 4) == ".f64" ? 1 : 0);
    x = t.values;
  }
  if (what == "pdf" || what == "cdf") {
    const st::PdfCdf v = st::pdf_cdf(ctx, x.data(), x.size(), p);
    const auto& val = what == "pdf" ? v.pdf : v.cdf;
    const auto& err = what == "pdf" ? v.pdf_error : v.cdf_error;
    std::cout << "x," << what << (error ? "," + what + "_error" : "") << "\n";
    for (std::size_t i = 0; i < x.size(); ++i) {
      std::cout << x[i] << "," << val[i];
      if (error) std::cout << "," << err[i];
      std::cout << "\n";
    }
  } else if (what == "sf") {
    const auto v = st::sf(ctx, x.data(), x.size(), p);
    std::cout << "x,sf\n";
    for (std::size_t i = 0; i < x.size(); ++i) std::cout << x[i] << "," << v[i] << "\n";
  } else if (what == "quantile" || what == "isf") {
    const auto v = what == "quantile" ? st::quantile(ctx, x.data(), x.size(), p) : st::isf(ctx, x.data(), x.size(), p);
    std::cout << "p," << what << "\n";
    for (std::size_t i = 0; i < x.size(); ++i) std::cout << x[i] << "," << v[i] << "\n";
  } else {
    std::cerr << "clstat stable: unknown function '" << what << "'\n" << k_usage;
    return 2;
  }
  return 0;
}

}  // namespace clstat_cli
