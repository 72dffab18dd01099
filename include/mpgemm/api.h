/* What libmpgemm.so exports: the declarations marked MPGEMM_API in mpgemm/gemm.hpp (C++) and mpgemm/gemm.h (C),
   nothing else (it is built with hidden visibility; the static modules linked into it stay private). */
#ifndef MPGEMM_API_H
#define MPGEMM_API_H

#if defined(__GNUC__) || defined(__clang__)
#define MPGEMM_API __attribute__((visibility("default")))
#else
#define MPGEMM_API
#endif

#endif
