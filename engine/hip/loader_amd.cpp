// SPDX-License-Identifier: LGPL-2.1-or-later
// AMD backend of the dispatch table: libamdhip64 (ROCm 5, 6, 7) resolved with dlsym, wrapped in the table's
// signatures. The raw pointers live in one process-wide struct filled once by amd_fill().
#include <cstdint>
#include <cstring>
#include <vector>

#include "hip/loader_internal.h"
#include "hip/runtime_abi.h"

namespace vmafx::hip::detail {
namespace {

using Err = int;  // hipError_t

struct AmdRaw {
  Err (*hipInit)(unsigned);
  Err (*hipDriverGetVersion)(int*);
  const char* (*hipGetErrorName)(Err);
  const char* (*hipGetErrorString)(Err);
  Err (*hipGetDeviceCount)(int*);
  Err (*hipDeviceGetName)(char*, int, int);
  Err (*hipDeviceGetPCIBusId)(char*, int, int);
  Err (*hipGetDeviceProperties)(void*, int);  // hipGetDevicePropertiesR0600 on ROCm 6+
  Err (*hipDeviceTotalMem)(size_t*, int);
  Err (*hipMemGetInfo)(size_t*, size_t*);
  Err (*hipSetDevice)(int);
  Err (*hipGetDevice)(int*);
  Err (*hipStreamCreateWithFlags)(void**, unsigned);
  Err (*hipStreamDestroy)(void*);
  Err (*hipStreamSynchronize)(void*);
  Err (*hipStreamQuery)(void*);
  Err (*hipStreamWaitEvent)(void*, void*, unsigned);
  Err (*hipLaunchHostFunc)(void*, void (*)(void*), void*);
  Err (*hipStreamBeginCapture)(void*, int);
  Err (*hipStreamEndCapture)(void*, void**);
  Err (*hipGraphInstantiateWithFlags)(void**, void*, unsigned long long);
  Err (*hipGraphLaunch)(void*, void*);
  Err (*hipGraphExecDestroy)(void*);
  Err (*hipGraphDestroy)(void*);
  Err (*hipEventCreateWithFlags)(void**, unsigned);
  Err (*hipEventRecord)(void*, void*);
  Err (*hipEventQuery)(void*);
  Err (*hipEventSynchronize)(void*);
  Err (*hipEventDestroy)(void*);
  Err (*hipMalloc)(void**, size_t);
  Err (*hipFree)(void*);
  Err (*hipHostMalloc)(void**, size_t, unsigned);
  Err (*hipHostFree)(void*);
  Err (*hipMemcpyHtoDAsync)(void*, void*, size_t, void*);
  Err (*hipMemcpyDtoHAsync)(void*, void*, size_t, void*);
  Err (*hipMemcpyDtoDAsync)(void*, void*, size_t, void*);
  Err (*hipMemcpy2DAsync)(void*, size_t, const void*, size_t, size_t, size_t, int, void*);
  Err (*hipMemsetD32Async)(void*, int, size_t, void*);
  Err (*hipMemsetD8Async)(void*, unsigned char, size_t, void*);
  Err (*hipModuleLoadData)(void**, const void*);
  Err (*hipModuleUnload)(void*);
  Err (*hipModuleGetFunction)(void**, void*, const char*);
  Err (*hipModuleLaunchKernel)(void*, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, void*,
                               void**, void**);
  Err (*hipImportExternalMemory)(void**, const abi::ExternalMemoryHandleDesc*);
  Err (*hipExternalMemoryGetMappedBuffer)(void**, void*, const abi::ExternalMemoryBufferDesc*);
  Err (*hipDestroyExternalMemory)(void*);
  Err (*hipGLGetDevices)(unsigned*, int*, unsigned, int);
  Err (*hipGraphicsGLRegisterImage)(void**, unsigned, unsigned, unsigned);
  Err (*hipGraphicsMapResources)(int, void**, void*);
  Err (*hipGraphicsUnmapResources)(int, void**, void*);
  Err (*hipGraphicsSubResourceGetMappedArray)(void**, void*, unsigned, unsigned);
  Err (*hipMemcpy2DFromArrayAsync)(void*, size_t, const void*, size_t, size_t, size_t, size_t, int, void*);
  Err (*hipGraphicsUnregisterResource)(void*);
};

AmdRaw g;

const char* error_name(int code) { return g.hipGetErrorName ? g.hipGetErrorName(code) : nullptr; }
const char* error_string(int code) { return g.hipGetErrorString ? g.hipGetErrorString(code) : nullptr; }

int device_count(int* n) { return g.hipGetDeviceCount(n); }
int device_name(int dev, char* name, int cap) { return g.hipDeviceGetName(name, cap, dev); }
int device_pci_bus_id(int dev, char* bus, int cap) { return g.hipDeviceGetPCIBusId(bus, cap, dev); }

// The architecture name ("gfx90a:sramecc+:xnack-") is only reported inside hipDeviceProp_t, whose layout differs
// between ROCm 5 and ROCm 6+ (and the attribute enum was renumbered too). The structure is filled into a generously
// sized buffer and the gcnArchName field found by its content: the first "gfx<hex digits>" string after the 256-byte
// name field.
int device_arch(int dev, char* arch, int cap) {
  std::vector<unsigned char> props(64 * 1024, 0);
  const int rc = g.hipGetDeviceProperties(props.data(), dev);
  if (rc != 0) return rc;
  for (size_t i = 256; i + 4 < props.size(); ++i) {
    if (props[i] != 'g' || props[i + 1] != 'f' || props[i + 2] != 'x') continue;
    size_t n = 3;
    while (i + n < props.size() && props[i + n] != 0) {
      const unsigned char c = props[i + n];
      const bool ok = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || c == ':' || c == '+' || c == '-';
      if (!ok) break;
      ++n;
    }
    const unsigned char d = props[i + 3];
    if (i + n >= props.size() || props[i + n] != 0 || !((d >= '0' && d <= '9') || (d >= 'a' && d <= 'f'))) continue;
    const size_t len = n < size_t(cap) ? n : size_t(cap) - 1;
    std::memcpy(arch, props.data() + i, len);
    arch[len] = 0;
    return 0;
  }
  if (cap > 0) arch[0] = 0;
  return 0;
}

int device_total_memory(int dev, size_t* bytes) { return g.hipDeviceTotalMem(bytes, dev); }
int memory_info(size_t* free_bytes, size_t* total_bytes) { return g.hipMemGetInfo(free_bytes, total_bytes); }

int context_retain(int dev, Context* out) {
  *out = reinterpret_cast<Context>(intptr_t(dev) + 1);
  return 0;
}
int context_release(int) { return 0; }
int context_make_current(Context ctx) { return g.hipSetDevice(int(reinterpret_cast<intptr_t>(ctx) - 1)); }
int context_get_current(Context* out) {
  int dev = 0;
  const int rc = g.hipGetDevice(&dev);
  *out = reinterpret_cast<Context>(intptr_t(dev) + 1);
  return rc;
}

int stream_create(StreamHandle* out) { return g.hipStreamCreateWithFlags(out, abi::kHipStreamNonBlocking); }
int stream_destroy(StreamHandle s) { return g.hipStreamDestroy(s); }
int stream_synchronize(StreamHandle s) { return g.hipStreamSynchronize(s); }
int stream_query(StreamHandle s) { return g.hipStreamQuery(s); }
int stream_wait_event(StreamHandle s, EventHandle e) { return g.hipStreamWaitEvent(s, e, 0); }
int launch_host_func(StreamHandle s, void (*fn)(void*), void* user) { return g.hipLaunchHostFunc(s, fn, user); }
int stream_begin_capture(StreamHandle s) { return g.hipStreamBeginCapture(s, abi::kStreamCaptureThreadLocal); }
int stream_end_capture(StreamHandle s, GraphHandle* out) { return g.hipStreamEndCapture(s, out); }
int graph_instantiate(GraphExecHandle* out, GraphHandle graph) { return g.hipGraphInstantiateWithFlags(out, graph, 0); }
int graph_launch(GraphExecHandle e, StreamHandle s) { return g.hipGraphLaunch(e, s); }
int graph_exec_destroy(GraphExecHandle e) { return g.hipGraphExecDestroy(e); }
int graph_destroy(GraphHandle graph) { return g.hipGraphDestroy(graph); }
int event_create(EventHandle* out) { return g.hipEventCreateWithFlags(out, abi::kHipEventDisableTiming); }
int event_create_blocking(EventHandle* out) {
  return g.hipEventCreateWithFlags(out, abi::kHipEventDisableTiming | abi::kHipEventBlockingSync);
}
int event_record(EventHandle e, StreamHandle s) { return g.hipEventRecord(e, s); }
int event_query(EventHandle e) { return g.hipEventQuery(e); }
int event_synchronize(EventHandle e) { return g.hipEventSynchronize(e); }
int event_destroy(EventHandle e) { return g.hipEventDestroy(e); }

int malloc_device(void** out, size_t bytes) { return g.hipMalloc(out, bytes); }
int free_device(void* p) { return g.hipFree(p); }
int malloc_pinned(void** out, size_t bytes) { return g.hipHostMalloc(out, bytes, abi::kHipHostMallocPortable); }
int free_pinned(void* p) { return g.hipHostFree(p); }
int copy_h2d_async(void* dst, const void* src, size_t n, StreamHandle s) {
  return g.hipMemcpyHtoDAsync(dst, const_cast<void*>(src), n, s);
}
int copy_d2h_async(void* dst, const void* src, size_t n, StreamHandle s) {
  return g.hipMemcpyDtoHAsync(dst, const_cast<void*>(src), n, s);
}
int copy_d2d_async(void* dst, const void* src, size_t n, StreamHandle s) {
  return g.hipMemcpyDtoDAsync(dst, const_cast<void*>(src), n, s);
}
int copy_2d_async(const Copy2D& c, StreamHandle s) {
  const int kind = c.kind == CopyKind::host_to_device   ? abi::kHipMemcpyHostToDevice
                   : c.kind == CopyKind::device_to_host ? abi::kHipMemcpyDeviceToHost
                                                        : abi::kHipMemcpyDeviceToDevice;
  return g.hipMemcpy2DAsync(c.dst, c.dst_pitch, c.src, c.src_pitch, c.width_bytes, c.height, kind, s);
}
int memset_d32_async(void* dst, uint32_t v, size_t count, StreamHandle s) {
  return g.hipMemsetD32Async(dst, int(v), count, s);
}
int memset_d8_async(void* dst, uint8_t v, size_t count, StreamHandle s) { return g.hipMemsetD8Async(dst, v, count, s); }

int module_load(ModuleHandle* out, const void* image) { return g.hipModuleLoadData(out, image); }
int module_unload(ModuleHandle m) { return g.hipModuleUnload(m); }
int module_get_function(FunctionHandle* out, ModuleHandle m, const char* name) {
  return g.hipModuleGetFunction(out, m, name);
}
int launch_kernel(FunctionHandle f, Dim3 grid, Dim3 block, unsigned shared, StreamHandle s, void** args) {
  return g.hipModuleLaunchKernel(f, grid.x, grid.y, grid.z, block.x, block.y, block.z, shared, s, args, nullptr);
}

int external_memory_import_fd(ExternalMemoryHandle* out, int fd, uint64_t size) {
  abi::ExternalMemoryHandleDesc desc{};
  desc.type = abi::kExternalMemoryOpaqueFd;
  desc.handle.fd = fd;
  desc.size = size;
  return g.hipImportExternalMemory(out, &desc);
}
int external_memory_mapped_buffer(void** out, ExternalMemoryHandle m, uint64_t offset, uint64_t size) {
  abi::ExternalMemoryBufferDesc desc{};
  desc.offset = offset;
  desc.size = size;
  return g.hipExternalMemoryGetMappedBuffer(out, m, &desc);
}
int external_memory_destroy(ExternalMemoryHandle m) { return g.hipDestroyExternalMemory(m); }

int gl_get_devices(unsigned* count, int* devices, unsigned cap) {
  return g.hipGLGetDevices(count, devices, cap, abi::kHipGlDeviceListAll);
}
int gl_register_image(GraphicsResource* out, unsigned texture, unsigned target) {
  return g.hipGraphicsGLRegisterImage(out, texture, target, abi::kHipGraphicsRegisterReadOnly);
}
int graphics_map(GraphicsResource r, StreamHandle s) { return g.hipGraphicsMapResources(1, &r, s); }
int graphics_unmap(GraphicsResource r, StreamHandle s) { return g.hipGraphicsUnmapResources(1, &r, s); }
int graphics_mapped_array(ArrayHandle* out, GraphicsResource r, unsigned index, unsigned level) {
  return g.hipGraphicsSubResourceGetMappedArray(out, r, index, level);
}
int copy_from_array_2d_async(void* dst, size_t dst_pitch, ArrayHandle src, size_t x_bytes, size_t y,
                             size_t width_bytes, size_t height, StreamHandle s) {
  return g.hipMemcpy2DFromArrayAsync(dst, dst_pitch, src, x_bytes, y, width_bytes, height,
                                     abi::kHipMemcpyDeviceToDevice, s);
}
int graphics_unregister(GraphicsResource r) { return g.hipGraphicsUnregisterResource(r); }

std::string hip_error(void* lib, int code) {
  const char* (*name)(Err) = nullptr;
  resolve(lib, "hipGetErrorName", &name);
  const char* n = name ? name(code) : nullptr;
  return n ? std::string(n) + " (" + std::to_string(code) + ")" : "error " + std::to_string(code);
}

// ---- hiprtc -----------------------------------------------------------------------------------------------------
RtcRaw r;

const char* rtc_error_string(int code) { return r.error_string ? r.error_string(code) : "hiprtc error"; }

int rtc_compile(const std::string& source, const std::string& name, const std::string& arch,
                std::vector<uint8_t>* image, std::string* log, const char** symbol) {
  return rtc_compile_with(r, {"--offload-arch=" + arch, "-O3", "-ffp-contract=off", "-DVMAFX_RTC=1"}, source, name,
                          image, log, symbol);
}

}  // namespace

bool amd_init(void* lib, int* device_count_out, std::string* why, bool* no_device) {
  return init_runtime(lib, "hipInit", "hipGetDeviceCount", hip_error, device_count_out, why, no_device);
}

Status amd_fill(void* lib, Api* api) {
  // Required: without these the engine cannot run a kernel.
  std::string absent;
  auto need = [&](const char* name, auto* slot) {
    if (!resolve(lib, name, slot)) absent += std::string(absent.empty() ? "" : ", ") + name;
  };
  need("hipGetErrorName", &g.hipGetErrorName);
  need("hipGetErrorString", &g.hipGetErrorString);
  need("hipGetDeviceCount", &g.hipGetDeviceCount);
  need("hipSetDevice", &g.hipSetDevice);
  need("hipGetDevice", &g.hipGetDevice);
  need("hipStreamCreateWithFlags", &g.hipStreamCreateWithFlags);
  need("hipStreamDestroy", &g.hipStreamDestroy);
  need("hipStreamSynchronize", &g.hipStreamSynchronize);
  need("hipStreamQuery", &g.hipStreamQuery);
  need("hipStreamWaitEvent", &g.hipStreamWaitEvent);
  need("hipEventCreateWithFlags", &g.hipEventCreateWithFlags);
  need("hipEventRecord", &g.hipEventRecord);
  need("hipEventQuery", &g.hipEventQuery);
  need("hipEventSynchronize", &g.hipEventSynchronize);
  need("hipEventDestroy", &g.hipEventDestroy);
  need("hipMalloc", &g.hipMalloc);
  need("hipFree", &g.hipFree);
  need("hipMemcpyHtoDAsync", &g.hipMemcpyHtoDAsync);
  need("hipMemcpyDtoHAsync", &g.hipMemcpyDtoHAsync);
  need("hipMemcpyDtoDAsync", &g.hipMemcpyDtoDAsync);
  need("hipMemcpy2DAsync", &g.hipMemcpy2DAsync);
  need("hipMemsetD32Async", &g.hipMemsetD32Async);
  need("hipModuleLoadData", &g.hipModuleLoadData);
  need("hipModuleUnload", &g.hipModuleUnload);
  need("hipModuleGetFunction", &g.hipModuleGetFunction);
  need("hipModuleLaunchKernel", &g.hipModuleLaunchKernel);
  if (!absent.empty()) return {Errc::device_unavailable, api->library + ": required symbol(s) missing: " + absent};
  // Renamed across ROCm releases: take the newest name the library has.
  if (!resolve(lib, "hipGetDevicePropertiesR0600", &g.hipGetDeviceProperties))
    resolve(lib, "hipGetDeviceProperties", &g.hipGetDeviceProperties);
  if (!resolve(lib, "hipHostMalloc", &g.hipHostMalloc)) resolve(lib, "hipHostAlloc", &g.hipHostMalloc);
  if (!resolve(lib, "hipHostFree", &g.hipHostFree)) resolve(lib, "hipFreeHost", &g.hipHostFree);
  resolve(lib, "hipDriverGetVersion", &g.hipDriverGetVersion);
  resolve(lib, "hipLaunchHostFunc", &g.hipLaunchHostFunc);
  resolve(lib, "hipStreamBeginCapture", &g.hipStreamBeginCapture);
  resolve(lib, "hipStreamEndCapture", &g.hipStreamEndCapture);
  resolve(lib, "hipGraphInstantiateWithFlags", &g.hipGraphInstantiateWithFlags);
  resolve(lib, "hipGraphLaunch", &g.hipGraphLaunch);
  resolve(lib, "hipGraphExecDestroy", &g.hipGraphExecDestroy);
  resolve(lib, "hipGraphDestroy", &g.hipGraphDestroy);
  resolve(lib, "hipDeviceGetName", &g.hipDeviceGetName);
  resolve(lib, "hipDeviceGetPCIBusId", &g.hipDeviceGetPCIBusId);
  resolve(lib, "hipDeviceTotalMem", &g.hipDeviceTotalMem);
  resolve(lib, "hipMemGetInfo", &g.hipMemGetInfo);
  resolve(lib, "hipMemsetD8Async", &g.hipMemsetD8Async);
  resolve(lib, "hipImportExternalMemory", &g.hipImportExternalMemory);
  resolve(lib, "hipExternalMemoryGetMappedBuffer", &g.hipExternalMemoryGetMappedBuffer);
  resolve(lib, "hipDestroyExternalMemory", &g.hipDestroyExternalMemory);
  resolve(lib, "hipGLGetDevices", &g.hipGLGetDevices);
  resolve(lib, "hipGraphicsGLRegisterImage", &g.hipGraphicsGLRegisterImage);
  resolve(lib, "hipGraphicsMapResources", &g.hipGraphicsMapResources);
  resolve(lib, "hipGraphicsUnmapResources", &g.hipGraphicsUnmapResources);
  resolve(lib, "hipGraphicsSubResourceGetMappedArray", &g.hipGraphicsSubResourceGetMappedArray);
  resolve(lib, "hipMemcpy2DFromArrayAsync", &g.hipMemcpy2DFromArrayAsync);
  resolve(lib, "hipGraphicsUnregisterResource", &g.hipGraphicsUnregisterResource);
  if (!g.hipHostMalloc || !g.hipHostFree)
    return {Errc::device_unavailable, api->library + ": required symbol hipHostMalloc/hipHostFree missing"};

  if (g.hipDriverGetVersion) g.hipDriverGetVersion(&api->driver_version);
  api->code_not_ready = abi::kErrorNotReady;
  api->error_name = error_name;
  api->error_string = error_string;
  bind(api->device_count, device_count, "hipGetDeviceCount", g.hipGetDeviceCount != nullptr, api);
  bind(api->device_name, device_name, "hipDeviceGetName", g.hipDeviceGetName != nullptr, api);
  bind(api->device_pci_bus_id, device_pci_bus_id, "hipDeviceGetPCIBusId",
       g.hipDeviceGetPCIBusId != nullptr, api);
  bind(api->device_arch, device_arch, "hipGetDeviceProperties", g.hipGetDeviceProperties != nullptr, api);
  bind(api->device_total_memory, device_total_memory, "hipDeviceTotalMem",
       g.hipDeviceTotalMem != nullptr, api);
  bind(api->memory_info, memory_info, "hipMemGetInfo", g.hipMemGetInfo != nullptr, api);
  bind(api->context_retain, context_retain, "hipSetDevice", g.hipSetDevice != nullptr, api);
  bind(api->context_release, context_release, "hipSetDevice", g.hipSetDevice != nullptr, api);
  bind(api->context_make_current, context_make_current, "hipSetDevice", g.hipSetDevice != nullptr, api);
  bind(api->context_get_current, context_get_current, "hipGetDevice", g.hipGetDevice != nullptr, api);
  bind(api->stream_create, stream_create, "hipStreamCreateWithFlags",
       g.hipStreamCreateWithFlags != nullptr, api);
  bind(api->stream_destroy, stream_destroy, "hipStreamDestroy", g.hipStreamDestroy != nullptr, api);
  bind(api->stream_synchronize, stream_synchronize, "hipStreamSynchronize",
       g.hipStreamSynchronize != nullptr, api);
  bind(api->stream_query, stream_query, "hipStreamQuery", g.hipStreamQuery != nullptr, api);
  bind(api->stream_wait_event, stream_wait_event, "hipStreamWaitEvent", g.hipStreamWaitEvent != nullptr,
       api);
  bind(api->launch_host_func, launch_host_func, "hipLaunchHostFunc", g.hipLaunchHostFunc != nullptr, api);
  {
    const bool graphs = g.hipStreamBeginCapture && g.hipStreamEndCapture && g.hipGraphInstantiateWithFlags &&
                        g.hipGraphLaunch && g.hipGraphExecDestroy && g.hipGraphDestroy;
    bind(api->stream_begin_capture, stream_begin_capture, "hipStreamBeginCapture", graphs, api);
    bind(api->stream_end_capture, stream_end_capture, "hipStreamEndCapture", graphs, api);
    bind(api->graph_instantiate, graph_instantiate, "hipGraphInstantiateWithFlags", graphs, api);
    bind(api->graph_launch, graph_launch, "hipGraphLaunch", graphs, api);
    bind(api->graph_exec_destroy, graph_exec_destroy, "hipGraphExecDestroy", graphs, api);
    bind(api->graph_destroy, graph_destroy, "hipGraphDestroy", graphs, api);
  }
  bind(api->event_create, event_create, "hipEventCreateWithFlags", g.hipEventCreateWithFlags != nullptr,
       api);
  bind(api->event_create_blocking, event_create_blocking, "hipEventCreateWithFlags",
       g.hipEventCreateWithFlags != nullptr, api);
  bind(api->event_record, event_record, "hipEventRecord", g.hipEventRecord != nullptr, api);
  bind(api->event_query, event_query, "hipEventQuery", g.hipEventQuery != nullptr, api);
  bind(api->event_synchronize, event_synchronize, "hipEventSynchronize",
       g.hipEventSynchronize != nullptr, api);
  bind(api->event_destroy, event_destroy, "hipEventDestroy", g.hipEventDestroy != nullptr, api);
  bind(api->malloc_device, malloc_device, "hipMalloc", g.hipMalloc != nullptr, api);
  bind(api->free_device, free_device, "hipFree", g.hipFree != nullptr, api);
  bind(api->malloc_pinned, malloc_pinned, "hipHostMalloc", g.hipHostMalloc != nullptr, api);
  bind(api->free_pinned, free_pinned, "hipHostFree", g.hipHostFree != nullptr, api);
  bind(api->copy_h2d_async, copy_h2d_async, "hipMemcpyHtoDAsync", g.hipMemcpyHtoDAsync != nullptr, api);
  bind(api->copy_d2h_async, copy_d2h_async, "hipMemcpyDtoHAsync", g.hipMemcpyDtoHAsync != nullptr, api);
  bind(api->copy_d2d_async, copy_d2d_async, "hipMemcpyDtoDAsync", g.hipMemcpyDtoDAsync != nullptr, api);
  bind(api->copy_2d_async, copy_2d_async, "hipMemcpy2DAsync", g.hipMemcpy2DAsync != nullptr, api);
  bind(api->memset_d32_async, memset_d32_async, "hipMemsetD32Async", g.hipMemsetD32Async != nullptr,
       api);
  bind(api->memset_d8_async, memset_d8_async, "hipMemsetD8Async", g.hipMemsetD8Async != nullptr, api);
  bind(api->module_load, module_load, "hipModuleLoadData", g.hipModuleLoadData != nullptr, api);
  bind(api->module_unload, module_unload, "hipModuleUnload", g.hipModuleUnload != nullptr, api);
  bind(api->module_get_function, module_get_function, "hipModuleGetFunction",
       g.hipModuleGetFunction != nullptr, api);
  bind(api->launch_kernel, launch_kernel, "hipModuleLaunchKernel", g.hipModuleLaunchKernel != nullptr,
       api);
  bind(api->external_memory_import_fd, external_memory_import_fd, "hipImportExternalMemory",
       g.hipImportExternalMemory != nullptr, api);
  bind(api->external_memory_mapped_buffer, external_memory_mapped_buffer, "hipExternalMemoryGetMappedBuffer",
       g.hipExternalMemoryGetMappedBuffer != nullptr, api);
  bind(api->external_memory_destroy, external_memory_destroy, "hipDestroyExternalMemory",
       g.hipDestroyExternalMemory != nullptr, api);
  bind(api->gl_get_devices, gl_get_devices, "hipGLGetDevices", g.hipGLGetDevices != nullptr, api);
  bind(api->gl_register_image, gl_register_image, "hipGraphicsGLRegisterImage",
       g.hipGraphicsGLRegisterImage != nullptr, api);
  bind(api->graphics_map, graphics_map, "hipGraphicsMapResources", g.hipGraphicsMapResources != nullptr,
       api);
  bind(api->graphics_unmap, graphics_unmap, "hipGraphicsUnmapResources",
       g.hipGraphicsUnmapResources != nullptr, api);
  bind(api->graphics_mapped_array, graphics_mapped_array, "hipGraphicsSubResourceGetMappedArray",
       g.hipGraphicsSubResourceGetMappedArray != nullptr, api);
  bind(api->copy_from_array_2d_async, copy_from_array_2d_async, "hipMemcpy2DFromArrayAsync",
       g.hipMemcpy2DFromArrayAsync != nullptr, api);
  bind(api->graphics_unregister, graphics_unregister, "hipGraphicsUnregisterResource",
       g.hipGraphicsUnregisterResource != nullptr, api);
  return Status::ok();
}

Status amd_rtc_fill(void* lib, Rtc* rtc) {
  RtcRaw t;
  if (!rtc_resolve(lib, "hiprtc", "Code", &t)) return {Errc::unsupported, "hiprtc symbols missing"};
  r = std::move(t);
  rtc->vendor = Vendor::amd;
  rtc->version = rtc_version(r);
  rtc->compile = rtc_compile;
  rtc->error_string = rtc_error_string;
  return Status::ok();
}

}  // namespace vmafx::hip::detail
