// SPDX-License-Identifier: LGPL-2.1-or-later
// Host side of the RGBA to luma conversion: the kernel's own arithmetic (rgba_luma_impl.h), row by row.
#include <string>

#include "hip/kernels/rgba_luma_impl.h"
#include "vmafx/gl.h"

namespace vmafx::gl {

const char* matrix_name(RgbMatrix m) { return m == RgbMatrix::bt709 ? "bt709" : "bt601"; }
const char* range_name(RgbRange r) { return r == RgbRange::limited ? "limited" : "full"; }

Status rgba_to_luma(const uint8_t* rgba, ptrdiff_t rgba_stride, uint32_t width, uint32_t height,
                    const LumaConversion& conversion, uint8_t* luma, ptrdiff_t luma_stride) {
  if (!rgba || !luma) return {Errc::invalid_argument, "rgba_to_luma: null plane"};
  if (rgba_stride < ptrdiff_t(width) * 4 || luma_stride < ptrdiff_t(width))
    return {Errc::invalid_argument, "rgba_to_luma: stride shorter than a row of " + std::to_string(width) +
                                        " pixels (RGBA " + std::to_string(rgba_stride) + ", luma " +
                                        std::to_string(luma_stride) + " bytes)"};
  const RgbaLumaCoeffs c =
      rgba_luma_coeffs(conversion.matrix == RgbMatrix::bt709 ? RGBA_LUMA_BT709 : RGBA_LUMA_BT601,
                       conversion.range == RgbRange::limited ? RGBA_LUMA_LIMITED_RANGE : RGBA_LUMA_FULL_RANGE);
  for (uint32_t y = 0; y < height; y++)
    rgba_luma_row(rgba + ptrdiff_t(y) * rgba_stride, luma + ptrdiff_t(y) * luma_stride, 0, width, c);
  return Status::ok();
}

}  // namespace vmafx::gl
