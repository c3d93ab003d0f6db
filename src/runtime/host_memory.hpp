// Internal: the host's memory, for the checks made before a result of a user-given size is
// allocated on the host (so a mistaken size is refused with the numbers, not a bad_alloc or a
// machine driven into swap).
#pragma once

#include <cstdint>
#include <string>

namespace clstat::detail {

/// Physical memory of the host in bytes (0 when the system does not say).
std::uint64_t host_memory_bytes();

/// Throws UnsupportedFeature naming `op`, `what`, the bytes needed and the host's memory when
/// `bytes` exceeds the host's physical memory.
void require_host_bytes(const std::string& op, const std::string& what, std::uint64_t bytes);

}  // namespace clstat::detail
