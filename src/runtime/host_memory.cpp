#include "runtime/host_memory.hpp"

#include <unistd.h>

#include "clstat/error.hpp"

namespace clstat::detail {

std::uint64_t host_memory_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && size > 0 ? static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(size) : 0;
}

void require_host_bytes(const std::string& op, const std::string& what, std::uint64_t bytes) {
  const std::uint64_t have = host_memory_bytes();
  if (have != 0 && bytes > have)
    throw UnsupportedFeature(op, "host", what + " needs " + std::to_string(bytes) + " bytes of host memory; the host has " +
                                             std::to_string(have));
}

}  // namespace clstat::detail
