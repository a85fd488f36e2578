// SPDX-License-Identifier: LGPL-2.1-or-later
// Integer ADM: one fused kernel per scale and one finishing kernel. The arithmetic and the tile's phases are
// adm_impl.h's (the host tests run the same phases block by block); this file only adds the barriers, shared memory
// and atomics.
//
// adm_scale{0,1,23}_kernel: a block of kBlockW x kBlockH threads owns a tile of kTileW x kTileH band positions. For
// each position it computes the DWT bands of ref and dist straight from the input (a 4x4 stencil; the picture is
// read in place at scale 0) and writes band a for the next scale. Where the score rectangle (grown by one for the
// masking filter) is reached it also decouples, applies the CSF to a and r and keeps the masking-filter inputs
// (flt) of the tile and of a ring of one position around it in shared memory; r, a and the reference bands of the
// tile's own positions stay in registers. The denominator and the DLM / AIM masking terms of the score rectangle's
// positions are then summed per row in shared memory and added into one uint64 per row and kind with atomics
// (integer sums: order-independent). adm_finish_kernel rounds and shifts each row sum as libvmaf does and adds the
// rows: 4 scales x 9 kinds.
#include "device.h"
#include "adm_impl.h"

namespace vxadm = vmafx::hip::adm;

VMAFX_KERNEL vxadm::adm_scale0_kernel_fn adm_scale0_kernel;
VMAFX_KERNEL vxadm::adm_scale1_kernel_fn adm_scale1_kernel;
VMAFX_KERNEL vxadm::adm_scale23_kernel_fn adm_scale23_kernel;
VMAFX_KERNEL vxadm::adm_small_row_kernel_fn adm_small_row_kernel;
VMAFX_KERNEL vxadm::adm_finish_kernel_fn adm_finish_kernel;

namespace {

// `smem`: the kernel's kSmemU64 words of shared memory, declared in each kernel. Always inlined: where it is not
// (hiprtc of ROCm 5.2 at this size, measured), that compiler gives every kernel of the module the shared memory of
// all three (3 x 38016 bytes, over the 64 KiB limit).
template <class T, class Src>
__device__ __attribute__((always_inline)) inline void scale_body(const Src& ref, const Src& dist,
                                                                 const vxadm::ScaleParams& p, T* ref_a, T* dist_a,
                                                                 vx_u64* rows, T* dump, vx_u64 dump_plane,
                                                                 vx_u64* smem) {
  const int tx = threadIdx.x, ty = threadIdx.y, bx = blockIdx.x, by = blockIdx.y;
  if (!dump && !vxadm::tile_scores(p, bx, by)) {
    vxadm::tile_band_a<T>(ref, dist, p, bx, by, tx, ty, ref_a, dist_a);
    return;
  }
  T* flt = (T*)smem;
  vxadm::TileRegs<T> regs;
  vxadm::tile_phase_a<T>(ref, dist, p, bx, by, tx, ty, flt, ref_a, dist_a, dump, dump_plane, &regs);
  __syncthreads();
  vx_u64 terms[vxadm::kRowsPerThread][vxadm::kKinds];
  vxadm::tile_phase_b<T>(p, bx, by, tx, ty, flt, regs, terms);
  __syncthreads();  // every flt read is done: the shared memory becomes the row sums'
  vxadm::tile_store_terms(tx, ty, terms, smem);
  __syncthreads();
  const int tid = ty * vxadm::kBlockW + tx;
  vx_u64 index, sum;
  if (tid < vxadm::kKinds * vxadm::kTileH && vxadm::tile_row_sum(p, by, tid, smem, &index, &sum))
    vx_atomic_add_u64(rows + index, sum);
}

}  // namespace

// Scale 0: ref and dist pictures (in_w x in_h samples) -> int16 band a of both (w x h, dense rows), row sums.
// Grid: ceil(w / kTileW) x ceil(h / kTileH) blocks of kBlockW x kBlockH threads. dump: null, or kDumpPlanes planes
// of dump_plane elements (test mode: every position is decoupled and its intermediates written).
VMAFX_KERNEL void adm_scale0_kernel(VxPlane ref, VxPlane dist, vxadm::ScaleParams p,
                                    vx_i16* ref_a, vx_i16* dist_a, vx_u64* rows, vx_i16* dump, vx_u64 dump_plane) {
  vxadm::PictureSource rs{}, ds{};
  rs.pic = ref;
  ds.pic = dist;
  rs.w = ds.w = p.in_w;
  rs.h = ds.h = p.in_h;
  rs.bpc = ds.bpc = p.bpc;
  __shared__ vx_u64 smem[vxadm::kSmemU64];
  scale_body<vx_i16>(rs, ds, p, ref_a, dist_a, rows, dump, dump_plane, smem);
}

// Scale 1: from the int16 band a of scale 0 (in_w x in_h) to int32 bands.
VMAFX_KERNEL void adm_scale1_kernel(const vx_i16* ref_in, const vx_i16* dist_in, vxadm::ScaleParams p,
                                    vx_i32* ref_a, vx_i32* dist_a, vx_u64* rows, vx_i32* dump, vx_u64 dump_plane) {
  vxadm::BandSource<vx_i16> rs{}, ds{};  // zeroed: small = 0 (only scale 3 reads the small-axis fields)
  rs.band = ref_in;
  ds.band = dist_in;
  rs.w = ds.w = p.in_w;
  rs.h = ds.h = p.in_h;
  rs.scale = ds.scale = p.scale;
  __shared__ vx_u64 smem[vxadm::kSmemU64];
  scale_body<vx_i32>(rs, ds, p, ref_a, dist_a, rows, dump, dump_plane, smem);
}

// Scales 2, 3: from the int32 band a of the previous scale. ref_a / dist_a are null at scale 3. small_row: the
// reference's row -1 of a scale 3 with p.small (adm_small_row_kernel's output), else unused.
VMAFX_KERNEL void adm_scale23_kernel(const vx_i32* ref_in, const vx_i32* dist_in, vxadm::ScaleParams p,
                                     vx_i32* ref_a, vx_i32* dist_a, vx_u64* rows, vx_i32* dump, vx_u64 dump_plane,
                                     const vx_i32* small_row) {
  vxadm::BandSource<vx_i32> rs{}, ds{};
  rs.band = ref_in;
  ds.band = dist_in;
  rs.w = ds.w = p.in_w;
  rs.h = ds.h = p.in_h;
  rs.scale = ds.scale = p.scale;
  rs.small = ds.small = p.small;
  rs.ref_band = ds.ref_band = ref_in;
  rs.row_above = ds.row_above = small_row;
  rs.dist = 0;
  ds.dist = 1;
  __shared__ vx_u64 smem[vxadm::kSmemU64];
  scale_body<vx_i32>(rs, ds, p, ref_a, dist_a, rows, dump, dump_plane, smem);
}

// Pictures of 17..32 on an axis: the reference's row -1 of scale 3 (vxadm::small_row_value), q.count values, one
// block of any size striding over them. Reads only the pictures, so it may run before or after the scale kernels
// but before scale 3.
VMAFX_KERNEL void adm_small_row_kernel(VxPlane ref, VxPlane dist, vxadm::ScaleParams p0,
                                       vxadm::SmallRowParams q, vx_i32* out) {
  vxadm::PictureSource rs{}, ds{};
  rs.pic = ref;
  ds.pic = dist;
  rs.w = ds.w = p0.in_w;
  rs.h = ds.h = p0.in_h;
  rs.bpc = ds.bpc = p0.bpc;
  for (int j = (int)vx_block_thread(); j < q.count; j += (int)vx_block_threads())
    out[j] = vxadm::small_row_value(rs, ds, p0, q, j);
}

// The row sums of the four scales to 36 totals: block b = scale * kKinds + kind, kFinishThreads threads.
VMAFX_KERNEL void adm_finish_kernel(const vx_u64* rows, vxadm::FinishParams p, vx_u64* out) {
  __shared__ vx_u64 scratch[vxadm::kFinishThreads];
  const int s = blockIdx.x / vxadm::kKinds, q = blockIdx.x % vxadm::kKinds;
  const vx_u64* r = rows + p.rows_offset[s] + (vx_u64)q * p.h[s];
  vx_u64 acc = 0;
  for (int i = p.top[s] + (int)vx_block_thread(); i < p.bottom[s]; i += (int)vx_block_threads())
    acc += vxadm::row_round(r[i], q, p, s);
  const vx_u64 total = vx_block_sum_u64(acc, scratch);
  if (vx_block_thread() == 0) out[blockIdx.x] = total;
}
