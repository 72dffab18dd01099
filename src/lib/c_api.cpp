// The C interface (include/mpgemm/gemm.h) over mpgemm::Library: every exception becomes a status and the calling
// thread's last error.
#include "mpgemm/gemm.h"

#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <tuple>

#include "mpgemm/gemm.hpp"

struct mpgemm_library {
  mpgemm::Library library;
  // plan() answers by value; the C caller gets pointers into these, one per shape, kept while the library lives.
  std::mutex plans_mutex;
  std::map<std::tuple<std::int64_t, std::int64_t, std::int64_t>, std::unique_ptr<mpgemm::Dispatch>> plans;
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

mpgemm_status mpgemm_plan(mpgemm_library* lib, int64_t M, int64_t N, int64_t K, mpgemm_dispatch* dispatch) {
  if (lib == nullptr) return fail(MPGEMM_BAD_ARGUMENT, "libmpgemm: mpgemm_plan on a null library");
  if (dispatch == nullptr) return fail(MPGEMM_BAD_ARGUMENT, "libmpgemm: mpgemm_plan needs a dispatch to fill");
  return guarded([&] {
    mpgemm::Dispatch planned = lib->library.plan(M, N, K);
    std::lock_guard lock(lib->plans_mutex);
    auto& kept = lib->plans[{M, N, K}];
    if (!kept) kept = std::make_unique<mpgemm::Dispatch>();
    *kept = std::move(planned);
    *dispatch = to_c(*kept);
  });
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
