// clstat robust: LTS (FAST-LTS, as robustbase::ltsReg) or LMS (as MASS::lqs) regression of one
// CSV column on others, or the MCD location and scatter of columns (FAST-MCD, as
// robustbase::covMcd), computed by clstat::robust; a table or one JSON object on stdout.
#include "robust_command.hpp"

#include <cstdio>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "clstat/group.hpp"
#include "clstat/robust.hpp"
#include "cli_common.hpp"
#include "mpi_run.hpp"
#include "table_input.hpp"

#ifdef CLSTAT_CLI_MPI
#include "clstat/mpi.hpp"
#endif

namespace clstat_cli {
namespace {

const char* k_usage =
    "usage: clstat robust lts|lms|mm --data FILE --response Y [--x A,B,...] [--alpha 0.5] [--no-intercept]\n"
    "                     [--nsamp N] [--exact] [--seed S] [--json] [--device SPEC] [--mpi (lts)]\n"
    "       clstat robust mcd --data FILE [--x A,B,...] [--alpha 0.5] [--nsamp N] [--seed S]\n"
    "                     [--no-correction] [--json] [--device SPEC]\n"
    "  --data FILE        a CSV with a header (or columns x1, x2, ... without one)\n"
    "  --response Y       the response column, by header name or 1-based position\n"
    "  --x A,B,...        the explanatory columns (default: every other column); mcd: the variables\n"
    "                     (default: every column)\n"
    "  --no-correction    mcd: no small-sample factors (robustbase's use.correction = FALSE)\n"
    "  --alpha A          coverage in [0.5, 1]: h = robustbase's h.alpha.n (default 0.5, the\n"
    "                     highest breakdown point); lms: h = floor((n + q + 1) / 2) unless --h\n"
    "  --h H              lms: the order statistic minimised\n"
    "  --no-intercept     fit without b_0\n"
    "  --nsamp N          random p-subsets (lts, mm and mcd default 500, as robustbase; lms 3000)\n"
    "  --exact            every p-subset (lts: n <= 2048)\n"
    "  --seed S           the Philox seed of the subsets (default 1592221421); the same on every device\n"
    "  --json             one JSON object instead of the table\n"
    "  --device SPEC      as CLSTAT_DEVICE: gpu, cpu, nvidia, pocl, P:D or a name substring; with\n"
    "                     lts also \"all\" or a comma-separated list: the C-steps shared out\n"
    "  --mpi              lts under mpirun: each process reads its share of the rows and keeps them;\n"
    "                     each C-step selects over all of them (one device per process, as --device\n"
    "                     or the host's GPUs by local rank); process 0 prints\n"
    "Rows are numbered from 1, as in R. lts prints the reweighted coefficients (robustbase's\n"
    "coefficients), the raw ones, both scales, the h-subset's objective and the outliers (weight 0).\n"
    "mm prints lmrob's MM coefficients with their standard errors (.vcov.avar1), the S-estimate\n"
    "they start from, the S-scale and the outliers (robustness weight below 0.1 / n).\n"
    "mcd prints the reweighted and raw centres, the reweighted covariance, log det of the best\n"
    "h-subset's covariance (robustbase's crit) and the outliers (squared distance past qchisq(0.975, p)).\n";

std::string num(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.10g", v);
  return buf;
}

#ifdef CLSTAT_CLI_MPI
// Every process's rows, in rank order (the split fit lists each process's own).
std::vector<std::size_t> all_rows(const std::vector<std::size_t>& mine) {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::vector<int> counts(static_cast<std::size_t>(size)), at(static_cast<std::size_t>(size), 0);
  const int m = static_cast<int>(mine.size());
  MPI_Allgather(&m, 1, MPI_INT, counts.data(), 1, MPI_INT, MPI_COMM_WORLD);
  for (std::size_t r = 1; r < counts.size(); ++r) at[r] = at[r - 1] + counts[r - 1];
  const std::vector<std::uint64_t> v(mine.begin(), mine.end());
  std::vector<std::uint64_t> all(static_cast<std::size_t>(at.back() + counts.back()));
  MPI_Allgatherv(v.data(), m, MPI_UINT64_T, all.data(), counts.data(), at.data(), MPI_UINT64_T, MPI_COMM_WORLD);
  return std::vector<std::size_t>(all.begin(), all.end());
}
#endif

std::string rows_text(const std::vector<std::size_t>& r, const char* sep) {
  std::string s;
  for (std::size_t i = 0; i < r.size(); ++i) s += (i ? sep : "") + std::to_string(r[i] + 1);
  return s;
}

// The MCD of the columns xc of t, printed.
int mcd_table(const Table& t, const std::vector<std::size_t>& xc, const clstat::robust::McdOptions& o,
              const clstat::Context& ctx, bool json) {
  const std::size_t n = t.rows, p = xc.size();
  std::vector<double> x(n * p);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < p; ++j) x[i * p + j] = t.values[i * t.cols + xc[j]];
  const auto f = clstat::robust::mcd(ctx, x.data(), n, p, o);
  auto vec = [&](const std::vector<double>& v) {
    std::string s = "{";
    for (std::size_t j = 0; j < p; ++j) s += (j ? ",\"" : "\"") + t.names[xc[j]] + "\":" + json_number(v[j]);
    return s + "}";
  };
  auto mat = [&](const std::vector<double>& m) {
    std::string s = "[";
    for (std::size_t a = 0; a < p; ++a) {
      s += a ? ",[" : "[";
      for (std::size_t b = 0; b < p; ++b) s += (b ? "," : "") + json_number(m[a * p + b]);
      s += "]";
    }
    return s + "]";
  };
  if (json) {
    std::cout << "{\"method\":\"mcd\",\"n\":" << n << ",\"p\":" << p << ",\"h\":" << f.h
              << ",\"center\":" << vec(f.center) << ",\"cov\":" << mat(f.cov) << ",\"raw_center\":" << vec(f.raw_center)
              << ",\"raw_cov\":" << mat(f.raw_cov) << ",\"crit\":" << json_number(f.crit) << ",\"cnp2\":["
              << json_number(f.cnp2[0]) << "," << json_number(f.cnp2[1]) << "],\"raw_cnp2\":["
              << json_number(f.raw_cnp2[0]) << "," << json_number(f.raw_cnp2[1]) << "],\"outliers\":["
              << rows_text(f.outliers, ",") << "],\"best\":[" << rows_text(f.best, ",")
              << "],\"exact_fit\":" << (f.exact_fit ? "true" : "false") << "}\n";
    return 0;
  }
  std::cout << "MCD, n = " << n << ", p = " << p << ", h = " << f.h << " (alpha " << o.alpha << ")\n"
            << "variable,center,raw_center\n";
  for (std::size_t j = 0; j < p; ++j)
    std::cout << t.names[xc[j]] << "," << num(f.center[j]) << "," << num(f.raw_center[j]) << "\n";
  std::cout << "covariance";
  for (std::size_t j = 0; j < p; ++j) std::cout << "," << t.names[xc[j]];
  std::cout << "\n";
  for (std::size_t a = 0; a < p; ++a) {
    std::cout << t.names[xc[a]];
    for (std::size_t b = 0; b < p; ++b) std::cout << "," << num(f.cov[a * p + b]);
    std::cout << "\n";
  }
  std::cout << "log det (crit) " << num(f.crit) << (f.exact_fit ? ", exact fit" : "") << "\n"
            << "outliers (" << f.outliers.size() << "): " << rows_text(f.outliers, " ") << "\n";
  return 0;
}

}  // namespace

int robust_command(int argc, char** argv) {
  if (argc < 1 || std::string(argv[0]) == "--help" || std::string(argv[0]) == "-h") {
    (argc < 1 ? std::cerr : std::cout) << k_usage;
    return argc < 1 ? 2 : 0;
  }
  const std::string what = argv[0];
  if (what != "lts" && what != "lms" && what != "mcd" && what != "mm") {
    std::cerr << "clstat robust: unknown method '" << what << "' (clstat robust --help lists the options)\n";
    return 2;
  }
  std::string data, response, xcols, device;
  bool json = false, nsamp_given = false, mpi = false;
  clstat::robust::LtsOptions lo;
  clstat::robust::LmsOptions mo;
  clstat::robust::McdOptions co;
  clstat::robust::MmOptions mmo;
  SeenOptions seen;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    seen.add(a);
    if (a == "--data") data = next_value(i, argc, argv);
    else if (a == "--response") response = next_value(i, argc, argv);
    else if (a == "--x") xcols = next_value(i, argc, argv);
    else if (a == "--alpha") co.alpha = lo.alpha = parse_real("--alpha", next_value(i, argc, argv));
    else if (a == "--no-correction") co.use_correction = false;
    else if (a == "--h") mo.h = parse_count("--h", next_value(i, argc, argv), 1);
    else if (a == "--no-intercept") lo.intercept = mo.intercept = mmo.intercept = false;
    else if (a == "--nsamp") {
      mmo.nsamp = co.nsamp = lo.nsamp = mo.nsamp = parse_count("--nsamp", next_value(i, argc, argv), 1);
      nsamp_given = true;
    } else if (a == "--exact") lo.exact = mo.exact = true;
    else if (a == "--seed") mmo.seed = co.seed = lo.seed = mo.seed = parse_count("--seed", next_value(i, argc, argv));
    else if (a == "--json") json = true;
    else if (a == "--device") device = next_value(i, argc, argv);
    else if (a == "--mpi") mpi = true;
    else if (a == "--help" || a == "-h") {
      std::cout << k_usage;
      return 0;
    } else {
      std::cerr << "clstat robust: unknown argument '" << a << "' (clstat robust --help lists the options)\n";
      return 2;
    }
  }
  if (what == "mcd" && !response.empty()) throw std::invalid_argument("mcd takes no --response (the variables are --x)");
  if (data.empty() || (response.empty() && what != "mcd")) {
    std::cerr << "clstat robust: needs --data FILE and --response Y (clstat robust --help lists the options)\n";
    return 2;
  }
  if (mpi) {
    if (what != "lts") throw std::invalid_argument("--mpi splits lts; " + what + " takes one process");
    if (names_group(device)) throw std::invalid_argument("--mpi takes one device per process, not a list");
#ifndef CLSTAT_CLI_MPI
    throw std::invalid_argument("--mpi: this clstat was built without MPI (CMake found no MPI; Debian: libopenmpi-dev)");
#endif
  }
  // The fit of the table's rows (with --mpi, this process's share of them; rank: its number).
  auto fit = [&](const Table& all, int rank) -> int {
    (void)rank;
    auto find = [&](const std::string& c) -> std::size_t {
      std::size_t hit = all.names.size();
      for (std::size_t j = 0; j < all.names.size(); ++j)
        if (all.names[j] == c) {
          if (hit != all.names.size())
            throw std::invalid_argument("column name '" + c + "' is ambiguous in " + data + " (columns " +
                                        std::to_string(hit + 1) + " and " + std::to_string(j + 1) + ")");
          hit = j;
        }
      if (hit != all.names.size()) return hit;
      if (!c.empty() && c.find_first_not_of("0123456789") == std::string::npos)
        return static_cast<std::size_t>(parse_count("column", c, 1, all.cols)) - 1;
      throw std::invalid_argument("no column '" + c + "' in " + data);
    };
    const std::size_t yc = what == "mcd" ? all.cols : find(response);
    std::vector<std::size_t> xc;
    if (xcols.empty()) {
      for (std::size_t j = 0; j < all.cols; ++j)
        if (j != yc) xc.push_back(j);
    } else {
      std::size_t s = 0;
      while (s <= xcols.size()) {
        const std::size_t e = std::min(xcols.find(',', s), xcols.size());
        xc.push_back(find(xcols.substr(s, e - s)));
        s = e + 1;
      }
    }
    for (std::size_t j = 0; j < xc.size(); ++j) {
      if (xc[j] == yc)
        throw std::invalid_argument("--x names the response column '" + all.names[yc] + "': y cannot be its own predictor");
      for (std::size_t k = 0; k < j; ++k)
        if (xc[k] == xc[j]) throw std::invalid_argument("--x names column '" + all.names[xc[j]] + "' twice");
    }
    const std::size_t n = all.rows, p = xc.size();
    if (names_group(device) && what != "lts")
      throw std::invalid_argument("--device " + device + ": a device list shares out lts's C-steps; " + what +
                                  " takes one device");
    if (what == "mcd") return mcd_table(all, xc, co, context_for(device), json);
    std::vector<double> x(n * p), y(n);
    for (std::size_t i = 0; i < n; ++i) {
      y[i] = all.values[i * all.cols + yc];
      for (std::size_t j = 0; j < p; ++j) x[i * p + j] = all.values[i * all.cols + xc[j]];
    }
    std::vector<std::string> names;
    if (lo.intercept) names.push_back("(Intercept)");
    for (auto j : xc) names.push_back(all.names[j]);
    auto ctx = [&] { return context_for(device); };
    if (what == "mm") {
      if (seen.has("--alpha") || seen.has("--exact") || seen.has("--h"))
        throw std::invalid_argument("mm takes no --alpha, --h or --exact (its breakdown point is 0.5)");
      const auto f = clstat::robust::mm(ctx(), x.data(), n, p, y.data(), mmo);
      if (json) {
        std::cout << "{\"method\":\"mm\",\"n\":" << n << ",\"coefficients\":{";
        for (std::size_t j = 0; j < names.size(); ++j)
          std::cout << (j ? "," : "") << "\"" << names[j] << "\":" << json_number(f.coefficients[j]);
        std::cout << "},\"std_errors\":{";
        for (std::size_t j = 0; j < names.size(); ++j)
          std::cout << (j ? "," : "") << "\"" << names[j] << "\":" << json_number(f.std_errors[j]);
        std::cout << "},\"init_coefficients\":{";
        for (std::size_t j = 0; j < names.size(); ++j)
          std::cout << (j ? "," : "") << "\"" << names[j] << "\":" << json_number(f.init_coefficients[j]);
        std::cout << "},\"scale\":" << json_number(f.scale) << ",\"outliers\":[" << rows_text(f.outliers, ",")
                  << "],\"converged\":" << (f.converged ? "true" : "false") << "}\n";
        return 0;
      }
      std::cout << "MM (lmrob), n = " << n << "\ncoefficient,estimate,std_error,S_estimate\n";
      for (std::size_t j = 0; j < names.size(); ++j)
        std::cout << names[j] << "," << num(f.coefficients[j]) << "," << num(f.std_errors[j]) << ","
                  << num(f.init_coefficients[j]) << "\n";
      std::cout << "scale " << num(f.scale) << "\n"
                << "outliers (" << f.outliers.size() << "): " << rows_text(f.outliers, " ") << "\n"
                << (f.converged ? "converged" : "did not converge") << "\n";
      return 0;
    }
    if (what == "lts") {
      clstat::robust::LtsFit f;
      if (mpi) {
#ifdef CLSTAT_CLI_MPI
        f = clstat::mpi::lts(clstat::Context(clstat::mpi::rank_device(MPI_COMM_WORLD, device)), MPI_COMM_WORLD, x.data(),
                             n, p, y.data(), lo);
        f.outliers = all_rows(f.outliers);
        f.best = all_rows(f.best);
        if (rank != 0) return 0;
#endif
      } else {
        f = names_group(device) ? clstat::robust::lts(clstat::DeviceGroup::from_spec(device), x.data(), n, p, y.data(), lo)
                                : clstat::robust::lts(ctx(), x.data(), n, p, y.data(), lo);
      }
      if (json) {
        std::cout << "{\"method\":\"lts\",\"n\":" << f.n << ",\"h\":" << f.h << ",\"coefficients\":{";
        for (std::size_t j = 0; j < names.size(); ++j)
          std::cout << (j ? "," : "") << "\"" << names[j] << "\":" << json_number(f.coefficients[j]);
        std::cout << "},\"raw_coefficients\":{";
        for (std::size_t j = 0; j < names.size(); ++j)
          std::cout << (j ? "," : "") << "\"" << names[j] << "\":" << json_number(f.raw_coefficients[j]);
        std::cout << "},\"scale\":" << json_number(f.scale) << ",\"raw_scale\":" << json_number(f.raw_scale)
                  << ",\"objective\":" << json_number(f.objective)
                  << ",\"crit_robustbase\":" << json_number(f.crit_robustbase) << ",\"outliers\":["
                  << rows_text(f.outliers, ",") << "],\"best\":[" << rows_text(f.best, ",")
                  << "],\"exact_fit\":" << (f.exact_fit ? "true" : "false") << ",\"starts\":" << f.starts
                  << ",\"singular_starts\":" << f.singular_starts << ",\"csteps\":" << f.csteps
                  << ",\"converged\":" << (f.converged ? "true" : "false") << "}\n";
        return 0;
      }
      std::cout << "LTS, n = " << f.n << ", h = " << f.h << " (alpha " << lo.alpha << ")\n"
                << "coefficient,reweighted,raw\n";
      for (std::size_t j = 0; j < names.size(); ++j)
        std::cout << names[j] << "," << num(f.coefficients[j]) << "," << num(f.raw_coefficients[j]) << "\n";
      std::cout << "scale " << num(f.scale) << " (raw " << num(f.raw_scale) << ")\n"
                << "objective " << num(f.objective) << " (robustbase crit " << num(f.crit_robustbase) << ")\n"
                << "outliers (" << f.outliers.size() << "): " << rows_text(f.outliers, " ") << "\n"
                << "starts " << f.starts << " (" << f.singular_starts << " singular), C-steps " << f.csteps
                << (f.converged ? ", converged" : ", stopped at the C-step cap") << (f.exact_fit ? ", exact fit" : "")
                << "\n";
      return 0;
    }
    if (!nsamp_given) mo.nsamp = 3000;
    const auto f = clstat::robust::lms(ctx(), x.data(), n, p, y.data(), mo);
    if (json) {
      std::cout << "{\"method\":\"lms\",\"n\":" << n << ",\"h\":" << f.h << ",\"coefficients\":{";
      for (std::size_t j = 0; j < names.size(); ++j)
        std::cout << (j ? "," : "") << "\"" << names[j] << "\":" << json_number(f.coefficients[j]);
      std::cout << "},\"crit\":" << json_number(f.crit) << ",\"scale\":[" << json_number(f.scale[0]) << ","
                << json_number(f.scale[1]) << "],\"outliers\":[" << rows_text(f.outliers, ",") << "],\"best\":["
                << rows_text(f.best, ",") << "],\"starts\":" << f.starts << ",\"exhaustive\":"
                << (f.exhaustive ? "true" : "false") << "}\n";
      return 0;
    }
    std::cout << "LMS, n = " << n << ", h = " << f.h << "\ncoefficient,value\n";
    for (std::size_t j = 0; j < names.size(); ++j) std::cout << names[j] << "," << num(f.coefficients[j]) << "\n";
    std::cout << "crit " << num(f.crit) << " (the h-th smallest squared residual)\n"
              << "scale " << num(f.scale[0]) << " " << num(f.scale[1]) << "\n"
              << "outliers (" << f.outliers.size() << "): " << rows_text(f.outliers, " ") << "\n"
              << "subsets " << f.starts << (f.exhaustive ? " (all)" : "") << ", best " << rows_text(f.best, " ") << "\n";
    return 0;
  };
#ifdef CLSTAT_CLI_MPI
  if (mpi)
    return with_mpi("clstat robust", [&](int rank, int size) {
      return fit(read_table_part(data, "", 0, static_cast<std::size_t>(rank), static_cast<std::size_t>(size)), rank);
    });
#endif
  return fit(read_table(data, "", 0), 0);
}

}  // namespace clstat_cli
