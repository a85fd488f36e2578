// SPDX-License-Identifier: LGPL-2.1-or-later
// Integer VIF on the GPU: one launch per scale, one block per tile (vif_impl.h describes the stages). Each launch
// adds the scale's four integer sums into its accumulators and, below scale 3, writes the next scale's image.
#include "device.h"
#include "vif_impl.h"

// NVIDIA: at most 64 registers, so that 4 blocks of 256 threads share an SM (measured without spills). HIP's second
// argument means something else (waves per execution unit): block size only.
#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define VIF_LAUNCH_BOUNDS __launch_bounds__(VIF_THREADS, 4)
#else
#define VIF_LAUNCH_BOUNDS __launch_bounds__(VIF_THREADS)
#endif

// The block's tile, reused for the reduction once every thread has finished reading it.
template <unsigned kScale>
union VifShared {
  VifTile<kScale> tile;
  vx_u64 sums[4][VIF_THREADS];
};

// kWide: 64-bit vertical moments (samples above 8 bits or scale > 0); the samples of scale 0 are then 16-bit words,
// of the 8-bit kernel bytes, and the images of scales 1..3 16-bit words. kF64: the horizontal moments in float64.
template <unsigned kScale, bool kWide, bool kF64>
__device__ inline void vif_scale_block(const VifScaleArgs& a) {
  constexpr unsigned kBytes = (kScale == 0 && !kWide) ? 1 : 2;
  __shared__ VifShared<kScale> sm;
  VifTile<kScale>& t = sm.tile;
  const int tid = (int)threadIdx.x;
  const int x0 = (int)blockIdx.x * VIF_TILE_W;
  const int y0 = (int)blockIdx.y * VIF_TILE_H;

  if (vif_tile_vector_load<kScale, kBytes>(a, x0, y0)) {
    for (int i = tid; i < vif_vector_load_items<kScale>(); i += VIF_THREADS)
      vif_tile_load_vector<kScale, kBytes>(t, a, x0, y0, i);
  } else {
    for (int i = tid; i < vif_load_items<kScale>(); i += VIF_THREADS) vif_tile_load<kScale>(t, a, x0, y0, i);
  }
  __syncthreads();
  for (int i = tid; i < vif_vertical_items<kScale>(); i += VIF_THREADS) vif_tile_vertical<kScale, kWide>(t, a, i);
  for (int i = tid; i < vif_dec_vertical_items<kScale>(); i += VIF_THREADS)
    vif_tile_decimate_vertical<kScale>(t, a, i);
  __syncthreads();

  VifSums s;
  s.num_log = 0;
  s.den_log = 0;
  s.num_non_log = 0;
  s.den_non_log = 0;
  for (int i = tid; i < vif_output_items<kScale>(); i += VIF_THREADS)
    vif_tile_output<kScale, kF64>(t, a, x0, y0, i, &s);
  for (int i = tid; i < vif_dec_output_items<kScale>(); i += VIF_THREADS)
    vif_tile_decimate_output<kScale>(t, a, x0, y0, i);
  __syncthreads();

  // Integer sums: the order of the additions does not matter.
  sm.sums[0][tid] = (vx_u64)s.num_log;
  sm.sums[1][tid] = (vx_u64)s.den_log;
  sm.sums[2][tid] = (vx_u64)s.num_non_log;
  sm.sums[3][tid] = (vx_u64)s.den_non_log;
  __syncthreads();
  for (int n = VIF_THREADS / 2; n > 0; n >>= 1) {
    if (tid < n) {
      sm.sums[0][tid] += sm.sums[0][tid + n];
      sm.sums[1][tid] += sm.sums[1][tid + n];
      sm.sums[2][tid] += sm.sums[2][tid + n];
      sm.sums[3][tid] += sm.sums[3][tid + n];
    }
    __syncthreads();
  }
  if (tid < 4) {
    const vx_u64 v = sm.sums[tid][0];
    if (v != 0) vx_atomic_add_u64(a.accum + tid, v);
    if (a.block_sums) a.block_sums[4 * ((vx_u64)blockIdx.y * gridDim.x + blockIdx.x) + tid] = v;
  }
}

// Integer moments (every GPU), and float64 moments (GPUs with full-rate float64: vif_gpu.cpp chooses).
#define VIF_KERNELS(suffix, f64)                                                                           \
  VMAFX_KERNEL vif_scale_kernel_fn vif_scale0##suffix##_kernel;                                            \
  VMAFX_KERNEL vif_scale_kernel_fn vif_scale0_hbd##suffix##_kernel;                                        \
  VMAFX_KERNEL vif_scale_kernel_fn vif_scale1##suffix##_kernel;                                            \
  VMAFX_KERNEL vif_scale_kernel_fn vif_scale2##suffix##_kernel;                                            \
  VMAFX_KERNEL vif_scale_kernel_fn vif_scale3##suffix##_kernel;                                            \
  VMAFX_KERNEL VIF_LAUNCH_BOUNDS void vif_scale0##suffix##_kernel(VifScaleArgs a) {                        \
    vif_scale_block<0, false, f64>(a);                                                                     \
  }                                                                                                        \
  VMAFX_KERNEL VIF_LAUNCH_BOUNDS void vif_scale0_hbd##suffix##_kernel(VifScaleArgs a) {                    \
    vif_scale_block<0, true, f64>(a);                                                                      \
  }                                                                                                        \
  VMAFX_KERNEL VIF_LAUNCH_BOUNDS void vif_scale1##suffix##_kernel(VifScaleArgs a) {                        \
    vif_scale_block<1, true, f64>(a);                                                                      \
  }                                                                                                        \
  VMAFX_KERNEL VIF_LAUNCH_BOUNDS void vif_scale2##suffix##_kernel(VifScaleArgs a) {                        \
    vif_scale_block<2, true, f64>(a);                                                                      \
  }                                                                                                        \
  VMAFX_KERNEL VIF_LAUNCH_BOUNDS void vif_scale3##suffix##_kernel(VifScaleArgs a) {                        \
    vif_scale_block<3, true, f64>(a);                                                                      \
  }

VIF_KERNELS(, false)
VIF_KERNELS(_f64, true)
