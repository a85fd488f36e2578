// SPDX-License-Identifier: LGPL-2.1-or-later
// Prints what the engine offers, one item a line, for tests/docs/check_docs.py:
//   feature NAME computed|libvmaf-only     every extractor of the feature table (engine/features/table.cpp)
//   option NAME OPTION honoured|refused    every option libvmaf declares for a computed extractor
//   model NAME                             every built-in model (Model::builtin_names)
#include <cstdio>

#include "features/table.h"
#include "vmafx/model.h"

int main() {
  for (const vmafx::features::FeatureDesc& d : vmafx::features::table()) {
    std::printf("feature %s %s\n", d.name, d.implemented() ? "computed" : "libvmaf-only");
    if (!d.implemented()) continue;
    for (const auto& o : d.options) std::printf("option %s %s %s\n", d.name, o.name, o.honoured ? "honoured" : "refused");
  }
  for (const auto& m : vmafx::Model::builtin_names()) std::printf("model %s\n", m.c_str());
  return 0;
}
