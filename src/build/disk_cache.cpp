#include "build/disk_cache.hpp"

#include "runtime/tuning.hpp"

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace clstat::build {
namespace {

const char k_magic[] = "clstat-program-1\n";

std::uint64_t fnv1a(const std::string& s) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char ch : s) {
    h ^= ch;
    h *= 1099511628211ull;
  }
  return h;
}

std::filesystem::path path_for(const std::string& key) {
  char name[40];
  std::snprintf(name, sizeof name, "%016llx.bin", static_cast<unsigned long long>(fnv1a(key)));
  return std::filesystem::path(detail::cache_directory()) / name;
}

}  // namespace

std::optional<std::vector<unsigned char>> disk_cache_load(const std::string& key) {
  if (detail::cache_directory().empty()) return std::nullopt;
  std::ifstream in(path_for(key), std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream all;
  all << in.rdbuf();
  const std::string data = all.str();
  const std::string head = std::string(k_magic) + key + '\0';
  if (data.size() <= head.size() || data.compare(0, head.size(), head) != 0) return std::nullopt;
  return std::vector<unsigned char>(data.begin() + static_cast<std::ptrdiff_t>(head.size()), data.end());
}

void disk_cache_store(const std::string& key, const std::vector<unsigned char>& binary) {
  // A cache that cannot be written is not an error: the program was built and works.
  const std::string dir = detail::cache_directory();
  if (dir.empty() || binary.empty()) return;
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return;
  const auto final_path = path_for(key);
  auto tmp = final_path;
  tmp += ".tmp" + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return;
    out << k_magic << key << '\0';
    out.write(reinterpret_cast<const char*>(binary.data()), static_cast<std::streamsize>(binary.size()));
    if (!out) {
      std::filesystem::remove(tmp, ec);
      return;
    }
  }
  std::filesystem::rename(tmp, final_path, ec);
  if (ec) std::filesystem::remove(tmp, ec);
}

}  // namespace clstat::build
