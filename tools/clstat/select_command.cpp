// clstat select: the median, k-th smallest values or sample quantiles (weighted, with a column
// of weights) of one column of a CSV or of a raw .f64 / .f32 file, computed on the device by
// clstat::order; CSV to stdout.
#include "select_command.hpp"

#include <cmath>
#include <cstdint>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "clstat/group.hpp"
#include "clstat/order.hpp"
#ifdef CLSTAT_CLI_MPI
#include "clstat/mpi.hpp"
#endif
#include "cli_common.hpp"
#include "mpi_run.hpp"
#include "table_input.hpp"

namespace clstat_cli {
namespace {

const char* k_usage =
    "usage: clstat select median|kth|quantile|topk --data FILE [--column C] [--k K1,K2,...] [--p P1,P2,...]\n"
    "                     [--type 1..9] [--weights C] [--method auto|radix|cutting-plane|sort]\n"
    "                     [--nan propagate|omit|raise] [--device SPEC]\n"
    "  --data FILE        a CSV (one column is read: the first, or --column) or raw little-endian\n"
    "                     .f64 / .f32 values\n"
    "  --column C         the CSV column by header name or 1-based position (default 1)\n"
    "  --k K1,K2,...      kth: the ranks, 1 for the minimum, n for the maximum; topk: one count K\n"
    "  --smallest         topk: the K smallest (default: the K largest)\n"
    "  --p P1,P2,...      quantile: probabilities in [0, 1]\n"
    "  --type T           quantile: Hyndman-Fan type 1..9, as R's quantile(type = T) (default 7)\n"
    "  --weights C        median and quantile: the CSV column (name or position) of each row's\n"
    "                     weight (finite, >= 0). quantile --type 1 is NumPy's weighted\n"
    "                     inverted_cdf, --type 7 Hmisc::wtd.quantile; median is the lower weighted\n"
    "                     median (type 1 at 0.5). One device\n"
    "  --method M         auto (default) or radix: radix selection; cutting-plane: Beliakov's\n"
    "                     method, made exact; sort: the sort baseline\n"
    "  --nan P            propagate (default: any NaN makes the result NaN), omit, or raise\n"
    "  --device SPEC      as CLSTAT_DEVICE: gpu, cpu, nvidia, pocl, P:D or a name substring; \"all\"\n"
    "                     or a comma-separated list splits the data over those devices\n"
    "  --mpi              under mpirun: each process reads its share of the rows (a raw file from\n"
    "                     its offset) and uses its own device (--device, else the host's GPUs by\n"
    "                     rank); process 0 prints the answer, the same as one process gives\n"
    "Values are read as double (.f32 files as float, exactly). Output: CSV with a header:\n"
    "statistic,value (median), k,value (kth), p,quantile, or rank,value,row (topk: the values from the\n"
    "largest down, or the smallest up, with their 1-based data rows, the lower row first among ties;\n"
    "one device).\n";

std::string number(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}


// The statistic asked for, printed as CSV (when `print`), by the order statistics `ord` (one
// device, a DeviceGroup or the processes of an MPI run) over x, of n values in all.
template <class Ord>
int answer(Ord&& ord, const std::string& what, const std::vector<double>& x, std::size_t n, const std::string& ks_text,
           const std::string& ps_text, int type, bool print) {
  if (what == "kth" && ord.weighted())
    throw std::invalid_argument("--weights is for median and quantile");
  if (what == "median") {
    const double m = ord.median(x);
    if (print) std::cout << "statistic,value\nmedian," << number(m) << "\n";
  } else if (what == "kth") {
    if (ks_text.empty()) throw std::invalid_argument("kth needs --k K1,K2,...");
    std::vector<std::uint64_t> ks;
    for (auto k : parse_counts("--k", ks_text, 1, n)) ks.push_back(k);
    const auto v = ord.kth(x, ks);
    if (print) {
      std::cout << "k,value\n";
      for (std::size_t i = 0; i < ks.size(); ++i) std::cout << ks[i] << "," << number(v[i]) << "\n";
    }
  } else {
    if (ps_text.empty()) throw std::invalid_argument("quantile needs --p P1,P2,...");
    const auto ps = parse_list("--p", ps_text);
    const auto q = ord.quantiles(x, ps, type);
    if (print) {
      std::cout << "p,quantile\n";
      for (std::size_t i = 0; i < ps.size(); ++i) std::cout << number(ps[i]) << "," << number(q[i]) << "\n";
    }
  }
  return 0;
}

// One device (a Context) or a DeviceGroup: all the values here.
template <class On>
struct Local {
  const On& on;
  clstat::order::Options o;
  bool weighted() const { return false; }
  double median(const std::vector<double>& x) const { return clstat::order::median(on, x.data(), x.size(), o); }
  std::vector<double> kth(const std::vector<double>& x, const std::vector<std::uint64_t>& ks) const {
    return clstat::order::kth_smallest(on, x.data(), x.size(), ks, o);
  }
  std::vector<double> quantiles(const std::vector<double>& x, const std::vector<double>& ps, int type) const {
    return clstat::order::quantiles(on, x.data(), x.size(), ps, type, o);
  }
};

// One device, each value with its weight.
struct Weighted {
  const clstat::Context& ctx;
  clstat::order::Options o;
  std::vector<double> w;
  bool weighted() const { return true; }
  double median(const std::vector<double>& x) const {
    return clstat::order::weighted_median(ctx, x.data(), w.data(), x.size(), o);
  }
  std::vector<double> kth(const std::vector<double>&, const std::vector<std::uint64_t>&) const { return {}; }
  std::vector<double> quantiles(const std::vector<double>& x, const std::vector<double>& ps, int type) const {
    if (type != 1 && type != 7) throw std::invalid_argument("--weights takes --type 1 or 7");
    return clstat::order::weighted_quantiles(ctx, x.data(), w.data(), x.size(), ps, type, o);
  }
};

#ifdef CLSTAT_CLI_MPI
// This process's share of the values, the others' on theirs.
struct OverMpi {
  const clstat::Context& ctx;
  clstat::order::Options o;
  bool weighted() const { return false; }
  double median(const std::vector<double>& x) const {
    return clstat::mpi::median(ctx, MPI_COMM_WORLD, x.data(), x.size(), o);
  }
  std::vector<double> kth(const std::vector<double>& x, const std::vector<std::uint64_t>& ks) const {
    return clstat::mpi::kth_smallest(ctx, MPI_COMM_WORLD, x.data(), x.size(), ks, o);
  }
  std::vector<double> quantiles(const std::vector<double>& x, const std::vector<double>& ps, int type) const {
    return clstat::mpi::quantiles(ctx, MPI_COMM_WORLD, x.data(), x.size(), ps, type, o);
  }
};

#endif
}  // namespace

int select_command(int argc, char** argv) {
  if (argc < 1 || std::string(argv[0]) == "--help" || std::string(argv[0]) == "-h") {
    (argc < 1 ? std::cerr : std::cout) << k_usage;
    return argc < 1 ? 2 : 0;
  }
  const std::string what = argv[0];
  if (what != "median" && what != "kth" && what != "quantile" && what != "topk") {
    std::cerr << "clstat select: unknown statistic '" << what << "' (clstat select --help lists the options)\n";
    return 2;
  }
  std::string data, column = "1", device, ks_text, ps_text, weights;
  int type = 7;
  bool mpi = false, smallest = false;
  clstat::order::Options o;
  SeenOptions seen;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    seen.add(a);
    if (a == "--data") data = next_value(i, argc, argv);
    else if (a == "--column") column = next_value(i, argc, argv);
    else if (a == "--k") ks_text = next_value(i, argc, argv);
    else if (a == "--p") ps_text = next_value(i, argc, argv);
    else if (a == "--type") type = static_cast<int>(parse_count("--type", next_value(i, argc, argv), 1, 9));
    else if (a == "--device") device = next_value(i, argc, argv);
    else if (a == "--weights") weights = next_value(i, argc, argv);
    else if (a == "--mpi") mpi = true;
    else if (a == "--smallest") smallest = true;
    else if (a == "--method") {
      const std::string m = next_value(i, argc, argv);
      if (m == "auto") o.method = clstat::order::Method::automatic;
      else if (m == "radix") o.method = clstat::order::Method::radix;
      else if (m == "sort") o.method = clstat::order::Method::sort;
      else if (m == "cutting-plane") o.method = clstat::order::Method::cutting_plane;
      else throw std::invalid_argument("--method is auto, radix, cutting-plane or sort");
    } else if (a == "--nan") {
      const std::string p = next_value(i, argc, argv);
      if (p == "propagate") o.nan = clstat::order::NanPolicy::propagate;
      else if (p == "omit") o.nan = clstat::order::NanPolicy::omit;
      else if (p == "raise") o.nan = clstat::order::NanPolicy::raise;
      else throw std::invalid_argument("--nan is propagate, omit or raise");
    } else if (a == "--help" || a == "-h") {
      std::cout << k_usage;
      return 0;
    } else {
      std::cerr << "clstat select: unknown argument '" << a << "' (clstat select --help lists the options)\n";
      return 2;
    }
  }
  if (data.empty()) {
    std::cerr << "clstat select: needs --data FILE (clstat select --help lists the options)\n";
    return 2;
  }
  const bool raw = ends_with(data, ".f64") || ends_with(data, ".f32");
  if (smallest && what != "topk") throw std::invalid_argument("--smallest is for topk");
  if (!weights.empty()) {
    if (what != "median" && what != "quantile") throw std::invalid_argument("--weights is for median and quantile");
    if (raw) throw std::invalid_argument("--weights names a CSV column (the data is a raw file)");
    if (mpi || names_group(device)) throw std::invalid_argument("--weights takes one device (no --mpi, no device list)");
    const Table t = read_table(data, column + "," + weights, 0);
    std::vector<double> x(t.rows), w(t.rows);
    for (std::size_t r = 0; r < t.rows; ++r) {
      x[r] = t.values[2 * r];
      w[r] = t.values[2 * r + 1];
    }
    const clstat::Context ctx = context_for(device);
    return answer(Weighted{ctx, o, std::move(w)}, what, x, x.size(), ks_text, ps_text, type, true);
  }
  if (what == "topk") {
    if (mpi || names_group(device)) throw std::invalid_argument("topk takes one device (no --mpi, no device list)");
    if (ks_text.empty()) throw std::invalid_argument("topk needs --k K");
    const std::vector<double> x = read_table(data, raw ? "" : column, raw ? 1 : 0).values;
    const auto ks = parse_counts("--k", ks_text, 1, x.size());
    if (ks.size() != 1) throw std::invalid_argument("topk takes one count --k K");
    const auto top = clstat::order::top_k(context_for(device), x.data(), x.size(), ks[0], !smallest, o);
    std::cout << "rank,value,row\n";
    for (std::size_t i = 0; i < top.values.size(); ++i)
      std::cout << i + 1 << "," << number(top.values[i]) << "," << top.indices[i] + 1 << "\n";
    return 0;
  }
  if (mpi) {
#ifdef CLSTAT_CLI_MPI
    return with_mpi("clstat select", [&](int rank, int size) {
      const clstat::Context ctx(clstat::mpi::rank_device(MPI_COMM_WORLD, device));
      const std::vector<double> x =
          read_table_part(data, raw ? "" : column, raw ? 1 : 0, static_cast<std::size_t>(rank), static_cast<std::size_t>(size)).values;
      std::uint64_t n = x.size();
      MPI_Allreduce(MPI_IN_PLACE, &n, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
      return answer(OverMpi{ctx, o}, what, x, n, ks_text, ps_text, type, rank == 0);
    });
#else
    throw std::invalid_argument("--mpi: this clstat was built without MPI (CMake found no MPI; Debian: libopenmpi-dev)");
#endif
  }
  const std::vector<double> x = read_table(data, raw ? "" : column, raw ? 1 : 0).values;
  // "all" or a list of devices: the data split over them (clstat/group.hpp), the same answer.
  if (names_group(device)) {
    const clstat::DeviceGroup g = clstat::DeviceGroup::from_spec(device);
    return answer(Local<clstat::DeviceGroup>{g, o}, what, x, x.size(), ks_text, ps_text, type, true);
  }
  const clstat::Context ctx = context_for(device);
  return answer(Local<clstat::Context>{ctx, o}, what, x, x.size(), ks_text, ps_text, type, true);
}

}  // namespace clstat_cli
