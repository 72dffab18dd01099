#pragma once
// The output of wgmma_gemm.cuh: D = alpha * A.B + beta * C in FP32, rounded once to D's type (OUT: FP32, FP16 or
// BF16, round-to-nearest-even), with C of D's type. One definition for every store path of wgmma_epilogue.cuh
// (direct, tma, rows, split-K's slices), and for the host's tests (g++ compiles the MPGEMM_HD parts too).
//
// The order of the arithmetic is fixed so that the kernel and a reference agree to the bit: the accumulators are
// scaled by alpha first (every kind, alpha = 1 included), then beta * C is added with one FMA:
// fmaf(beta, c, alpha * acc).
#include "host_device.cuh"
#include "wgmma_choices.cuh"

#include <cuda_bf16.h>  // the host's g++ compiles their conversions too (software forms), for the tests
#include <cuda_fp16.h>

#if defined(__CUDACC_RTC__) || defined(__CUDACC__)
#include "hopper_ptx.cuh"
#endif

namespace mpgemm {
namespace wgmma_output {

// alpha * acc + beta * c, as the kernel computes it (alpha * acc is already in `scaled`): one fused multiply-add.
MPGEMM_HD inline float add_beta(float scaled, float beta, float c) {
#if defined(__CUDA_ARCH__)
  return __fmaf_rn(beta, c, scaled);
#else
  return __builtin_fmaf(beta, c, scaled);
#endif
}

// What D's type is stored as (Storage, so that addresses step by its size), its rounding from FP32 and its
// widening back (host and device); the device's loads and stores of one, two (a pair of columns) or four elements.
template <int OUT>
struct Out;

template <>
struct Out<kElementFp32> {
  using Storage = float;
#if defined(__CUDACC_RTC__) || defined(__CUDACC__)
  __device__ static float load1(const float* p) {
    return *p;
  }
  __device__ static float2 load2(const float* p) {
    return *reinterpret_cast<const float2*>(p);
  }
  __device__ static float4 load4(const float* p) {
    return *reinterpret_cast<const float4*>(p);
  }
  template <bool HINTED>
  __device__ static void store1(float* p, float x, unsigned long long policy) {
    hopper::store_global<HINTED>(p, x, policy);
  }
  template <bool HINTED>
  __device__ static void store2(float* p, float x, float y, unsigned long long policy) {
    hopper::store_global<HINTED>(reinterpret_cast<float2*>(p), make_float2(x, y), policy);
  }
  template <bool HINTED>
  __device__ static void store4(float* p, float4 v, unsigned long long policy) {
    hopper::store_global<HINTED>(reinterpret_cast<float4*>(p), v, policy);
  }
#endif
};

// FP16 and BF16: one rounding per element; a pair packed into 32 bits, x in the low half (the lower address).
template <int OUT>
struct Out16 {
  static_assert(OUT == kElementFp16 || OUT == kElementBf16, "16-bit outputs are FP16 or BF16");
  using Storage = unsigned short;
  // Through the toolkit's raw structs (plain bits, no conversion).
  MPGEMM_HD static unsigned short round(float x) {
    if constexpr (OUT == kElementFp16)
      return static_cast<__half_raw>(__float2half_rn(x)).x;
    else
      return static_cast<__nv_bfloat16_raw>(__float2bfloat16_rn(x)).x;
  }
  MPGEMM_HD static unsigned pack2(float x, float y) {
    unsigned short lo, hi;
    if constexpr (OUT == kElementFp16) {
      const __half2_raw r = static_cast<__half2_raw>(__floats2half2_rn(x, y));
      lo = r.x, hi = r.y;
    } else {
      const __nv_bfloat162_raw r = static_cast<__nv_bfloat162_raw>(__floats2bfloat162_rn(x, y));
      lo = r.x, hi = r.y;
    }
    return static_cast<unsigned>(lo) | static_cast<unsigned>(hi) << 16;
  }
  MPGEMM_HD static float widen(unsigned short u) {
    if constexpr (OUT == kElementFp16) {
      __half_raw r;
      r.x = u;
      return __half2float(__half(r));
    } else {
      __nv_bfloat16_raw r;
      r.x = u;
      return __bfloat162float(__nv_bfloat16(r));
    }
  }
  MPGEMM_HD static float2 unpack2(unsigned u) {
    return make_float2(widen(static_cast<unsigned short>(u & 0xFFFFu)), widen(static_cast<unsigned short>(u >> 16)));
  }
#if defined(__CUDACC_RTC__) || defined(__CUDACC__)
  __device__ static float load1(const unsigned short* p) {
    return widen(*p);
  }
  __device__ static float2 load2(const unsigned short* p) {
    return unpack2(*reinterpret_cast<const unsigned*>(p));
  }
  __device__ static float4 load4(const unsigned short* p) {
    const uint2 u = *reinterpret_cast<const uint2*>(p);
    const float2 lo = unpack2(u.x), hi = unpack2(u.y);
    return make_float4(lo.x, lo.y, hi.x, hi.y);
  }
  template <bool HINTED>
  __device__ static void store1(unsigned short* p, float x, unsigned long long policy) {
    hopper::store_global<HINTED>(p, round(x), policy);
  }
  template <bool HINTED>
  __device__ static void store2(unsigned short* p, float x, float y, unsigned long long policy) {
    hopper::store_global<HINTED>(reinterpret_cast<unsigned*>(p), pack2(x, y), policy);
  }
  template <bool HINTED>
  __device__ static void store4(unsigned short* p, float4 v, unsigned long long policy) {
    hopper::store_global<HINTED>(reinterpret_cast<uint2*>(p), make_uint2(pack2(v.x, v.y), pack2(v.z, v.w)), policy);
  }
#endif
};

template <>
struct Out<kElementFp16> : Out16<kElementFp16> {};
template <>
struct Out<kElementBf16> : Out16<kElementBf16> {};

}  // namespace wgmma_output
}  // namespace mpgemm
