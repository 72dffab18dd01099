#include "compile/nvrtc_compile.hpp"

#include <nvrtc.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>

#include <fmt/format.h>

#include "codegen/kernel_sources.hpp"
#include "common/error.hpp"
#include "common/hash.hpp"
#include "compile/includes.hpp"
#include "compile/ptxas_report.hpp"

#ifndef MPGEMM_CUDA_INCLUDE_DIR
#define MPGEMM_CUDA_INCLUDE_DIR ""
#endif

namespace mpgemm {
namespace {

void check(nvrtcResult r, const char* call) {
  if (r != NVRTC_SUCCESS) throw NvrtcError(call, static_cast<int>(r), nvrtcGetErrorString(r));
}

// Owns one nvrtcProgram; destroying it never throws.
class Program {
 public:
  Program(const KernelSpec& spec, const std::vector<std::string>& header_texts,
          const std::vector<const char*>& header_names) {
    std::vector<const char*> texts;
    for (const auto& t : header_texts) texts.push_back(t.c_str());
    check(nvrtcCreateProgram(&prog_, spec.source.c_str(), spec.program_name.c_str(), static_cast<int>(texts.size()),
                             texts.data(), header_names.data()),
          "nvrtcCreateProgram");
  }
  ~Program() { nvrtcDestroyProgram(&prog_); }
  Program(const Program&) = delete;
  Program& operator=(const Program&) = delete;
  nvrtcProgram get() const { return prog_; }

  std::string log() const {
    std::size_t size = 0;
    check(nvrtcGetProgramLogSize(prog_, &size), "nvrtcGetProgramLogSize");
    std::string log(size, '\0');
    if (size > 0) check(nvrtcGetProgramLog(prog_, log.data()), "nvrtcGetProgramLog");
    while (!log.empty() && log.back() == '\0') log.pop_back();
    return log;
  }

 private:
  nvrtcProgram prog_ = nullptr;
};

std::vector<std::string> split_list(const std::string& text) {  // '|'-separated (CMakeLists.txt)
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = std::min(text.find('|', start), text.size());
    if (end > start) out.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

}  // namespace

std::string nvrtc_version() {
  int major = 0, minor = 0;
  check(nvrtcVersion(&major, &minor), "nvrtcVersion");
  return fmt::format("{}.{}", major, minor);
}

std::string resolve_cuda_include_dir() {
  std::vector<std::string> candidates;
  if (const char* env = std::getenv("MPGEMM_CUDA_INCLUDE_DIR"); env != nullptr && *env != '\0')
    candidates.emplace_back(env);
  for (auto& dir : split_list(MPGEMM_CUDA_INCLUDE_DIR)) candidates.push_back(std::move(dir));
  candidates.emplace_back("/usr/local/cuda/include");
  std::error_code ec;
  for (const auto& dir : candidates)
    if (std::filesystem::is_regular_file(std::filesystem::path(dir) / "cuda_fp16.h", ec)) return dir;
  throw NvrtcError("toolkit include lookup", -1,
                   fmt::format("no CUDA include directory with cuda_fp16.h among [{}]; set MPGEMM_CUDA_INCLUDE_DIR to "
                               "the toolkit's include directory",
                               fmt::join(candidates, ", ")));
}

std::vector<std::string> nvrtc_options(const KernelSpec& spec, const CompileOptions& options) {
  std::vector<std::string> out{"--gpu-architecture=" + spec.arch.str(), "--ptxas-options=-v"};
  out.insert(out.end(), spec.options.begin(), spec.options.end());
  out.insert(out.end(), options.extra_options.begin(), options.extra_options.end());
  return out;
}

std::string compile_key(const KernelSpec& spec, const CompileOptions& options) {
  Hasher h;
  hash_translation_unit(h, spec,
                        options.cuda_include_dir.empty() ? resolve_cuda_include_dir() : options.cuda_include_dir);
  for (const auto& o : nvrtc_options(spec, options)) h.add(o);
  h.add(spec.arch.str()).add(nvrtc_version());
  return h.hex();
}

CompileResult compile(const KernelSpec& spec, const CompileOptions& options) {
  const std::string include_dir =
      options.cuda_include_dir.empty() ? resolve_cuda_include_dir() : options.cuda_include_dir;
  CompileResult result;
  result.arch = spec.arch;
  result.compile_key = compile_key(spec, options);

  std::vector<std::string> header_texts;  // owned copies: NVRTC wants NUL-terminated strings
  std::vector<const char*> header_names;
  for (const auto& header : kernel_sources()) {
    header_texts.emplace_back(header.text);
    header_names.push_back(header.name.data());  // names are string literals
  }
  Program prog(spec, header_texts, header_names);
  if (!spec.name_expression.empty())
    check(nvrtcAddNameExpression(prog.get(), spec.name_expression.c_str()), "nvrtcAddNameExpression");

  std::vector<std::string> opts = nvrtc_options(spec, options);
  for (const auto& dir : include_path(spec, include_dir)) opts.push_back("-I" + dir);
  std::vector<const char*> argv;
  for (const auto& o : opts) argv.push_back(o.c_str());

  const auto start = std::chrono::steady_clock::now();
  const nvrtcResult compiled = nvrtcCompileProgram(prog.get(), static_cast<int>(argv.size()), argv.data());
  result.log = prog.log();
  if (compiled == NVRTC_ERROR_COMPILATION) {
    // A header our kernel code includes is found nowhere: the installation is incomplete, not the config
    // wrong.
    const std::vector<std::string> path = include_path(spec, include_dir);
    if (const auto missing = missing_headers(spec.source, path); !missing.empty())
      throw NvrtcError("nvrtcCompileProgram", static_cast<int>(compiled),
                       fmt::format("{} not found on the include path [{}] nor among the kernels/ files: the toolkit "
                                   "or the family's include directories are incomplete",
                                   fmt::join(missing, ", "), fmt::join(path, ", ")));
  }
  if (compiled == NVRTC_ERROR_COMPILATION || compiled == NVRTC_ERROR_INVALID_OPTION) {
    if (compiled == NVRTC_ERROR_INVALID_OPTION) result.log += fmt::format("\n{}\n", nvrtcGetErrorString(compiled));
    result.compile_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return result;  // status stays compile_failed
  }
  check(compiled, "nvrtcCompileProgram");

  std::size_t size = 0;
  check(nvrtcGetCUBINSize(prog.get(), &size), "nvrtcGetCUBINSize");
  result.cubin.resize(size);
  check(nvrtcGetCUBIN(prog.get(), result.cubin.data()), "nvrtcGetCUBIN");
  result.compile_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();

  if (!spec.name_expression.empty()) {
    const char* lowered = nullptr;
    check(nvrtcGetLoweredName(prog.get(), spec.name_expression.c_str(), &lowered), "nvrtcGetLoweredName");
    result.lowered_name = lowered;
  }
  if (auto report = find_function_report(parse_ptxas_report(result.log), result.lowered_name)) {
    result.registers = report->registers;
    result.shared_bytes = report->shared_bytes;
    result.spill_store_bytes = report->spill_store_bytes;
    result.spill_load_bytes = report->spill_load_bytes;
    result.stack_bytes = report->stack_bytes;
  }
  result.warnings = parse_ptxas_warnings(result.log);
  result.status = Status::ok;
  return result;
}

}  // namespace mpgemm
