#include "build/embedded.hpp"

#include <stdexcept>
#include <vector>

#include "build/program_cache.hpp"
#include "clstat/runtime.hpp"

namespace clstat::build {

const EmbeddedSource& embedded(const std::string& name) {
  for (auto* s = embedded_begin(); s != embedded_end(); ++s)
    if (name == s->name) return *s;
  throw std::invalid_argument("clstat: no embedded kernel source named '" + name + "'");
}

}  // namespace clstat::build

namespace clstat {

std::vector<std::string> embedded_kernel_names() {
  std::vector<std::string> out;
  for (auto* s = build::embedded_begin(); s != build::embedded_end(); ++s) out.emplace_back(s->name);
  return out;
}

void build_kernel(const Context& ctx, const std::string& name, bool real_is_double, const std::string& options) {
  build::embedded(name);  // unknown names throw before anything is built
  build::program(*ctx.impl(), name, build::base_options(*ctx.impl(), real_is_double, "build_kernel") + " " + options);
}

}  // namespace clstat
