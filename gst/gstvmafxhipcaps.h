// SPDX-License-Identifier: LGPL-2.1-or-later
// The sink pads' caps: a pad's new caps checked and made into the epoch its frames carry, the reference's and a
// distorted pad's caps checked against each other (depth, subsampling, frame rate; colorimetry only said), and the
// caps a distorted pad offers first (the reference's size and rate). No state: the element calls these and posts.
#pragma once

#include <gst/gst.h>

#include <memory>
#include <string>

#include "gstvmafxhipmessages.h"
#include "gstvmafxhippad.h"

namespace vmafx::gst {

std::string caps_string(const GstCaps* caps);
std::string geometry_string(const VideoGeometry& g);

struct CapsProblem {
  ErrorCode code{0, 0};
  std::string text, debug;
};

// `caps` of pad `pad` as the epoch its frames will carry (the segment taken from `previous` when given). False for
// caps the element cannot score (unreadable, interlaced, a format no input reads), with the problem.
bool epoch_from_caps(GstCaps* caps, const std::string& pad, const PadEpoch* previous,
                     std::shared_ptr<PadEpoch>* out, CapsProblem* problem);

// The reference's caps against a distorted pad's. False (the problem set) when they cannot be scored together; true
// otherwise, with *colour_note non-empty once when their colorimetry or range differ (said as INFO).
bool check_pair_caps(const PadEpoch& ref, const PadEpoch& dist, const std::string& dist_pad, bool by_timestamp,
                     CapsProblem* problem, std::string* colour_note, std::string* colour_debug);

// The caps a distorted pad offers: `base` (taken) with the reference's size (and, by timestamp, frame rate) first, so
// that an upstream able to give any size (videoscale, videorate) takes the reference's without a caps filter.
GstCaps* prefer_reference_size(GstCaps* base, const PadEpoch& ref, bool by_timestamp);

}  // namespace vmafx::gst
