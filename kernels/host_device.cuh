#pragma once
// MPGEMM_HD marks functions that both the kernels (NVRTC) and the host code (g++, which includes a few kernels/
// headers so that layouts and tile orders have one definition) compile.
#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define MPGEMM_HD __host__ __device__
#else
#define MPGEMM_HD
#endif
