#include "build/program_cache.hpp"

#include "build/disk_cache.hpp"
#include "build/embedded.hpp"
#include "clstat/error.hpp"
#include "runtime/launch.hpp"

namespace clstat::build {

std::string base_options(const detail::ContextImpl& ctx, bool real_is_double, const std::string& operation) {
  const DeviceInfo& info = ctx.info();
  if (real_is_double && !info.fp64)
    throw UnsupportedFeature(operation, info.name, "double precision needs a device with fp64 (cl_khr_fp64)");
  std::string o = "-cl-std=CL1.2";
  o += real_is_double ? " -DREAL=double -DREAL_DOUBLE" : " -DREAL=float";
  if (info.fp64) o += " -DCLSTAT_FP64";
  return o;
}

namespace {

std::string cache_key(const detail::ContextImpl& ctx, const EmbeddedSource& src, const std::string& options) {
  const DeviceInfo& i = ctx.info();
  return std::string(src.sha256) + "|" + options + "|" + i.platform_name + "|" + i.name + "|" +
         i.driver_version + "|" + i.device_version;
}

std::string build_log(const cl::Program& p, const cl::Device& d) {
  try {
    return p.getBuildInfo<CL_PROGRAM_BUILD_LOG>(d);
  } catch (const cl::Error&) {
    return "(no build log)";
  }
}

}  // namespace

std::shared_ptr<detail::BuiltProgram> program(detail::ContextImpl& ctx, const std::string& source,
                                              const std::string& options) {
  const EmbeddedSource& src = embedded(source);
  const std::string mem_key = std::string(src.sha256) + "|" + options;
  std::lock_guard<std::mutex> lock(ctx.programs_mutex);
  if (auto it = ctx.programs.find(mem_key); it != ctx.programs.end()) return it->second;

  auto impl = ctx.device.impl();
  const cl::Device& dev = impl->device;
  const bool use_disk = !ctx.info().is_pocl;
  const std::string key = cache_key(ctx, src, options);
  auto built = std::make_shared<detail::BuiltProgram>();
  built->name = source;
  built->options = options;

  bool ok = false;
  if (use_disk) {
    if (auto bin = disk_cache_load(key)) {
      try {
        cl::Program::Binaries bins{*bin};
        built->program = cl::Program(ctx.context, {dev}, bins);
        built->program.build({dev}, options.c_str());
        ok = true;
      } catch (const cl::Error&) {
        ok = false;  // a stale or foreign binary: rebuild from source
      }
    }
  }
  if (!ok) {
    built->program = cl::Program(ctx.context, std::string(src.text, src.size));
    try {
      built->program.build({dev}, options.c_str());
    } catch (const cl::Error& e) {
      throw BuildError(e.err(), ctx.device_name(), source, options, build_log(built->program, dev));
    }
    if (use_disk) {
      try {
        auto bins = built->program.getInfo<CL_PROGRAM_BINARIES>();
        if (!bins.empty()) disk_cache_store(key, bins.front());
      } catch (const cl::Error&) {
        // no binary to cache; the built program still works
      }
    }
  }
  ctx.programs.emplace(mem_key, built);
  return built;
}

cl::Kernel kernel(detail::BuiltProgram& prog, const std::string& name, std::size_t queue) {
  std::lock_guard<std::mutex> lock(prog.mutex);
  auto key = std::make_pair(queue, name);
  auto it = prog.kernels.find(key);
  if (it == prog.kernels.end()) {
    try {
      it = prog.kernels.emplace(key, cl::Kernel(prog.program, name.c_str())).first;
    } catch (const cl::Error& e) {
      throw Error(e.err(), "create kernel " + name + " of " + prog.name, "");
    }
  }
  return it->second;
}

std::shared_ptr<detail::BuiltProgram> program_for_wg(detail::ContextImpl& ctx, const std::string& source,
                                                     const std::string& options, const std::string& kernel_name,
                                                     std::size_t wg, std::size_t& chosen,
                                                     std::string (*extra)(std::size_t w, const void* arg),
                                                     const void* arg) {
  const std::string memo = source + "\n" + options + "\n" + std::to_string(wg) + "\n" + (extra ? extra(wg, arg) : "");
  {
    std::lock_guard<std::mutex> lock(ctx.choices_mutex);
    if (auto it = ctx.wg_choices.find(memo); it != ctx.wg_choices.end()) {
      chosen = it->second.second;
      return it->second.first;
    }
  }
  std::size_t w = 1;
  while (w * 2 <= wg && w * 2 <= ctx.info().max_work_group_size) w *= 2;
  for (; w >= 1; w /= 2) {
    std::string opt = options + " -DWG=" + std::to_string(w);
    if (extra) opt += extra(w, arg);
    auto prog = program(ctx, source, opt);
    cl::Kernel k = kernel(*prog, kernel_name, 0);
    if (detail::kernel_max_work_group(k, ctx) >= w && detail::kernel_local_mem(k, ctx) <= ctx.info().local_mem_bytes) {
      chosen = w;
      std::lock_guard<std::mutex> lock(ctx.choices_mutex);
      ctx.wg_choices.emplace(memo, std::make_pair(prog, w));
      return prog;
    }
  }
  throw UnsupportedFeature("build " + source, ctx.device_name(), "no work-group size fits kernel " + kernel_name);
}

}  // namespace clstat::build
