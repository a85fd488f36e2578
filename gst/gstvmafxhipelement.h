// SPDX-License-Identifier: LGPL-2.1-or-later
// The element's own state, shared by its two files: gstvmafxhip.cpp (pads, events, queries, properties, state
// changes) and gstvmafxhipsession.cpp (what the scoring session's callbacks post on the bus, how frames are read).
// Private to gst/.
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "gstvmafxhip.h"
#include "gstvmafxhipcaps.h"
#include "gstvmafxhipcuda.h"
#include "gstvmafxhipinput.h"
#include "gstvmafxhipmessages.h"
#include "gstvmafxhippad.h"
#include "gstvmafxhipsettings.h"
#include "scoring_session.h"
#include "stream_pairing.h"

GST_DEBUG_CATEGORY_EXTERN(gst_vmafxhip_debug);

namespace vmafx::gst::element {

using vmafx::Errc;
using vmafx::Status;
namespace vg = vmafx::gst;
using vg::BufferHold;
using vg::buffer_of;
using vg::caps_string;
using vg::epoch_of;
using vg::frame_period;
using vg::kDistPad;
using vg::kRefPad;
using vg::PadEpoch;
using vg::SkipReason;

struct SinkPad {
  GstPad* pad = nullptr;
  std::string name;
  std::shared_ptr<const PadEpoch> epoch;  // the pad's caps and segment now (under mu)
  bool live_known = false;
};

struct ElementState {
  std::mutex settings_mu;
  vg::Settings settings;  // the properties

  std::mutex mu;  // pads, the active settings, the output position, what was said
  vg::Settings active;
  unsigned out_pad = kRefPad;
  std::map<unsigned, SinkPad> pads;
  unsigned next_request = 0;
  GstClockTime last_output_end = GST_CLOCK_TIME_NONE;
  std::string said;  // notices said this run
  std::map<std::vector<std::string>, std::vector<std::string>> fields;  // message field names per score names

  vg::StreamPairing pairing;
  std::unique_ptr<vg::ScoringSession> session;
  // One error per run: the thread that claims it posts it, then sets `failed` (the pads return GST_FLOW_ERROR from
  // then on), so the cause reaches the bus before the errors upstream elements post about that flow.
  std::atomic<bool> error_claimed{false};
  std::atomic<bool> failed{false};
  std::atomic<GstFlowReturn> out_flow{GST_FLOW_OK};

  vg::PadInputs inputs;
};

}  // namespace vmafx::gst::element

struct _GstVmafxhip {
  GstElement parent;
  GstPad* src;
  vmafx::gst::element::ElementState* st;
};

namespace vmafx::gst::element {

inline ElementState& state(GstVmafxhip* self) { return *self->st; }
std::string pad_name(GstVmafxhip* self, unsigned id);

// Posts an error once per run (later failures are consequences of the first) and fails the pairing.
void post_error_at(const char* file, const char* function, int line, GstVmafxhip* self, vg::ErrorCode code,
                   const std::string& text, const std::string& debug);
#define VMAFXHIP_ERROR(self, code, text, debug) post_error_at(__FILE__, GST_FUNCTION, __LINE__, self, code, text, debug)
void post_message(GstVmafxhip* self, GstMessageType type, const std::string& text, const std::string& debug,
                  GstStructure* details = nullptr);
// Said once per run and text.
void post_notice(GstVmafxhip* self, bool warning, const std::string& text, const std::string& detail);
vg::CudaSettings cuda_settings(GstVmafxhip* self);

// What the pairing decided: skip messages, auto-sync's result, the first live skip of each reason.
void report(GstVmafxhip* self, vg::Report&& r);
// The scoring session's callbacks: reading frames, frame and pooled messages, notices, errors.
vg::SessionCallbacks session_callbacks(GstVmafxhip* self);
// A latency query on src, answered from the output pad's upstream (`out_pad`).
bool answer_latency(GstVmafxhip* self, GstPad* out_pad, GstQuery* query);
// auto-sync's search over the first frames' luma (system memory; frames it cannot map are left out).
bool sync_search(const std::vector<vg::Frame>& ref, const std::vector<vg::Frame>& dist, int centre, int window,
                 vg::SyncFound* out);

}  // namespace vmafx::gst::element
