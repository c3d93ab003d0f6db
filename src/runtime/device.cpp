#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <sstream>

#include "runtime/impl.hpp"

namespace clstat {
namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

std::string trim(std::string s) {
  while (!s.empty() && (s.back() == '\0' || std::isspace(static_cast<unsigned char>(s.back())))) s.pop_back();
  std::size_t b = 0;
  while (b < s.size() && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  return s.substr(b);
}

DeviceInfo query(const cl::Platform& p, const cl::Device& d, std::size_t pi, std::size_t di) {
  DeviceInfo i;
  i.platform_index = pi;
  i.device_index = di;
  i.name = trim(d.getInfo<CL_DEVICE_NAME>());
  i.vendor = trim(d.getInfo<CL_DEVICE_VENDOR>());
  i.platform_name = trim(p.getInfo<CL_PLATFORM_NAME>());
  i.platform_vendor = trim(p.getInfo<CL_PLATFORM_VENDOR>());
  i.driver_version = trim(d.getInfo<CL_DRIVER_VERSION>());
  i.device_version = trim(d.getInfo<CL_DEVICE_VERSION>());
  i.opencl_c_version = trim(d.getInfo<CL_DEVICE_OPENCL_C_VERSION>());
  const cl_device_type t = d.getInfo<CL_DEVICE_TYPE>();
  i.type = (t & CL_DEVICE_TYPE_GPU) ? DeviceType::gpu
           : (t & CL_DEVICE_TYPE_CPU) ? DeviceType::cpu
           : (t & CL_DEVICE_TYPE_ACCELERATOR) ? DeviceType::accelerator
                                              : DeviceType::other;
  i.compute_units = d.getInfo<CL_DEVICE_MAX_COMPUTE_UNITS>();
  i.max_clock_mhz = d.getInfo<CL_DEVICE_MAX_CLOCK_FREQUENCY>();
  i.global_mem_bytes = d.getInfo<CL_DEVICE_GLOBAL_MEM_SIZE>();
  i.max_alloc_bytes = d.getInfo<CL_DEVICE_MAX_MEM_ALLOC_SIZE>();
  i.local_mem_bytes = d.getInfo<CL_DEVICE_LOCAL_MEM_SIZE>();
  i.constant_mem_bytes = d.getInfo<CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE>();
  i.max_work_group_size = d.getInfo<CL_DEVICE_MAX_WORK_GROUP_SIZE>();
  // Features by query: fp64 from the double FP config, never from the version string.
  cl_device_fp_config fp64 = 0;
  if (clGetDeviceInfo(d(), CL_DEVICE_DOUBLE_FP_CONFIG, sizeof fp64, &fp64, nullptr) != CL_SUCCESS) fp64 = 0;
  i.fp64 = fp64 != 0;
  const std::string ext = d.getInfo<CL_DEVICE_EXTENSIONS>();
  i.int64_atomics = ext.find("cl_khr_int64_base_atomics") != std::string::npos;
  i.is_pocl = lower(i.platform_name).find("portable computing language") != std::string::npos ||
              lower(i.platform_vendor).find("pocl") != std::string::npos;
  return i;
}

const std::vector<Device>& all_devices() {
  static const std::vector<Device> list = [] {
    std::vector<Device> out;
    std::vector<cl::Platform> platforms;
    try {
      cl::Platform::get(&platforms);
    } catch (const cl::Error&) {
      return out;  // no ICD or no platform
    }
    for (std::size_t pi = 0; pi < platforms.size(); ++pi) {
      std::vector<cl::Device> devs;
      try {
        platforms[pi].getDevices(CL_DEVICE_TYPE_ALL, &devs);
      } catch (const cl::Error&) {
        continue;  // a platform with no usable device
      }
      for (std::size_t di = 0; di < devs.size(); ++di) {
        auto impl = std::make_shared<detail::DeviceImpl>();
        impl->platform = platforms[pi];
        impl->device = devs[di];
        try {
          impl->info = query(platforms[pi], devs[di], pi, di);
        } catch (const cl::Error&) {
          continue;
        }
        out.emplace_back(impl);
      }
    }
    return out;
  }();
  return list;
}

}  // namespace

namespace detail {
Device device_of(cl_device_id id) {
  for (const Device& d : all_devices())
    if (d.impl()->device() == id) return d;
  auto impl = std::make_shared<DeviceImpl>();
  try {
    impl->device = cl::Device(id, true);
    cl_platform_id pid = nullptr;  // by the C call: CLHPP versions differ in this query's type
    const cl_int err = clGetDeviceInfo(id, CL_DEVICE_PLATFORM, sizeof pid, &pid, nullptr);
    if (err != CL_SUCCESS) throw cl::Error(err, "clGetDeviceInfo");
    impl->platform = cl::Platform(pid, true);
    impl->info = query(impl->platform, impl->device, 0, 0);
  } catch (const cl::Error& e) {
    throw Error(e.err(), "query an adopted device", "");
  }
  return Device(impl);
}
}  // namespace detail

namespace {

bool matches(const DeviceInfo& i, const std::string& spec_in) {
  const std::string spec = lower(trim(spec_in));
  const std::string all = lower(i.name + " " + i.vendor + " " + i.platform_name + " " + i.platform_vendor);
  if (spec == "gpu") return i.type == DeviceType::gpu;
  if (spec == "cpu") return i.type == DeviceType::cpu;
  if (spec == "pocl") return i.is_pocl;
  if (spec == "nvidia" || spec == "amd" || spec == "intel") return all.find(spec) != std::string::npos;
  if (auto colon = spec.find(':'); colon != std::string::npos) {
    const std::string a = spec.substr(0, colon), b = spec.substr(colon + 1);
    const bool digits = !a.empty() && !b.empty() &&
                        std::all_of(a.begin(), a.end(), ::isdigit) && std::all_of(b.begin(), b.end(), ::isdigit);
    if (digits) return std::stoul(a) == i.platform_index && std::stoul(b) == i.device_index;
  }
  return !spec.empty() && all.find(spec) != std::string::npos;
}

}  // namespace

std::string DeviceInfo::label() const {
  return std::to_string(platform_index) + ":" + std::to_string(device_index) + " " + name;
}

const DeviceInfo& Device::info() const {
  if (!impl_) throw std::logic_error("clstat: info() of an empty Device");
  return impl_->info;
}

std::vector<Device> devices() { return all_devices(); }

Device select_device(const std::string& spec) {
  for (const Device& d : all_devices())
    if (matches(d.info(), spec)) return d;
  std::ostringstream m;
  m << "clstat: no OpenCL device matches '" << spec << "' (expected gpu, cpu, nvidia, amd, intel, pocl, "
    << "P:D or a name substring); devices found:";
  if (all_devices().empty()) m << " none";
  for (const Device& d : all_devices()) m << "\n  " << d.info().label() << " (" << d.info().platform_name << ")";
  throw std::invalid_argument(m.str());
}

Device default_device() {
  // A list (DeviceGroup::from_spec's form, "1:0,1:1") names a group: one device is its first.
  if (const char* e = std::getenv("CLSTAT_DEVICE"); e && *e) {
    const std::string spec = e;
    return select_device(spec.substr(0, spec.find(',')));
  }
  const auto& all = all_devices();
  if (all.empty()) throw Error(CL_DEVICE_NOT_FOUND, "default_device", "", "no OpenCL platform or device found");
  for (DeviceType want : {DeviceType::gpu, DeviceType::cpu})
    for (const Device& d : all)
      if (d.info().type == want) return d;
  return all.front();
}

}  // namespace clstat
