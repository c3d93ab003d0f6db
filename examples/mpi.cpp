// examples/mpi.cpp: one data set spread over MPI processes, each holding its own rows: the exact
// median over all of them and least trimmed squares (R: robustbase::ltsReg) with the rows staying
// where they are. Run under mpirun (ctest runs it on 2 processes); every process gets the same
// answers, and process 0 checks them against one process holding everything.
#include <clstat/mpi.hpp>

#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int ok = 1;
  {
    // This process's device: a GPU of the host by its rank there, else the default device.
    const clstat::Context ctx(clstat::mpi::rank_device(MPI_COMM_WORLD));
    if (ctx.info().fp64) {  // doubles need fp64
      // Every process makes the same rows here and keeps its share [lo, hi); a real program
      // would read only its share (as `clstat robust lts --mpi` does).
      const std::size_t n = 100000, p = 3;
      std::mt19937_64 rng(7);
      std::normal_distribution<double> z;
      std::vector<double> x(n * p), y(n);
      for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t j = 0; j < p; ++j) x[i * p + j] = z(rng);
        y[i] = 2 + x[i * p] - x[i * p + 1] + 0.5 * x[i * p + 2] + 0.1 * z(rng);
        if (i % 4 == 0) y[i] += 15;  // a quarter of the rows are gross outliers
      }
      const std::size_t lo = n * rank / size, hi = n * (rank + 1) / size;
      const double med = clstat::mpi::median(ctx, MPI_COMM_WORLD, y.data() + lo, hi - lo);
      const clstat::robust::LtsFit f =
          clstat::mpi::lts(ctx, MPI_COMM_WORLD, x.data() + lo * p, hi - lo, p, y.data() + lo);
      // Per-row results are each process's own rows: count the outliers over all of them.
      unsigned long long flagged = f.outliers.size();
      MPI_Allreduce(MPI_IN_PLACE, &flagged, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
      if (rank == 0) {
        std::printf("%d processes: median of y %.6f; LTS coefficients %.4f %.4f %.4f %.4f (2, 1, -1, 0.5), %llu of %zu rows flagged\n",
                    size, med, f.coefficients[0], f.coefficients[1], f.coefficients[2], f.coefficients[3], flagged, n);
        // One process with all the rows: the same median bit for bit, the same fit to rounding.
        const clstat::robust::LtsFit one = clstat::robust::lts(ctx, x.data(), n, p, y.data());
        ok = med == clstat::order::median(ctx, y.data(), n) && one.outliers.size() == flagged;
        for (std::size_t j = 0; j <= p; ++j) ok &= std::abs(f.coefficients[j] - one.coefficients[j]) < 1e-9;
      }
    }
  }
  MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Finalize();
  return ok ? 0 : 1;
}
