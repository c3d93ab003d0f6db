// Internal: on-disk program binaries, in detail::cache_directory(). The key names the source hash, the options, the
// device, the platform and the driver version; the file stores the key so that a hash collision
// is caught. Files are written to a temporary name and renamed, so readers never see half a file.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace clstat::build {

std::optional<std::vector<unsigned char>> disk_cache_load(const std::string& key);
void disk_cache_store(const std::string& key, const std::vector<unsigned char>& binary);

}  // namespace clstat::build
