// The C interface (include/mpgemm/gemm.h) over mpgemm::Library: every exception becomes a status and the calling
// thread's last error.
#include "mpgemm/gemm.h"

#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <string>
#include <tuple>

#include "mpgemm/gemm.hpp"

struct mpgemm_library {
  mpgemm::Library library;
  // plan() answers by value; the C caller gets pointers into these, one per (kind, shape), kept while the library
  // lives.
  std::mutex plans_mutex;
  std::map<std::tuple<std::string, std::int64_t, std::int64_t, std::int64_t>, std::unique_ptr<mpgemm::Dispatch>> plans;
};

namespace {

struct LastError {
  std::string message;
  int code = 0;
};
thread_local LastError last_error;

mpgemm_status status_of(mpgemm::GemmError::Kind kind) {
  using K = mpgemm::GemmError::Kind;
  switch (kind) {
    case K::open_failed:
      return MPGEMM_OPEN_FAILED;
    case K::no_device:
      return MPGEMM_NO_DEVICE;
    case K::bad_argument:
      return MPGEMM_BAD_ARGUMENT;
    case K::no_tuned_config:
      return MPGEMM_NO_TUNED_CONFIG;
    case K::compile_failed:
      return MPGEMM_COMPILE_FAILED;
    case K::load_failed:
      return MPGEMM_LOAD_FAILED;
    case K::launch_failed:
      return MPGEMM_LAUNCH_FAILED;
    case K::cublas_failed:
      return MPGEMM_CUBLAS_FAILED;
    case K::cuda_failed:
      return MPGEMM_CUDA_FAILED;
  }
  return MPGEMM_INTERNAL;
}

mpgemm_status fail(mpgemm_status status, std::string message, int code = 0) {
  last_error.message = std::move(message);
  last_error.code = code;
  return status;
}

// Runs `body`, turning what it throws into a status and the thread's last error.
template <class Body>
mpgemm_status guarded(Body&& body) noexcept {
  try {
    body();
    last_error = {};
    return MPGEMM_OK;
  } catch (const mpgemm::GemmError& e) {
    return fail(status_of(e.kind()), e.what(), e.code());
  } catch (const std::bad_alloc&) {
    return fail(MPGEMM_INTERNAL, "libmpgemm: out of host memory");
  } catch (const std::exception& e) {
    return fail(MPGEMM_INTERNAL, std::string("libmpgemm: ") + e.what());
  } catch (...) {
    return fail(MPGEMM_INTERNAL, "libmpgemm: unknown exception");
  }
}

mpgemm_dispatch to_c(const mpgemm::Dispatch& d) {
  mpgemm_dispatch out{};
  out.path = d.path == mpgemm::Path::tuned     ? MPGEMM_PATH_TUNED
             : d.path == mpgemm::Path::nearest ? MPGEMM_PATH_NEAREST
                                               : MPGEMM_PATH_CUBLAS;
  out.family = d.family.c_str();
  out.config = d.config.c_str();
  out.arch = d.arch.c_str();
  out.tuned_m = d.tuned_m;
  out.tuned_n = d.tuned_n;
  out.tuned_k = d.tuned_k;
  out.ratio_cublas = d.ratio_cublas;
  out.compiled = d.compiled ? 1 : 0;
  out.reason = d.reason.c_str();
  return out;
}

}  // namespace

extern "C" {

mpgemm_options mpgemm_default_options(void) {
  const mpgemm::Library::Options d;
  return mpgemm_options{nullptr, d.min_ratio, d.allow_cublas ? 1 : 0, d.allow_compile ? 1 : 0};
}

mpgemm_status mpgemm_open(const char* path, const mpgemm_options* options, mpgemm_library** out) {
  if (out == nullptr) return fail(MPGEMM_BAD_ARGUMENT, "libmpgemm: mpgemm_open needs somewhere to put the library");
  *out = nullptr;
  if (path == nullptr) return fail(MPGEMM_BAD_ARGUMENT, "libmpgemm: mpgemm_open needs a path");
  const mpgemm_options o = options ? *options : mpgemm_default_options();
  return guarded([&] {
    mpgemm::Library::Options lo;
    lo.cubin_cache = o.cubin_cache ? o.cubin_cache : "";
    lo.min_ratio = o.min_ratio;
    lo.allow_cublas = o.allow_cublas != 0;
    lo.allow_compile = o.allow_compile != 0;
    *out = new mpgemm_library{mpgemm::Library::open(path, lo), {}, {}};
  });
}

void mpgemm_close(mpgemm_library* lib) {
  delete lib;
}

mpgemm_status mpgemm_gemm(mpgemm_library* lib, const void* A, const void* B, float* C, int64_t M, int64_t N, int64_t K,
                          void* stream, mpgemm_dispatch* dispatch) {
  if (lib == nullptr) return fail(MPGEMM_BAD_ARGUMENT, "libmpgemm: mpgemm_gemm on a null library");
  return guarded([&] {
    const mpgemm::Dispatch& d = lib->library.gemm(A, B, C, M, N, K, stream);
    if (dispatch) *dispatch = to_c(d);
  });
}

mpgemm_gemm_desc mpgemm_default_gemm_desc(void) {
  mpgemm_gemm_desc d{};
  d.size = sizeof(mpgemm_gemm_desc);
  d.a_layout = MPGEMM_A_MK;
  d.b_layout = MPGEMM_B_KN;
  d.in_type = MPGEMM_FP16;
  d.out_type = MPGEMM_FP32;
  d.alpha = 1.0f;
  d.beta = 0.0f;
  return d;
}

namespace {

// The Problem a descriptor names (C is read when beta != 0); nullopt (with why) for a value outside its enum.
std::optional<mpgemm::Problem> problem_of(const mpgemm_gemm_desc& d, std::string& why) {
  using P = mpgemm::Problem;
  if (d.a_layout != MPGEMM_A_MK && d.a_layout != MPGEMM_A_KM) why = "a_layout is neither MPGEMM_A_MK nor MPGEMM_A_KM";
  if (d.b_layout != MPGEMM_B_KN && d.b_layout != MPGEMM_B_NK) why = "b_layout is neither MPGEMM_B_KN nor MPGEMM_B_NK";
  if (d.in_type != MPGEMM_FP16 && d.in_type != MPGEMM_BF16) why = "in_type is neither MPGEMM_FP16 nor MPGEMM_BF16";
  if (d.out_type != MPGEMM_FP16 && d.out_type != MPGEMM_BF16 && d.out_type != MPGEMM_FP32)
    why = "out_type is none of MPGEMM_FP16, MPGEMM_BF16, MPGEMM_FP32";
  if (!why.empty()) return std::nullopt;
  const auto type = [](mpgemm_type t) {
    return t == MPGEMM_FP16 ? P::Type::fp16 : t == MPGEMM_BF16 ? P::Type::bf16 : P::Type::fp32;
  };
  P p;
  p.a = d.a_layout == MPGEMM_A_MK ? P::ALayout::mk : P::ALayout::km;
  p.b = d.b_layout == MPGEMM_B_KN ? P::BLayout::kn : P::BLayout::nk;
  p.in = type(d.in_type);
  p.out = type(d.out_type);
  p.beta = d.beta != 0.0f;
  return p;
}

// The smallest descriptor this library reads: every field up to `beta`, the first version's last.
constexpr std::size_t kFirstDescSize = offsetof(mpgemm_gemm_desc, beta) + sizeof(float);

}  // namespace

namespace {

// The descriptor's Problem, or a status: a null or wrongly sized descriptor, a value outside its enums.
mpgemm_status read_desc(const mpgemm_gemm_desc* desc, const char* function, mpgemm::Problem& problem) {
  const std::string at = std::string("libmpgemm: ") + function;
  if (desc == nullptr) return fail(MPGEMM_BAD_ARGUMENT, at + " on a null descriptor");
  if (desc->size < kFirstDescSize || desc->size > sizeof(mpgemm_gemm_desc))
    return fail(MPGEMM_BAD_ARGUMENT,
                at + ": the descriptor's size is " + std::to_string(desc->size) + " bytes; this library reads " +
                    std::to_string(kFirstDescSize) + " to " + std::to_string(sizeof(mpgemm_gemm_desc)) +
                    " (start from mpgemm_default_gemm_desc(); a larger one comes from a newer mpgemm/gemm.h)");
  std::string why;
  const auto p = problem_of(*desc, why);
  if (!p) return fail(MPGEMM_BAD_ARGUMENT, at + ": " + why);
  problem = *p;
  return MPGEMM_OK;
}

mpgemm_status plan_into(mpgemm_library* lib, const mpgemm::Problem& problem, int64_t M, int64_t N, int64_t K,
                        mpgemm_dispatch* dispatch) {
  return guarded([&] {
    mpgemm::Dispatch planned = lib->library.plan(problem, M, N, K);
    std::lock_guard lock(lib->plans_mutex);
    auto& kept = lib->plans[{mpgemm::to_string(problem), M, N, K}];
    if (!kept) kept = std::make_unique<mpgemm::Dispatch>();
    *kept = std::move(planned);
    *dispatch = to_c(*kept);
  });
}

}  // namespace

mpgemm_status mpgemm_gemm_ex(mpgemm_library* lib, const mpgemm_gemm_desc* desc, void* stream,
                             mpgemm_dispatch* dispatch) {
  if (lib == nullptr) return fail(MPGEMM_BAD_ARGUMENT, "libmpgemm: mpgemm_gemm_ex on a null library");
  mpgemm::Problem problem;
  if (const mpgemm_status s = read_desc(desc, "mpgemm_gemm_ex", problem); s != MPGEMM_OK) return s;
  if (desc->D == nullptr) return fail(MPGEMM_BAD_ARGUMENT, "libmpgemm: mpgemm_gemm_ex: D is NULL");
  if (problem.beta && desc->C == nullptr)
    return fail(MPGEMM_BAD_ARGUMENT, "libmpgemm: mpgemm_gemm_ex: beta != 0 reads C, and C is NULL (it may be D)");
  return guarded([&] {
    const mpgemm::Dispatch& d = lib->library.gemm(problem, desc->A, desc->B, desc->D, desc->M, desc->N, desc->K, stream,
                                                  desc->alpha, desc->beta, desc->C);
    if (dispatch) *dispatch = to_c(d);
  });
}

mpgemm_status mpgemm_plan(mpgemm_library* lib, int64_t M, int64_t N, int64_t K, mpgemm_dispatch* dispatch) {
  if (lib == nullptr) return fail(MPGEMM_BAD_ARGUMENT, "libmpgemm: mpgemm_plan on a null library");
  if (dispatch == nullptr) return fail(MPGEMM_BAD_ARGUMENT, "libmpgemm: mpgemm_plan needs a dispatch to fill");
  return plan_into(lib, mpgemm::Problem{}, M, N, K, dispatch);
}

mpgemm_status mpgemm_plan_ex(mpgemm_library* lib, const mpgemm_gemm_desc* desc, mpgemm_dispatch* dispatch) {
  if (lib == nullptr) return fail(MPGEMM_BAD_ARGUMENT, "libmpgemm: mpgemm_plan_ex on a null library");
  if (dispatch == nullptr) return fail(MPGEMM_BAD_ARGUMENT, "libmpgemm: mpgemm_plan_ex needs a dispatch to fill");
  mpgemm::Problem problem;
  if (const mpgemm_status s = read_desc(desc, "mpgemm_plan_ex", problem); s != MPGEMM_OK) return s;
  return plan_into(lib, problem, desc->M, desc->N, desc->K, dispatch);
}

size_t mpgemm_tuned_shapes(const mpgemm_library* lib) {
  return lib ? lib->library.tuned_shapes() : 0;
}

const char* mpgemm_last_error(void) {
  return last_error.message.c_str();
}

int mpgemm_last_error_code(void) {
  return last_error.code;
}

const char* mpgemm_status_name(mpgemm_status status) {
  switch (status) {
    case MPGEMM_OK:
      return "ok";
    case MPGEMM_OPEN_FAILED:
      return "open_failed";
    case MPGEMM_NO_DEVICE:
      return "no_device";
    case MPGEMM_BAD_ARGUMENT:
      return "bad_argument";
    case MPGEMM_NO_TUNED_CONFIG:
      return "no_tuned_config";
    case MPGEMM_COMPILE_FAILED:
      return "compile_failed";
    case MPGEMM_LOAD_FAILED:
      return "load_failed";
    case MPGEMM_LAUNCH_FAILED:
      return "launch_failed";
    case MPGEMM_CUBLAS_FAILED:
      return "cublas_failed";
    case MPGEMM_CUDA_FAILED:
      return "cuda_failed";
    case MPGEMM_INTERNAL:
      return "internal";
  }
  return "?";
}

}  // extern "C"
