// SPDX-License-Identifier: LGPL-2.1-or-later
// Vendor-neutral half of the run-time loader: which libraries are tried, in which order, what a failure says, and
// the once-per-process tables.
#include <dlfcn.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>

#include "hip/api.h"
#include "hip/loader_internal.h"
#include "hip/runtime_abi.h"
#include "hip/visibility.h"

namespace vmafx::hip {

const char* vendor_name(Vendor v) {
  switch (v) {
    case Vendor::auto_select: return "auto";
    case Vendor::amd: return "amd";
    case Vendor::nvidia: return "nvidia";
  }
  return "?";
}

Status parse_vendor(std::string_view name, Vendor* out) {
  if (name == "auto") {
    *out = Vendor::auto_select;
  } else if (name == "amd") {
    *out = Vendor::amd;
  } else if (name == "nvidia") {
    *out = Vendor::nvidia;
  } else {
    return {Errc::invalid_argument, "unknown GPU vendor '" + std::string(name) + "' (expected auto, amd or nvidia)"};
  }
  return Status::ok();
}

std::string Api::describe(int code) const {
  const char* name = error_name ? error_name(code) : nullptr;
  const char* text = error_string ? error_string(code) : nullptr;
  std::string s = name ? name : ("error " + std::to_string(code));
  if (text && *text) s += std::string(" (") + text + ")";
  return s;
}

int Api::ordinal_of(int index) const {
  return index >= 0 && size_t(index) < ordinals.size() ? ordinals[size_t(index)] : -1;
}

int Api::index_of(int ordinal) const {
  for (size_t i = 0; i < ordinals.size(); i++)
    if (ordinals[i] == ordinal) return int(i);
  return -1;
}

std::string ProbeReport::summary() const {
  std::string s;
  for (const auto& a : attempts) {
    if (!s.empty()) s += "; ";
    s += a;
  }
  return s;
}

Status call_failed(const Api& api, const char* symbol, int code, const char* file, int line) {
  char where[64];
  std::snprintf(where, sizeof where, ":%d", line);
  return {Errc::device_error, std::string(symbol) + " failed: " + api.describe(code) + " at " + file + where};
}

Status symbol_missing(const Api& api, const char* symbol) {
  return {Errc::unsupported, std::string(symbol) + " is not exported by " + api.library};
}

std::vector<std::string> default_libraries(Vendor vendor) {
  switch (vendor) {
    case Vendor::amd:
      return {"libamdhip64.so.7", "libamdhip64.so.6", "libamdhip64.so.5", "/opt/rocm/lib/libamdhip64.so"};
    case Vendor::nvidia:
      return {"libcuda.so.1"};
    case Vendor::auto_select: break;
  }
  return {};
}

namespace detail {

void* open_library(const std::string& name, std::string* error) {
  dlerror();
  void* h = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char* e = dlerror();
    *error = e ? e : "dlopen failed";
    // dlerror() names the file in most cases; make sure the message always does.
    if (error->find(name) == std::string::npos) *error = name + ": " + *error;
  }
  return h;
}

void* find_symbol(void* lib, const char* name) { return lib ? dlsym(lib, name) : nullptr; }

bool init_runtime(void* lib, const char* init, const char* count, std::string (*error)(void* lib, int code),
                  int* device_count, std::string* why, bool* no_device) {
  *no_device = false;
  int (*init_fn)(unsigned) = nullptr;
  int (*count_fn)(int*) = nullptr;
  if (!resolve(lib, init, &init_fn) || !resolve(lib, count, &count_fn)) {
    *why = std::string("symbol ") + init + " or " + count + " missing";
    return false;
  }
  int rc = init_fn(0);
  if (rc != 0) {
    *why = std::string(init) + " failed: " + error(lib, rc);
    // ROCm 5's hipInit answers hipErrorInvalidDevice when it finds no device (Debian 12's, measured).
    *no_device = rc == abi::kErrorNoDevice || rc == abi::kErrorInvalidDevice;
    return false;
  }
  int n = 0;
  rc = count_fn(&n);
  if (rc != 0) {
    *why = std::string(count) + " failed: " + error(lib, rc);
    *no_device = rc == abi::kErrorNoDevice;
    return false;
  }
  if (n <= 0) {
    *why = "0 devices";
    *no_device = true;
    return false;
  }
  *device_count = n;
  return true;
}

bool rtc_resolve(void* lib, const std::string& prefix, const std::string& image, RtcRaw* out) {
  RtcRaw t;
  t.prefix = prefix;
  t.create_symbol = prefix + "CreateProgram";
  t.compile_symbol = prefix + "CompileProgram";
  t.image_size_symbol = prefix + "Get" + image + "Size";
  t.image_symbol = prefix + "Get" + image;
  const std::string log_size = prefix + "GetProgramLogSize", log = prefix + "GetProgramLog",
                    destroy = prefix + "DestroyProgram";
  if (!resolve(lib, t.create_symbol.c_str(), &t.create) || !resolve(lib, t.compile_symbol.c_str(), &t.compile) ||
      !resolve(lib, log_size.c_str(), &t.log_size) || !resolve(lib, log.c_str(), &t.log) ||
      !resolve(lib, t.image_size_symbol.c_str(), &t.image_size) || !resolve(lib, t.image_symbol.c_str(), &t.image) ||
      !resolve(lib, destroy.c_str(), &t.destroy))
    return false;
  resolve(lib, (prefix + "GetErrorString").c_str(), &t.error_string);
  resolve(lib, (prefix + "Version").c_str(), &t.version);
  *out = std::move(t);
  return true;
}

int rtc_compile_with(const RtcRaw& r, const std::vector<std::string>& options, const std::string& source,
                     const std::string& name, std::vector<uint8_t>* image, std::string* log, const char** symbol) {
  void* prog = nullptr;
  int rc = r.create(&prog, source.c_str(), name.c_str(), 0, nullptr, nullptr);
  if (rc != 0) {
    *symbol = r.create_symbol.c_str();
    return rc;
  }
  std::vector<const char*> opts;
  for (const std::string& o : options) opts.push_back(o.c_str());
  rc = r.compile(prog, int(opts.size()), opts.data());
  size_t n = 0;
  if (r.log_size(prog, &n) == 0 && n > 1) {
    log->assign(n, '\0');
    r.log(prog, log->data());
    log->resize(n - 1);
  }
  if (rc != 0) {
    *symbol = r.compile_symbol.c_str();
  } else if ((rc = r.image_size(prog, &n)) != 0) {
    *symbol = r.image_size_symbol.c_str();
  } else {
    image->assign(n, 0);
    rc = r.image(prog, reinterpret_cast<char*>(image->data()));
    if (rc != 0) *symbol = r.image_symbol.c_str();
  }
  r.destroy(&prog);
  return rc;
}

std::string rtc_version(const RtcRaw& r) {
  int major = 0, minor = 0;
  if (r.version) r.version(&major, &minor);
  return r.prefix + " " + std::to_string(major) + "." + std::to_string(minor);
}

}  // namespace detail

namespace {

const char* environment(const char* name) { return std::getenv(name); }

// Tries the libraries in order; the first that opens, initialises and has a device wins. A library that opened
// but failed is left open: unloading a GPU runtime after its init is not safe. A runtime that sees no device while
// its visibility variables are set fails with no_gpu_visible() naming them; on NVIDIA HIP_VISIBLE_DEVICES then
// selects among the devices the driver shows (select_visible).
Status probe(Vendor vendor, const std::vector<std::string>& libraries, ProbeReport* report, void** handle) {
  report->vendor = vendor;
  report->attempts.clear();
  report->library.clear();
  report->device_count = 0;
  report->runtime_device_count = 0;
  report->ordinals.clear();
  *handle = nullptr;
  const std::vector<VisibilitySetting> settings = visibility_settings(vendor, environment);
  const char* hip_visible = vendor == Vendor::nvidia ? std::getenv(kHipVisibleDevices) : nullptr;
  std::vector<VisibilitySetting> all = settings;
  if (hip_visible) all.push_back({kHipVisibleDevices, hip_visible});
  report->visibility = describe_settings(all);
  bool hidden = false;  // a runtime initialised (or answered) and saw no device, with visibility variables set
  for (const auto& lib : libraries) {
    std::string error;
    void* h = detail::open_library(lib, &error);
    if (!h) {
      report->attempts.push_back(error);
      continue;
    }
    int count = 0;
    std::string why;
    bool no_device = false;
    const bool ok = vendor == Vendor::amd ? detail::amd_init(h, &count, &why, &no_device)
                                          : detail::cuda_init(h, &count, &why, &no_device);
    if (!ok) {
      report->attempts.push_back(lib + ": loaded, " + why);
      hidden = hidden || (no_device && !settings.empty());
      continue;
    }
    std::vector<int> ordinals;
    if (hip_visible) {
      Status s = select_visible(hip_visible, count, &ordinals);
      if (!s) {
        report->attempts.push_back(lib + ": loaded, " + std::to_string(count) + " device(s), " + s.message());
        // What CUDA showed was narrowed before: say by what.
        if (!settings.empty()) s = Status(s.code(), s.message() + "; the CUDA devices are those " +
                                                        describe_settings(settings) + " leaves");
        return s;
      }
    } else {
      for (int i = 0; i < count; i++) ordinals.push_back(i);
    }
    report->attempts.push_back(lib + ": ok, " + std::to_string(count) + " device(s)" +
                               (hip_visible ? ", " + std::to_string(ordinals.size()) + " of them visible (" +
                                                  describe_settings({all.back()}) + ")"
                                            : std::string()));
    report->library = lib;
    report->device_count = int(ordinals.size());
    report->runtime_device_count = count;
    report->ordinals = std::move(ordinals);
    *handle = h;
    return Status::ok();
  }
  if (libraries.empty()) report->attempts.emplace_back("no library to try");
  if (hidden) return no_gpu_visible(settings, report->summary());
  return {Errc::device_unavailable, std::string("no ") + vendor_name(vendor) + " GPU: " + report->summary()};
}

struct VendorState {
  std::once_flag once;
  Status status;
  Api api;
};

// A failure that names a visibility variable ("no GPU visible: ...") or a malformed one: said before the other
// vendor's reasons.
bool names_visibility(const Status& s) {
  return s.code() != Errc::device_unavailable || s.message().find("no GPU visible: ") != std::string::npos;
}

VendorState& state_of(Vendor v) {
  static VendorState amd, nvidia;
  return v == Vendor::amd ? amd : nvidia;
}

const Status& load_vendor(Vendor v) {
  VendorState& st = state_of(v);
  std::call_once(st.once, [&] {
    ProbeReport report;
    void* h = nullptr;
    st.status = probe(v, default_libraries(v), &report, &h);
    if (!st.status) return;
    st.api.vendor = v;
    st.api.library = report.library;
    st.api.ordinals = report.ordinals;
    st.api.runtime_device_count = report.runtime_device_count;
    st.api.visibility = report.visibility;
    st.status = v == Vendor::amd ? detail::amd_fill(h, &st.api) : detail::cuda_fill(h, &st.api);
    if (!st.status) st.status.prepend(std::string("no usable ") + vendor_name(v) + " GPU runtime");
  });
  return st.status;
}

}  // namespace

Status probe_runtime(Vendor vendor, const std::vector<std::string>& libraries, ProbeReport* report) {
  if (vendor == Vendor::auto_select) return {Errc::invalid_argument, "probe_runtime needs a vendor"};
  void* h = nullptr;
  return probe(vendor, libraries, report, &h);
}

Status load_api(Vendor vendor, const Api** out) {
  *out = nullptr;
  if (vendor != Vendor::auto_select) {
    const Status& s = load_vendor(vendor);
    if (s) *out = &state_of(vendor).api;
    return s;
  }
  std::string first, rest;
  Errc code = Errc::device_unavailable;
  for (Vendor v : {Vendor::amd, Vendor::nvidia}) {
    const Status& s = load_vendor(v);
    if (s) {
      *out = &state_of(v).api;
      return Status::ok();
    }
    // What a visibility variable did goes first (the one-line reason of a message is its first clause).
    std::string& to = names_visibility(s) && first.empty() ? first : rest;
    if (!to.empty()) to += "; ";
    to += s.message();
    if (s.code() != Errc::device_unavailable && code == Errc::device_unavailable) code = s.code();
  }
  return {code, first.empty() ? rest : rest.empty() ? first : first + "; " + rest};
}

namespace {

struct RtcState {
  std::once_flag once;
  Status status;
  Rtc rtc;
};

std::vector<std::string> rtc_libraries(const Api& api) {
  if (api.vendor == Vendor::amd) {
    // ROCm 5 carries hiprtc inside libamdhip64; ROCm 6 and 7 ship libhiprtc.
    return {"libhiprtc.so.7", "libhiprtc.so.6", "libhiprtc.so.5", "/opt/rocm/lib/libhiprtc.so", api.library};
  }
  return {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so.11.2", "libnvrtc.so", "/usr/local/cuda/lib64/libnvrtc.so"};
}

}  // namespace

Status load_rtc(const Api& api, const Rtc** out) {
  *out = nullptr;
  static RtcState amd, nvidia;
  RtcState& st = api.vendor == Vendor::amd ? amd : nvidia;
  std::call_once(st.once, [&] {
    std::string tried;
    for (const auto& lib : rtc_libraries(api)) {
      std::string error;
      void* h = detail::open_library(lib, &error);
      Status s = h ? (api.vendor == Vendor::amd ? detail::amd_rtc_fill(h, &st.rtc) : detail::cuda_rtc_fill(h, &st.rtc))
                   : Status(Errc::unsupported, error);
      if (s) {
        st.rtc.library = lib;
        st.status = Status::ok();
        return;
      }
      if (!tried.empty()) tried += "; ";
      tried += s.message();
    }
    st.status = {Errc::unsupported, std::string("no run-time compiler for ") + vendor_name(api.vendor) + ": " + tried};
  });
  if (st.status) *out = &st.rtc;
  return st.status;
}

}  // namespace vmafx::hip
