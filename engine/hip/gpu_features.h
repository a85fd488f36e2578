// SPDX-License-Identifier: LGPL-2.1-or-later
// The GPU implementations of the feature table's features, by libvmaf extractor name. A feature without an entry,
// or whose options its entry does not take, runs on the CPU reference beside the GPU (hip/backend.h).
#pragma once

#include <memory>

#include "features/table.h"
#include "hip/device.h"
#include "hip/feature.h"
#include "hip/pipeline.h"
#include "vmafx/tuning.h"

namespace vmafx::hip {

// Makes the GPU implementation of `inst` for frames of geometry `g` and `slots` frames in flight, and says what it
// reads. Ok with *out == nullptr: no GPU implementation for this instance (the CPU's is used). `tuning` holds the
// settings of the features that have any (cambi's kernel choice).
Status make_gpu_feature(const features::Instance& inst, const VideoGeometry& g, const std::shared_ptr<Device>& device,
                        unsigned slots, std::unique_ptr<GpuFeature>* out, FeatureNeeds* needs,
                        const EngineTuning& tuning = {});

}  // namespace vmafx::hip
