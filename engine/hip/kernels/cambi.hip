// SPDX-License-Identifier: LGPL-2.1-or-later
// CAMBI on the GPU: thin loops around kernels/cambi_impl.h (the stages and their launch shapes are described there).
#include "device.h"
#include "cambi_impl.h"

VMAFX_KERNEL cambi_preprocess_kernel_fn cambi_preprocess_kernel;
VMAFX_KERNEL cambi_check_kernel_fn cambi_check_kernel;
VMAFX_KERNEL cambi_mask_kernel_fn cambi_mask_kernel;
VMAFX_KERNEL cambi_filter_kernel_fn cambi_filter_kernel;
VMAFX_KERNEL cambi_c_values_kernel_fn cambi_c_values_kernel;
VMAFX_KERNEL cambi_c_values_block_kernel_fn cambi_c_values_block_kernel;
VMAFX_KERNEL cambi_pool1_kernel_fn cambi_pool1_kernel;
VMAFX_KERNEL cambi_pool2_kernel_fn cambi_pool2_kernel;
VMAFX_KERNEL cambi_pool3_kernel_fn cambi_pool3_kernel;

// ---- stage 1 -------------------------------------------------------------------------------------------------------

// Block CAMBI_PRE_BLOCK x CAMBI_PRE_BLOCK, one output each; grid over w x h.
VMAFX_KERNEL void cambi_preprocess_kernel(CambiPreArgs a) {
  const vx_u32 x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= a.w || y >= a.h) return;
  a.out[(vx_u64)y * a.out_pitch + x] = cambi_pre_value(a, x, y);
  if (a.max_sample && !a.src_x) {
    const vx_u32 bad = cambi_check_value(a, x, y);
    if (bad) atomicMax(a.error, bad);
  }
}

// libvmaf's sample check of a resized picture: every input sample. Grid over in_w x in_h.
VMAFX_KERNEL void cambi_check_kernel(CambiPreArgs a) {
  const vx_u32 x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= a.in_w || y >= a.in_h) return;
  const vx_u32 bad = cambi_check_value(a, x, y);
  if (bad) atomicMax(a.error, bad);
}

// ---- stage 2 -------------------------------------------------------------------------------------------------------

// Block CAMBI_MASK_TILE_W x CAMBI_MASK_TILE_H, one output each.
VMAFX_KERNEL void cambi_mask_kernel(CambiMaskArgs a) {
  __shared__ CambiMaskTile tile;
  const int tid = (int)vx_block_thread(), threads = (int)vx_block_threads();
  const vx_i32 x0 = (vx_i32)(blockIdx.x * CAMBI_MASK_TILE_W), y0 = (vx_i32)(blockIdx.y * CAMBI_MASK_TILE_H);
  for (int i = tid; i < cambi_mask_load_items(); i += threads) cambi_mask_load(tile, a, x0, y0, i);
  __syncthreads();
  const vx_u32 x = (vx_u32)x0 + threadIdx.x, y = (vx_u32)y0 + threadIdx.y;
  if (x < a.w && y < a.h) a.mask[(vx_u64)y * a.pitch + x] = cambi_mask_value(tile, a, (int)threadIdx.x, (int)threadIdx.y);
}

// ---- stage 3 -------------------------------------------------------------------------------------------------------

// Block CAMBI_PRE_BLOCK x CAMBI_PRE_BLOCK, one output each.
VMAFX_KERNEL void cambi_filter_kernel(CambiFilterArgs a) {
  const vx_u32 x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= a.w || y >= a.h) return;
  const vx_u16 v = cambi_filter_value(a, x, y);
  a.out[(vx_u64)y * a.pitch + x] = v;
  a.key[(vx_u64)y * a.pitch + x] = cambi_key_of(a, v, x, y);
}

// Block: B threads in x (B * band_size * 2 bytes of dynamic shared memory: each thread's histogram column, entry v
// at [v * B + thread]); grid: ceil(w / B) x ceil(h / rows). Threads share nothing, so there is no barrier.
VMAFX_KERNEL void cambi_c_values_kernel(CambiCvalArgs a) {
  extern __shared__ vx_u16 cambi_hist[];
  // The block's histograms cleared together, 16 bytes a store (blockDim.x is 16 or 32: whole 16-byte rows).
  {
    uint4* h = (uint4*)cambi_hist;
    const vx_u32 n = a.band_size * blockDim.x / 8;
    for (vx_u32 i = threadIdx.x; i < n; i += blockDim.x) h[i] = make_uint4(0, 0, 0, 0);
  }
  __syncthreads();
  const vx_u32 x = blockIdx.x * blockDim.x + threadIdx.x;
  const vx_u32 y0 = blockIdx.y * a.rows;
  if (x >= a.w || y0 >= a.h) return;
  const vx_u32 y1 = cambi_min_u32(y0 + a.rows, a.h);
  cambi_c_values_column(a, cambi_hist + threadIdx.x, blockDim.x, x, y0, y1, /*cleared=*/true);
}

// Block: CAMBI_CVAL_THREADS threads for one column x (blockIdx.x) and the chunk of rows blockIdx.y * rows ..; dynamic
// shared memory: band_size 32-bit counts (the window's histogram), then num_diffs floats (the candidates).
VMAFX_KERNEL void cambi_c_values_block_kernel(CambiCvalArgs a) {
  extern __shared__ vx_u32 cambi_counts[];
  float* cand = (float*)(cambi_counts + a.band_size);
  const vx_u32 t = threadIdx.x, x = blockIdx.x, y0 = blockIdx.y * a.rows;
  if (x >= a.w || y0 >= a.h) return;  // the whole block
  const vx_u32 y1 = cambi_min_u32(y0 + a.rows, a.h);
  for (vx_u32 v = t; v < a.band_size; v += CAMBI_CVAL_THREADS) cambi_counts[v] = 0;
  __syncthreads();
  const vx_i32 P = (vx_i32)a.pad, W = (vx_i32)a.w, H = (vx_i32)a.h;
  const vx_i32 c0 = cambi_max_i32((vx_i32)x - P, 0), c1 = cambi_min_i32((vx_i32)x + P + 1, W);
  const vx_i32 r0 = cambi_max_i32((vx_i32)y0 - P, 0), r1 = cambi_min_i32((vx_i32)y0 + P + 1, H);
  const vx_u32 cols = (vx_u32)(c1 - c0), window = (vx_u32)(r1 - r0) * cols;
  for (vx_u32 i = t; i < window; i += CAMBI_CVAL_THREADS) {
    const vx_u32 k = cambi_key_at(a, c0 + (vx_i32)(i % cols), r0 + (vx_i32)(i / cols));
    if (k != CAMBI_KEY_NONE) atomicAdd(&cambi_counts[k], 1u);
  }
  __syncthreads();
  for (vx_u32 y = y0; y < y1; ++y) {
    if (y > y0) {
      const vx_i32 leave = (vx_i32)y - P - 1, enter = (vx_i32)y + P;
      for (vx_i32 c = c0 + (vx_i32)t; c < c1; c += CAMBI_CVAL_THREADS) {
        const vx_u32 ks = leave >= 0 ? cambi_key_at(a, c, leave) : CAMBI_KEY_NONE;
        const vx_u32 ka = enter < H ? cambi_key_at(a, c, enter) : CAMBI_KEY_NONE;
        if (ks == ka) continue;
        if (ks != CAMBI_KEY_NONE) atomicSub(&cambi_counts[ks], 1u);
        if (ka != CAMBI_KEY_NONE) atomicAdd(&cambi_counts[ka], 1u);
      }
      __syncthreads();
    }
    const vx_u32 k = cambi_key_at(a, (vx_i32)x, (vx_i32)y);  // the same for every thread
    if (k != CAMBI_KEY_NONE && t < a.num_diffs) cand[t] = cambi_c_value_diff(a, k, cambi_counts, 1u, (int)t);
    __syncthreads();
    if (t == 0) {
      float c = 0.0f;
      if (k != CAMBI_KEY_NONE)
        for (vx_u32 d = 0; d < a.num_diffs; ++d) c = cambi_c_value_max(c, cand[d]);
      a.out[(vx_u64)y * a.w + x] = c;
    }
    __syncthreads();  // the candidates are read before the next row's, and the counts before they change
  }
}

// ---- pooling -------------------------------------------------------------------------------------------------------

// Block CAMBI_POOL_THREADS threads; any grid (blocks stride over the values). Every block counts its values into
// shared bins and adds them into the state; the last block to finish (a counter after a memory fence) runs the pass's
// selection: chunk totals, a suffix scan over the threads, the chunk that holds the need-th value.
template <unsigned kPass>
__device__ inline void cambi_pool_pass(const CambiPoolArgs& a) {
  CambiPoolState* st = a.state;
  volatile CambiPoolState* vst = st;
  if (vst->done) return;  // written by an earlier launch: visible to this one
  const vx_u32 prefix = vst->prefix;
  const vx_u32 bins = cambi_pool_bins(kPass);
  __shared__ vx_u32 s_count[CAMBI_COARSE_BINS];
  __shared__ vx_u64 s_units[CAMBI_COARSE_BINS];
  __shared__ vx_u32 scan_count[CAMBI_POOL_THREADS];
  __shared__ vx_u64 scan_units[CAMBI_POOL_THREADS];
  __shared__ vx_u32 scan_low[CAMBI_POOL_THREADS];
  __shared__ vx_u32 s_bad, s_last, s_found, s_bin, s_bin_count;
  __shared__ vx_u64 s_bin_units;
  const vx_u32 t = threadIdx.x;
  for (vx_u32 j = t; j < bins; j += CAMBI_POOL_THREADS) {
    s_count[j] = 0;
    s_units[j] = 0;
  }
  if (t == 0) {
    s_bad = 0;
    s_found = 0;
  }
  __syncthreads();
  for (vx_u32 i = blockIdx.x * CAMBI_POOL_THREADS + t; i < a.n; i += gridDim.x * CAMBI_POOL_THREADS) {
    const vx_u32 b = cambi_float_bits(a.values[i]);
    const vx_i32 bin = cambi_pool_bin(kPass, b, prefix);
    if (bin < 0) continue;
    if ((vx_u32)bin >= bins) {
      atomicOr(&s_bad, 1u);
      continue;
    }
    atomicAdd(&s_count[bin], 1u);
    if (kPass < 3) atomicAdd((unsigned long long*)&s_units[bin], (unsigned long long)cambi_units(b));
  }
  __syncthreads();
  vx_u32* count = kPass == 1 ? st->count1 : kPass == 2 ? st->count2 : st->count3;
  vx_u64* units = kPass == 1 ? st->sum1 : st->sum2;
  for (vx_u32 j = t; j < bins; j += CAMBI_POOL_THREADS) {
    if (!s_count[j]) continue;
    atomicAdd(&count[j], s_count[j]);
    if (kPass < 3) atomicAdd((unsigned long long*)&units[j], (unsigned long long)s_units[j]);
  }
  if (t == 0 && s_bad) atomicOr(&st->bad, 1u);
  __threadfence();
  __syncthreads();
  if (t == 0) s_last = atomicAdd(&st->blocks_done[kPass - 1], 1u) == gridDim.x - 1 ? 1u : 0u;
  __syncthreads();
  if (!s_last) return;
  __threadfence();

  // The last block: every block's counts are in the state. Read them past the caches (volatile) into shared memory.
  volatile const vx_u32* vcount = count;
  volatile const vx_u64* vunits = units;
  for (vx_u32 j = t; j < bins; j += CAMBI_POOL_THREADS) {
    s_count[j] = vcount[j];
    s_units[j] = kPass < 3 ? vunits[j] : 0;
  }
  __syncthreads();
  CambiBins bb;
  bb.count = s_count;
  bb.units = kPass < 3 ? s_units : (const vx_u64*)0;
  bb.prefix = prefix;
  vx_u32 own_count, own_low;
  vx_u64 own_units;
  cambi_chunk_total(kPass, bb, t, &own_count, &own_units, &own_low);
  // Inclusive suffix sums over the threads (and the suffix minimum of the lowest bins).
  scan_count[t] = own_count;
  scan_units[t] = own_units;
  scan_low[t] = own_low;
  __syncthreads();
  for (vx_u32 off = 1; off < CAMBI_POOL_THREADS; off <<= 1) {
    vx_u32 c = 0, l = 0xFFFFFFFFu;
    vx_u64 u = 0;
    if (t + off < CAMBI_POOL_THREADS) {
      c = scan_count[t + off];
      u = scan_units[t + off];
      l = scan_low[t + off];
    }
    __syncthreads();
    scan_count[t] += c;
    scan_units[t] += u;
    if (l < scan_low[t]) scan_low[t] = l;
    __syncthreads();
  }
  const vx_u32 above_count = t + 1 < CAMBI_POOL_THREADS ? scan_count[t + 1] : 0u;
  const vx_u64 above_units = t + 1 < CAMBI_POOL_THREADS ? scan_units[t + 1] : 0u;
  const vx_u32 need = kPass == 1 ? a.k : vst->need;
  vx_u32 bin = 0, bin_count = 0;
  vx_u64 bin_units = 0;
  if (cambi_chunk_select(kPass, bb, t, need, above_count, above_units, own_count, &bin, &bin_count, &bin_units)) {
    // Exactly one thread's chunk holds the need-th value.
    s_found = 1;
    s_bin = bin;
    s_bin_count = bin_count;
    s_bin_units = bin_units;
  }
  __syncthreads();
  if (t == 0) {
    const bool bad = vst->bad != 0;
    cambi_pool_apply(kPass, a, st, bad, s_found != 0, s_bin, s_bin_count, s_bin_units, scan_units[0], scan_low[0]);
  }
}

VMAFX_KERNEL void cambi_pool1_kernel(CambiPoolArgs a) { cambi_pool_pass<1>(a); }
VMAFX_KERNEL void cambi_pool2_kernel(CambiPoolArgs a) { cambi_pool_pass<2>(a); }
VMAFX_KERNEL void cambi_pool3_kernel(CambiPoolArgs a) { cambi_pool_pass<3>(a); }
