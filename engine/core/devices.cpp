// SPDX-License-Identifier: LGPL-2.1-or-later
#include "vmafx/devices.h"

namespace vmafx {

const char* backend_name(Backend b) {
  switch (b) {
    case Backend::auto_select: return "auto";
    case Backend::cpu: return "cpu";
    case Backend::hip: return "hip";
  }
  return "?";
}

const char* vendor_name(Vendor v) {
  switch (v) {
    case Vendor::auto_select: return "auto";
    case Vendor::amd: return "amd";
    case Vendor::nvidia: return "nvidia";
  }
  return "?";
}

}  // namespace vmafx
