// Internal: builds embedded kernel sources into programs, caches them per context in memory and,
// except on PoCL (which has its own cache), as binaries on disk.
#pragma once

#include <memory>
#include <string>

#include "runtime/impl.hpp"

namespace clstat::build {

/// Options every kernel gets: -cl-std=CL1.2, REAL, REAL_DOUBLE and CLSTAT_FP64 from the device.
/// `real_is_double` selects REAL=double (throws UnsupportedFeature when the device has no fp64).
std::string base_options(const detail::ContextImpl& ctx, bool real_is_double, const std::string& operation);

/// The program for (source, options) on ctx's device, built once. Throws BuildError with the full
/// log on a failed build.
std::shared_ptr<detail::BuiltProgram> program(detail::ContextImpl& ctx, const std::string& source,
                                              const std::string& options);

/// Kernel `kernel` of `prog` for queue index `queue` (one cl::Kernel object per queue).
cl::Kernel kernel(detail::BuiltProgram& prog, const std::string& kernel, std::size_t queue);

/// Builds `source` with `options + " -DWG=<w>"` for the largest power of two w <= `wg` that the
/// kernel `kernel_name` accepts on this device (CL_KERNEL_WORK_GROUP_SIZE) and whose local memory
/// fits; returns the program and writes the chosen w. `extra(w)` adds options that depend on w.
/// Throws UnsupportedFeature when not even w = 1 fits.
std::shared_ptr<detail::BuiltProgram> program_for_wg(detail::ContextImpl& ctx, const std::string& source,
                                                     const std::string& options, const std::string& kernel_name,
                                                     std::size_t wg, std::size_t& chosen,
                                                     std::string (*extra)(std::size_t w, const void* arg) = nullptr,
                                                     const void* arg = nullptr);

}  // namespace clstat::build
