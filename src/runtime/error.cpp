#include "clstat/error.hpp"

#include <CL/cl.h>

namespace clstat {

std::string cl_error_name(int code) {
  switch (code) {
#define C(x) \
  case x:    \
    return #x;
    C(CL_SUCCESS) C(CL_DEVICE_NOT_FOUND) C(CL_DEVICE_NOT_AVAILABLE) C(CL_COMPILER_NOT_AVAILABLE)
    C(CL_MEM_OBJECT_ALLOCATION_FAILURE) C(CL_OUT_OF_RESOURCES) C(CL_OUT_OF_HOST_MEMORY)
    C(CL_PROFILING_INFO_NOT_AVAILABLE) C(CL_MEM_COPY_OVERLAP) C(CL_IMAGE_FORMAT_MISMATCH)
    C(CL_IMAGE_FORMAT_NOT_SUPPORTED) C(CL_BUILD_PROGRAM_FAILURE) C(CL_MAP_FAILURE)
    C(CL_MISALIGNED_SUB_BUFFER_OFFSET) C(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
    C(CL_COMPILE_PROGRAM_FAILURE) C(CL_LINKER_NOT_AVAILABLE) C(CL_LINK_PROGRAM_FAILURE)
    C(CL_DEVICE_PARTITION_FAILED) C(CL_KERNEL_ARG_INFO_NOT_AVAILABLE) C(CL_INVALID_VALUE)
    C(CL_INVALID_DEVICE_TYPE) C(CL_INVALID_PLATFORM) C(CL_INVALID_DEVICE) C(CL_INVALID_CONTEXT)
    C(CL_INVALID_QUEUE_PROPERTIES) C(CL_INVALID_COMMAND_QUEUE) C(CL_INVALID_HOST_PTR)
    C(CL_INVALID_MEM_OBJECT) C(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR) C(CL_INVALID_IMAGE_SIZE)
    C(CL_INVALID_SAMPLER) C(CL_INVALID_BINARY) C(CL_INVALID_BUILD_OPTIONS) C(CL_INVALID_PROGRAM)
    C(CL_INVALID_PROGRAM_EXECUTABLE) C(CL_INVALID_KERNEL_NAME) C(CL_INVALID_KERNEL_DEFINITION)
    C(CL_INVALID_KERNEL) C(CL_INVALID_ARG_INDEX) C(CL_INVALID_ARG_VALUE) C(CL_INVALID_ARG_SIZE)
    C(CL_INVALID_KERNEL_ARGS) C(CL_INVALID_WORK_DIMENSION) C(CL_INVALID_WORK_GROUP_SIZE)
    C(CL_INVALID_WORK_ITEM_SIZE) C(CL_INVALID_GLOBAL_OFFSET) C(CL_INVALID_EVENT_WAIT_LIST)
    C(CL_INVALID_EVENT) C(CL_INVALID_OPERATION) C(CL_INVALID_GL_OBJECT) C(CL_INVALID_BUFFER_SIZE)
    C(CL_INVALID_MIP_LEVEL) C(CL_INVALID_GLOBAL_WORK_SIZE) C(CL_INVALID_PROPERTY)
    C(CL_INVALID_IMAGE_DESCRIPTOR) C(CL_INVALID_COMPILER_OPTIONS) C(CL_INVALID_LINKER_OPTIONS)
    C(CL_INVALID_DEVICE_PARTITION_COUNT)
#undef C
    case -1001:
      return "CL_PLATFORM_NOT_FOUND_KHR";
    default:
      return "CL_" + std::to_string(code);
  }
}

namespace {
std::string compose(int code, const std::string& op, const std::string& dev, const std::string& detail) {
  std::string m = "clstat: " + op;
  if (code != CL_SUCCESS) m += " failed with " + cl_error_name(code) + " (" + std::to_string(code) + ")";
  if (!detail.empty()) m += (code != CL_SUCCESS ? ": " : ": ") + detail;
  if (!dev.empty()) m += " [device: " + dev + "]";
  return m;
}
}  // namespace

Error::Error(int cl_code, std::string operation, std::string device, const std::string& detail)
    : std::runtime_error(compose(cl_code, operation, device, detail)),
      code_(cl_code),
      code_name_(cl_error_name(cl_code)),
      operation_(std::move(operation)),
      device_(std::move(device)) {}

BuildError::BuildError(int cl_code, std::string device, std::string kernel, std::string options, std::string log)
    : Error(cl_code, "build of kernel source '" + kernel + "'", device,
            "options: " + options + "\n--- build log ---\n" + log),
      kernel_(std::move(kernel)),
      options_(std::move(options)),
      log_(std::move(log)) {}

UnsupportedFeature::UnsupportedFeature(std::string operation, std::string device, const std::string& what)
    : Error(CL_SUCCESS, std::move(operation), std::move(device), "unsupported: " + what) {}

}  // namespace clstat
