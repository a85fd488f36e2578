// SPDX-License-Identifier: LGPL-2.1-or-later
// The HIP engine's one dispatch table. The runtime of either vendor (AMD's libamdhip64, NVIDIA's libcuda driver API)
// is opened with dlopen at run time and its functions are wrapped behind the signatures below, so the engine has one
// code path for both vendors and the build links against no GPU library.
//
// Every entry returns the runtime's own result code (0 = success) and knows the name of the runtime symbol behind it,
// so a failure can name the call; use VMAFX_HIP_CHECK (device.h) or VMAFX_HIP_CHECK_API to turn it into a Status.
// Entries whose symbol the loaded library lacks stay null and are listed in Api::missing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "vmafx/status.h"

namespace vmafx::hip {

enum class Vendor : uint8_t { auto_select, amd, nvidia };

const char* vendor_name(Vendor v);  // "auto", "amd", "nvidia"
// Accepts "auto", "amd", "nvidia" (the element's `vendor` property).
Status parse_vendor(std::string_view name, Vendor* out);

// Opaque runtime handles. Context is a CUcontext on NVIDIA and the device ordinal + 1 on AMD.
using Context = void*;
using StreamHandle = void*;
using EventHandle = void*;
using ModuleHandle = void*;
using FunctionHandle = void*;
using ExternalMemoryHandle = void*;
using GraphicsResource = void*;
using ArrayHandle = void*;
using GraphHandle = void*;      // CUgraph / hipGraph_t
using GraphExecHandle = void*;  // CUgraphExec / hipGraphExec_t

struct Dim3 {
  unsigned x = 1, y = 1, z = 1;
};

enum class CopyKind : uint8_t { host_to_device, device_to_host, device_to_device };

// A 2D copy of `height` rows of `width_bytes` each; pitches in bytes, any value >= width_bytes.
struct Copy2D {
  CopyKind kind = CopyKind::host_to_device;
  void* dst = nullptr;
  size_t dst_pitch = 0;
  const void* src = nullptr;
  size_t src_pitch = 0;
  size_t width_bytes = 0;
  size_t height = 0;
};

template <class Signature>
struct Entry;

template <class R, class... Args>
struct Entry<R(Args...)> {
  R (*fn)(Args...) = nullptr;
  const char* symbol = "";  // the runtime function behind the entry, for messages
  bool available() const { return fn != nullptr; }
};

// The table. One per vendor per process, filled once, never freed (the runtime library is never closed).
struct Api {
  Vendor vendor = Vendor::auto_select;
  std::string library;        // what dlopen opened
  int driver_version = 0;     // hipDriverGetVersion / cuDriverGetVersion
  int code_not_ready = 600;   // result of a query on unfinished work (hipErrorNotReady, CUDA_ERROR_NOT_READY)
  std::vector<std::string> missing;  // optional symbols the library does not export

  // The devices the engine sees, as the runtime numbers them: engine device i is the runtime's ordinal ordinals[i].
  // AMD: 0, 1, ... (the HIP runtime applies its visibility variables itself). NVIDIA: the devices the CUDA driver
  // shows (after CUDA_VISIBLE_DEVICES) that HIP_VISIBLE_DEVICES selects (visibility.h), all of them without it.
  // device_count reports ordinals.size(); every entry below that takes a device takes an engine index.
  std::vector<int> ordinals;
  int runtime_device_count = 0;  // the devices the runtime itself counts (NVIDIA: what CUDA shows)
  std::string visibility;        // the visibility variables set, 'CUDA_VISIBLE_DEVICES="1"', or "": for messages
  // The runtime's ordinal of engine device `index`, -1 when there is none; the engine index of runtime ordinal
  // `ordinal`, -1 when the engine does not see that device.
  int ordinal_of(int index) const;
  int index_of(int ordinal) const;

  // Name and description of a result code ("hipErrorInvalidValue", "CUDA_ERROR_INVALID_VALUE").
  const char* (*error_name)(int code) = nullptr;
  const char* (*error_string)(int code) = nullptr;

  // Devices.
  Entry<int(int* count)> device_count;
  Entry<int(int device, char* name, int capacity)> device_name;
  Entry<int(int device, char* bus_id, int capacity)> device_pci_bus_id;
  // "gfx90a:sramecc+:xnack-" on AMD, "sm_90" on NVIDIA.
  Entry<int(int device, char* arch, int capacity)> device_arch;
  Entry<int(int device, size_t* bytes)> device_total_memory;
  // Free and total memory of the current context's device (optional; make the device's context current first):
  // cuMemGetInfo_v2 / hipMemGetInfo. Placement (placement.h) asks it.
  Entry<int(size_t* free_bytes, size_t* total_bytes)> memory_info;

  // Contexts: retain/release the device's context (NVIDIA: the primary context), make it current on this thread.
  Entry<int(int device, Context* out)> context_retain;
  Entry<int(int device)> context_release;
  Entry<int(Context ctx)> context_make_current;
  Entry<int(Context* out)> context_get_current;

  // Streams (non-blocking with respect to the legacy null stream) and events (no timing).
  Entry<int(StreamHandle* out)> stream_create;
  Entry<int(StreamHandle s)> stream_destroy;
  Entry<int(StreamHandle s)> stream_synchronize;
  Entry<int(StreamHandle s)> stream_query;
  Entry<int(StreamHandle s, EventHandle e)> stream_wait_event;
  // Queues a host function on a stream (optional): the stream's later work waits until it has returned. It runs on a
  // runtime thread and must not call the runtime.
  Entry<int(StreamHandle s, void (*fn)(void*), void* user)> launch_host_func;
  Entry<int(EventHandle* out)> event_create;
  // An event a host thread sleeps on in event_synchronize until it completes (blocking sync), where event_create's
  // events may have the thread spin; for waits that are not on the per-frame path.
  Entry<int(EventHandle* out)> event_create_blocking;
  Entry<int(EventHandle e, StreamHandle s)> event_record;
  Entry<int(EventHandle e)> event_query;
  Entry<int(EventHandle e)> event_synchronize;
  Entry<int(EventHandle e)> event_destroy;

  // Memory.
  Entry<int(void** out, size_t bytes)> malloc_device;
  Entry<int(void* p)> free_device;
  Entry<int(void** out, size_t bytes)> malloc_pinned;
  Entry<int(void* p)> free_pinned;
  Entry<int(void* dst, const void* src, size_t bytes, StreamHandle s)> copy_h2d_async;
  Entry<int(void* dst, const void* src, size_t bytes, StreamHandle s)> copy_d2h_async;
  Entry<int(void* dst, const void* src, size_t bytes, StreamHandle s)> copy_d2d_async;
  Entry<int(const Copy2D& copy, StreamHandle s)> copy_2d_async;
  Entry<int(void* dst, uint32_t value, size_t count, StreamHandle s)> memset_d32_async;
  Entry<int(void* dst, uint8_t value, size_t count, StreamHandle s)> memset_d8_async;

  // Modules and launches. `args` holds one pointer per kernel parameter.
  Entry<int(ModuleHandle* out, const void* image)> module_load;
  Entry<int(ModuleHandle m)> module_unload;
  Entry<int(FunctionHandle* out, ModuleHandle m, const char* name)> module_get_function;
  Entry<int(FunctionHandle f, Dim3 grid, Dim3 block, unsigned shared_bytes, StreamHandle s, void** args)> launch_kernel;
  // NVIDIA only (optional): the driver's compilation of NUL-terminated PTX text (`size` bytes without the NUL) for
  // the current context's device into a cubin that module_load takes, with the compiler's error log on failure. The
  // module loader keeps the cubin in its cache (module.h), so a PTX image is compiled once per device and driver.
  Entry<int(const char* ptx, size_t size, const char* name, std::vector<uint8_t>* cubin, std::string* log)> link_ptx;

  // Graphs (optional, all six or none): the work queued on a stream between begin and end capture is recorded, not
  // run (thread-local capture mode: other threads' calls are not affected), and becomes a graph; an instantiated
  // graph runs that work again with one launch. HipPipeline's frame graphs (pipeline.h).
  Entry<int(StreamHandle s)> stream_begin_capture;
  Entry<int(StreamHandle s, GraphHandle* out)> stream_end_capture;
  Entry<int(GraphExecHandle* out, GraphHandle g)> graph_instantiate;
  Entry<int(GraphExecHandle e, StreamHandle s)> graph_launch;
  Entry<int(GraphExecHandle e)> graph_exec_destroy;
  Entry<int(GraphHandle g)> graph_destroy;
  bool has_graphs() const {
    return stream_begin_capture.fn && stream_end_capture.fn && graph_instantiate.fn && graph_launch.fn &&
           graph_exec_destroy.fn && graph_destroy.fn;
  }

  // External memory: an opaque fd (a dma-buf) imported, a range of it mapped as a device pointer, destroyed. The
  // mapped pointer is released with free_device before external_memory_destroy.
  Entry<int(ExternalMemoryHandle* out, int fd, uint64_t size)> external_memory_import_fd;
  Entry<int(void** out, ExternalMemoryHandle m, uint64_t offset, uint64_t size)> external_memory_mapped_buffer;
  Entry<int(ExternalMemoryHandle m)> external_memory_destroy;

  // GL interop (called on the GL thread with the device context current). Images are registered read-only.
  Entry<int(unsigned* count, int* devices, unsigned capacity)> gl_get_devices;
  Entry<int(GraphicsResource* out, unsigned texture, unsigned target)> gl_register_image;
  Entry<int(GraphicsResource r, StreamHandle s)> graphics_map;
  Entry<int(GraphicsResource r, StreamHandle s)> graphics_unmap;
  Entry<int(ArrayHandle* out, GraphicsResource r, unsigned index, unsigned level)> graphics_mapped_array;
  Entry<int(void* dst, size_t dst_pitch, ArrayHandle src, size_t x_bytes, size_t y, size_t width_bytes,
            size_t height, StreamHandle s)>
      copy_from_array_2d_async;
  Entry<int(GraphicsResource r)> graphics_unregister;

  // "<name> (<description>)" of a result code.
  std::string describe(int code) const;
};

// Run-time compilation (hiprtc / nvrtc), used when no embedded image matches a device.
struct Rtc {
  Vendor vendor = Vendor::auto_select;
  std::string library;
  std::string version;  // "hiprtc 5.2" / "nvrtc 13.0"
  // Compiles `source` (self-contained) for `arch` ("gfx90a", "sm_90"); fills the loadable image and the log.
  // Returns the rtc's result code; `symbol` names the step that failed when it is not 0.
  int (*compile)(const std::string& source, const std::string& name, const std::string& arch,
                 std::vector<uint8_t>* image, std::string* log, const char** symbol) = nullptr;
  const char* (*error_string)(int code) = nullptr;
};

// What a probe of one vendor found, for messages and tests.
struct ProbeReport {
  Vendor vendor = Vendor::auto_select;
  std::vector<std::string> attempts;  // one line per library tried: "<name>: <why it was not used>" or "<name>: ok"
  std::string library;                // the library that was opened, if any
  int device_count = 0;               // the devices the engine sees (NVIDIA: after HIP_VISIBLE_DEVICES)
  int runtime_device_count = 0;       // the devices the runtime counts
  std::vector<int> ordinals;          // Api::ordinals
  std::string visibility;             // Api::visibility
  std::string summary() const;        // attempts joined with "; "
};

// The dispatch table of `vendor` (auto_select: AMD first, then NVIDIA). Loads and initialises the runtime once per
// process; later calls return the same table. Errc::device_unavailable when no runtime opens, its init fails or it
// has no device; the message names every library tried and why it was not used, and starts "no GPU visible: ..."
// naming the variable and its value when a visibility variable hides every device (visibility.h). A malformed
// HIP_VISIBLE_DEVICES on the NVIDIA path is Errc::invalid_argument naming the entry (auto_select too, when no AMD
// device is usable: a typo is not taken for "no GPU").
Status load_api(Vendor vendor, const Api** out);

// The run-time compiler of the vendor whose Api is `api`; Errc::unsupported naming the libraries tried if none opens.
Status load_rtc(const Api& api, const Rtc** out);

// The libraries tried for a vendor, in order.
std::vector<std::string> default_libraries(Vendor vendor);

// Opens one of `libraries` (in order) the way load_api does, initialises the runtime and counts devices (NVIDIA: and
// applies HIP_VISIBLE_DEVICES), without filling or caching a table: for tests and diagnostics. ok when a library
// opened, initialised and has a device the engine sees; the visibility variables are read from the environment now.
Status probe_runtime(Vendor vendor, const std::vector<std::string>& libraries, ProbeReport* report);

// Status for a failed runtime call, without a device: device_error "<symbol> failed: <name> (<string>) at file:line".
Status call_failed(const Api& api, const char* symbol, int code, const char* file, int line);
// Status for an entry whose symbol the library lacks: unsupported "<symbol> not exported by <library>".
Status symbol_missing(const Api& api, const char* symbol);

}  // namespace vmafx::hip

// Calls `api.op(args...)`; on failure returns the Status naming the runtime symbol, its error and the call site.
#define VMAFX_HIP_CHECK_API(api, op, ...)                                                           \
  do {                                                                                              \
    const ::vmafx::hip::Api& vmafx_hip_api_ = (api);                                                \
    if (!vmafx_hip_api_.op.fn) return ::vmafx::hip::symbol_missing(vmafx_hip_api_, vmafx_hip_api_.op.symbol); \
    const int vmafx_hip_rc_ = vmafx_hip_api_.op.fn(__VA_ARGS__);                                     \
    if (vmafx_hip_rc_ != 0)                                                                         \
      return ::vmafx::hip::call_failed(vmafx_hip_api_, vmafx_hip_api_.op.symbol, vmafx_hip_rc_, __FILE__, __LINE__); \
  } while (0)
