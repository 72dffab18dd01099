// mpgemm._core: libmpgemm (include/mpgemm/gemm.hpp) for Python, over its public API only. Tensors cross as DLPack
// (nanobind's ndarray): any producer (torch, CuPy, JAX) works and the module links no framework. The Python package
// (python/mpgemm) builds the user-facing Library on this; docs/python.md describes both.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <array>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include <cuda_runtime_api.h>

#include "mpgemm/gemm.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace {

using mpgemm::Dispatch;
using mpgemm::GemmError;
using mpgemm::Library;
using mpgemm::Problem;

// One Python exception class per GemmError::Kind, all under mpgemm.GemmError (a RuntimeError); BadArgument is
// also a ValueError. Made once at import.
constexpr int kKinds = 9;
std::array<PyObject*, kKinds> error_classes{};
PyObject* error_base = nullptr;

struct ErrorClass {
  GemmError::Kind kind;
  const char* name;
  const char* doc;
};
constexpr std::array<ErrorClass, kKinds> kErrorClasses{{
    {GemmError::Kind::open_failed, "OpenFailed", "The database or exported file cannot be read."},
    {GemmError::Kind::no_device, "NoDevice", "No CUDA driver or device."},
    {GemmError::Kind::bad_argument, "BadArgument",
     "A dimension, tensor, layout, dtype or option no kind accepts (also a ValueError)."},
    {GemmError::Kind::no_tuned_config, "NoTunedConfig",
     "The plan chose the vendor path and allow_vendor is False, or the vendor does not compute the kind."},
    {GemmError::Kind::compile_failed, "CompileFailed",
     "A winner's cubin is missing and NVRTC could not build it (or allow_compile is False)."},
    {GemmError::Kind::load_failed, "LoadFailed", "The cubin does not load or fit on this device."},
    {GemmError::Kind::launch_failed, "LaunchFailed", "The launch was refused, or its arguments could not be built."},
    {GemmError::Kind::cublas_failed, "CublasFailed", "cuBLAS refused the call."},
    {GemmError::Kind::cuda_failed, "CudaFailed", "Another CUDA runtime or driver call failed."},
}};

void make_error_classes(nb::module_& m) {
  error_base = PyErr_NewExceptionWithDoc("mpgemm._core.GemmError",
                                         "Every failure of libmpgemm. `code` is the CUDA / driver / cuBLAS status that "
                                         "caused it (0 when none did).",
                                         PyExc_RuntimeError, nullptr);
  m.attr("GemmError") = nb::borrow(error_base);
  for (std::size_t i = 0; i < kErrorClasses.size(); ++i) {
    const ErrorClass& e = kErrorClasses[i];
    const std::string qualified = std::string("mpgemm._core.") + e.name;
    nb::object bases = e.kind == GemmError::Kind::bad_argument
                           ? nb::object(nb::make_tuple(nb::borrow(error_base), nb::borrow(PyExc_ValueError)))
                           : nb::borrow(error_base);
    PyObject* cls = PyErr_NewExceptionWithDoc(qualified.c_str(), e.doc, bases.ptr(), nullptr);
    error_classes[static_cast<std::size_t>(e.kind)] = cls;
    m.attr(e.name) = nb::borrow(cls);
  }
}

void raise_gemm_error(const GemmError& e) {
  PyObject* cls = error_classes[static_cast<std::size_t>(e.kind())];
  if (cls == nullptr) cls = error_base;
  nb::object instance = nb::steal(PyObject_CallFunction(cls, "s", e.what()));
  if (!instance.is_valid()) return;  // the call set its own error
  nb::setattr(instance, "code", nb::int_(e.code()));
  PyErr_SetObject(cls, instance.ptr());
}

// --- tensors ------------------------------------------------------------------------------------------------------

using Tensor = nb::ndarray<nb::ro>;  // an input: any dtype, device and dimension, checked here with the reason
using OutTensor = nb::ndarray<>;     // the output: the same, and writable

template <typename T>
std::optional<Problem::Type> type_of(const T& t) {
  const nb::dlpack::dtype d = t.dtype();
  if (d.lanes != 1) return std::nullopt;
  if (d.code == static_cast<std::uint8_t>(nb::dlpack::dtype_code::Float) && d.bits == 16) return Problem::Type::fp16;
  if (d.code == static_cast<std::uint8_t>(nb::dlpack::dtype_code::Bfloat) && d.bits == 16) return Problem::Type::bf16;
  if (d.code == static_cast<std::uint8_t>(nb::dlpack::dtype_code::Float) && d.bits == 32) return Problem::Type::fp32;
  return std::nullopt;
}

template <typename T>
std::string describe_type(const T& t) {
  const nb::dlpack::dtype d = t.dtype();
  const char* code = d.code == static_cast<std::uint8_t>(nb::dlpack::dtype_code::Float)    ? "float"
                     : d.code == static_cast<std::uint8_t>(nb::dlpack::dtype_code::Bfloat) ? "bfloat"
                     : d.code == static_cast<std::uint8_t>(nb::dlpack::dtype_code::Int)    ? "int"
                     : d.code == static_cast<std::uint8_t>(nb::dlpack::dtype_code::UInt)   ? "uint"
                                                                                           : "other";
  return std::string(code) + std::to_string(d.bits);
}

[[noreturn]] void bad(const std::string& what) {
  throw GemmError(GemmError::Kind::bad_argument, "mpgemm: " + what);
}

// A 2-D CUDA tensor of logical shape rows x cols: true when stored row-major and packed (strides (cols, 1)), false
// when it is the transposed view of a packed cols x rows array (strides (1, rows)). Anything else has no kind: a
// copy would hide a cost, so it is refused with the reason. An extent of 1 has any stride.
template <typename T>
bool row_major(const T& t, const char* name) {
  if (t.ndim() != 2)
    bad(std::string(name) + " has " + std::to_string(t.ndim()) + " dimensions: mpgemm takes 2-D tensors");
  if (t.device_type() != nb::device::cuda::value)
    bad(std::string(name) + " is not a CUDA tensor (DLPack device type " + std::to_string(t.device_type()) + ")");
  const std::int64_t rows = static_cast<std::int64_t>(t.shape(0)), cols = static_cast<std::int64_t>(t.shape(1));
  const std::int64_t s0 = t.stride(0), s1 = t.stride(1);
  if ((s1 == 1 || cols == 1) && (s0 == cols || rows == 1)) return true;
  if ((s0 == 1 || rows == 1) && (s1 == rows || cols == 1)) return false;
  bad(std::string(name) + " (" + std::to_string(rows) + " x " + std::to_string(cols) + ") has strides (" +
      std::to_string(s0) + ", " + std::to_string(s1) + "): neither packed row-major (" + std::to_string(cols) +
      ", 1) nor a transposed packed view (1, " + std::to_string(rows) +
      "); no problem kind reads it (make it "
      "contiguous first)");
}

// The call's problem kind and extents, read from the tensors: D = alpha * A.B + beta * C with A (M, K), B (K, N),
// D and C (M, N) row-major.
struct TensorCall {
  Problem problem;
  std::int64_t m = 0, n = 0, k = 0;
  int device = 0;
};

TensorCall read_call(const Tensor& a, const Tensor& b, const OutTensor& d, const std::optional<Tensor>& c, float beta) {
  TensorCall call;
  call.problem.a = row_major(a, "A") ? Problem::ALayout::mk : Problem::ALayout::km;
  call.problem.b = row_major(b, "B") ? Problem::BLayout::kn : Problem::BLayout::nk;
  if (!row_major(d, "the output")) bad("the output must be row-major and packed (a transposed view is not)");
  call.m = static_cast<std::int64_t>(a.shape(0));
  call.k = static_cast<std::int64_t>(a.shape(1));
  call.n = static_cast<std::int64_t>(b.shape(1));
  if (static_cast<std::int64_t>(b.shape(0)) != call.k)
    bad("A is " + std::to_string(call.m) + " x " + std::to_string(call.k) + " but B is " + std::to_string(b.shape(0)) +
        " x " + std::to_string(call.n));
  if (static_cast<std::int64_t>(d.shape(0)) != call.m || static_cast<std::int64_t>(d.shape(1)) != call.n)
    bad("the output is " + std::to_string(d.shape(0)) + " x " + std::to_string(d.shape(1)) + ", not " +
        std::to_string(call.m) + " x " + std::to_string(call.n));
  const auto in_a = type_of(a), in_b = type_of(b), out = type_of(d);
  if (!in_a || *in_a == Problem::Type::fp32 || in_a != in_b)
    bad("A is " + describe_type(a) + " and B " + describe_type(b) +
        ": mpgemm takes A and B both float16 or both bfloat16");
  if (!out) bad("the output is " + describe_type(d) + ": mpgemm writes float32, float16 or bfloat16");
  call.problem.in = *in_a;
  call.problem.out = *out;
  call.problem.beta = beta != 0.0f;
  if (c) {
    if (!row_major(*c, "C") || c->shape(0) != d.shape(0) || c->shape(1) != d.shape(1) || type_of(*c) != out)
      bad("C must be a packed row-major tensor of the output's shape and dtype");
  } else if (call.problem.beta) {
    bad("beta != 0 reads C: pass c (it may be the output)");
  }
  call.device = a.device_id();
  for (const int other : {b.device_id(), d.device_id()})
    if (other != call.device)
      bad("the tensors are on different devices (" + std::to_string(call.device) + " and " + std::to_string(other) +
          ")");
  if (c && c->device_id() != call.device) bad("C is on another device than A");
  return call;
}

// Makes `device` current for the call and restores the caller's current device after it.
class DeviceGuard {
 public:
  explicit DeviceGuard(int device) {
    if (cudaGetDevice(&previous_) != cudaSuccess) {
      (void)cudaGetLastError();
      previous_ = -1;
      return;  // the library's own call says what is wrong
    }
    if (previous_ != device && cudaSetDevice(device) == cudaSuccess) switched_ = true;
  }
  ~DeviceGuard() {
    if (switched_) (void)cudaSetDevice(previous_);
  }
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

 private:
  int previous_ = -1;
  bool switched_ = false;
};

void* stream_of(std::uintptr_t stream) {
  return reinterpret_cast<void*>(stream);
}

std::string dispatch_repr(const Dispatch& d) {
  std::string s = "Dispatch(path='" + std::string(mpgemm::to_string(d.path)) + "', problem='" + d.problem +
                  "', config='" + d.config + "'";
  if (d.tuned_m)
    s += ", tuned=" + std::to_string(d.tuned_m) + "x" + std::to_string(d.tuned_n) + "x" + std::to_string(d.tuned_k);
  if (d.ratio_cublas > 0) s += ", ratio_cublas=" + std::to_string(d.ratio_cublas).substr(0, 5);
  return s + ", reason='" + d.reason + "')";
}

Library open_library(const std::string& path, double min_ratio, bool allow_vendor, bool allow_compile,
                     const std::string& cubin_cache) {
  Library::Options o;
  o.min_ratio = min_ratio;
  o.allow_cublas = allow_vendor;
  o.allow_compile = allow_compile;
  o.cubin_cache = cubin_cache;
  return Library::open(path, o);
}

}  // namespace

NB_MODULE(_core, m) {
  m.doc() = "libmpgemm's bindings (import mpgemm, not this module: mpgemm.Library is the documented API).";
  m.attr("__version__") = MPGEMM_VERSION;
  // Where the build found the CUDA headers NVRTC compiles the kernels with ('|'-separated): the library looks there
  // after $MPGEMM_CUDA_INCLUDE_DIR, then in /usr/local/cuda/include (mpgemm.environment()).
  m.attr("cuda_include_dirs") = MPGEMM_CUDA_INCLUDE_DIR;
  make_error_classes(m);
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const GemmError& e) {
      raise_gemm_error(e);
    }
  });

  nb::class_<Dispatch>(m, "Dispatch", "How a GEMM is (or would be) computed, and why.")
      .def_prop_ro(
          "path", [](const Dispatch& d) { return std::string(mpgemm::to_string(d.path)); },
          "'tuned' (the winner tuned at this shape), 'nearest' (the nearest tuned shape's winner) or 'cublas'")
      .def_ro("problem", &Dispatch::problem, "the kind's name, e.g. 'mk_nk_bf16_bf16'")
      .def_ro("family", &Dispatch::family, "the kernel family ('wgmma', 'wmma'); '' for cuBLAS")
      .def_ro("config", &Dispatch::config, "the config's procedural name; 'cublasGemmEx' for cuBLAS")
      .def_ro("arch", &Dispatch::arch, "the compile target ('sm_90a'); '' for cuBLAS")
      .def_ro("tuned_m", &Dispatch::tuned_m)
      .def_ro("tuned_n", &Dispatch::tuned_n)
      .def_ro("tuned_k", &Dispatch::tuned_k)
      .def_ro("ratio_cublas", &Dispatch::ratio_cublas, "the winner's speed / cuBLAS's at its tuned shape; 0: unknown")
      .def_ro("compiled", &Dispatch::compiled, "NVRTC compiled the winner's cubin when this shape was first used")
      .def_ro("reason", &Dispatch::reason, "one sentence")
      .def("__repr__", &dispatch_repr);

  nb::class_<Library::Tuned>(m, "Tuned", "One tuned (device, kind, shape) entry of the file and its winner.")
      .def_ro("device", &Library::Tuned::device)
      .def_ro("problem", &Library::Tuned::problem)
      .def_ro("m", &Library::Tuned::m)
      .def_ro("n", &Library::Tuned::n)
      .def_ro("k", &Library::Tuned::k)
      .def_ro("family", &Library::Tuned::family)
      .def_ro("config", &Library::Tuned::config)
      .def_ro("arch", &Library::Tuned::arch)
      .def_ro("ratio_cublas", &Library::Tuned::ratio_cublas)
      .def_ro("from_rerank", &Library::Tuned::from_rerank)
      .def("__repr__", [](const Library::Tuned& t) {
        return "Tuned(device='" + t.device + "', problem='" + t.problem + "', shape=" + std::to_string(t.m) + "x" +
               std::to_string(t.n) + "x" + std::to_string(t.k) + ", config='" + t.config + "')";
      });

  nb::class_<Library>(m, "Library", "libmpgemm's Library (use mpgemm.Library).")
      .def(nb::new_(&open_library), "path"_a, "min_ratio"_a = 1.0, "allow_vendor"_a = true, "allow_compile"_a = true,
           "cubin_cache"_a = "")
      .def_prop_ro("path", &Library::path)
      .def_prop_ro("tuned_shapes", &Library::tuned_shapes)
      .def("tuned", &Library::tuned)
      .def(
          "plan",
          [](const Library& lib, const std::string& problem, std::int64_t M, std::int64_t N, std::int64_t K) {
            return lib.plan(mpgemm::parse_problem(problem), M, N, K);
          },
          "problem"_a, "m"_a, "n"_a, "k"_a)
      .def(
          "plan_for",
          [](const Library& lib, const std::string& device, const std::string& problem, std::int64_t M, std::int64_t N,
             std::int64_t K) { return lib.plan_for(device, mpgemm::parse_problem(problem), M, N, K); },
          "device"_a, "problem"_a, "m"_a, "n"_a, "k"_a)
      .def(
          "preload",
          [](Library& lib, const std::string& problem, std::int64_t M, std::int64_t N, std::int64_t K,
             std::uintptr_t stream) {
            nb::gil_scoped_release release;
            return lib.preload(mpgemm::parse_problem(problem), M, N, K, stream_of(stream));
          },
          "problem"_a, "m"_a, "n"_a, "k"_a, "stream"_a = 0, nb::rv_policy::copy)
      .def(
          "gemm",
          [](Library& lib, const Tensor& a, const Tensor& b, const OutTensor& d, std::uintptr_t stream, float alpha,
             float beta, const std::optional<Tensor>& c) {
            const TensorCall call = read_call(a, b, d, c, beta);
            DeviceGuard guard(call.device);
            (void)lib.gemm(call.problem, a.data(), b.data(), d.data(), call.m, call.n, call.k, stream_of(stream), alpha,
                           beta, c ? c->data() : nullptr);
          },
          "a"_a, "b"_a, "d"_a, "stream"_a, "alpha"_a = 1.0f, "beta"_a = 0.0f, "c"_a = nb::none(),
          "D = alpha * A.B + beta * C on `stream` (a cudaStream_t as an int); the kind is read from the tensors. "
          "Returns nothing (last_dispatch() says how it ran): no Python object is made per call")
      .def(
          "gemm_ptr",
          [](Library& lib, const std::string& problem, std::uintptr_t a, std::uintptr_t b, std::uintptr_t d,
             std::int64_t M, std::int64_t N, std::int64_t K, std::uintptr_t stream, float alpha, float beta,
             std::uintptr_t c) {
            (void)lib.gemm(mpgemm::parse_problem(problem), reinterpret_cast<const void*>(a),
                           reinterpret_cast<const void*>(b), reinterpret_cast<void*>(d), M, N, K, stream_of(stream),
                           alpha, beta, reinterpret_cast<const void*>(c));
          },
          "problem"_a, "a"_a, "b"_a, "d"_a, "m"_a, "n"_a, "k"_a, "stream"_a, "alpha"_a = 1.0f, "beta"_a = 0.0f,
          "c"_a = 0, "gemm() on raw device pointers of the named kind (no checks of layout); returns nothing");

  m.def(
      "last_dispatch",
      []() -> std::optional<Dispatch> {
        const Dispatch* d = Library::last_dispatch();
        return d ? std::optional<Dispatch>(*d) : std::nullopt;
      },
      "The calling thread's last successful gemm()'s dispatch (a copy); None before the first.");

  m.def(
      "host_cost_us",
      [](Library& lib, const std::string& problem, std::uintptr_t a, std::uintptr_t b, std::uintptr_t d, std::int64_t M,
         std::int64_t N, std::int64_t K, std::uintptr_t stream, int calls, int batches) {
        // The C++ gemm()'s host time per call, as tools/python_bench.py compares Library.mm with: `batches` batches of
        // `calls` enqueues, the stream drained before each batch, outside the clock; one median per batch.
        const Problem kind = mpgemm::parse_problem(problem);
        std::vector<double> per_call;
        nb::gil_scoped_release release;
        for (int i = 0; i < batches; ++i) {
          if (cudaStreamSynchronize(reinterpret_cast<cudaStream_t>(stream)) != cudaSuccess)
            throw GemmError(GemmError::Kind::cuda_failed, "mpgemm: host_cost_us: cudaStreamSynchronize failed");
          const auto start = std::chrono::steady_clock::now();
          for (int c = 0; c < calls; ++c)
            (void)lib.gemm(kind, reinterpret_cast<const void*>(a), reinterpret_cast<const void*>(b),
                           reinterpret_cast<void*>(d), M, N, K, stream_of(stream));
          const std::chrono::duration<double, std::micro> took = std::chrono::steady_clock::now() - start;
          per_call.push_back(took.count() / calls);
        }
        return per_call;
      },
      "lib"_a, "problem"_a, "a"_a, "b"_a, "d"_a, "m"_a, "n"_a, "k"_a, "stream"_a, "calls"_a = 64, "batches"_a = 100,
      "Host microseconds per call of the C++ Library::gemm() on raw pointers, one figure per batch (a benchmark aid).");

  m.def("problem_kinds", [] {
    std::vector<std::string> names;
    for (auto a : {Problem::ALayout::mk, Problem::ALayout::km})
      for (auto b : {Problem::BLayout::kn, Problem::BLayout::nk})
        for (auto in : {Problem::Type::fp16, Problem::Type::bf16})
          for (auto out : {Problem::Type::fp32, Problem::Type::fp16, Problem::Type::bf16})
            for (bool beta : {false, true}) names.push_back(mpgemm::to_string(Problem{a, b, in, out, beta}));
    return names;
  });
}
