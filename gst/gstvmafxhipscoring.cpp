// SPDX-License-Identifier: LGPL-2.1-or-later
#include "gstvmafxhipscoring.h"

namespace vmafx::gst {

const char* scaling_name(Scaling s) {
  switch (s) {
    case Scaling::none: return "none";
    case Scaling::bicubic: return "bicubic";
    case Scaling::bilinear: return "bilinear";
    case Scaling::lanczos: return "lanczos";
  }
  return "?";
}

ScaleMethod to_scale_method(Scaling s) {
  switch (s) {
    case Scaling::none: return ScaleMethod::none;
    case Scaling::bicubic: return ScaleMethod::bicubic;
    case Scaling::bilinear: return ScaleMethod::bilinear;
    case Scaling::lanczos: return ScaleMethod::lanczos;
  }
  return ScaleMethod::bicubic;
}

}  // namespace vmafx::gst
