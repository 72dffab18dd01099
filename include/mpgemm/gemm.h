/* libmpgemm's C interface: the same library as mpgemm/gemm.hpp (read its comment for the problem, the dispatch
   policy, kernels and thread safety) behind a C ABI, for bindings that cannot call C++ (Python's ctypes or cffi,
   other languages' FFIs). A call never throws and never exits: it returns a status, and the calling thread's last
   error message says what failed.

     mpgemm_library* lib = NULL;
     if (mpgemm_open("results/results.db", NULL, &lib) != MPGEMM_OK) fprintf(stderr, "%s\n", mpgemm_last_error());
     mpgemm_path path;
     mpgemm_status s = mpgemm_gemm(lib, A, B, C, M, N, K, stream, &path);   // C = A * B on `stream`
     mpgemm_close(lib);
*/
#ifndef MPGEMM_GEMM_H
#define MPGEMM_GEMM_H

#include <stddef.h>
#include <stdint.h>

#include "mpgemm/api.h"

#ifdef __cplusplus
extern "C" {
#endif

/* MPGEMM_OK, or what failed: one value per mpgemm::GemmError::Kind, plus MPGEMM_INTERNAL for anything else. */
typedef enum mpgemm_status {
  MPGEMM_OK = 0,
  MPGEMM_OPEN_FAILED = 1,     /* the database or exported file cannot be read */
  MPGEMM_NO_DEVICE = 2,       /* no CUDA driver or device */
  MPGEMM_BAD_ARGUMENT = 3,    /* a dimension < 1 or above INT_MAX, a null pointer or handle, a bad option */
  MPGEMM_NO_TUNED_CONFIG = 4, /* the policy chose cuBLAS and allow_cublas is 0 */
  MPGEMM_COMPILE_FAILED = 5,  /* a winner's cubin is missing and could not be (or may not be) compiled */
  MPGEMM_LOAD_FAILED = 6,     /* the cubin does not load or fit on this device */
  MPGEMM_LAUNCH_FAILED = 7,   /* the launch was refused, or its arguments could not be built */
  MPGEMM_CUBLAS_FAILED = 8,   /* cuBLAS refused the call */
  MPGEMM_CUDA_FAILED = 9,     /* another CUDA runtime or driver call failed */
  MPGEMM_INTERNAL = 10        /* an error of the library itself (e.g. out of host memory) */
} mpgemm_status;

/* Which code computed a call (mpgemm::Path). */
typedef enum mpgemm_path { MPGEMM_PATH_TUNED = 0, MPGEMM_PATH_NEAREST = 1, MPGEMM_PATH_CUBLAS = 2 } mpgemm_path;

/* mpgemm::Library::Options. */
typedef struct mpgemm_options {
  const char* cubin_cache; /* NULL or "": "<path>.cubins" beside the file */
  double min_ratio;        /* a winner runs only where its ratio to cuBLAS at its tuned shape is >= this (0: any
                              winner runs); NaN, infinite or negative: mpgemm_open returns MPGEMM_BAD_ARGUMENT */
  int allow_cublas;        /* 0: a shape the policy gives to cuBLAS fails with MPGEMM_NO_TUNED_CONFIG */
  int allow_compile;       /* 0: a cubin missing from the cache fails with MPGEMM_COMPILE_FAILED */
} mpgemm_options;

/* How a shape is computed, and why (mpgemm::Dispatch). The strings are the library's, valid while it lives. */
typedef struct mpgemm_dispatch {
  mpgemm_path path;
  const char* family;                /* "wgmma", "wmma"; "" for cuBLAS */
  const char* config;                /* the config's procedural name; "cublasGemmEx" for cuBLAS */
  const char* arch;                  /* the compile target ("sm_90a"); "" for cuBLAS */
  int64_t tuned_m, tuned_n, tuned_k; /* the tuned shape that decided; 0 when none did */
  double ratio_cublas;               /* its winner's speed / cuBLAS's there; 0 when unknown */
  int compiled;                      /* 1: NVRTC compiled the cubin when this shape was first used */
  const char* reason;                /* one sentence */
} mpgemm_dispatch;

typedef struct mpgemm_library mpgemm_library; /* opaque */

/* The defaults of mpgemm::Library::Options. */
MPGEMM_API mpgemm_options mpgemm_default_options(void);

/* Opens a results database or an exported JSON file (options NULL: the defaults). On success *out is the library
   (close it with mpgemm_close); otherwise *out is NULL. A file with one unsound winner (see Library::open) is
   refused whole: MPGEMM_OPEN_FAILED, the last error naming the file and the entry. Needs no GPU. */
MPGEMM_API mpgemm_status mpgemm_open(const char* path, const mpgemm_options* options, mpgemm_library** out);

/* Frees the library (NULL is ignored). No call on it may be running. Closing the same library twice is undefined
   behaviour, as free() twice is: the handle is invalid once this returns (set it to NULL). */
MPGEMM_API void mpgemm_close(mpgemm_library* lib);

/* C = A * B on `stream` (a cudaStream_t; NULL: the legacy default stream) on the current device; A is M x K
   __half, B is K x N __half, C is M x N float, all row-major device pointers. `dispatch` (may be NULL) receives
   how it was computed. */
MPGEMM_API mpgemm_status mpgemm_gemm(mpgemm_library* lib, const void* A, const void* B, float* C, int64_t M, int64_t N,
                                     int64_t K, void* stream, mpgemm_dispatch* dispatch);

/* The GEMM of mpgemm_gemm_ex: D (M x N, row-major) = alpha * A.B + beta * C, FP32 accumulation, rounded once to D's
   type (mpgemm::ProblemKind; the names are its procedural name's parts). */
typedef enum mpgemm_a_layout { MPGEMM_A_MK = 0, MPGEMM_A_KM = 1 } mpgemm_a_layout; /* A stored M x K, or K x M */
typedef enum mpgemm_b_layout { MPGEMM_B_KN = 0, MPGEMM_B_NK = 1 } mpgemm_b_layout; /* B stored K x N, or N x K */
typedef enum mpgemm_type { MPGEMM_FP16 = 0, MPGEMM_BF16 = 1, MPGEMM_FP32 = 2 } mpgemm_type;

/* A call of mpgemm_gemm_ex. `size` is sizeof(mpgemm_gemm_desc) as the caller compiled it: fields added at the end
   later never break a caller built against this header, and a library older than the caller's header refuses a
   descriptor larger than it knows. Start from mpgemm_default_gemm_desc(). */
typedef struct mpgemm_gemm_desc {
  size_t size;
  mpgemm_a_layout a_layout; /* MPGEMM_A_MK */
  mpgemm_b_layout b_layout; /* MPGEMM_B_KN */
  mpgemm_type in_type;      /* A's and B's: MPGEMM_FP16 */
  mpgemm_type out_type;     /* C's and D's: MPGEMM_FP32 */
  int64_t M, N, K;
  const void* A; /* device pointers, rows contiguous, as the layouts say */
  const void* B;
  const void* C; /* read when beta != 0 (may be D); NULL otherwise */
  void* D;
  float alpha; /* 1 */
  float beta;  /* 0 */
} mpgemm_gemm_desc;

/* Today's problem (mk, kn, FP16 in, FP32 out), alpha 1, beta 0, no pointers, no extents; `size` set. */
MPGEMM_API mpgemm_gemm_desc mpgemm_default_gemm_desc(void);

/* The descriptor's GEMM on `stream`, as mpgemm::Library::gemm(Problem, ...) computes it: the kind is the
   descriptor's layouts and types, reading C when beta != 0 (C must then not be NULL; it may be D). Every kind is
   served: by the winners tuned for that kind, else cublasGemmEx of that kind (MPGEMM_NO_TUNED_CONFIG for a kind
   cuBLAS does not compute: FP16 in with BF16 out, BF16 in with FP16 out). The default descriptor with alpha 1 and
   beta 0 is mpgemm_gemm. */
MPGEMM_API mpgemm_status mpgemm_gemm_ex(mpgemm_library* lib, const mpgemm_gemm_desc* desc, void* stream,
                                        mpgemm_dispatch* dispatch);

/* How mpgemm_gemm_ex would compute the descriptor's kind and shape on the current device (its pointers and alpha
   are not read; beta != 0 names the kind that reads C), without compiling or launching anything. */
MPGEMM_API mpgemm_status mpgemm_plan_ex(mpgemm_library* lib, const mpgemm_gemm_desc* desc, mpgemm_dispatch* dispatch);

/* How mpgemm_gemm would compute the shape on the current device, without compiling or launching anything. */
MPGEMM_API mpgemm_status mpgemm_plan(mpgemm_library* lib, int64_t M, int64_t N, int64_t K, mpgemm_dispatch* dispatch);

/* Tuned (device, kind, shape) entries read from the file; 0 for NULL. */
MPGEMM_API size_t mpgemm_tuned_shapes(const mpgemm_library* lib);

/* The calling thread's last failure: its message ("" when the last call succeeded) and the CUDA / driver / cuBLAS
   status that caused it (0 when none did). The message stays valid until this thread's next mpgemm call. */
MPGEMM_API const char* mpgemm_last_error(void);
MPGEMM_API int mpgemm_last_error_code(void);

/* "ok", "open_failed", "no_device", ...: the enumerator's name without its prefix, in lower case. */
MPGEMM_API const char* mpgemm_status_name(mpgemm_status status);

#ifdef __cplusplus
}
#endif

#endif
