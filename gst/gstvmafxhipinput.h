// SPDX-License-Identifier: LGPL-2.1-or-later
// Inputs: how a sink pad's buffers become engine pictures, one kind per memory (system memory here, memory:DMABuf in
// gstvmafxhipdmabuf.cpp, memory:GLMemory in gstvmafxhipgl.cpp, memory:CUDAMemory in gstvmafxhipcuda.cpp). A kind says which caps it takes, how to read them
// and which formats it reads, and makes one Input per pad and scoring session. Adding a memory kind is one file that
// defines an InputKind plus one line in input_kinds() (gstvmafxhipinput.cpp).
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "gstvmafxhipimport.h"
#include "vmafx/scorer.h"

namespace vmafx::gst {

// What an input needs to know of the session; built once when the session starts.
struct InputConfig {
  Backend requested = Backend::auto_select;  // the backend property
  Backend scorer = Backend::cpu;             // where the session's scorer runs
  Vendor vendor = Vendor::auto_select;
  int device_id = -1;
  bool allow_copy = true;
  // Non-empty: a feature of the scorer reads host memory, so device input is copied to the host for this reason.
  std::string host_reason;
  // A notice to post once (a copy fallback and its reason): warning when the GPU path was wanted.
  std::function<void(const std::string& text, bool warning)> on_notice;
};

class Input {
 public:
  virtual ~Input() = default;
  // `caps` are the pad's current caps, `info` their video info.
  virtual Status import(GstBuffer* buffer, const GstVideoInfo& info, const GstCaps* caps, ImportedPicture* out) = 0;
  virtual uint64_t frames_copied() const { return 0; }
  virtual std::string description() const = 0;
  // Adds "<prefix>-..." statistics fields; false when the input has none to report.
  virtual bool add_stats(GstStructure* stats, const std::string& prefix) const {
    (void)stats;
    (void)prefix;
    return false;
  }
  // After the scorer has released every picture (the session ended).
  virtual Status close() { return Status::ok(); }
};

struct InputKind {
  const char* name;  // "system memory", "memory:DMABuf", ...
  const char* caps;  // for the pad templates ("" when this build, or this machine, cannot read the kind)
  // Caps this kind reads (by their caps features).
  bool (*handles)(const GstCaps* caps);
  // Video info of fixed caps of this kind; Errc naming the field when the caps cannot be read. Null:
  // gst_video_info_from_caps.
  Status (*video_info)(const GstCaps* caps, GstVideoInfo* info);
  // The engine's layout of a format in this memory; false for a format this kind does not read.
  bool (*format_info)(GstVideoFormat format, FormatInfo* out);
  // ACCEPT_CAPS of caps of this kind: true when the kind decides (with *accept), false for the element's default.
  bool (*accept_caps)(const GstCaps* caps, bool* accept);
  // One input per pad and session. `shared` is one slot per kind and session (e.g. a device importer both pads use).
  Status (*create)(const InputConfig& config, unsigned pad, std::shared_ptr<void>* shared,
                   std::unique_ptr<Input>* out);
  // The element's statistics property of this kind ("gl-stats", "cuda-stats"; the structure's name too), or null.
  const char* stats_property;
};

// The kind that reads `caps` (system memory for caps without a known memory feature).
const InputKind& input_kind_for_caps(const GstCaps* caps);
// Caps of every kind, for the pad templates.
std::string input_template_caps();

// Video info of caps of any kind, and the engine geometry of that info (false: a format no kind reads).
Status video_info_from_caps(const GstCaps* caps, GstVideoInfo* info);
bool geometry_for(const GstCaps* caps, const GstVideoInfo& info, VideoGeometry* out);

// Every sink pad's input for one scoring run: made at a pad's first frame with the pad's configuration (made anew
// for another memory kind or once the configuration changed), shared slots per kind, closed when the run ends.
// Thread-safe; add_stats may run on an application's thread.
class PadInputs {
 public:
  // The configuration pad `pad`'s next input is made with (its current one is replaced at its next frame).
  void configure(unsigned pad, const InputConfig& config);
  // Reads a buffer of `pad` with the caps it arrived under.
  Status import(unsigned pad, GstBuffer* buffer, const GstVideoInfo& info, const GstCaps* caps, ImportedPicture* out);
  uint64_t frames_copied() const;
  // The statistics property `property` ("gl-stats", "cuda-stats") of every pad reading that kind, each pad's fields
  // prefixed with its name; null while none does.
  GstStructure* stats(const char* property, const std::function<std::string(unsigned pad)>& prefix) const;
  // A released pad: its input closes with the others.
  void forget(unsigned pad);
  // After the scorers released every picture.
  void close();

 private:
  struct PadInput {
    std::unique_ptr<Input> input;
    const InputKind* kind = nullptr;
    InputConfig config;
    bool config_changed = false;
  };
  struct Notice {
    std::function<void(const std::string& text, bool warning)> post;
    std::string text;
    bool warning;
  };
  // Posts the notices the inputs said, outside mu_: an application's synchronous bus handler may read the
  // statistics property, which takes mu_.
  void post_notices();
  // import() without the posting: takes mu_ itself.
  Status import_taking_lock(unsigned pad, GstBuffer* buffer, const GstVideoInfo& info, const GstCaps* caps,
                            ImportedPicture* out);

  mutable std::mutex mu_;
  std::mutex notice_mu_;
  std::vector<Notice> notices_;  // under notice_mu_
  std::map<unsigned, PadInput> pads_;
  std::map<const InputKind*, std::shared_ptr<void>> shared_;
  std::vector<std::unique_ptr<Input>> retired_;
  std::atomic<uint64_t> copied_{0};
};

// The kinds defined in the other files.
const InputKind& dmabuf_input_kind();
const InputKind& gl_input_kind();
const InputKind& cuda_input_kind();

}  // namespace vmafx::gst
