// clstat::mpi::Comm: the Exchange over an MPI communicator, and each process's device.
#include <climits>
#include <stdexcept>
#include <string>

#include "clstat/mpi.hpp"

namespace clstat::mpi {

namespace {
void check(int rc, const char* call) {
  if (rc == MPI_SUCCESS) return;
  char msg[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, msg, &len);
  throw std::runtime_error(std::string("clstat::mpi: ") + call + ": " + std::string(msg, static_cast<std::size_t>(len)));
}
}  // namespace

Comm::Comm(MPI_Comm comm) : comm_(comm) {
  check(MPI_Comm_rank(comm_, &rank_), "MPI_Comm_rank");
  check(MPI_Comm_size(comm_, &size_), "MPI_Comm_size");
}

void Comm::sum(std::vector<std::uint64_t>& v) {
  if (v.size() > static_cast<std::size_t>(INT_MAX)) throw std::length_error("clstat::mpi::Comm::sum: too many counts");
  check(MPI_Allreduce(MPI_IN_PLACE, v.data(), static_cast<int>(v.size()), MPI_UINT64_T, MPI_SUM, comm_),
        "MPI_Allreduce");
}

std::vector<unsigned char> Comm::gather(const std::vector<unsigned char>& mine) {
  // Every size first (as 64-bit counts, so that one too large for MPI's int fails alike on all).
  std::vector<std::uint64_t> sizes(static_cast<std::size_t>(size_));
  const std::uint64_t n = mine.size();
  check(MPI_Allgather(&n, 1, MPI_UINT64_T, sizes.data(), 1, MPI_UINT64_T, comm_), "MPI_Allgather");
  std::vector<int> counts(sizes.size()), displs(sizes.size());
  std::uint64_t at = 0;
  for (std::size_t r = 0; r < sizes.size(); ++r) {
    if (at + sizes[r] > static_cast<std::uint64_t>(INT_MAX))
      throw std::length_error("clstat::mpi::Comm::gather: more than 2 GiB over the processes");
    counts[r] = static_cast<int>(sizes[r]);
    displs[r] = static_cast<int>(at);
    at += sizes[r];
  }
  std::vector<unsigned char> all(static_cast<std::size_t>(at));
  check(MPI_Allgatherv(mine.data(), static_cast<int>(n), MPI_UNSIGNED_CHAR, all.data(), counts.data(), displs.data(),
                       MPI_UNSIGNED_CHAR, comm_),
        "MPI_Allgatherv");
  return all;
}

Device rank_device(MPI_Comm comm, const std::string& spec) {
  // Collective in every case, so that the processes that pass a spec do not leave the others
  // waiting in the split.
  MPI_Comm host;
  check(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &host), "MPI_Comm_split_type");
  int local = 0;
  const int rc = MPI_Comm_rank(host, &local);
  MPI_Comm_free(&host);
  check(rc, "MPI_Comm_rank");
  if (!spec.empty()) return select_device(spec);
  std::vector<Device> gpus;
  for (const Device& d : devices())
    if (d.info().type == DeviceType::gpu) gpus.push_back(d);
  if (gpus.empty()) return default_device();
  return gpus[static_cast<std::size_t>(local) % gpus.size()];
}

}  // namespace clstat::mpi
