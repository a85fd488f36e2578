// SPDX-License-Identifier: LGPL-2.1-or-later
// SSIMULACRA 2.1 on the GPU: the arithmetic is ssimulacra2_impl.h's (the CPU reference's); this file adds the grids.
// Per frame, in this order on one stream: ssimulacra2_linear_kernel (scale 0's linear RGB of both pictures), then per scale
// ssimulacra2_downsample_kernel (scales 1..5), ssimulacra2_xyb_kernel, ssimulacra2_blur_rows_kernel, ssimulacra2_blur_cols_kernel, ssimulacra2_segments_kernel
// and ssimulacra2_rows_kernel, whose row sums of every scale the host adds up (cpu::ssimulacra2_from_rows). Blocks of any
// size; nothing depends on the warp or wavefront size.
#include "device.h"
#include "float_impl.h"
#include "ssimulacra2_impl.h"

VMAFX_KERNEL ssimulacra2_linear_kernel_fn ssimulacra2_linear_kernel;
VMAFX_KERNEL ssimulacra2_downsample_kernel_fn ssimulacra2_downsample_kernel;
VMAFX_KERNEL ssimulacra2_xyb_kernel_fn ssimulacra2_xyb_kernel;
VMAFX_KERNEL ssimulacra2_blur_rows_kernel_fn ssimulacra2_blur_rows_kernel;
VMAFX_KERNEL ssimulacra2_blur_cols_kernel_fn ssimulacra2_blur_cols_kernel;
VMAFX_KERNEL ssimulacra2_segments_kernel_fn ssimulacra2_segments_kernel;
VMAFX_KERNEL ssimulacra2_rows_kernel_fn ssimulacra2_rows_kernel;

// Chroma sample (x, y) of a luma position: x >> sx, y >> sy, clamped to the plane (its floor size).
__device__ inline vx_u32 s2_chroma(const VxPlane& p, vx_u32 x, vx_u32 y, vx_u32 sx, vx_u32 sy) {
  vx_u32 cx = x >> sx, cy = y >> sy;
  if (cx > p.width - 1) cx = p.width - 1;
  if (cy > p.height - 1) cy = p.height - 1;
  return fx_read_sample(p, cx, cy);
}

VMAFX_KERNEL void ssimulacra2_linear_kernel(VxPlane ry, VxPlane rcb, VxPlane rcr, VxPlane dy, VxPlane dcb, VxPlane dcr, S2Yuv k,
                                   vx_u32 w, vx_u32 h, vx_u32 sx, vx_u32 sy, vx_u32 has_chroma, float* lin) {
  const vx_u32 x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  const vx_u64 n = (vx_u64)w * h, at = (vx_u64)y * w + x;
  const vx_u32 neutral = (vx_u32)k.c_off;
  float rgb[3];
  s2_yuv_rgb(k, fx_read_sample(ry, x, y), has_chroma ? s2_chroma(rcb, x, y, sx, sy) : neutral,
             has_chroma ? s2_chroma(rcr, x, y, sx, sy) : neutral, rgb);
  for (int c = 0; c < 3; ++c) lin[c * n + at] = rgb[c];
  s2_yuv_rgb(k, fx_read_sample(dy, x, y), has_chroma ? s2_chroma(dcb, x, y, sx, sy) : neutral,
             has_chroma ? s2_chroma(dcr, x, y, sx, sy) : neutral, rgb);
  for (int c = 0; c < 3; ++c) lin[(3 + c) * n + at] = rgb[c];
}

// blockIdx.z: the plane (0 .. 5).
VMAFX_KERNEL void ssimulacra2_downsample_kernel(const float* in, vx_u32 pw, vx_u32 ph, float* out, vx_u32 w, vx_u32 h) {
  const vx_u32 x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  const vx_u32 z = blockIdx.z;
  if (x >= w || y >= h) return;
  out[z * (vx_u64)w * h + (vx_u64)y * w + x] =
      s2_downsample_at(in + z * (vx_u64)pw * ph, (vx_i64)pw, (int)pw, (int)ph, (int)x, (int)y);
}

VMAFX_KERNEL void ssimulacra2_xyb_kernel(const float* lin, vx_u32 n, S2Constants k, float* xyb, float* prod) {
  const vx_u64 i = (vx_u64)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float a[3], b[3];
  s2_xyb(k, lin[i], lin[n + i], lin[2 * (vx_u64)n + i], a);
  s2_xyb(k, lin[3 * (vx_u64)n + i], lin[4 * (vx_u64)n + i], lin[5 * (vx_u64)n + i], b);
  for (int c = 0; c < 3; ++c) {
    xyb[c * (vx_u64)n + i] = a[c];
    xyb[(3 + c) * (vx_u64)n + i] = b[c];
    prod[(3 * c) * (vx_u64)n + i] = s2_product(a[c], a[c]);
    prod[(3 * c + 1) * (vx_u64)n + i] = s2_product(b[c], b[c]);
    prod[(3 * c + 2) * (vx_u64)n + i] = s2_product(a[c], b[c]);
  }
}

// Thread (x: row, y: plane 0 .. 14).
VMAFX_KERNEL void ssimulacra2_blur_rows_kernel(const float* prod, const float* xyb, vx_u32 w, vx_u32 h, S2Constants k,
                                      float* tmp) {
  const vx_u32 row = blockIdx.x * blockDim.x + threadIdx.x, q = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= h || q >= kS2BlurPlanes) return;
  const vx_u64 n = (vx_u64)w * h;
  const float* src = q < kS2ProdPlanes ? prod + q * n : xyb + (q - kS2ProdPlanes) * n;
  s2_blur_row(k, src + (vx_u64)row * w, 1, (int)w, tmp + q * n + (vx_u64)row * w, 1);
}

// Thread (x: column, y: plane 0 .. 14).
VMAFX_KERNEL void ssimulacra2_blur_cols_kernel(const float* tmp, vx_u32 w, vx_u32 h, S2Constants k, float* blurred) {
  const vx_u32 col = blockIdx.x * blockDim.x + threadIdx.x, q = blockIdx.y * blockDim.y + threadIdx.y;
  if (col >= w || q >= kS2BlurPlanes) return;
  const vx_u64 n = (vx_u64)w * h;
  s2_blur_column(k, tmp + q * n + col, (vx_i64)w, (int)h, blurred + q * n + col);
}

// Thread (x: segment, y: row, z: channel).
VMAFX_KERNEL void ssimulacra2_segments_kernel(const float* blurred, const float* xyb, vx_u32 w, vx_u32 h, double* seg) {
  const vx_u32 s = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  const vx_u32 c = blockIdx.z;
  const int segments = s2_segments((int)w);
  if ((int)s >= segments || y >= h) return;
  const vx_u64 n = (vx_u64)w * h, o = (vx_u64)y * w;
  const int x0 = (int)s * kS2Segment, x1 = x0 + kS2Segment < (int)w ? x0 + kS2Segment : (int)w;
  s2_segment_sums(blurred + (9 + c) * n + o, blurred + (12 + c) * n + o, blurred + (3 * c) * n + o,
                  blurred + (3 * c + 1) * n + o, blurred + (3 * c + 2) * n + o, xyb + c * n + o, xyb + (3 + c) * n + o,
                  x0, x1, seg + (((vx_u64)y * 3 + c) * segments + s) * kS2Terms);
}

// Thread: row y * 3 + channel.
VMAFX_KERNEL void ssimulacra2_rows_kernel(const double* seg, vx_u32 h, vx_u32 segments, double* rows) {
  const vx_u32 i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= 3 * h) return;
  s2_row_sums(seg + (vx_u64)i * segments * kS2Terms, (int)segments, rows + (vx_u64)i * kS2Terms);
}
