// clstat/error.hpp: the exceptions clstat throws.
//
// Every entry point validates its input before it enqueues work. Bad arguments raise
// std::invalid_argument with a message naming the parameter and the problem. Failures of the
// OpenCL platform raise clstat::Error or one of its subclasses. Destructors never throw.
#pragma once

#include <stdexcept>
#include <string>

#include "clstat/export.hpp"

namespace clstat {

/// A failed OpenCL call. Carries the OpenCL status code and its symbolic name, the clstat
/// operation that made the call, and the device it ran on (empty when no device was involved).
class CLSTAT_EXPORT Error : public std::runtime_error {
 public:
  Error(int cl_code, std::string operation, std::string device, const std::string& detail = {});
  int code() const noexcept { return code_; }
  /// Symbolic name of code(), e.g. "CL_OUT_OF_RESOURCES"; "CL_SUCCESS" for errors raised by clstat.
  const std::string& code_name() const noexcept { return code_name_; }
  const std::string& operation() const noexcept { return operation_; }
  const std::string& device() const noexcept { return device_; }

 private:
  int code_;
  std::string code_name_, operation_, device_;
};

/// A kernel failed to compile. Adds the kernel source name, the build options and the full
/// build log from the driver.
class CLSTAT_EXPORT BuildError : public Error {
 public:
  BuildError(int cl_code, std::string device, std::string kernel, std::string options, std::string log);
  const std::string& kernel() const noexcept { return kernel_; }
  const std::string& options() const noexcept { return options_; }
  const std::string& log() const noexcept { return log_; }

 private:
  std::string kernel_, options_, log_;
};

/// The device cannot run the request: no fp64, too little memory, a size past a device limit.
/// The message says what is missing and, for memory, how much is needed.
class CLSTAT_EXPORT UnsupportedFeature : public Error {
 public:
  UnsupportedFeature(std::string operation, std::string device, const std::string& what);
};

/// Symbolic name of an OpenCL status code ("CL_INVALID_VALUE"), or "CL_<code>" when unknown.
CLSTAT_EXPORT std::string cl_error_name(int code);

}  // namespace clstat
