// The fixed text of the exported C++ header (export_cpp.cpp adds the includes, instantiations and table).
#include "export/export_cpp_host.hpp"

namespace mpgemm::export_detail {

// Laid out as the header shows it.
// clang-format off
// The table's kernel pointers: the host stubs in the host pass. A device pass compiles host code without running it
// and may lack a kernel (another arch's), so there they are null.
const char* const kKernelPointer = R"cpp(
#if !defined(__CUDA_ARCH__)
#define MPGEMM_EXPORT_KERNEL(...) reinterpret_cast<const void*>(&__VA_ARGS__)
#else
#define MPGEMM_EXPORT_KERNEL(...) nullptr
#endif
)cpp";

// The host half of the header: types, lookup and the launcher. Nothing in it depends on the entries.
const char* const kHostTypes = R"cpp(
namespace mpgemm_export {

// How a kernel takes its problem (what mpgemm's family passes it):
//   standard:    (const __half* A, const __half* B, float* C, int M, int N, int K)
//   tensor_maps: (CUtensorMap a_map, CUtensorMap b_map, CUtensorMap c_map, void* D, int* workspace, int M, int N,
//                 int K, float alpha, float beta, const void* C_in, const void* bias); the maps describe A, B and
//                 D for TMA (built by launch() with cuTensorMapEncodeTiled) in the winner's problem kind's layouts
//                 and types; C_in is read by a kind that reads C (a "_beta" in its name) and may be D; bias by a
//                 kind with a fused epilogue (a "_bias..." in its name)
enum class Args { standard, tensor_maps };

// One TMA tensor map as cuTensorMapEncodeTiled takes it: a 2-D row-major matrix, innermost dimension first; with
// depth > 1 a 3-D view of it, {box[0], rows, columns / box[0]}, whose box takes `depth` blocks of box[0] columns.
struct TensorMapSpec {
  CUtensorMapDataType dtype;
  unsigned long long dims[2];           // elements: {columns, rows}
  unsigned long long row_stride_bytes;  // bytes between rows (a multiple of 16)
  unsigned box[2];                      // elements one TMA copy moves: {columns, rows}
  CUtensorMapSwizzle swizzle;
  CUtensorMapL2promotion l2_promotion;
  unsigned depth;                       // blocks of box[0] columns per copy (1: a 2-D map)
};

// One tuned winner: what ran fastest for (device, problem kind, M, N, K) and how to launch it.
struct Winner {
  const char* device;       // the GPU it was tuned on, as cudaDeviceProp::name spells it
  const char* device_arch;  // that GPU's compute capability, e.g. "sm_90"
  const char* arch;         // the arch its kernel is compiled for here (nvcc -gencode ... code=<arch>)
  long long M, N, K;        // D (M x N) = alpha * A.B + beta * C, all row-major
  const char* problem;      // mpgemm's problem kind: layouts, input and output types, e.g. "mk_kn_fp16_fp32"
                            // (A M x K, B K x N, FP16 in, FP32 out, no C read), "mk_nk_bf16_bf16" (B N x K, BF16)
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
  unsigned long long workspace_bytes;  // device scratch the kernel needs, 256-byte aligned (cudaMalloc's): its first
                                       // MiB zeroed (split-K's and stream-K's flags, which it leaves zero again),
                                       // with a 16-bit D then FP32 partial sums (no zeroing); 0: none, pass nullptr
  bool dependent_launch;               // launched with programmatic stream serialization (the kernel waits for
                                       // the previous kernel of the stream itself)
  TensorMapSpec maps[3];               // Args::tensor_maps: A, B, D
};

// The default problem kind: what find() without a kind and launch() serve.
inline constexpr const char* kDefaultProblem = "mk_kn_fp16_fp32";
)cpp";

const char* const kHostFunctions = R"cpp(
// The winner for exactly this kind and shape on `device` (cudaDeviceProp::name; nullptr: the first entry of any
// device), or nullptr when it was not tuned. `problem` nullptr: the default kind. A winner of one kind is never
// found for another.
inline const Winner* find(long long M, long long N, long long K, const char* device = nullptr,
                          const char* problem = nullptr) {
  if (problem == nullptr) problem = kDefaultProblem;
  for (const Winner& w : kWinners)
    if (w.M == M && w.N == N && w.K == K && std::strcmp(problem, w.problem) == 0 &&
        (device == nullptr || std::strcmp(device, w.device) == 0))
      return &w;
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
  const bool planes = s.depth > 1;
  const unsigned long long element_bytes = s.dtype == CU_TENSOR_MAP_DATA_TYPE_FLOAT32 ? 4 : 2;
  const cuuint64_t dims[3] = {planes ? s.box[0] : s.dims[0], s.dims[1], planes ? s.dims[0] / s.box[0] : 1};
  const cuuint64_t strides[2] = {s.row_stride_bytes, s.box[0] * element_bytes};
  const cuuint32_t box[3] = {s.box[0], s.box[1], s.depth};
  const cuuint32_t element_strides[3] = {1, 1, 1};
  const CUresult r = fn(map, s.dtype, planes ? 3 : 2, const_cast<void*>(base), dims, strides, box, element_strides,
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
    const int threads = static_cast<int>(config.blockDim.x * config.blockDim.y * config.blockDim.z);
    if (cudaError_t e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, w.kernel, threads,
                                                                      config.dynamicSmemBytes))
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

namespace detail {

// Whether the kind's name (parts joined by '_') has the part `word`: "beta" when C is read, "bias" when a fused
// epilogue adds a bias (every epilogue's name starts with it).
inline bool has_part(const char* problem, const char* word) {
  const unsigned long long n = std::strlen(word);
  for (const char* p = problem; (p = std::strstr(p, word)) != nullptr; p += n)
    if ((p == problem || p[-1] == '_') && (p[n] == '_' || p[n] == '\0')) return true;
  return false;
}

}  // namespace detail

// Launches the winner on `stream` for its own kind and shape (w.problem; w.M, w.N, w.K):
// D = act(alpha * A.B + beta * C + bias). A, B, D (and C, bias): device pointers, 16-byte aligned, rows packed,
// stored and typed as the kind says (A M x K or K x M, B K x N or N x K, of the input type; C and D M x N, bias N,
// of the output type). C is read only by a kind that reads it ("_beta"): then it must not be nullptr, and it may be
// D; bias only by a kind with a fused epilogue ("_bias", "_bias_relu", "_bias_gelu_tanh", "_bias_gelu"), which needs
// one. workspace: w.workspace_bytes of zeroed device memory, or nullptr when that is 0. Returns the first CUDA error
// (cudaErrorInvalidValue for a missing workspace, C or bias); cudaErrorInvalidDeviceFunction /
// cudaErrorNoKernelImageForDevice when the program was not compiled for w.arch or the GPU is not of that arch.
inline cudaError_t launch_problem(const Winner& w, const void* A, const void* B, void* D, void* workspace,
                                  cudaStream_t stream, float alpha, float beta, const void* C,
                                  const void* bias = nullptr) {
  if (w.workspace_bytes > 0 && workspace == nullptr) return cudaErrorInvalidValue;
  const bool reads_c = detail::has_part(w.problem, "beta");
  if (reads_c && C == nullptr) return cudaErrorInvalidValue;
  if (!reads_c) {
    beta = 0.0f;
    C = nullptr;
  }
  const bool adds_bias = detail::has_part(w.problem, "bias");
  if (adds_bias && bias == nullptr) return cudaErrorInvalidValue;
  if (!adds_bias) bias = nullptr;
  if (w.dynamic_smem_bytes > 48u * 1024u)
    if (cudaError_t e = cudaFuncSetAttribute(w.kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                             static_cast<int>(w.dynamic_smem_bytes)))
      return e;
  if (w.cluster[0] * w.cluster[1] * w.cluster[2] > 8)
    if (cudaError_t e = cudaFuncSetAttribute(w.kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1)) return e;
  cudaLaunchAttribute attributes[2] = {};
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(w.grid[0], w.grid[1], w.grid[2]);
  config.blockDim = dim3(w.block[0], w.block[1], w.block[2]);
  config.dynamicSmemBytes = w.dynamic_smem_bytes;
  config.stream = stream;
  config.attrs = attributes;
  if (w.cluster[0] * w.cluster[1] * w.cluster[2] > 1) {
    cudaLaunchAttribute& cluster = attributes[config.numAttrs++];
    cluster.id = cudaLaunchAttributeClusterDimension;
    cluster.val.clusterDim.x = w.cluster[0];
    cluster.val.clusterDim.y = w.cluster[1];
    cluster.val.clusterDim.z = w.cluster[2];
  }
  if (w.persistent)
    if (cudaError_t e = detail::co_resident_grid(w, config, &config.gridDim.x)) return e;
  if (w.dependent_launch) {
    cudaLaunchAttribute& dependent = attributes[config.numAttrs++];
    dependent.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    dependent.val.programmaticStreamSerializationAllowed = 1;
  }
  int M = static_cast<int>(w.M), N = static_cast<int>(w.N), K = static_cast<int>(w.K);
  if (w.args == Args::standard) {  // the default kind only, alpha 1 and beta 0
    if (std::strcmp(w.problem, kDefaultProblem) != 0 || alpha != 1.0f) return cudaErrorInvalidValue;
    void* args[] = {&A, &B, &D, &M, &N, &K};
    return cudaLaunchKernelExC(&config, w.kernel, args);
  }
  CUtensorMap maps[3];
  const void* bases[3] = {A, B, D};
  for (int i = 0; i < 3; ++i)
    if (cudaError_t e = detail::encode(w.maps[i], bases[i], &maps[i])) return e;
  int* flags = static_cast<int*>(workspace);
  void* args[] = {&maps[0], &maps[1], &maps[2], &D, &flags, &M, &N, &K, &alpha, &beta, &C, &bias};
  return cudaLaunchKernelExC(&config, w.kernel, args);
}

// The default kind: C (M x N, float) = A (M x K, __half) * B (K x N, __half), row-major (leading dimensions K, N
// and N). A winner of another kind is cudaErrorInvalidValue: launch it with launch_problem.
inline cudaError_t launch(const Winner& w, const __half* A, const __half* B, float* C, void* workspace,
                          cudaStream_t stream = nullptr) {
  if (std::strcmp(w.problem, kDefaultProblem) != 0) return cudaErrorInvalidValue;
  return launch_problem(w, A, B, C, workspace, stream, 1.0f, 0.0f, nullptr);
}

}  // namespace mpgemm_export
)cpp";

// clang-format on

}  // namespace mpgemm::export_detail
