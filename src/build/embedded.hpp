// Internal: the kernel sources embedded at build time by tools/cmake/EmbedKernels.cmake.
#pragma once

#include <cstddef>
#include <string>

namespace clstat::build {

struct EmbeddedSource {
  const char* name;    // "<area>/<stem>", e.g. "primitives/reduce_sum"
  const char* text;    // flattened source with #line markers
  std::size_t size;
  const char* sha256;  // of text, hex
};

const EmbeddedSource* embedded_begin();
const EmbeddedSource* embedded_end();

/// The source called `name`; throws std::invalid_argument for an unknown name.
const EmbeddedSource& embedded(const std::string& name);

}  // namespace clstat::build
