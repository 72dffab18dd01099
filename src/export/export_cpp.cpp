#include "export/export_cpp.hpp"

#include <algorithm>
#include <array>
#include <set>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "codegen/family.hpp"
#include "codegen/wgmma_family.hpp"
#include "common/bounded_input.hpp"
#include "export/export_cpp_host.hpp"

namespace mpgemm {

namespace {

// How the header passes a problem to a family's kernel: what the family's append_problem_args pushes.
enum class ArgsKind {
  standard,     // (const __half* A, const __half* B, float* C, int M, int N, int K): Family's default
  tensor_maps,  // (a_map, b_map, c_map, void* D, int* workspace, int M, int N, int K, float alpha, float beta,
                //  const void* C_in, const void* bias): WgmmaFamily, of every kind it computes
};

// One entry as the header launches it.
struct CppKernel {
  const ExportEntry* entry = nullptr;
  std::string kernel_file;      // the family's header in kernels/
  std::string name_expression;  // the explicit instantiation, e.g. "mpgemm::wmma_gemm<128, 64, ...>"
  Arch arch;                    // compiled for
  LaunchGeometry geometry;
  ArgsKind args = ArgsKind::standard;
  std::array<TensorMapSpec, 3> maps{};  // A, B, C for tensor_maps
  std::size_t workspace_bytes = 0;      // scratch the kernel needs (split-K's and stream-K's zeroed flags, and with a
                                        // 16-bit D their FP32 partial sums after them); 0: none
};

ArgsKind args_of(std::string_view family_name) {
  if (family_name == "wmma") return ArgsKind::standard;
  if (family_name == "wgmma") return ArgsKind::tensor_maps;
  throw ExportError(
      fmt::format("family '{}' has no C++ export (the header knows how to launch wmma and wgmma)", family_name));
}

// A stored string (a device or config name from a database that may come from anywhere) as a C string literal:
// printable ASCII stays, '"', '\\' and '?' (no trigraph) are escaped and every other byte is a three-digit octal
// escape, so no newline, control character or quote can end the literal or the line. A NUL cannot be expressed:
// the header's strings are compared with strcmp, which would stop there and match another device.
std::string c_string(const std::string& s, std::string_view what) {
  if (s.find('\0') != std::string::npos)
    throw ExportError(fmt::format("{} \"{}\" holds a NUL byte, which a C string cannot carry", what, text_excerpt(s)));
  std::string out = "\"";
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '"' || c == '\\' || c == '?') {
      out += '\\';
      out += ch;
    } else if (c >= 0x20 && c < 0x7f) {
      out += ch;
    } else {
      out += fmt::format("\\{:03o}", c);
    }
  }
  return out + "\"";
}

// A stored string or a path inside a // comment: printable ASCII stays, a backslash and every other byte become
// \xHH, so a newline cannot end the comment (the rest of the line would be code) and a backslash can never stand
// last on the line, where it would splice the next line into the comment.
std::string comment_text(std::string_view s) {
  std::string out;
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c >= 0x20 && c < 0x7f && c != '\\')
      out += ch;
    else
      out += fmt::format("\\x{:02x}", c);
  }
  return out;
}

// Text the header pastes as code (a family's name expression, its kernel file): built by mpgemm from checked
// params, so only these characters can occur; anything else means the table did not come from a family.
void check_code_text(const std::string& text, std::string_view what, std::string_view where) {
  if (text.empty() ||
      text.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_:<>, .-") !=
          std::string::npos)
    throw ExportError(
        fmt::format("{}: its {} \"{}\" is not text the header can paste as code", where, what, text_excerpt(text)));
}

CppKernel cpp_kernel_of(const ExportEntry& e, const std::map<std::string, std::int64_t>& sm_counts) {
  const GemmProblem problem{e.shape, e.problem};
  const auto where = fmt::format("{} at {} ({})", text_excerpt(e.config, 120), problem.str(), text_excerpt(e.device));
  const auto arch = Arch::parse(e.arch);
  const auto device_arch = Arch::parse(e.device_arch);
  if (!arch || !device_arch)
    throw ExportError(
        fmt::format("{}: unreadable arch '{}' / '{}'", where, text_excerpt(e.arch), text_excerpt(e.device_arch)));
  CppKernel k;
  k.entry = &e;
  k.args = args_of(e.family);
  try {
    const Family& fam = family(e.family);
    if (auto why = fam.check_problem(e.params, problem)) throw ExportError(fmt::format("{}: {}", where, *why));
    const KernelSpec spec = fam.kernel_spec(e.params, *arch, e.problem);  // the kind's template arguments
    for (const auto& option : spec.options)
      if (option.rfind("-D", 0) == 0)
        throw ExportError(fmt::format("{}: its NVRTC options define {}, which a header cannot carry", where, option));
    k.kernel_file = std::string(fam.kernel_file());
    k.name_expression = spec.name_expression;
    check_code_text(k.kernel_file, "kernel file", where);
    check_code_text(k.name_expression, "name expression", where);
    k.arch = spec.arch;
    DeviceDescription device;
    device.name = e.device;
    device.arch = *device_arch;
    if (auto it = sm_counts.find(e.device); it != sm_counts.end()) device.sm_count = static_cast<int>(it->second);
    k.geometry = fam.launch_geometry(e.params, e.shape, device);
    if (k.args == ArgsKind::tensor_maps) {
      const WgmmaConfig c = WgmmaConfig::from_params(e.params);
      const WgmmaTensorMaps maps = tensor_map_specs(c, e.shape, e.problem);  // the kind's layouts and types
      k.maps = {maps.a, maps.b, maps.c};
      // split-K's and stream-K's flags, and with a 16-bit D their FP32 partial sums (for this grid or any lower one)
      k.workspace_bytes = fam.workspace_bytes(e.params, problem, k.geometry);
    }
  } catch (const ExportError&) {
    throw;
  } catch (const Error& err) {
    throw ExportError(fmt::format("{}: {}", where, err.what()));
  }
  return k;
}

// The preprocessor condition under which a kernel compiled for `arch` is instantiated: the host pass (its launch
// stub) and the device pass of that arch, with the arch-specific feature macro for an "a" target.
std::string device_pass(const Arch& arch) {
  const auto cc = fmt::format("__CUDA_ARCH__ == {}", arch.cc() * 10);
  if (!arch.arch_specific) return cc;
  return fmt::format("({} && defined(__CUDA_ARCH_FEAT_SM{}_ALL))", cc, arch.cc());
}

std::string guard(const std::set<std::string>& device_passes) {
  return fmt::format("#if !defined(__CUDA_ARCH__) || {}", fmt::join(device_passes, " || "));
}

std::string number_or_zero(const std::optional<double>& v) {
  return v ? fmt::format("{:.6g}", *v) : std::string("0");
}

std::string dtype_name(CUtensorMapDataType t) {
  if (t == CU_TENSOR_MAP_DATA_TYPE_FLOAT16) return "CU_TENSOR_MAP_DATA_TYPE_FLOAT16";
  if (t == CU_TENSOR_MAP_DATA_TYPE_FLOAT32) return "CU_TENSOR_MAP_DATA_TYPE_FLOAT32";
  if (t == CU_TENSOR_MAP_DATA_TYPE_BFLOAT16) return "CU_TENSOR_MAP_DATA_TYPE_BFLOAT16";
  return fmt::format("static_cast<CUtensorMapDataType>({})", static_cast<int>(t));
}

std::string swizzle_name(CUtensorMapSwizzle s) {
  if (s == CU_TENSOR_MAP_SWIZZLE_NONE) return "CU_TENSOR_MAP_SWIZZLE_NONE";
  if (s == CU_TENSOR_MAP_SWIZZLE_128B) return "CU_TENSOR_MAP_SWIZZLE_128B";
  return fmt::format("static_cast<CUtensorMapSwizzle>({})", static_cast<int>(s));
}

std::string l2_name(CUtensorMapL2promotion p) {
  if (p == CU_TENSOR_MAP_L2_PROMOTION_NONE) return "CU_TENSOR_MAP_L2_PROMOTION_NONE";
  if (p == CU_TENSOR_MAP_L2_PROMOTION_L2_256B) return "CU_TENSOR_MAP_L2_PROMOTION_L2_256B";
  if (p == CU_TENSOR_MAP_L2_PROMOTION_L2_128B) return "CU_TENSOR_MAP_L2_PROMOTION_L2_128B";
  if (p == CU_TENSOR_MAP_L2_PROMOTION_L2_64B) return "CU_TENSOR_MAP_L2_PROMOTION_L2_64B";
  return fmt::format("static_cast<CUtensorMapL2promotion>({})", static_cast<int>(p));
}

std::string map_row(const TensorMapSpec& s) {
  return fmt::format("{{{}, {{{}ull, {}ull}}, {}ull, {{{}u, {}u}}, {}, {}, {}u}}", dtype_name(s.dtype), s.dims[0],
                     s.dims[1], s.row_stride_bytes, s.box[0], s.box[1], swizzle_name(s.swizzle),
                     l2_name(s.l2_promotion), s.depth);
}

std::string dim3_row(const Dim3& d) {
  return fmt::format("{{{}u, {}u, {}u}}", d.x, d.y, d.z);
}

std::string table_row(const CppKernel& k) {
  const ExportEntry& e = *k.entry;
  const LaunchGeometry& g = k.geometry;
  std::string maps = "{}";
  if (k.args == ArgsKind::tensor_maps)
    maps = fmt::format("{{{},\n      {},\n      {}}}", map_row(k.maps[0]), map_row(k.maps[1]), map_row(k.maps[2]));
  return fmt::format(
      "    // {} {}: {} ({} TFLOP/s, {} x cuBLAS)\n"
      "    {{{}, {}, {}, {}LL, {}LL, {}LL, {}, {}, {}, {}, {}, {},\n"
      "     MPGEMM_EXPORT_KERNEL({}),\n"
      "     {}, {}, {}, {}, {}u, {}, {}ull, {}u, {},\n"
      "     {}}},\n",
      comment_text(e.device), GemmProblem{e.shape, e.problem}.str(), comment_text(e.config),
      fmt::format("{:.1f}", e.tflops), e.ratio_cublas ? fmt::format("{:.3f}", *e.ratio_cublas) : std::string("?"),
      c_string(e.device, "device name"), c_string(e.device_arch, "device arch"), c_string(k.arch.str(), "arch"),
      e.shape.m, e.shape.n, e.shape.k, c_string(e.problem.name(), "problem"), c_string(e.family, "family"),
      c_string(e.config, "config name"), fmt::format("{:.6g}", e.tflops), number_or_zero(e.ratio_cublas),
      number_or_zero(e.ratio_cublaslt), k.name_expression,
      k.args == ArgsKind::tensor_maps ? "Args::tensor_maps" : "Args::standard", dim3_row(g.grid), dim3_row(g.block),
      dim3_row(g.cluster), g.dynamic_smem_bytes, g.persistent ? "true" : "false", g.balanced_units, k.workspace_bytes,
      g.dependent_launch ? "true" : "false", maps);
}

}  // namespace

std::string export_cpp_header(const ExportTable& table, const std::map<std::string, std::int64_t>& sm_counts) {
  if (table.entries.empty()) throw ExportError("the export table has no entries: nothing to instantiate");
  std::vector<CppKernel> kernels;
  for (const auto& e : table.entries) kernels.push_back(cpp_kernel_of(e, sm_counts));

  // Per kernel file: the archs of its entries; per instantiation: the archs it is compiled for.
  std::map<std::string, std::set<std::string>> file_passes;
  std::map<std::string, std::set<std::string>> archs_of_file;
  std::vector<std::pair<std::string, std::set<std::string>>> instantiations;  // in table order, each once
  std::map<std::string, std::size_t> instantiation_at;
  std::map<std::string, std::set<std::string>> families_of_arch;
  for (const auto& k : kernels) {
    file_passes[k.kernel_file].insert(device_pass(k.arch));
    archs_of_file[k.kernel_file].insert(k.arch.str());
    families_of_arch[k.arch.str()].insert(k.entry->family);
    auto [it, fresh] = instantiation_at.emplace(k.name_expression, instantiations.size());
    if (fresh) instantiations.push_back({k.name_expression, {}});
    instantiations[it->second].second.insert(device_pass(k.arch));
  }

  std::string archs_line, gencodes;
  for (const auto& [arch, families] : families_of_arch) {
    archs_line += fmt::format("{}{} ({})", archs_line.empty() ? "" : ", ", arch, fmt::join(families, ", "));
    const auto digits = arch.substr(3);
    gencodes += fmt::format(" -gencode arch=compute_{},code=sm_{}", digits, digits);
  }

  std::string h = fmt::format(
      R"(// Generated by {} (mpgemm-export --format cpp) from {}; do not edit.
// The tuned winners of {} (device, problem kind, shape) triples, instantiated from mpgemm's kernel templates
// (kernels/*.cuh) so that nvcc compiles them ahead of time into your program.
//
// Archs: {}.
// Each kernel is instantiated only in the device pass of the arch it was tuned for (the #if around it), so this
// header compiles for any -arch and is harmless for the others: there a winner's row stays, without device code,
// and launching it fails with cudaErrorNoKernelImageForDevice. Compile with mpgemm's kernels/ directory on the
// include path and a -gencode per arch above, C++17:
//   nvcc -std=c++17 -I<mpgemm>/kernels{} -c app.cu
// Known problem (H200, CUDA 13.0): in a program whose fatbin mixes sm_90a with another arch, the sm_90a kernels
// cannot be launched (cudaErrorInvalidResourceHandle from the first runtime call on them); built for sm_90a alone
// they run. Until that is understood, build the sm_90a winners into a program compiled for sm_90a only.
// Link cudart only: launch() reaches cuTensorMapEncodeTiled through cudaGetDriverEntryPointByVersion.
//
// Use, in host code:
//   const mpgemm_export::Winner* w = mpgemm_export::find(M, N, K, prop.name);  // nullptr: shape not tuned
//   cudaError_t e = mpgemm_export::launch(*w, A, B, C, workspace, stream);
// C (M x N, float) = A (M x K, __half) * B (K x N, __half), row-major device arrays: the default problem kind,
// mk_kn_fp16_fp32. Another kind (e.g. "mk_nk_bf16_bf16": B stored N x K, BF16 in and out):
//   w = mpgemm_export::find(M, N, K, prop.name, "mk_nk_bf16_bf16");
//   e = mpgemm_export::launch_problem(*w, A, B, D, workspace, stream, alpha, beta, C);  // D = alpha A.B + beta C
// workspace: w->workspace_bytes of zeroed device memory (nullptr when 0). Each winner runs its own kind and shape
// only (mpgemm-run --config NAME --M .. measures it again; the table's comments name the config and its speed).
#pragma once

#include <cuda.h>          // CUtensorMap and its enums: types only, nothing of libcuda is linked
#include <cudaTypedefs.h>  // PFN_cuTensorMapEncodeTiled_v12000
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstring>

)",
      comment_text(table.generated_by), comment_text(table.database), table.entries.size(), archs_line, gencodes);

  for (const auto& [file, passes] : file_passes) {
    h += fmt::format("// {}: compiled for {}\n{}\n#include \"{}\"\n#endif\n", file,
                     fmt::join(archs_of_file[file], ", "), guard(passes), file);
  }
  h += "\n// The winners' kernels, one explicit instantiation each (the family's name expression).\n";
  for (const auto& [expression, passes] : instantiations)
    h += fmt::format("{}\ntemplate __global__ decltype({}) {};\n#endif\n", guard(passes), expression, expression);

  h += export_detail::kKernelPointer;
  h += export_detail::kHostTypes;
  h += "// Sorted by device, problem kind, M, N, K.\ninline const Winner kWinners[] = {\n";
  for (const auto& k : kernels) h += table_row(k);
  h += "};\n";
  h += export_detail::kHostFunctions;
  return h;
}

}  // namespace mpgemm
