// clstat bandwidth: a bandwidth selector on a data file; prints h (per column, in data units, for
// every method) or H row-major, lscv-h's multiplier of S^(1/2), and the LSCV objective where there
// is one.
#include "bandwidth_command.hpp"

#include <cstdio>
#include <iostream>
#include <sstream>
#include <stdexcept>

#include "clstat/clstat.hpp"
#include "clstat/group.hpp"
#ifdef CLSTAT_CLI_MPI
#include "clstat/mpi.hpp"
#endif
#include "cli_common.hpp"
#include "mpi_run.hpp"
#include "progress.hpp"
#include "table_input.hpp"

namespace clstat_cli {
namespace {

const char* k_usage =
    "usage: clstat bandwidth --data FILE --method M [options]\n"
    "  --data FILE        observations: CSV (header detected) or raw little-endian .f64/.f32 with --dims\n"
    "  --columns a,b      columns to use, by header name or 1-based position (default: all)\n"
    "  --dims d           values per row of .f64/.f32 input\n"
    "  --method M         normal-scale  H = (4/((d+2)n))^(2/(d+4)) S   (ks::Hns, scipy 'silverman')\n"
    "                     scott         H = n^(-2/(d+4)) S             (scipy 'scott')\n"
    "                     silverman     per column 0.9 min(sd, IQR/1.34) n^(-1/5)  (R bw.nrd0)\n"
    "                     plugin        exact Wand-Jones direct plug-in per column (KernSmooth::dpik)\n"
    "                     scv-h         exact smoothed cross-validation per column (ks::hscv)\n"
    "                     lscv-h        LSCV over H = h^2 S (ks::hlscv for d = 1)\n"
    "                     lscv-H        LSCV over full H by Nelder-Mead (ks::Hlscv)\n"
    "                     plugin-H      exact unconstrained plug-in H, d = 2..6 (ks::Hpi, binned = FALSE)\n"
    "                     scv-H         exact smoothed cross-validation over full H, d = 2..6 (ks::Hscv)\n"
    "  --scale minim|sd   plugin: scale of the normal reference (default minim)\n"
    "  --stages 1|2       plugin, plugin-H, scv-h, scv-H: functional-estimation stages (default 2)\n"
    "  --pilot P          plugin-H, scv-H: auto (samse for d = 2, dscalar above: ks's choice), samse,\n"
    "                     dscalar, or for plugin-H samse-ks (ks 1.14's two-stage SAMSE with its psi_6\n"
    "                     lookup, to reproduce ks::Hpi's numbers)\n"
    "  --grid N           lscv-h: grid points over [h0/4, 4 h0] (default 150)\n"
    "  --restarts N       lscv-H: extra Nelder-Mead runs from scaled starts (default 3, at most 6)\n"
    "  --accept-nonconverged  lscv-H, plugin-H, scv-H: exit 0 with the best point found when the search\n"
    "                     stops at its cap (3000 evaluations, 200 Newton or BFGS steps; otherwise it is\n"
    "                     printed and the exit status is 1)\n"
    "  --json             JSON instead of text\n"
    "  --device SPEC      as CLSTAT_DEVICE: gpu, cpu, nvidia, pocl, P:D or a name substring; with\n"
    "                     plugin, lscv-h and lscv-H also \"all\" or a comma-separated list: the pair\n"
    "                     sums split over them\n"
    "  --mpi              plugin, lscv-h, lscv-H under mpirun: each process reads its share of the\n"
    "                     rows (a raw file from its offset) and uses its own device (--device, else\n"
    "                     the host's GPUs by local rank); process 0 prints\n"
    "Output: 'h' values (data units, every method; lscv-h adds H and 'lscv_multiplier', H's multiple\n"
    "of S^(1/2)), or 'H' row-major,\n"
    "then 'objective' for the LSCV methods, plugin-H (its AMISE estimate PI(H) in sphered units, ks's\n"
    "PI.star) and scv-H (SCV(H), ks's SCV.star); plugin-H and scv-H add 'pilot_g'. lscv-H reports\n"
    "progress on stderr.\n";

void print_list(std::ostream& o, const std::vector<double>& v) {
  for (std::size_t i = 0; i < v.size(); ++i) o << (i ? "," : "") << v[i];
}

// The result, as text or JSON (the search's evaluations or Newton steps and convergence when
// `extra` is given; plugin-H's pilot when pilot_g > 0).
void print_result(bool json, const std::string& method, std::uint64_t n, std::size_t d, const std::vector<double>& h,
                  const std::vector<double>& H, double multiplier, bool has_objective, double objective,
                  const std::string& extra, bool converged, double pilot_g) {
  const char* steps = method == "plugin-H" ? "newton_steps" : method == "scv-H" ? "bfgs_steps" : "evaluations";
  std::cout.precision(17);
  if (json) {
    std::cout << "{\"method\": \"" << method << "\", \"n\": " << n << ", \"d\": " << d;
    if (!h.empty()) std::cout << ", \"h\": [", print_list(std::cout, h), std::cout << "]";
    if (!H.empty()) std::cout << ", \"H\": [", print_list(std::cout, H), std::cout << "]";
    if (multiplier > 0) std::cout << ", \"lscv_multiplier\": " << multiplier;
    if (has_objective) std::cout << ", \"objective\": " << objective;
    if (pilot_g > 0) std::cout << ", \"pilot_g\": " << pilot_g;
    if (!extra.empty()) std::cout << ", \"" << steps << "\": " << extra << ", \"converged\": " << (converged ? "true" : "false");
    std::cout << "}\n";
  } else {
    if (!h.empty()) std::cout << "h ", print_list(std::cout, h), std::cout << "\n";
    if (!H.empty()) std::cout << "H ", print_list(std::cout, H), std::cout << "\n";
    if (multiplier > 0) std::cout << "lscv_multiplier " << multiplier << "\n";
    if (has_objective) std::cout << "objective " << objective << "\n";
    if (pilot_g > 0) std::cout << "pilot_g " << pilot_g << "\n";
    if (!extra.empty()) std::cout << steps << " " << extra << "\nconverged " << (converged ? "yes" : "no") << "\n";
  }
}

}  // namespace

int bandwidth_command(int argc, char** argv) {
  std::string data, columns, method, scale = "minim", device, pilot = "auto";
  std::size_t dims = 0, grid = 150, restarts = 3;
  int stages = 2;
  bool json = false, converged = true, accept_nonconverged = false, mpi = false;
  SeenOptions seen;
  for (int i = 0; i < argc; ++i) {
    const std::string a = argv[i];
    seen.add(a);
    auto value = [&] { return next_value(i, argc, argv); };
    if (a == "--data") data = value();
    else if (a == "--columns") columns = value();
    else if (a == "--dims") dims = parse_count("--dims", value(), 1, 64);
    else if (a == "--method") method = value();
    else if (a == "--scale") scale = value();
    else if (a == "--pilot") pilot = value();
    else if (a == "--stages") stages = static_cast<int>(parse_count("--stages", value(), 1, 2));
    else if (a == "--grid") grid = parse_count("--grid", value(), 3, 100000);
    else if (a == "--restarts") restarts = parse_count("--restarts", value(), 0, 6);
    else if (a == "--device") device = value();
    else if (a == "--json") json = true;
    else if (a == "--mpi") mpi = true;
    else if (a == "--accept-nonconverged") accept_nonconverged = true;
    else if (a == "--help" || a == "-h") return std::cout << k_usage, 0;
    else {
      std::cerr << "clstat bandwidth: unknown argument '" << a << "' (clstat bandwidth --help lists the options)\n";
      return 2;
    }
  }
  auto print = [&](const std::string& m, std::uint64_t n, std::size_t d, const std::vector<double>& h,
                   const std::vector<double>& H, double multiplier, bool has_objective, double objective,
                   const std::string& extra, bool converged) {
    print_result(json, m, n, d, h, H, multiplier, has_objective, objective, extra, converged, 0);
  };
  if (data.empty() || method.empty()) {
    std::cerr << "clstat bandwidth: --data and --method are required (clstat bandwidth --help lists the options)\n";
    return 2;
  }
  // Options of one method given with another would be ignored: say so instead.
  auto only_for = [&](const char* opt, const char* for_method, const char* or_method = "") {
    if (seen.has(opt) && method != for_method && method != or_method)
      throw std::invalid_argument(std::string(opt) + " applies to --method " + for_method +
                                  (*or_method ? std::string(" and ") + or_method : std::string()) + ", not " + method);
  };
  if (seen.has("--stages") && method != "plugin" && method != "plugin-H" && method != "scv-h" && method != "scv-H")
    throw std::invalid_argument("--stages applies to --method plugin, plugin-H, scv-h and scv-H, not " + method);
  only_for("--pilot", "plugin-H", "scv-H");
  only_for("--scale", "plugin");
  only_for("--grid", "lscv-h");
  only_for("--restarts", "lscv-H");
  if (seen.has("--accept-nonconverged") && method != "lscv-H" && method != "plugin-H" && method != "scv-H")
    throw std::invalid_argument("--accept-nonconverged applies to --method lscv-H, plugin-H and scv-H, not " + method);
  if (scale != "minim" && scale != "sd") {
    std::cerr << "clstat bandwidth: --scale is minim or sd\n";
    return 2;
  }
  namespace bw = clstat::bandwidth;
  bw::MatrixSelectorOptions matrix_options;
  matrix_options.stages = stages;
  try {
    matrix_options.pilot = bw::matrix_pilot(pilot);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(std::string("--pilot: ") + e.what());
  }
  const bw::PluginOptions plugin_options{stages, scale == "sd" ? bw::Scale::sd : bw::Scale::minim};
  if (mpi) {
    if (method != "plugin" && method != "lscv-h" && method != "lscv-H")
      throw std::invalid_argument("--mpi splits --method plugin, lscv-h and lscv-H; " + method + " takes one process");
    if (names_group(device)) throw std::invalid_argument("--mpi takes one device per process, not a list");
#ifdef CLSTAT_CLI_MPI
    return with_mpi("clstat bandwidth", [&](int rank, int size) {
      const clstat::Context ctx(clstat::mpi::rank_device(MPI_COMM_WORLD, device));
      const Table part = read_table_part(data, columns, dims, static_cast<std::size_t>(rank), static_cast<std::size_t>(size));
      std::uint64_t n = part.rows;
      MPI_Allreduce(MPI_IN_PLACE, &n, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
      if (method == "plugin") {
        const std::vector<double> h =
            clstat::mpi::plugin(ctx, MPI_COMM_WORLD, part.values.data(), part.rows, part.cols, plugin_options);
        if (rank == 0) print(method, n, part.cols, h, {}, 0, false, 0, "", true);
        return 0;
      }
      if (method == "lscv-h") {
        bw::LscvOptions o;
        o.grid = grid;
        const auto r = clstat::mpi::lscv_h(ctx, MPI_COMM_WORLD, part.values.data(), part.rows, part.cols, o);
        if (rank == 0) print(method, n, part.cols, r.h, r.H, r.multiplier, true, r.objective, "", true);
        return 0;
      }
      bw::LscvMatrixOptions lo;
      lo.restarts = restarts;
      const auto r = clstat::mpi::lscv_H(ctx, MPI_COMM_WORLD, part.values.data(), part.rows, part.cols, lo);
      if (rank == 0) print(method, n, part.cols, {}, r.H, 0, true, r.objective, std::to_string(r.evaluations), r.converged);
      if (!r.converged && !accept_nonconverged) {
        if (rank == 0)
          std::cerr << "clstat bandwidth: lscv-H did not converge within " << r.evaluations
                    << " evaluations (--accept-nonconverged takes the best point found)\n";
        return 1;
      }
      return 0;
    });
#else
    throw std::invalid_argument("--mpi: this clstat was built without MPI (CMake found no MPI; Debian: libopenmpi-dev)");
#endif
  }
  const Table t = read_table(data, columns, dims);
  const double* x = t.values.data();
  const std::size_t n = t.rows, d = t.cols;
  std::vector<double> h, H;
  double objective = 0;
  bool has_objective = false;
  std::string extra;
  double multiplier = 0;  // lscv-h: the minimising multiple of S^(1/2) (h itself is in data units)
  double pilot_g = 0;     // plugin-H: the pilot bandwidth of psi_4 (sphered units)
  if (names_group(device) && method != "plugin" && method != "lscv-H" && method != "lscv-h")
    throw std::invalid_argument("--device " + device + ": a device list splits --method plugin, lscv-h and lscv-H; " +
                                method + " takes one device");
  auto context = [&] { return context_for(device); };
  if (method == "normal-scale") H = bw::normal_scale(x, n, d);
  else if (method == "scott") H = bw::scott(x, n, d);
  else if (method == "silverman") h = bw::silverman_rot(x, n, d);
  else if (method == "plugin")
    h = names_group(device) ? bw::plugin(clstat::DeviceGroup::from_spec(device), x, n, d, plugin_options)
                            : bw::plugin(context(), x, n, d, plugin_options);
  else if (method == "scv-h")
    h = bw::scv_h(context(), x, n, d, bw::ScvOptions{stages});
  else if (method == "lscv-h") {
    bw::LscvOptions o;
    o.grid = grid;
    const auto r = names_group(device) ? bw::lscv_h(clstat::DeviceGroup::from_spec(device), x, n, d, o)
                                       : bw::lscv_h(context(), x, n, d, o);
    h = r.h;
    H = r.H;
    multiplier = r.multiplier;
    objective = r.objective, has_objective = true;
    if (r.at_boundary)
      std::cerr << "clstat bandwidth: warning: the minimum is still at an end of the grid after moving it 16^8 from h0 "
                   "(the LSCV objective may keep falling there)\n";
  } else if (method == "plugin-H" || method == "scv-H") {
    const auto r = method == "plugin-H" ? bw::plugin_H(context(), x, n, d, matrix_options)
                                        : bw::scv_H(context(), x, n, d, matrix_options);
    H = r.H;
    objective = r.criterion, has_objective = true;
    extra = std::to_string(r.iterations);
    converged = r.converged;
    pilot_g = r.pilot_g;
  } else if (method == "lscv-H") {
    bw::LscvMatrixOptions o;
    o.restarts = restarts;
    clstat_tools::Progress progress("clstat bandwidth: lscv-H (evaluations, at most)");
    o.progress = [&](const clstat::ProgressReport& p) { progress.update(p.done, p.total); };
    const auto r = names_group(device) ? bw::lscv_H(clstat::DeviceGroup::from_spec(device), x, n, d, o)
                                       : bw::lscv_H(context(), x, n, d, o);
    progress.clear();
    std::fprintf(stderr, "clstat bandwidth: lscv-H: %zu evaluations, best %.12g%s\n", r.evaluations, r.objective,
                 r.converged ? "" : " (not converged)");
    H = r.H;
    objective = r.objective, has_objective = true;
    extra = std::to_string(r.evaluations);
    converged = r.converged;
  } else {
    std::cerr << "clstat bandwidth: unknown method '" << method << "' (clstat bandwidth --help lists the options)\n";
    return 2;
  }
  print_result(json, method, n, d, h, H, multiplier, has_objective, objective, extra, converged, pilot_g);
  // A search that stopped at its cap is printed but is not a success unless accepted.
  if (!converged && !accept_nonconverged) {
    std::cerr << "clstat bandwidth: " << method << " did not converge within " << extra
              << (method == "lscv-H" ? " evaluations" : method == "scv-H" ? " BFGS steps" : " Newton steps")
              << " (--accept-nonconverged takes the best point found)\n";
    return 1;
  }
  return 0;
}

}  // namespace clstat_cli
