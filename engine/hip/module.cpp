// SPDX-License-Identifier: LGPL-2.1-or-later
#include "hip/module.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <utility>

namespace vmafx::hip {

const char* image_kind_name(ImageKind k) {
  switch (k) {
    case ImageKind::amd_code_object: return "amdgcn";
    case ImageKind::nvidia_cubin: return "cubin";
    case ImageKind::nvidia_ptx: return "ptx";
  }
  return "?";
}

namespace {

// "sm_86" -> 86; -1 when not of that form.
int sm_number(std::string_view arch) {
  if (arch.substr(0, 3) != "sm_" || arch.size() < 5) return -1;
  int n = 0;
  for (char c : arch.substr(3)) {
    if (c < '0' || c > '9') return -1;
    n = n * 10 + (c - '0');
  }
  return n;
}

// "gfx90a:sramecc+:xnack-" -> "gfx90a".
std::string gfx_base(const std::string& arch) { return arch.substr(0, arch.find(':')); }

std::string sanitize(std::string s) {
  for (char& c : s) {
    const bool ok = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
                    c == '-' || c == '.';
    if (!ok) c = '_';
  }
  return s;
}

bool read_file(const std::string& path, std::vector<uint8_t>* out) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return false;
  out->assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  return !out->empty();
}

// Creates `dir` and its parents; true when it exists afterwards.
bool make_dirs(const std::string& dir) {
  for (size_t pos = 1; pos <= dir.size(); ++pos) {
    if (pos == dir.size() || dir[pos] == '/') mkdir(dir.substr(0, pos).c_str(), 0755);
  }
  struct stat st {};
  return stat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

// Written to a temporary name, flushed to disk and renamed, so a reader (another process too) never sees half a
// file, also after a crash. Best effort: a cache that cannot be written only costs a compilation next time.
void write_file_atomic(const std::string& path, const std::vector<uint8_t>& data) {
  const std::string tmp = path + ".tmp" + std::to_string(getpid());
  const int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return;
  size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += size_t(n);
  }
  const bool ok = done == data.size() && fsync(fd) == 0;
  if (close(fd) != 0 || !ok || std::rename(tmp.c_str(), path.c_str()) != 0) std::remove(tmp.c_str());
}

const EmbeddedSource* find_source(std::string_view kernel) {
  size_t n = 0;
  const EmbeddedSource* s = embedded_sources(&n);
  for (size_t i = 0; i < n; ++i) {
    if (kernel == s[i].kernel) return &s[i];
  }
  return nullptr;
}

}  // namespace

std::string source_hash(std::string_view text) {
  uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a 64 offset basis
  for (unsigned char c : text) {
    h ^= c;
    h *= 0x100000001b3ull;  // FNV-1a 64 prime
  }
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

std::string cache_dir() {
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  if (xdg && *xdg) return std::string(xdg) + "/vmafxhip";
  const char* home = std::getenv("HOME");
  if (home && *home) return std::string(home) + "/.cache/vmafxhip";
  return "";
}

std::vector<const EmbeddedImage*> candidate_images(Vendor vendor, const std::string& arch, std::string_view kernel) {
  size_t n = 0;
  const EmbeddedImage* images = embedded_images(&n);
  std::vector<const EmbeddedImage*> out;
  if (vendor == Vendor::amd) {
    const std::string base = gfx_base(arch);
    for (size_t i = 0; i < n; ++i) {
      if (kernel == images[i].kernel && images[i].kind == ImageKind::amd_code_object && base == images[i].arch)
        out.push_back(&images[i]);
    }
    return out;
  }
  if (vendor != Vendor::nvidia) return out;
  const int dev = sm_number(arch);
  if (dev < 0) return out;
  // A cubin runs on its own major architecture from its minor version up; PTX is compiled by the driver for any
  // architecture at or above its own.
  std::vector<const EmbeddedImage*> cubins, ptx;
  for (size_t i = 0; i < n; ++i) {
    const EmbeddedImage& im = images[i];
    if (kernel != im.kernel) continue;
    const int sm = sm_number(im.arch);
    if (sm < 0 || sm > dev) continue;
    if (im.kind == ImageKind::nvidia_cubin && sm / 10 == dev / 10) cubins.push_back(&im);
    if (im.kind == ImageKind::nvidia_ptx) ptx.push_back(&im);
  }
  auto newest_first = [](const EmbeddedImage* a, const EmbeddedImage* b) { return sm_number(a->arch) > sm_number(b->arch); };
  std::sort(cubins.begin(), cubins.end(), newest_first);
  std::sort(ptx.begin(), ptx.end(), newest_first);
  out = cubins;
  out.insert(out.end(), ptx.begin(), ptx.end());
  return out;
}

Module& Module::operator=(Module&& o) noexcept {
  if (this != &o) {
    reset();
    device_ = std::move(o.device_);
    handle_ = std::exchange(o.handle_, nullptr);
    origin_ = std::move(o.origin_);
  }
  return *this;
}

void Module::reset() {
  if (handle_ && device_) {
    ContextScope scope(*device_);
    const int rc = device_->api().module_unload.fn(handle_);
    if (rc != 0) (void)device_->fail(device_->api().module_unload.symbol, rc, __FILE__, __LINE__);
  }
  handle_ = nullptr;
  origin_.clear();
  device_.reset();
}

Status Module::load(std::shared_ptr<Device> device, std::string_view kernel, Module* out,
                    const ModuleOptions& options) {
  out->reset();
  if (!device) return {Errc::invalid_argument, "module without a device"};
  if (device->failed()) return device->status();
  const Api& api = device->api();
  const DeviceInfo& info = device->info();
  ContextScope scope(*device);
  VMAFX_TRY(scope.status());

  std::vector<std::string> tried;
  auto try_image = [&](const void* image, const std::string& origin) -> bool {
    ModuleHandle h = nullptr;
    const int rc = api.module_load.fn(&h, image);
    if (rc != 0) {
      tried.push_back(origin + ": " + api.module_load.symbol + " failed: " + api.describe(rc));
      return false;
    }
    out->device_ = device;
    out->handle_ = h;
    out->origin_ = origin;
    return true;
  };

  // Embedded PTX, compiled by the driver for this device once and kept in the cache as a cubin (where the driver
  // can hand its compilation over: link_ptx); the key holds the PTX's hash, the device's architecture and the
  // driver's version, which did the compiling. Without a cache directory the driver compiles the PTX in module_load
  // (and keeps it in its own cache, CUDA_CACHE_PATH, when that is enabled).
  const std::string dir = options.use_cache ? cache_dir() : "";
  auto try_ptx_compiled = [&](const EmbeddedImage& im, const std::string& origin) -> bool {
    if (dir.empty() || !api.link_ptx.available()) return false;
    const std::string path = dir + "/" + sanitize(std::string(kernel)) + "-ptx-" +
                             source_hash(std::string_view(reinterpret_cast<const char*>(im.data), im.size)) + "-" +
                             sanitize(info.arch) + "-driver" + std::to_string(api.driver_version) + ".cubin";
    std::vector<uint8_t> cubin;
    if (read_file(path, &cubin)) {
      if (try_image(cubin.data(), "cache " + path)) return true;
      std::remove(path.c_str());  // stale or damaged: compile afresh
    }
    cubin.clear();
    std::string log;
    const std::string name = std::string(kernel) + ".ptx";
    const int rc = api.link_ptx.fn(reinterpret_cast<const char*>(im.data), im.size, name.c_str(), &cubin, &log);
    if (rc != 0) {
      tried.push_back(origin + ": " + api.link_ptx.symbol + " failed: " + api.describe(rc) +
                      (log.empty() ? "" : "\n" + log));
      return false;
    }
    if (make_dirs(dir)) write_file_atomic(path, cubin);
    return try_image(cubin.data(), origin + ", compiled by the driver for " + info.arch);
  };

  if (options.use_embedded) {
    const auto images = candidate_images(info.vendor, info.arch, kernel);
    for (const EmbeddedImage* im : images) {
      const std::string origin = std::string("embedded ") + image_kind_name(im->kind) + " " + im->arch;
      if (im->kind == ImageKind::nvidia_ptx && try_ptx_compiled(*im, origin)) return Status::ok();
      if (try_image(im->data, origin)) return Status::ok();
    }
    if (images.empty()) tried.push_back("no embedded image for " + info.arch);
  }

  const EmbeddedSource* src = find_source(kernel);
  if (!src) {
    tried.push_back("no embedded source");
  } else if (options.use_rtc || options.use_cache) {
    const Rtc* rtc = nullptr;
    Status rs = load_rtc(api, &rtc);
    if (!rs) {
      tried.push_back(rs.message());
    } else {
      const std::string text(src->text, src->size);
      // The key: the source's hash, the device's architecture, the compiler's and the runtime's versions.
      const std::string path =
          dir.empty() ? "" : dir + "/" + sanitize(std::string(kernel)) + "-" + source_hash(text) + "-" +
                                 sanitize(info.arch) + "-" + sanitize(rtc->version) + "-driver" +
                                 std::to_string(api.driver_version) + ".bin";
      std::vector<uint8_t> image;
      if (!path.empty() && read_file(path, &image)) {
        image.push_back(0);  // loaders read PTX up to a NUL; harmless after a binary image
        if (try_image(image.data(), "cache " + path)) return Status::ok();
        std::remove(path.c_str());  // stale or damaged: compile afresh
      }
      if (options.use_rtc) {
        std::string log;
        const char* symbol = "";
        image.clear();
        const int rc = rtc->compile(text, std::string(kernel) + ".hip", info.arch, &image, &log, &symbol);
        if (rc != 0) {
          tried.push_back(rtc->version + ": " + symbol + " failed: " + (rtc->error_string ? rtc->error_string(rc) : "") +
                          (log.empty() ? "" : "\n" + log));
        } else {
          if (!path.empty() && make_dirs(dir)) write_file_atomic(path, image);
          image.push_back(0);
          if (try_image(image.data(), rtc->version + " " + info.arch)) return Status::ok();
        }
      }
    }
  }

  std::string why;
  for (const auto& t : tried) why += (why.empty() ? "" : "; ") + t;
  return {Errc::unsupported, "no loadable image of kernel '" + std::string(kernel) + "' for " + info.name + " (" +
                                 info.arch + "): " + why};
}

Status Module::function(const char* name, Kernel* out) const {
  if (!handle_) return {Errc::invalid_argument, std::string("function ") + name + " of a module that is not loaded"};
  ContextScope scope(*device_);
  VMAFX_TRY(scope.status());
  FunctionHandle f = nullptr;
  const Api& api = device_->api();
  const int rc = api.module_get_function.fn(&f, handle_, name);
  if (rc != 0) {
    return {Errc::unsupported, std::string(name) + ": " + api.module_get_function.symbol + " failed: " +
                                   api.describe(rc) + " (module from " + origin_ + ")"};
  }
  out->fn = f;
  out->name = name;
  return Status::ok();
}

}  // namespace vmafx::hip
