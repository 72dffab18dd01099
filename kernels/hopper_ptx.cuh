#pragma once
// Hopper (sm_90 / sm_90a) PTX the wgmma family uses, one thin wrapper each: mbarriers, TMA (cp.async.bulk.tensor),
// clusters, wgmma fences, setmaxnreg, dependent launches. Raw inline PTX needs no header, so NVRTC compiles this without CCCL.
// Shared-memory operands are 32-bit shared-window addresses (smem_address()).
namespace mpgemm {
namespace hopper {

// The kernel's tensor map parameter: CUtensorMap's size and alignment (<cuda.h> is not usable under NVRTC).
struct alignas(64) TensorMap {
  unsigned long long opaque[16];
};

__device__ __forceinline__ unsigned smem_address(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

// ---- mbarrier -------------------------------------------------------------------------------------------------
__device__ __forceinline__ void mbarrier_init(unsigned bar, unsigned arrivals) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(arrivals) : "memory");
}
// Makes the initialised barriers visible to the other CTAs of the cluster and to the async proxy (TMA).
__device__ __forceinline__ void fence_barrier_init() {
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}
// One arrival that also announces `bytes` of TMA traffic for the current phase.
__device__ __forceinline__ void mbarrier_arrive_expect_tx(unsigned bar, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes) : "memory");
}
__device__ __forceinline__ void mbarrier_arrive(unsigned bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(bar) : "memory");
}
// Arrives on the barrier at the same offset in CTA `cta` of the cluster (this CTA included). CTA-scope release
// (the default): a consumer only says it is done reading its own stage, which orders no memory of its own for the
// peer. ".release.cluster" would be correct too, but compiles to MEMBAR.ALL.GPU before every arrival, which stalled
// each k-block for the thread's outstanding memory traffic (measured: 2-CTA clusters at 0.4-0.7x cuBLAS).
__device__ __forceinline__ void mbarrier_arrive_cluster(unsigned bar, unsigned cta) {
  asm volatile(
      "{\n.reg .b32 remote;\n"
      "mapa.shared::cluster.u32 remote, %0, %1;\n"
      "mbarrier.arrive.shared::cluster.b64 _, [remote];\n}\n" ::"r"(bar),
      "r"(cta)
      : "memory");
}
// Waits until the phase with the given parity (0 or 1) has completed.
__device__ __forceinline__ void mbarrier_wait(unsigned bar, unsigned parity) {
  asm volatile(
      "{\n.reg .pred done;\n"
      "WAIT_%=:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
      "@!done bra WAIT_%=;\n}\n" ::"r"(bar),
      "r"(parity)
      : "memory");
}

// ---- TMA --------------------------------------------------------------------------------------------------------
__device__ __forceinline__ void prefetch_tensor_map(const TensorMap* map) {
  asm volatile("prefetch.tensormap [%0];\n" ::"l"(reinterpret_cast<unsigned long long>(map)) : "memory");
}
// Box at (c0, c1) (innermost coordinate first) -> this CTA's shared memory; completes `bytes` on `bar`.
__device__ __forceinline__ void tma_load_2d(unsigned dst, const TensorMap* map, unsigned bar, int c0, int c1) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4}], [%2];\n"
      ::"r"(dst), "l"(reinterpret_cast<unsigned long long>(map)), "r"(bar), "r"(c0), "r"(c1)
      : "memory");
}
// A 3-D box at (c0, c1, c2): its planes land one after another.
__device__ __forceinline__ void tma_load_3d(unsigned dst, const TensorMap* map, unsigned bar, int c0, int c1, int c2) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4, %5}], "
      "[%2];\n" ::"r"(dst),
      "l"(reinterpret_cast<unsigned long long>(map)), "r"(bar), "r"(c0), "r"(c1), "r"(c2)
      : "memory");
}
// The same box into every CTA of `cta_mask` (bit i: cluster rank i), at the same offsets, completing on each one's
// barrier at `bar`'s offset.
__device__ __forceinline__ void tma_load_2d_multicast(unsigned dst, const TensorMap* map, unsigned bar, int c0, int c1,
                                                      unsigned short cta_mask) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster"
      " [%0], [%1, {%3, %4}], [%2], %5;\n" ::"r"(dst),
      "l"(reinterpret_cast<unsigned long long>(map)), "r"(bar), "r"(c0), "r"(c1), "h"(cta_mask)
      : "memory");
}
// The same two loads with an L2 eviction priority (`policy`: l2_policy_evict_*), for operands that other tiles read
// again.
__device__ __forceinline__ void tma_load_2d(unsigned dst, const TensorMap* map, unsigned bar, int c0, int c1,
                                            unsigned long long policy) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.L2::cache_hint"
      " [%0], [%1, {%3, %4}], [%2], %5;\n" ::"r"(dst),
      "l"(reinterpret_cast<unsigned long long>(map)), "r"(bar), "r"(c0), "r"(c1), "l"(policy)
      : "memory");
}
__device__ __forceinline__ void tma_load_2d_multicast(unsigned dst, const TensorMap* map, unsigned bar, int c0, int c1,
                                                      unsigned short cta_mask, unsigned long long policy) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster"
      ".L2::cache_hint [%0], [%1, {%3, %4}], [%2], %5, %6;\n" ::"r"(dst),
      "l"(reinterpret_cast<unsigned long long>(map)), "r"(bar), "r"(c0), "r"(c1), "h"(cta_mask), "l"(policy)
      : "memory");
}
// Shared memory -> the box at (c0, c1); elements outside the tensor are not written.
__device__ __forceinline__ void tma_store_2d(const TensorMap* map, unsigned src, int c0, int c1) {
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%0, {%2, %3}], [%1];\n" ::"l"(
                   reinterpret_cast<unsigned long long>(map)),
               "r"(src), "r"(c0), "r"(c1)
               : "memory");
}
// The same store with an L2 eviction priority (`policy`).
__device__ __forceinline__ void tma_store_2d(const TensorMap* map, unsigned src, int c0, int c1,
                                             unsigned long long policy) {
  asm volatile(
      "cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group.L2::cache_hint [%0, {%2, %3}], [%1], %4;\n" ::"l"(
          reinterpret_cast<unsigned long long>(map)),
      "r"(src), "r"(c0), "r"(c1), "l"(policy)
      : "memory");
}
__device__ __forceinline__ void bulk_commit_group() { asm volatile("cp.async.bulk.commit_group;\n" ::: "memory"); }
// Waits until at most N committed store groups still read their shared memory.
template <int N>
__device__ __forceinline__ void bulk_wait_group_read() {
  asm volatile("cp.async.bulk.wait_group.read %0;\n" ::"n"(N) : "memory");
}
// Waits until at most N committed store groups are still in flight (writes done).
template <int N>
__device__ __forceinline__ void bulk_wait_group() {
  asm volatile("cp.async.bulk.wait_group %0;\n" ::"n"(N) : "memory");
}
// Orders this thread's ordinary shared-memory writes before later async-proxy (TMA) reads of them.
__device__ __forceinline__ void fence_proxy_async_shared() {
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}

// ---- L2 eviction priorities ----------------------------------------------------------------------------------
// Policies for the .L2::cache_hint forms of loads and stores: lines written or read with evict_first are the first
// the L2 evicts, evict_last the last, so a GEMM that streams C through the L2 can leave A and B resident there.
__device__ __forceinline__ unsigned long long l2_policy_evict_first() {
  unsigned long long policy;
  asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;\n" : "=l"(policy));
  return policy;
}
__device__ __forceinline__ unsigned long long l2_policy_evict_normal() {
  unsigned long long policy;
  asm volatile("createpolicy.fractional.L2::evict_normal.b64 %0, 1.0;\n" : "=l"(policy));
  return policy;
}
__device__ __forceinline__ unsigned long long l2_policy_evict_last() {
  unsigned long long policy;
  asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;\n" : "=l"(policy));
  return policy;
}
__device__ __forceinline__ void st_global(float* p, float v, unsigned long long policy) {
  asm volatile("st.global.L2::cache_hint.f32 [%0], %1, %2;\n" ::"l"(p), "f"(v), "l"(policy) : "memory");
}
__device__ __forceinline__ void st_global(float2* p, float2 v, unsigned long long policy) {
  asm volatile("st.global.L2::cache_hint.v2.f32 [%0], {%1, %2}, %3;\n" ::"l"(p), "f"(v.x), "f"(v.y), "l"(policy)
               : "memory");
}
__device__ __forceinline__ void st_global(float4* p, float4 v, unsigned long long policy) {
  asm volatile("st.global.L2::cache_hint.v4.f32 [%0], {%1, %2, %3, %4}, %5;\n" ::"l"(p), "f"(v.x), "f"(v.y), "f"(v.z),
               "f"(v.w), "l"(policy)
               : "memory");
}
// 16-bit outputs: one element, a packed pair, two packed pairs.
__device__ __forceinline__ void st_global(unsigned short* p, unsigned short v, unsigned long long policy) {
  asm volatile("st.global.L2::cache_hint.b16 [%0], %1, %2;\n" ::"l"(p), "h"(v), "l"(policy) : "memory");
}
__device__ __forceinline__ void st_global(unsigned* p, unsigned v, unsigned long long policy) {
  asm volatile("st.global.L2::cache_hint.b32 [%0], %1, %2;\n" ::"l"(p), "r"(v), "l"(policy) : "memory");
}
__device__ __forceinline__ void st_global(uint2* p, uint2 v, unsigned long long policy) {
  asm volatile("st.global.L2::cache_hint.v2.b32 [%0], {%1, %2}, %3;\n" ::"l"(p), "r"(v.x), "r"(v.y), "l"(policy)
               : "memory");
}
// One call site for the ordinary and the hinted form: with HINTED the access carries `policy`, without it `policy`
// is ignored.
template <bool HINTED, class T>
__device__ __forceinline__ void store_global(T* p, T v, unsigned long long policy) {
  if constexpr (HINTED)
    st_global(p, v, policy);
  else
    *p = v;
}
template <bool HINTED>
__device__ __forceinline__ void tma_load(unsigned dst, const TensorMap* map, unsigned bar, int c0, int c1,
                                         unsigned long long policy) {
  if constexpr (HINTED)
    tma_load_2d(dst, map, bar, c0, c1, policy);
  else
    tma_load_2d(dst, map, bar, c0, c1);
}
template <bool HINTED>
__device__ __forceinline__ void tma_load_multicast(unsigned dst, const TensorMap* map, unsigned bar, int c0, int c1,
                                                   unsigned short cta_mask, unsigned long long policy) {
  if constexpr (HINTED)
    tma_load_2d_multicast(dst, map, bar, c0, c1, cta_mask, policy);
  else
    tma_load_2d_multicast(dst, map, bar, c0, c1, cta_mask);
}
template <bool HINTED>
__device__ __forceinline__ void tma_store(const TensorMap* map, unsigned src, int c0, int c1,
                                          unsigned long long policy) {
  if constexpr (HINTED)
    tma_store_2d(map, src, c0, c1, policy);
  else
    tma_store_2d(map, src, c0, c1);
}

// ---- clusters and named barriers ---------------------------------------------------------------------------------
__device__ __forceinline__ unsigned cluster_rank() {
  unsigned r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(r));
  return r;
}
// Every thread of every CTA of the cluster; not .aligned, so threads may arrive from divergent code.
__device__ __forceinline__ void cluster_sync() {
  asm volatile("barrier.cluster.arrive.release;\nbarrier.cluster.wait.acquire;\n" ::: "memory");
}
// ---- programmatic dependent launch (a launch with the programmatic stream serialization attribute) ------------
// Waits until the grid this one depends on (the previous kernel of the stream) has completed and its memory is
// visible; returns at once when the launch had no such dependency.
__device__ __forceinline__ void grid_dependency_wait() {
  asm volatile("griddepcontrol.wait;\n" ::: "memory");
}
// Lets the next kernel of the stream start launching (its blocks then run up to their own wait) once every block
// of this grid has said so or exited.
__device__ __forceinline__ void launch_dependent_grids() {
  asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
}
__device__ __forceinline__ void named_barrier_sync(int id, int threads) {
  asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}

// ---- flags in global memory (split-K's ordered reduction) ----------------------------------------------------------
__device__ __forceinline__ int ld_acquire_gpu(const int* flag) {
  int v;
  asm volatile("ld.acquire.gpu.global.s32 %0, [%1];\n" : "=r"(v) : "l"(flag) : "memory");
  return v;
}
__device__ __forceinline__ void st_release_gpu(int* flag, int v) {
  asm volatile("st.release.gpu.global.s32 [%0], %1;\n" ::"l"(flag), "r"(v) : "memory");
}
__device__ __forceinline__ void st_relaxed_gpu(int* flag, int v) {
  asm volatile("st.relaxed.gpu.global.s32 [%0], %1;\n" ::"l"(flag), "r"(v) : "memory");
}
// Spins until *flag == value (one thread; the others wait at a barrier after it).
__device__ __forceinline__ void wait_flag(const int* flag, int value) {
  while (ld_acquire_gpu(flag) != value) {
  }
}

// ---- warpgroup MMA plumbing --------------------------------------------------------------------------------------
__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
template <int N>
__device__ __forceinline__ void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}
// Keeps the compiler from moving reads or writes of an accumulator across the asynchronous wgmma window.
__device__ __forceinline__ void fence_operand(float& r) { asm volatile("" : "+f"(r)::"memory"); }

// Shared-memory matrix descriptor, 128-byte swizzle (layout type 1): start address, leading and stride byte
// offsets, each in 16-byte units.
__device__ __forceinline__ unsigned long long smem_descriptor(unsigned address, unsigned leading_bytes,
                                                              unsigned stride_bytes) {
  return static_cast<unsigned long long>((address & 0x3FFFF) >> 4) |
         static_cast<unsigned long long>((leading_bytes & 0x3FFFF) >> 4) << 16 |
         static_cast<unsigned long long>((stride_bytes & 0x3FFFF) >> 4) << 32 | 1ull << 62;
}

template <int REGS>
__device__ __forceinline__ void setmaxnreg_inc() {
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(REGS));
}
template <int REGS>
__device__ __forceinline__ void setmaxnreg_dec() {
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(REGS));
}

}  // namespace hopper
}  // namespace mpgemm
