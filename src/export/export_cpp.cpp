#include "export/export_cpp.hpp"

#include <algorithm>
#include <array>
#include <set>
#include <vector>

#include <fmt/format.h>

#include "codegen/family.hpp"
#include "codegen/wgmma_family.hpp"

namespace mpgemm {

namespace {

// How the header passes a problem to a family's kernel: what the family's append_problem_args pushes.
enum class ArgsKind {
  standard,     // (const __half* A, const __half* B, float* C, int M, int N, int K): Family's default
  tensor_maps,  // (a_map, b_map, c_map, float* C, int* workspace, int M, int N, int K): WgmmaFamily
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
  std::size_t workspace_bytes = 0;      // zeroed scratch the kernel needs (split-K flags); 0: none
};

ArgsKind args_of(std::string_view family_name) {
  if (family_name == "wmma") return ArgsKind::standard;
  if (family_name == "wgmma") return ArgsKind::tensor_maps;
  throw ExportError(
      fmt::format("family '{}' has no C++ export (the header knows how to launch wmma and wgmma)", family_name));
}

CppKernel cpp_kernel_of(const ExportEntry& e, const std::map<std::string, std::int64_t>& sm_counts) {
  const auto where = fmt::format("{} at {} ({})", e.config, e.shape.str(), e.device);
  const auto arch = Arch::parse(e.arch);
  const auto device_arch = Arch::parse(e.device_arch);
  if (!arch || !device_arch)
    throw ExportError(fmt::format("{}: unreadable arch '{}' / '{}'", where, e.arch, e.device_arch));
  CppKernel k;
  k.entry = &e;
  k.args = args_of(e.family);
  try {
    const Family& fam = family(e.family);
    const KernelSpec spec = fam.kernel_spec(e.params, *arch);
    for (const auto& option : spec.options)
      if (option.rfind("-D", 0) == 0)
        throw ExportError(fmt::format("{}: its NVRTC options define {}, which a header cannot carry", where, option));
    k.kernel_file = std::string(fam.kernel_file());
    k.name_expression = spec.name_expression;
    k.arch = spec.arch;
    DeviceDescription device;
    device.name = e.device;
    device.arch = *device_arch;
    if (auto it = sm_counts.find(e.device); it != sm_counts.end()) device.sm_count = static_cast<int>(it->second);
    k.geometry = fam.launch_geometry(e.params, e.shape, device);
    if (k.args == ArgsKind::tensor_maps) {
      const WgmmaConfig c = WgmmaConfig::from_params(e.params);
      const WgmmaTensorMaps maps = tensor_map_specs(c, e.shape);
      k.maps = {maps.a, maps.b, maps.c};
      if (c.split_k > 1) k.workspace_bytes = kWorkspaceBytes;
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

std::string c_string(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string number_or_zero(const std::optional<double>& v) {
  return v ? fmt::format("{:.6g}", *v) : std::string("0");
}

std::string dtype_name(CUtensorMapDataType t) {
  if (t == CU_TENSOR_MAP_DATA_TYPE_FLOAT16) return "CU_TENSOR_MAP_DATA_TYPE_FLOAT16";
  if (t == CU_TENSOR_MAP_DATA_TYPE_FLOAT32) return "CU_TENSOR_MAP_DATA_TYPE_FLOAT32";
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
  return fmt::format("static_cast<CUtensorMapL2promotion>({})", static_cast<int>(p));
}

std::string map_row(const TensorMapSpec& s) {
  return fmt::format("{{{}, {{{}ull, {}ull}}, {}ull, {{{}u, {}u}}, {}, {}}}", dtype_name(s.dtype), s.dims[0], s.dims[1],
                     s.row_stride_bytes, s.box[0], s.box[1], swizzle_name(s.swizzle), l2_name(s.l2_promotion));
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
      "    {{{}, {}, {}, {}LL, {}LL, {}LL, {}, {}, {}, {}, {},\n"
      "     MPGEMM_EXPORT_KERNEL({}),\n"
      "     {}, {}, {}, {}, {}u, {}, {}ull, {}u,\n"
      "     {}}},\n",
      e.device, e.shape.str(), e.config, fmt::format("{:.1f}", e.tflops),
      e.ratio_cublas ? fmt::format("{:.3f}", *e.ratio_cublas) : std::string("?"), c_string(e.device),
      c_string(e.device_arch), c_string(k.arch.str()), e.shape.m, e.shape.n, e.shape.k, c_string(e.family),
      c_string(e.config), fmt::format("{:.6g}", e.tflops), number_or_zero(e.ratio_cublas),
      number_or_zero(e.ratio_cublaslt), k.name_expression,
      k.args == ArgsKind::tensor_maps ? "Args::tensor_maps" : "Args::standard", dim3_row(g.grid), dim3_row(g.block),
      dim3_row(g.cluster), g.dynamic_smem_bytes, g.persistent ? "true" : "false", g.balanced_units, k.workspace_bytes,
      maps);
}

// The table's kernel pointers: the host stubs in the host pass. A device pass compiles host code without running it
// and may lack a kernel (another arch's), so there they are null.
constexpr const char* kKernelPointer = R"cpp(
#if !defined(__CUDA_ARCH__)
#define MPGEMM_EXPORT_KERNEL(...) reinterpret_cast<const void*>(&__VA_ARGS__)
#else
#define MPGEMM_EXPORT_KERNEL(...) nullptr
#endif
)cpp";

// The host half of the header: types, lookup and the launcher. Nothing in it depends on the entries.
constexpr const char* kHostTypes = R"cpp(
  namespace mpgemm_export {

  // How a kernel takes its problem (what mpgemm's family passes it):
  //   standard:    (const __half* A, const __half* B, float* C, int M, int N, int K)
  //   tensor_maps: (CUtensorMap a_map, CUtensorMap b_map, CUtensorMap c_map, float* C, int* workspace, int M, int N,
  //                 int K); the maps describe A, B and C for TMA (built by launch() with cuTensorMapEncodeTiled)
  enum class Args { standard, tensor_maps };

  // One TMA tensor map as cuTensorMapEncodeTiled takes it: a 2-D row-major matrix, innermost dimension first.
  struct TensorMapSpec {
    CUtensorMapDataType dtype;
    unsigned long long dims[2];           // elements: {columns, rows}
    unsigned long long row_stride_bytes;  // bytes between rows (a multiple of 16)
    unsigned box[2];                      // elements one TMA copy moves: {columns, rows}
    CUtensorMapSwizzle swizzle;
    CUtensorMapL2promotion l2_promotion;
  };

  // One tuned winner: what ran fastest for (device, M, N, K) and how to launch it.
  struct Winner {
    const char* device;       // the GPU it was tuned on, as cudaDeviceProp::name spells it
    const char* device_arch;  // that GPU's compute capability, e.g. "sm_90"
    const char* arch;         // the arch its kernel is compiled for here (nvcc -gencode ... code=<arch>)
    long long M, N, K;        // C (M x N, float) = A (M x K, half) * B (K x N, half), all row-major
    const char* family;       // mpgemm kernel family
    const char* config;       // mpgemm's procedural config name
    double tflops;            // measured TFLOP/s on `device`
    double ratio_cublas;      // cuBLAS time / its time in the same measurement (> 1: faster); 0 unknown
    double ratio_cublaslt;    // cuBLASLt's best of 8 time / its time; 0 unknown
    const void* kernel;       // the instantiated __global__ function (host stub)
    Args args;
    unsigned grid[3], block[3], cluster[3];  // cluster {1, 1, 1}: no cluster launch
    unsigned dynamic_smem_bytes;             // above 48 KiB launch() raises the kernel's opt-in limit first
    bool persistent;                     // loops over its tiles with a stride of gridDim.x: any grid.x >= 1 is correct,
                                         // and launch() lowers grid.x to what is co-resident on the current GPU
    unsigned long long balanced_units;   // > 0: work units dealt round-robin; the grid is kept to the fewest
                                         // clusters that take as many rounds (every cluster the same count)
    unsigned long long workspace_bytes;  // zeroed device scratch the kernel needs (split-K flags; the kernel leaves
                                         // it zero again); 0: none, pass nullptr
    TensorMapSpec maps[3];               // Args::tensor_maps: A, B, C
  };
)cpp";

constexpr const char* kHostFunctions = R"cpp(
  // The winner for exactly this shape on `device` (cudaDeviceProp::name; nullptr: the first entry of any device), or
  // nullptr when it was not tuned.
  inline const Winner* find(long long M, long long N, long long K, const char* device = nullptr) {
    for (const Winner& w : kWinners)
      if (w.M == M && w.N == N && w.K == K && (device == nullptr || std::strcmp(device, w.device) == 0)) return &w;
    return nullptr;
  }

  namespace detail {

  // cuTensorMapEncodeTiled reached through the runtime, so that a program links cudart only.
  inline PFN_cuTensorMapEncodeTiled_v12000 tensor_map_encoder() {
    static const PFN_cuTensorMapEncodeTiled_v12000 encode = [] {
      void* fn = nullptr;
      cudaDriverEntryPointQueryResult query = cudaDriverEntryPointSymbolNotFound;
      if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &query) !=
              cudaSuccess ||
          query != cudaDriverEntryPointSuccess)
        return static_cast<PFN_cuTensorMapEncodeTiled_v12000>(nullptr);
      return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(fn);
    }();
    return encode;
  }

  inline cudaError_t encode(const TensorMapSpec& s, const void* base, CUtensorMap* map) {
    const PFN_cuTensorMapEncodeTiled_v12000 fn = tensor_map_encoder();
    if (fn == nullptr) return cudaErrorNotSupported;
    const cuuint64_t dims[2] = {s.dims[0], s.dims[1]};
    const cuuint64_t strides[1] = {s.row_stride_bytes};
    const cuuint32_t box[2] = {s.box[0], s.box[1]};
    const cuuint32_t element_strides[2] = {1, 1};
    const CUresult r = fn(map, s.dtype, 2, const_cast<void*>(base), dims, strides, box, element_strides,
                          CU_TENSOR_MAP_INTERLEAVE_NONE, s.swizzle, s.l2_promotion, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    return r == CUDA_SUCCESS ? cudaSuccess : cudaErrorInvalidValue;
  }

  // A persistent grid lowered to the blocks that fit on the current GPU at once (a multiple of the cluster), then
  // balanced; 0 when not one cluster fits.
  inline cudaError_t co_resident_grid(const Winner& w, const cudaLaunchConfig_t& config, unsigned* grid_x) {
    const unsigned long long cluster = 1ull * w.cluster[0] * w.cluster[1] * w.cluster[2];
    unsigned long long fit = 0;
    if (cluster > 1) {
      int clusters = 0;
      if (cudaError_t e = cudaOccupancyMaxActiveClusters(&clusters, w.kernel, &config)) return e;
      fit = static_cast<unsigned long long>(clusters) * cluster;
    } else {
      int device = 0, sms = 0, per_sm = 0;
      if (cudaError_t e = cudaGetDevice(&device)) return e;
      if (cudaError_t e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device)) return e;
      if (cudaError_t e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(
              &per_sm, w.kernel, config.blockDim.x * config.blockDim.y * config.blockDim.z, config.dynamicSmemBytes))
        return e;
      fit = static_cast<unsigned long long>(per_sm) * static_cast<unsigned long long>(sms);
    }
    unsigned long long g = *grid_x;
    if (fit / cluster * cluster < g) g = fit / cluster * cluster;
    if (g == 0) return cudaErrorInvalidConfiguration;
    if (w.balanced_units > 0) {
      const unsigned long long clusters = g / cluster;
      const unsigned long long rounds = (w.balanced_units + clusters - 1) / clusters;
      const unsigned long long balanced = (w.balanced_units + rounds - 1) / rounds;
      if (balanced < clusters) g = balanced * cluster;
    }
    *grid_x = static_cast<unsigned>(g);
    return cudaSuccess;
  }

  }  // namespace detail

  // Launches the winner on `stream` for its own shape (w.M, w.N, w.K). A, B, C: device pointers, 16-byte aligned,
  // rows packed (leading dimensions K, N and N). workspace: w.workspace_bytes of zeroed device memory, or nullptr
  // when that is 0. Returns the first CUDA error; cudaErrorInvalidDeviceFunction / cudaErrorNoKernelImageForDevice
  // when the program was not compiled for w.arch or the GPU is not of that arch.
  inline cudaError_t launch(const Winner& w, const __half* A, const __half* B, float* C, void* workspace,
                            cudaStream_t stream = nullptr) {
    if (w.workspace_bytes > 0 && workspace == nullptr) return cudaErrorInvalidValue;
    if (w.dynamic_smem_bytes > 48u * 1024u)
      if (cudaError_t e = cudaFuncSetAttribute(w.kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                               static_cast<int>(w.dynamic_smem_bytes)))
        return e;
    cudaLaunchAttribute attributes[1] = {};
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3(w.grid[0], w.grid[1], w.grid[2]);
    config.blockDim = dim3(w.block[0], w.block[1], w.block[2]);
    config.dynamicSmemBytes = w.dynamic_smem_bytes;
    config.stream = stream;
    if (w.cluster[0] * w.cluster[1] * w.cluster[2] > 1) {
      attributes[0].id = cudaLaunchAttributeClusterDimension;
      attributes[0].val.clusterDim.x = w.cluster[0];
      attributes[0].val.clusterDim.y = w.cluster[1];
      attributes[0].val.clusterDim.z = w.cluster[2];
      config.attrs = attributes;
      config.numAttrs = 1;
    }
    if (w.persistent)
      if (cudaError_t e = detail::co_resident_grid(w, config, &config.gridDim.x)) return e;
    int M = static_cast<int>(w.M), N = static_cast<int>(w.N), K = static_cast<int>(w.K);
    if (w.args == Args::standard) {
      void* args[] = {&A, &B, &C, &M, &N, &K};
      return cudaLaunchKernelExC(&config, w.kernel, args);
    }
    CUtensorMap maps[3];
    const void* bases[3] = {A, B, C};
    for (int i = 0; i < 3; ++i)
      if (cudaError_t e = detail::encode(w.maps[i], bases[i], &maps[i])) return e;
    int* flags = static_cast<int*>(workspace);
    void* args[] = {&maps[0], &maps[1], &maps[2], &C, &flags, &M, &N, &K};
    return cudaLaunchKernelExC(&config, w.kernel, args);
  }

  }  // namespace mpgemm_export
)cpp";

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
// The tuned winners of {} (device, shape) pairs, instantiated from mpgemm's kernel templates (kernels/*.cuh) so
// that nvcc compiles them ahead of time into your program.
//
// Archs: {}.
// Each kernel is instantiated only in the device pass of the arch it was tuned for (the #if around it), so this
// header compiles for any -arch and is harmless for the others: there a winner's row stays, without device code,
// and launching it fails with cudaErrorNoKernelImageForDevice. Compile with mpgemm's kernels/ directory on the
// include path and a -gencode per arch above, C++17:
//   nvcc -std=c++17 -I<mpgemm>/kernels{} -c app.cu
// Link cudart only: launch() reaches cuTensorMapEncodeTiled through cudaGetDriverEntryPointByVersion.
//
// Use, in host code:
//   const mpgemm_export::Winner* w = mpgemm_export::find(M, N, K, prop.name);  // nullptr: shape not tuned
//   cudaError_t e = mpgemm_export::launch(*w, A, B, C, workspace, stream);
// C (M x N, float) = A (M x K, __half) * B (K x N, __half), row-major device arrays; workspace: w->workspace_bytes
// of zeroed device memory (nullptr when 0). Each winner runs its own shape only (mpgemm-run --config NAME --M ..
// measures it again; the table's comments name the config and its measured speed).
#pragma once

#include <cuda.h>          // CUtensorMap and its enums: types only, nothing of libcuda is linked
#include <cudaTypedefs.h>  // PFN_cuTensorMapEncodeTiled_v12000
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstring>

)",
      table.generated_by, table.database, table.entries.size(), archs_line, gencodes);

  for (const auto& [file, passes] : file_passes) {
    h += fmt::format("// {}: compiled for {}\n{}\n#include \"{}\"\n#endif\n", file,
                     fmt::join(archs_of_file[file], ", "), guard(passes), file);
  }
  h += "\n// The winners' kernels, one explicit instantiation each (the family's name expression).\n";
  for (const auto& [expression, passes] : instantiations)
    h += fmt::format("{}\ntemplate __global__ decltype({}) {};\n#endif\n", guard(passes), expression, expression);

  h += kKernelPointer;
  h += kHostTypes;
  h += "// Sorted by device, M, N, K.\ninline const Winner kWinners[] = {\n";
  for (const auto& k : kernels) h += table_row(k);
  h += "};\n";
  h += kHostFunctions;
  return h;
}

}  // namespace mpgemm
