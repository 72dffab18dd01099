#pragma once
// libmpgemm: run the winners of an mpgemm results database (or of a file `mpgemm-export` wrote) inside a program.
// (mpgemm/gemm.h is the same library behind a C interface, for bindings.)
//
//   mpgemm::Library lib = mpgemm::Library::open("results/results.db");
//   const mpgemm::Dispatch& d = lib.gemm(A, B, C, M, N, K, stream);   // C = A * B on `stream`
//   std::printf("%s: %s\n", mpgemm::to_string(d.path), d.reason.c_str());
//
//   mpgemm::Problem linear;                                          // a linear layer: D = X . W^T, BF16
//   linear.b = mpgemm::Problem::BLayout::nk;
//   linear.in = linear.out = mpgemm::Problem::Type::bf16;
//   lib.gemm(linear, X, W, D, M, N, K, stream);                      // D = 1 * A.B (+ 0 * C)
//
// The problem (docs/library.md, "Problem kinds"): D (M x N, row-major) = alpha * A.B + beta * C, FP32 accumulation,
// rounded once to D's type. A Problem (its kind) says how A and B are stored (A M x K "mk" or K x M "km"; B K x N
// "kn" or N x K "nk", all row-major), their type (FP16 or BF16), the type of C and D (FP32, FP16 or BF16), and
// whether C is read (beta != 0). The default Problem is mpgemm's first problem and what gemm(A, B, C, M, N, K)
// computes: A FP16 mk, B FP16 kn, C (the output) FP32, alpha 1, beta 0. All pointers are device pointers on the
// calling thread's current CUDA device (its primary context, as the CUDA runtime uses it); `stream` is a
// cudaStream_t (nullptr: the legacy default stream). gemm() only enqueues: it returns before the product is done,
// like a kernel launch.
//
// Dispatch policy, for the current device, the kind and the shape (M, N, K). The candidates are the database's
// tuned shapes OF THAT KIND on a device of the same name (a winner of one kind never serves another), each with its
// winner (the winner of the shape's latest re-rank, else its fastest verified config: what `mpgemm-run --config
// best` runs) and that winner's speed relative to cuBLAS computing the same kind there (ratio = cuBLAS time / winner
// time). A tuned shape's winner is *valid* for the request when its family accepts the problem and the device
// (Family::check_problem and check_device: e.g. the Hopper family needs K and N multiples of 8 and an sm_90 GPU).
//   1. Among the tuned shapes whose winner is valid, take the nearest: distance =
//      |log2(M/M')| + |log2(N/N')| + |log2(K/K')|; equal distances go to the smaller M', then N', then K'.
//   2. If its ratio is known and >= Options::min_ratio (default 1: the winner beat cuBLAS where it was tuned), run
//      that winner: path `tuned` when the tuned shape is the requested one, `nearest` otherwise.
//   3. Otherwise (no tuned shape of the kind on this device, none whose winner is valid, or the nearest one's winner
//      is not known to beat cuBLAS) run cublasGemmEx with the kind's transposes and types, FP32 compute, alpha and
//      beta: path `cublas`. With Options::allow_cublas false that is an error instead, and so it is for a kind
//      cuBLAS does not compute (FP16 in with BF16 out, BF16 in with FP16 out): GemmError(no_tuned_config).
// A call whose pointers a tuned kernel cannot take (one not 16-byte aligned, e.g. a tensor sliced at an odd offset:
// TMA and the kernels' vector accesses need the alignment) runs the vendor path instead, its Dispatch saying why (or
// GemmError(launch_failed) where the vendor path is not allowed or cannot compute the kind); plan() does not see
// pointers.
// Every call says which path ran and why (the returned Dispatch; last_dispatch()); the reason starts with the
// kind's name. plan() answers the same without running anything. Nothing falls back silently: a tuned config that
// fails to compile, load or launch throws GemmError, it never turns into a cuBLAS call.
//
// Kernels: a winner's cubin comes from the cubin cache the tuner filled (`<db>.cubins/` beside the database or the
// exported file, or Options::cubin_cache) and is loaded once per device; a cubin missing there is compiled with
// NVRTC (from the kernel sources built into the library, the same text `share/mpgemm/kernels/` holds; the CUDA
// toolkit headers must be present) the first time its shape is used, and kept in the cache when it is writable;
// Dispatch::compiled says so. Split-K kernels get a workspace per (device, stream): 1 MiB of zeroed flags, grown
// for a 16-bit D's FP32 partial sums (preload() grows it before a CUDA graph capture).
//
// Thread safety: one Library may be used from any number of threads at once, on any devices and streams. The
// first call of a (device, kind, shape) decides, compiles and loads under a lock; each thread remembers its last
// calls (stream, kind, shape, pointers, alpha, beta) with their kernel arguments built, so a repeated call takes no
// lock and allocates nothing (target: within 2 us of the bare launch; mpgemm-lib-bench measures it). A split-K
// workspace belongs to a stream handle: do not let a destroyed stream's last GEMM overlap one on a new stream with
// the same handle.
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "mpgemm/api.h"

namespace mpgemm {

// Which code computed a call.
enum class Path {
  tuned,    // the winner tuned at exactly this shape
  nearest,  // the winner of the nearest tuned shape (this shape was never tuned)
  cublas,   // cublasGemmEx: no tuned config is known to beat cuBLAS here
};
MPGEMM_API const char* to_string(Path path);  // "tuned", "nearest", "cublas"

// What a GEMM computes apart from its size: its kind (the header comment above). The default is mpgemm's first
// problem, mk_kn_fp16_fp32. Kinds are named as mpgemm names them ("mk_nk_bf16_bf16", "km_kn_fp16_fp32_beta").
struct Problem {
  enum class ALayout { mk, km };  // A stored M x K, or K x M (row-major)
  enum class BLayout { kn, nk };  // B stored K x N, or N x K (row-major)
  enum class Type { fp16, bf16, fp32 };
  ALayout a = ALayout::mk;
  BLayout b = BLayout::kn;
  Type in = Type::fp16;   // A's and B's: fp16 or bf16
  Type out = Type::fp32;  // C's and D's
  bool beta = false;      // C is read (beta != 0)
};
MPGEMM_API bool operator==(const Problem& x, const Problem& y);
inline bool operator!=(const Problem& x, const Problem& y) {
  return !(x == y);
}
MPGEMM_API std::string to_string(const Problem& problem);  // its name: "mk_kn_fp16_fp32", "mk_nk_bf16_bf16_beta"
// The Problem `name` names (to_string's form). Throws GemmError(bad_argument) saying why not.
MPGEMM_API Problem parse_problem(const std::string& name);

// How a shape is computed on a device, and why.
struct Dispatch {
  Path path = Path::cublas;
  std::string problem;                                 // the kind's name, e.g. "mk_kn_fp16_fp32"
  std::string family;                                  // kernel family ("wgmma", "wmma"); empty for cuBLAS
  std::string config;                                  // the config's procedural name; "cublasGemmEx" for cuBLAS
  std::string arch;                                    // the compile target ("sm_90a"); empty for cuBLAS
  std::int64_t tuned_m = 0, tuned_n = 0, tuned_k = 0;  // the tuned shape that decided; 0 when none did
  double ratio_cublas = 0;                             // its winner's speed / cuBLAS's there; 0 when unknown
  bool compiled = false;  // the cubin was not in the cache: NVRTC compiled it when this shape was first used
  std::string reason;     // one sentence, e.g. "not tuned; nearest tuned shape 4096x4096x4096 (distance 1.0) ..."
};

// Every failure of the library. kind() says what failed; code() is the CUDA / driver / cuBLAS status when one
// caused it (0 otherwise).
class MPGEMM_API GemmError : public std::runtime_error {
 public:
  enum class Kind {
    open_failed,      // the database or exported file cannot be read
    no_device,        // no CUDA driver or device
    bad_argument,     // a dimension < 1 or above INT_MAX, a null pointer, an option out of range
    no_tuned_config,  // the policy chose cuBLAS and Options::allow_cublas is false
    compile_failed,   // a winner's cubin is missing and NVRTC could not build it (or compiling is not allowed)
    load_failed,      // the cubin does not load or fit on this device
    launch_failed,    // the launch was refused, or its arguments could not be built (e.g. misaligned pointers)
    cublas_failed,    // cuBLAS refused the call
    cuda_failed,      // another CUDA runtime or driver call failed (allocation, context)
  };
  GemmError(Kind kind, const std::string& what, int code = 0) : std::runtime_error(what), kind_(kind), code_(code) {}
  Kind kind() const { return kind_; }
  int code() const { return code_; }

 private:
  Kind kind_;
  int code_;
};

class MPGEMM_API Library {
 public:
  struct Options {
    std::string cubin_cache;    // empty: "<path>.cubins" beside the database or exported file
    double min_ratio = 1.0;     // a winner runs only where its ratio to cuBLAS at its tuned shape is >= this
                                // (0: any tuned winner runs, even one cuBLAS beat); NaN, infinite or negative:
                                // open() throws GemmError(bad_argument)
    bool allow_cublas = true;   // false: a shape the policy gives to cuBLAS throws GemmError(no_tuned_config)
    bool allow_compile = true;  // false: a cubin missing from the cache throws GemmError(compile_failed)
  };

  // Reads the winners of every (device, shape) from an mpgemm results database (SQLite, opened read-only) or a
  // JSON file written by `mpgemm-export --format json`; the format is told by the file's content. Every winner is
  // checked first: its params are a config its family builds and give its name, its ratios are those of its times,
  // one per device and shape. One that fails refuses the whole file (nothing is opened half): GemmError(open_failed),
  // one line naming the file and the entry (/entries/N) or database row. Needs no GPU.
  static Library open(const std::string& path, const Options& options);
  static Library open(const std::string& path);

  Library(Library&&) noexcept;
  Library& operator=(Library&&) noexcept;
  ~Library();

  // C = A * B on `stream` (a cudaStream_t) on the current device: the default Problem. Returns how the shape is
  // computed on this device: a reference that stays valid while the Library lives. Throws GemmError.
  const Dispatch& gemm(const void* A, const void* B, float* C, std::int64_t M, std::int64_t N, std::int64_t K,
                       void* stream);

  // D = alpha * A.B + beta * C of kind `problem` on `stream`. A, B, C and D are stored as `problem` says; C may be
  // D (an in-place update) and is read only when problem.beta; then it must not be null. beta != 0 needs
  // problem.beta (a kind without C reads none): otherwise GemmError(bad_argument). Throws GemmError.
  const Dispatch& gemm(const Problem& problem, const void* A, const void* B, void* D, std::int64_t M, std::int64_t N,
                       std::int64_t K, void* stream, float alpha = 1.0f, float beta = 0.0f, const void* C = nullptr);

  // How gemm() would compute the shape (of the default Problem, or of `problem`) on the current device, without
  // compiling or launching anything (so Dispatch::compiled is false). Throws GemmError (no_device, bad_argument).
  Dispatch plan(std::int64_t M, std::int64_t N, std::int64_t K) const;
  Dispatch plan(const Problem& problem, std::int64_t M, std::int64_t N, std::int64_t K) const;

  // plan() for a device the file has winners for, named as the file records it ("NVIDIA H200"), without asking any
  // GPU (none is needed): what a program would run there. The device's compute capability is the one recorded with
  // its winners. Throws GemmError(bad_argument) naming the devices the file knows when it has none of that name.
  Dispatch plan_for(const std::string& device, const Problem& problem, std::int64_t M, std::int64_t N,
                    std::int64_t K) const;

  // Prepares gemm() of the problem and shape on the current device and `stream` ahead of the call: decides, compiles
  // (or reads the cubin cache) and loads the kernel, and makes the stream's state (split-K workspace, cuBLAS
  // handle), so that the gemm() calls that follow compile and allocate nothing: what a program does before CUDA
  // graph capture. Returns the dispatch the calls will take (compiled: NVRTC ran now). Throws GemmError as gemm().
  const Dispatch& preload(const Problem& problem, std::int64_t M, std::int64_t N, std::int64_t K,
                          void* stream = nullptr);

  // One tuned (device, kind, shape) entry of the file, with the winner plan() weighs there.
  struct Tuned {
    std::string device;   // as recorded, e.g. "NVIDIA H200"
    std::string problem;  // the kind's name
    std::int64_t m = 0, n = 0, k = 0;
    std::string family, config, arch;
    double ratio_cublas = 0;   // the winner's speed / cuBLAS's there; 0 when unknown
    bool from_rerank = false;  // the winner of a re-rank (else the tuning run's fastest verified config)
  };
  // Every entry, in the file's order.
  std::vector<Tuned> tuned() const;

  // The dispatch of the calling thread's last successful gemm() on any Library; nullptr before the first, and once
  // the Library that made that call is destroyed (valid while it lives).
  static const Dispatch* last_dispatch();

  // Tuned (device, kind, shape) entries read from the file, and where from.
  std::size_t tuned_shapes() const;
  const std::string& path() const;

  // The implementation (src/lib/library_impl.hpp), for the library's own benchmark and tests; opaque here.
  struct Impl;
  Impl& impl() const { return *impl_; }

 private:
  explicit Library(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace mpgemm
