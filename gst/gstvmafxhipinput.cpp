// SPDX-License-Identifier: LGPL-2.1-or-later
#include "gstvmafxhipinput.h"

#include <vector>

namespace vmafx::gst {

namespace {

// ---- System memory ----------------------------------------------------------------------------------------------

class SystemInput final : public Input {
 public:
  Status import(GstBuffer* buffer, const GstVideoInfo& info, const GstCaps*, ImportedPicture* out) override {
    return import_system_memory(buffer, info, out);
  }
  std::string description() const override { return "system memory"; }
};

bool system_handles(const GstCaps*) { return true; }

Status system_create(const InputConfig&, unsigned, std::shared_ptr<void>*, std::unique_ptr<Input>* out) {
  *out = std::make_unique<SystemInput>();
  return Status::ok();
}

const InputKind kSystemKind = {
    "system memory",
    GST_VIDEO_CAPS_MAKE(GST_VMAFXHIP_SYSMEM_FORMATS),
    system_handles,
    nullptr,
    format_info_for,
    nullptr,
    system_create,
    nullptr,
};

// Every kind, most specific first: the first whose handles() takes the caps reads them. A new memory kind is one
// line here.
const std::vector<const InputKind*>& input_kinds() {
  static const std::vector<const InputKind*> kinds = {
      &dmabuf_input_kind(),
      &gl_input_kind(),
      &cuda_input_kind(),
      &kSystemKind,
  };
  return kinds;
}

}  // namespace

const InputKind& input_kind_for_caps(const GstCaps* caps) {
  for (const InputKind* k : input_kinds())
    if (k->handles(caps)) return *k;
  return kSystemKind;
}

std::string input_template_caps() {
  // System memory first: the first caps are the ones a producer that could give several picks.
  std::string s = kSystemKind.caps;
  for (const InputKind* k : input_kinds()) {
    if (k == &kSystemKind) continue;
    if (!k->caps || !*k->caps) continue;
    if (!s.empty()) s += "; ";
    s += k->caps;
  }
  return s;
}

Status video_info_from_caps(const GstCaps* caps, GstVideoInfo* info) {
  const InputKind& k = input_kind_for_caps(caps);
  if (k.video_info) return k.video_info(caps, info);
  if (!gst_video_info_from_caps(info, caps)) {
    gchar* c = gst_caps_to_string(caps);
    Status s(Errc::unsupported, std::string("caps ") + c + " are not raw video caps GStreamer can read");
    g_free(c);
    return s;
  }
  return Status::ok();
}

bool geometry_for(const GstCaps* caps, const GstVideoInfo& info, VideoGeometry* out) {
  FormatInfo fmt;
  if (!input_kind_for_caps(caps).format_info(GST_VIDEO_INFO_FORMAT(&info), &fmt)) return false;
  out->width = GST_VIDEO_INFO_WIDTH(&info);
  out->height = GST_VIDEO_INFO_HEIGHT(&info);
  out->bit_depth = fmt.bit_depth;
  out->chroma = fmt.chroma;
  return true;
}

void PadInputs::configure(unsigned pad, const InputConfig& config) {
  std::lock_guard<std::mutex> lk(mu_);
  PadInput& p = pads_[pad];
  p.config = config;
  p.config_changed = p.input != nullptr;
  if (config.on_notice) {
    // Inputs say their notices under mu_ (or from a thread an import waits on): queued, posted by post_notices().
    auto post = config.on_notice;
    p.config.on_notice = [this, post](const std::string& text, bool warning) {
      std::lock_guard<std::mutex> nl(notice_mu_);
      notices_.push_back({post, text, warning});
    };
  }
}

void PadInputs::post_notices() {
  std::vector<Notice> n;
  {
    std::lock_guard<std::mutex> nl(notice_mu_);
    n.swap(notices_);
  }
  for (const Notice& x : n) x.post(x.text, x.warning);
}

Status PadInputs::import(unsigned pad, GstBuffer* buffer, const GstVideoInfo& info, const GstCaps* caps,
                         ImportedPicture* out) {
  Status st = import_taking_lock(pad, buffer, info, caps, out);
  post_notices();
  return st;
}

Status PadInputs::import_taking_lock(unsigned pad, GstBuffer* buffer, const GstVideoInfo& info, const GstCaps* caps,
                                ImportedPicture* out) {
  const InputKind& kind = input_kind_for_caps(caps);
  std::lock_guard<std::mutex> lk(mu_);
  PadInput& p = pads_[pad];
  if (!p.input || p.kind != &kind || p.config_changed) {
    if (p.input) retired_.push_back(std::move(p.input));
    Status st = kind.create(p.config, pad, &shared_[&kind], &p.input);
    p.kind = st ? &kind : nullptr;
    p.config_changed = false;
    if (!st) return st.prepend(kind.name);
  }
  const uint64_t before = p.input->frames_copied();
  Status st = p.input->import(buffer, info, caps, out);
  copied_.fetch_add(p.input->frames_copied() - before, std::memory_order_relaxed);
  return st ? st : st.prepend(kind.name);
}

uint64_t PadInputs::frames_copied() const { return copied_.load(); }

GstStructure* PadInputs::stats(const char* property, const std::function<std::string(unsigned pad)>& prefix) const {
  std::lock_guard<std::mutex> lk(mu_);
  GstStructure* st = nullptr;
  for (const auto& [id, p] : pads_) {
    if (!p.input || !p.kind || !p.kind->stats_property || g_strcmp0(p.kind->stats_property, property) != 0) continue;
    if (!st) st = gst_structure_new_empty(property);
    p.input->add_stats(st, prefix(id));
  }
  return st;
}

void PadInputs::forget(unsigned pad) {
  std::lock_guard<std::mutex> lk(mu_);
  auto it = pads_.find(pad);
  if (it == pads_.end()) return;
  if (it->second.input) retired_.push_back(std::move(it->second.input));
  pads_.erase(it);
}

void PadInputs::close() {
  {
    std::lock_guard<std::mutex> lk(mu_);
    for (auto& [id, p] : pads_) {
      if (p.input) (void)p.input->close();
      p.input.reset();
      p.kind = nullptr;
    }
    for (auto& in : retired_) (void)in->close();
    retired_.clear();
    shared_.clear();
    copied_ = 0;
  }
  post_notices();
}

}  // namespace vmafx::gst
