// SPDX-License-Identifier: LGPL-2.1-or-later
// NVIDIA backend of the dispatch table: the CUDA driver API of libcuda.so.1 resolved with dlsym (the `_v2` names
// where the driver has them), wrapped in the table's signatures. Device pointers travel as void* and are converted
// to CUdeviceptr here. Devices travel as engine indices and become CUDA ordinals here (Api::ordinals: the devices
// HIP_VISIBLE_DEVICES selects among those CUDA shows).
#include <cstdint>
#include <cstdio>
#include <vector>

#include "hip/loader_internal.h"
#include "hip/runtime_abi.h"

namespace vmafx::hip::detail {
namespace {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = abi::CuDevicePtr;

struct CudaRaw {
  CUresult (*cuInit)(unsigned);
  CUresult (*cuDriverGetVersion)(int*);
  CUresult (*cuGetErrorName)(CUresult, const char**);
  CUresult (*cuGetErrorString)(CUresult, const char**);
  CUresult (*cuDeviceGetCount)(int*);
  CUresult (*cuDeviceGet)(CUdevice*, int);
  CUresult (*cuDeviceGetName)(char*, int, CUdevice);
  CUresult (*cuDeviceGetPCIBusId)(char*, int, CUdevice);
  CUresult (*cuDeviceGetAttribute)(int*, int, CUdevice);
  CUresult (*cuDeviceTotalMem)(size_t*, CUdevice);
  CUresult (*cuMemGetInfo)(size_t*, size_t*);
  CUresult (*cuDevicePrimaryCtxRetain)(void**, CUdevice);
  CUresult (*cuDevicePrimaryCtxRelease)(CUdevice);
  CUresult (*cuCtxSetCurrent)(void*);
  CUresult (*cuCtxGetCurrent)(void**);
  CUresult (*cuStreamCreate)(void**, unsigned);
  CUresult (*cuStreamDestroy)(void*);
  CUresult (*cuStreamSynchronize)(void*);
  CUresult (*cuStreamQuery)(void*);
  CUresult (*cuStreamWaitEvent)(void*, void*, unsigned);
  CUresult (*cuLaunchHostFunc)(void*, void (*)(void*), void*);
  CUresult (*cuEventCreate)(void**, unsigned);
  CUresult (*cuEventRecord)(void*, void*);
  CUresult (*cuEventQuery)(void*);
  CUresult (*cuEventSynchronize)(void*);
  CUresult (*cuEventDestroy)(void*);
  CUresult (*cuMemAlloc)(CUdeviceptr*, size_t);
  CUresult (*cuMemFree)(CUdeviceptr);
  CUresult (*cuMemHostAlloc)(void**, size_t, unsigned);
  CUresult (*cuMemFreeHost)(void*);
  CUresult (*cuMemcpyHtoDAsync)(CUdeviceptr, const void*, size_t, void*);
  CUresult (*cuMemcpyDtoHAsync)(void*, CUdeviceptr, size_t, void*);
  CUresult (*cuMemcpyDtoDAsync)(CUdeviceptr, CUdeviceptr, size_t, void*);
  CUresult (*cuMemcpy2DAsync)(const abi::CuMemcpy2D*, void*);
  CUresult (*cuMemsetD32Async)(CUdeviceptr, unsigned, size_t, void*);
  CUresult (*cuMemsetD8Async)(CUdeviceptr, unsigned char, size_t, void*);
  CUresult (*cuModuleLoadData)(void**, const void*);
  CUresult (*cuModuleUnload)(void*);
  CUresult (*cuModuleGetFunction)(void**, void*, const char*);
  CUresult (*cuLinkCreate)(unsigned, int*, void**, void**);
  CUresult (*cuLinkAddData)(void*, int, void*, size_t, const char*, unsigned, int*, void**);
  CUresult (*cuLinkComplete)(void*, void**, size_t*);
  CUresult (*cuLinkDestroy)(void*);
  CUresult (*cuLaunchKernel)(void*, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, void*,
                             void**, void**);
  CUresult (*cuImportExternalMemory)(void**, const abi::ExternalMemoryHandleDesc*);
  CUresult (*cuExternalMemoryGetMappedBuffer)(CUdeviceptr*, void*, const abi::ExternalMemoryBufferDesc*);
  CUresult (*cuDestroyExternalMemory)(void*);
  CUresult (*cuGLGetDevices)(unsigned*, CUdevice*, unsigned, int);
  CUresult (*cuGraphicsGLRegisterImage)(void**, unsigned, unsigned, unsigned);
  CUresult (*cuGraphicsMapResources)(unsigned, void**, void*);
  CUresult (*cuGraphicsUnmapResources)(unsigned, void**, void*);
  CUresult (*cuGraphicsSubResourceGetMappedArray)(void**, void*, unsigned, unsigned);
  CUresult (*cuGraphicsUnregisterResource)(void*);
  CUresult (*cuStreamBeginCapture)(void*, int);
  CUresult (*cuStreamEndCapture)(void*, void**);
  CUresult (*cuGraphInstantiateWithFlags)(void**, void*, unsigned long long);
  CUresult (*cuGraphLaunch)(void*, void*);
  CUresult (*cuGraphExecDestroy)(void*);
  CUresult (*cuGraphDestroy)(void*);
};

CudaRaw g;
std::vector<int> visible;  // engine device index -> CUDA ordinal (Api::ordinals), set by cuda_fill

// The CUdevice of engine device `index`.
int device_of(int index, CUdevice* d) {
  if (index < 0 || size_t(index) >= visible.size()) return abi::kErrorInvalidDevice;
  return g.cuDeviceGet(d, visible[size_t(index)]);
}

CUdeviceptr dptr(const void* p) { return CUdeviceptr(reinterpret_cast<uintptr_t>(p)); }

const char* error_name(int code) {
  const char* s = nullptr;
  if (!g.cuGetErrorName || g.cuGetErrorName(code, &s) != 0) return nullptr;
  return s;
}
const char* error_string(int code) {
  const char* s = nullptr;
  if (!g.cuGetErrorString || g.cuGetErrorString(code, &s) != 0) return nullptr;
  return s;
}

int device_count(int* n) {
  *n = int(visible.size());
  return 0;
}
int device_name(int index, char* name, int cap) {
  CUdevice d = 0;
  int rc = device_of(index, &d);
  return rc ? rc : g.cuDeviceGetName(name, cap, d);
}
int device_pci_bus_id(int index, char* bus, int cap) {
  CUdevice d = 0;
  int rc = device_of(index, &d);
  return rc ? rc : g.cuDeviceGetPCIBusId(bus, cap, d);
}
int device_arch(int index, char* arch, int cap) {
  CUdevice d = 0;
  int major = 0, minor = 0;
  int rc = device_of(index, &d);
  if (rc == 0) rc = g.cuDeviceGetAttribute(&major, abi::kCuAttrComputeCapabilityMajor, d);
  if (rc == 0) rc = g.cuDeviceGetAttribute(&minor, abi::kCuAttrComputeCapabilityMinor, d);
  if (rc == 0) std::snprintf(arch, size_t(cap), "sm_%d%d", major, minor);
  return rc;
}
int device_total_memory(int index, size_t* bytes) {
  CUdevice d = 0;
  int rc = device_of(index, &d);
  return rc ? rc : g.cuDeviceTotalMem(bytes, d);
}
int memory_info(size_t* free_bytes, size_t* total_bytes) { return g.cuMemGetInfo(free_bytes, total_bytes); }

int context_retain(int index, Context* out) {
  CUdevice d = 0;
  int rc = device_of(index, &d);
  return rc ? rc : g.cuDevicePrimaryCtxRetain(out, d);
}
int context_release(int index) {
  CUdevice d = 0;
  int rc = device_of(index, &d);
  return rc ? rc : g.cuDevicePrimaryCtxRelease(d);
}
int context_make_current(Context ctx) { return g.cuCtxSetCurrent(ctx); }
int context_get_current(Context* out) { return g.cuCtxGetCurrent(out); }

int stream_create(StreamHandle* out) { return g.cuStreamCreate(out, abi::kCuStreamNonBlocking); }
int stream_destroy(StreamHandle s) { return g.cuStreamDestroy(s); }
int stream_synchronize(StreamHandle s) { return g.cuStreamSynchronize(s); }
int stream_query(StreamHandle s) { return g.cuStreamQuery(s); }
int stream_wait_event(StreamHandle s, EventHandle e) { return g.cuStreamWaitEvent(s, e, 0); }
int launch_host_func(StreamHandle s, void (*fn)(void*), void* user) { return g.cuLaunchHostFunc(s, fn, user); }
int stream_begin_capture(StreamHandle s) { return g.cuStreamBeginCapture(s, abi::kStreamCaptureThreadLocal); }
int stream_end_capture(StreamHandle s, GraphHandle* out) { return g.cuStreamEndCapture(s, out); }
int graph_instantiate(GraphExecHandle* out, GraphHandle graph) { return g.cuGraphInstantiateWithFlags(out, graph, 0); }
int graph_launch(GraphExecHandle e, StreamHandle s) { return g.cuGraphLaunch(e, s); }
int graph_exec_destroy(GraphExecHandle e) { return g.cuGraphExecDestroy(e); }
int graph_destroy(GraphHandle graph) { return g.cuGraphDestroy(graph); }
int event_create(EventHandle* out) { return g.cuEventCreate(out, abi::kCuEventDisableTiming); }
int event_create_blocking(EventHandle* out) {
  return g.cuEventCreate(out, abi::kCuEventDisableTiming | abi::kCuEventBlockingSync);
}
int event_record(EventHandle e, StreamHandle s) { return g.cuEventRecord(e, s); }
int event_query(EventHandle e) { return g.cuEventQuery(e); }
int event_synchronize(EventHandle e) { return g.cuEventSynchronize(e); }
int event_destroy(EventHandle e) { return g.cuEventDestroy(e); }

int malloc_device(void** out, size_t bytes) {
  CUdeviceptr p = 0;
  const int rc = g.cuMemAlloc(&p, bytes);
  *out = rc == 0 ? reinterpret_cast<void*>(uintptr_t(p)) : nullptr;
  return rc;
}
int free_device(void* p) { return g.cuMemFree(dptr(p)); }
int malloc_pinned(void** out, size_t bytes) { return g.cuMemHostAlloc(out, bytes, abi::kCuMemHostAllocPortable); }
int free_pinned(void* p) { return g.cuMemFreeHost(p); }
int copy_h2d_async(void* dst, const void* src, size_t n, StreamHandle s) {
  return g.cuMemcpyHtoDAsync(dptr(dst), src, n, s);
}
int copy_d2h_async(void* dst, const void* src, size_t n, StreamHandle s) {
  return g.cuMemcpyDtoHAsync(dst, dptr(src), n, s);
}
int copy_d2d_async(void* dst, const void* src, size_t n, StreamHandle s) {
  return g.cuMemcpyDtoDAsync(dptr(dst), dptr(src), n, s);
}
int copy_2d_async(const Copy2D& c, StreamHandle s) {
  abi::CuMemcpy2D p{};
  const bool src_host = c.kind == CopyKind::host_to_device;
  const bool dst_host = c.kind == CopyKind::device_to_host;
  p.src_memory_type = src_host ? abi::kCuMemoryTypeHost : abi::kCuMemoryTypeDevice;
  if (src_host) {
    p.src_host = c.src;
  } else {
    p.src_device = dptr(c.src);
  }
  p.src_pitch = c.src_pitch;
  p.dst_memory_type = dst_host ? abi::kCuMemoryTypeHost : abi::kCuMemoryTypeDevice;
  if (dst_host) {
    p.dst_host = c.dst;
  } else {
    p.dst_device = dptr(c.dst);
  }
  p.dst_pitch = c.dst_pitch;
  p.width_bytes = c.width_bytes;
  p.height = c.height;
  return g.cuMemcpy2DAsync(&p, s);
}
int memset_d32_async(void* dst, uint32_t v, size_t count, StreamHandle s) {
  return g.cuMemsetD32Async(dptr(dst), v, count, s);
}
int memset_d8_async(void* dst, uint8_t v, size_t count, StreamHandle s) {
  return g.cuMemsetD8Async(dptr(dst), v, count, s);
}

int module_load(ModuleHandle* out, const void* image) { return g.cuModuleLoadData(out, image); }
int module_unload(ModuleHandle m) { return g.cuModuleUnload(m); }
int module_get_function(FunctionHandle* out, ModuleHandle m, const char* name) {
  return g.cuModuleGetFunction(out, m, name);
}
int link_ptx(const char* ptx, size_t size, const char* name, std::vector<uint8_t>* cubin, std::string* log) {
  char error_log[16384] = {0};
  int options[] = {abi::kCuJitErrorLogBuffer, abi::kCuJitErrorLogBufferSizeBytes};
  void* values[] = {error_log, reinterpret_cast<void*>(uintptr_t(sizeof error_log - 1))};
  void* state = nullptr;
  int rc = g.cuLinkCreate(2, options, values, &state);
  if (rc != 0) return rc;
  rc = g.cuLinkAddData(state, abi::kCuJitInputPtx, const_cast<char*>(ptx), size + 1, name, 0, nullptr, nullptr);
  void* image = nullptr;
  size_t bytes = 0;
  if (rc == 0) rc = g.cuLinkComplete(state, &image, &bytes);
  if (rc == 0) {
    const auto* p = static_cast<const uint8_t*>(image);  // owned by the link state: copied before it is destroyed
    cubin->assign(p, p + bytes);
  }
  if (log) *log = error_log;
  g.cuLinkDestroy(state);
  return rc;
}

int launch_kernel(FunctionHandle f, Dim3 grid, Dim3 block, unsigned shared, StreamHandle s, void** args) {
  return g.cuLaunchKernel(f, grid.x, grid.y, grid.z, block.x, block.y, block.z, shared, s, args, nullptr);
}

int external_memory_import_fd(ExternalMemoryHandle* out, int fd, uint64_t size) {
  abi::ExternalMemoryHandleDesc desc{};
  desc.type = abi::kExternalMemoryOpaqueFd;
  desc.handle.fd = fd;
  desc.size = size;
  return g.cuImportExternalMemory(out, &desc);
}
int external_memory_mapped_buffer(void** out, ExternalMemoryHandle m, uint64_t offset, uint64_t size) {
  abi::ExternalMemoryBufferDesc desc{};
  desc.offset = offset;
  desc.size = size;
  CUdeviceptr p = 0;
  const int rc = g.cuExternalMemoryGetMappedBuffer(&p, m, &desc);
  *out = rc == 0 ? reinterpret_cast<void*>(uintptr_t(p)) : nullptr;
  return rc;
}
int external_memory_destroy(ExternalMemoryHandle m) { return g.cuDestroyExternalMemory(m); }

int gl_get_devices(unsigned* count, int* devices, unsigned cap) {
  return g.cuGLGetDevices(count, devices, cap, abi::kCuGlDeviceListAll);
}
int gl_register_image(GraphicsResource* out, unsigned texture, unsigned target) {
  return g.cuGraphicsGLRegisterImage(out, texture, target, abi::kCuGraphicsRegisterReadOnly);
}
int graphics_map(GraphicsResource r, StreamHandle s) { return g.cuGraphicsMapResources(1, &r, s); }
int graphics_unmap(GraphicsResource r, StreamHandle s) { return g.cuGraphicsUnmapResources(1, &r, s); }
int graphics_mapped_array(ArrayHandle* out, GraphicsResource r, unsigned index, unsigned level) {
  return g.cuGraphicsSubResourceGetMappedArray(out, r, index, level);
}
int copy_from_array_2d_async(void* dst, size_t dst_pitch, ArrayHandle src, size_t x_bytes, size_t y,
                             size_t width_bytes, size_t height, StreamHandle s) {
  abi::CuMemcpy2D p{};
  p.src_memory_type = abi::kCuMemoryTypeArray;
  p.src_array = src;
  p.src_x_bytes = x_bytes;
  p.src_y = y;
  p.dst_memory_type = abi::kCuMemoryTypeDevice;
  p.dst_device = dptr(dst);
  p.dst_pitch = dst_pitch;
  p.width_bytes = width_bytes;
  p.height = height;
  return g.cuMemcpy2DAsync(&p, s);
}
int graphics_unregister(GraphicsResource r) { return g.cuGraphicsUnregisterResource(r); }

std::string cuda_error(void* lib, int code) {
  CUresult (*name)(CUresult, const char**) = nullptr;
  resolve(lib, "cuGetErrorName", &name);
  const char* n = nullptr;
  if (name && name(code, &n) == 0 && n) return std::string(n) + " (" + std::to_string(code) + ")";
  return "error " + std::to_string(code);
}

// Resolves `name`_v2 when the driver has it, else `name`.
template <class T>
bool resolve_v2(void* lib, const char* name, T* out) {
  const std::string v2 = std::string(name) + "_v2";
  return resolve(lib, v2.c_str(), out) || resolve(lib, name, out);
}

// ---- nvrtc ------------------------------------------------------------------------------------------------------
RtcRaw r;

const char* rtc_error_string(int code) { return r.error_string ? r.error_string(code) : "nvrtc error"; }

int rtc_compile(const std::string& source, const std::string& name, const std::string& arch,
                std::vector<uint8_t>* image, std::string* log, const char** symbol) {
  return rtc_compile_with(r, {"--gpu-architecture=" + arch, "--fmad=false", "-DVMAFX_RTC=1"}, source, name, image,
                          log, symbol);
}

}  // namespace

bool cuda_init(void* lib, int* device_count_out, std::string* why, bool* no_device) {
  return init_runtime(lib, "cuInit", "cuDeviceGetCount", cuda_error, device_count_out, why, no_device);
}

Status cuda_fill(void* lib, Api* api) {
  std::string absent;
  auto need = [&](const char* name, auto* slot) {
    if (!resolve(lib, name, slot)) absent += std::string(absent.empty() ? "" : ", ") + name;
  };
  auto need_v2 = [&](const char* name, auto* slot) {
    if (!resolve_v2(lib, name, slot)) absent += std::string(absent.empty() ? "" : ", ") + name;
  };
  need("cuGetErrorName", &g.cuGetErrorName);
  need("cuGetErrorString", &g.cuGetErrorString);
  need("cuDeviceGetCount", &g.cuDeviceGetCount);
  need("cuDeviceGet", &g.cuDeviceGet);
  need("cuDeviceGetAttribute", &g.cuDeviceGetAttribute);
  need("cuDevicePrimaryCtxRetain", &g.cuDevicePrimaryCtxRetain);
  need_v2("cuDevicePrimaryCtxRelease", &g.cuDevicePrimaryCtxRelease);
  need("cuCtxSetCurrent", &g.cuCtxSetCurrent);
  need("cuCtxGetCurrent", &g.cuCtxGetCurrent);
  need("cuStreamCreate", &g.cuStreamCreate);
  need_v2("cuStreamDestroy", &g.cuStreamDestroy);
  need("cuStreamSynchronize", &g.cuStreamSynchronize);
  need("cuStreamQuery", &g.cuStreamQuery);
  need("cuStreamWaitEvent", &g.cuStreamWaitEvent);
  need("cuEventCreate", &g.cuEventCreate);
  need("cuEventRecord", &g.cuEventRecord);
  need("cuEventQuery", &g.cuEventQuery);
  need("cuEventSynchronize", &g.cuEventSynchronize);
  need_v2("cuEventDestroy", &g.cuEventDestroy);
  need_v2("cuMemAlloc", &g.cuMemAlloc);
  need_v2("cuMemFree", &g.cuMemFree);
  need("cuMemHostAlloc", &g.cuMemHostAlloc);
  need("cuMemFreeHost", &g.cuMemFreeHost);
  need_v2("cuMemcpyHtoDAsync", &g.cuMemcpyHtoDAsync);
  need_v2("cuMemcpyDtoHAsync", &g.cuMemcpyDtoHAsync);
  need_v2("cuMemcpyDtoDAsync", &g.cuMemcpyDtoDAsync);
  need_v2("cuMemcpy2DAsync", &g.cuMemcpy2DAsync);
  need("cuMemsetD32Async", &g.cuMemsetD32Async);
  need("cuModuleLoadData", &g.cuModuleLoadData);
  need("cuModuleUnload", &g.cuModuleUnload);
  need("cuModuleGetFunction", &g.cuModuleGetFunction);
  need("cuLaunchKernel", &g.cuLaunchKernel);
  if (!absent.empty()) return {Errc::device_unavailable, api->library + ": required symbol(s) missing: " + absent};
  resolve(lib, "cuDriverGetVersion", &g.cuDriverGetVersion);
  resolve(lib, "cuDeviceGetName", &g.cuDeviceGetName);
  resolve(lib, "cuDeviceGetPCIBusId", &g.cuDeviceGetPCIBusId);
  resolve_v2(lib, "cuDeviceTotalMem", &g.cuDeviceTotalMem);
  resolve_v2(lib, "cuMemGetInfo", &g.cuMemGetInfo);
  resolve(lib, "cuMemsetD8Async", &g.cuMemsetD8Async);
  resolve(lib, "cuLaunchHostFunc", &g.cuLaunchHostFunc);
  resolve_v2(lib, "cuLinkCreate", &g.cuLinkCreate);
  resolve_v2(lib, "cuLinkAddData", &g.cuLinkAddData);
  resolve(lib, "cuLinkComplete", &g.cuLinkComplete);
  resolve(lib, "cuLinkDestroy", &g.cuLinkDestroy);
  resolve(lib, "cuImportExternalMemory", &g.cuImportExternalMemory);
  resolve(lib, "cuExternalMemoryGetMappedBuffer", &g.cuExternalMemoryGetMappedBuffer);
  resolve(lib, "cuDestroyExternalMemory", &g.cuDestroyExternalMemory);
  resolve_v2(lib, "cuGLGetDevices", &g.cuGLGetDevices);
  resolve(lib, "cuGraphicsGLRegisterImage", &g.cuGraphicsGLRegisterImage);
  resolve(lib, "cuGraphicsMapResources", &g.cuGraphicsMapResources);
  resolve(lib, "cuGraphicsUnmapResources", &g.cuGraphicsUnmapResources);
  resolve(lib, "cuGraphicsSubResourceGetMappedArray", &g.cuGraphicsSubResourceGetMappedArray);
  resolve(lib, "cuGraphicsUnregisterResource", &g.cuGraphicsUnregisterResource);
  resolve_v2(lib, "cuStreamBeginCapture", &g.cuStreamBeginCapture);
  resolve(lib, "cuStreamEndCapture", &g.cuStreamEndCapture);
  resolve(lib, "cuGraphInstantiateWithFlags", &g.cuGraphInstantiateWithFlags);
  resolve(lib, "cuGraphLaunch", &g.cuGraphLaunch);
  resolve(lib, "cuGraphExecDestroy", &g.cuGraphExecDestroy);
  resolve(lib, "cuGraphDestroy", &g.cuGraphDestroy);

  if (g.cuDriverGetVersion) g.cuDriverGetVersion(&api->driver_version);
  visible = api->ordinals;
  api->code_not_ready = abi::kErrorNotReady;
  api->error_name = error_name;
  api->error_string = error_string;
  bind(api->device_count, device_count, "cuDeviceGetCount", true, api);
  bind(api->device_name, device_name, "cuDeviceGetName", g.cuDeviceGetName != nullptr, api);
  bind(api->device_pci_bus_id, device_pci_bus_id, "cuDeviceGetPCIBusId", g.cuDeviceGetPCIBusId != nullptr, api);
  bind(api->device_arch, device_arch, "cuDeviceGetAttribute", true, api);
  bind(api->device_total_memory, device_total_memory, "cuDeviceTotalMem_v2", g.cuDeviceTotalMem != nullptr, api);
  bind(api->memory_info, memory_info, "cuMemGetInfo_v2", g.cuMemGetInfo != nullptr, api);
  bind(api->context_retain, context_retain, "cuDevicePrimaryCtxRetain", true, api);
  bind(api->context_release, context_release, "cuDevicePrimaryCtxRelease_v2", true, api);
  bind(api->context_make_current, context_make_current, "cuCtxSetCurrent", true, api);
  bind(api->context_get_current, context_get_current, "cuCtxGetCurrent", true, api);
  bind(api->stream_create, stream_create, "cuStreamCreate", true, api);
  bind(api->stream_destroy, stream_destroy, "cuStreamDestroy_v2", true, api);
  bind(api->stream_synchronize, stream_synchronize, "cuStreamSynchronize", true, api);
  bind(api->stream_query, stream_query, "cuStreamQuery", true, api);
  bind(api->stream_wait_event, stream_wait_event, "cuStreamWaitEvent", true, api);
  bind(api->launch_host_func, launch_host_func, "cuLaunchHostFunc", g.cuLaunchHostFunc != nullptr, api);
  {
    const bool graphs = g.cuStreamBeginCapture && g.cuStreamEndCapture && g.cuGraphInstantiateWithFlags &&
                        g.cuGraphLaunch && g.cuGraphExecDestroy && g.cuGraphDestroy;
    bind(api->stream_begin_capture, stream_begin_capture, "cuStreamBeginCapture_v2", graphs, api);
    bind(api->stream_end_capture, stream_end_capture, "cuStreamEndCapture", graphs, api);
    bind(api->graph_instantiate, graph_instantiate, "cuGraphInstantiateWithFlags", graphs, api);
    bind(api->graph_launch, graph_launch, "cuGraphLaunch", graphs, api);
    bind(api->graph_exec_destroy, graph_exec_destroy, "cuGraphExecDestroy", graphs, api);
    bind(api->graph_destroy, graph_destroy, "cuGraphDestroy", graphs, api);
  }
  bind(api->event_create, event_create, "cuEventCreate", true, api);
  bind(api->event_create_blocking, event_create_blocking, "cuEventCreate", true, api);
  bind(api->event_record, event_record, "cuEventRecord", true, api);
  bind(api->event_query, event_query, "cuEventQuery", true, api);
  bind(api->event_synchronize, event_synchronize, "cuEventSynchronize", true, api);
  bind(api->event_destroy, event_destroy, "cuEventDestroy_v2", true, api);
  bind(api->malloc_device, malloc_device, "cuMemAlloc_v2", true, api);
  bind(api->free_device, free_device, "cuMemFree_v2", true, api);
  bind(api->malloc_pinned, malloc_pinned, "cuMemHostAlloc", true, api);
  bind(api->free_pinned, free_pinned, "cuMemFreeHost", true, api);
  bind(api->copy_h2d_async, copy_h2d_async, "cuMemcpyHtoDAsync_v2", true, api);
  bind(api->copy_d2h_async, copy_d2h_async, "cuMemcpyDtoHAsync_v2", true, api);
  bind(api->copy_d2d_async, copy_d2d_async, "cuMemcpyDtoDAsync_v2", true, api);
  bind(api->copy_2d_async, copy_2d_async, "cuMemcpy2DAsync_v2", true, api);
  bind(api->memset_d32_async, memset_d32_async, "cuMemsetD32Async", true, api);
  bind(api->memset_d8_async, memset_d8_async, "cuMemsetD8Async", g.cuMemsetD8Async != nullptr, api);
  bind(api->module_load, module_load, "cuModuleLoadData", true, api);
  bind(api->module_unload, module_unload, "cuModuleUnload", true, api);
  bind(api->module_get_function, module_get_function, "cuModuleGetFunction", true, api);
  bind(api->launch_kernel, launch_kernel, "cuLaunchKernel", true, api);
  bind(api->link_ptx, link_ptx, "cuLinkComplete",
       g.cuLinkCreate && g.cuLinkAddData && g.cuLinkComplete && g.cuLinkDestroy, api);
  bind(api->external_memory_import_fd, external_memory_import_fd, "cuImportExternalMemory",
       g.cuImportExternalMemory != nullptr, api);
  bind(api->external_memory_mapped_buffer, external_memory_mapped_buffer, "cuExternalMemoryGetMappedBuffer",
       g.cuExternalMemoryGetMappedBuffer != nullptr, api);
  bind(api->external_memory_destroy, external_memory_destroy, "cuDestroyExternalMemory",
       g.cuDestroyExternalMemory != nullptr, api);
  bind(api->gl_get_devices, gl_get_devices, "cuGLGetDevices_v2", g.cuGLGetDevices != nullptr, api);
  bind(api->gl_register_image, gl_register_image, "cuGraphicsGLRegisterImage",
       g.cuGraphicsGLRegisterImage != nullptr, api);
  bind(api->graphics_map, graphics_map, "cuGraphicsMapResources", g.cuGraphicsMapResources != nullptr, api);
  bind(api->graphics_unmap, graphics_unmap, "cuGraphicsUnmapResources", g.cuGraphicsUnmapResources != nullptr, api);
  bind(api->graphics_mapped_array, graphics_mapped_array, "cuGraphicsSubResourceGetMappedArray",
       g.cuGraphicsSubResourceGetMappedArray != nullptr, api);
  bind(api->copy_from_array_2d_async, copy_from_array_2d_async, "cuMemcpy2DAsync_v2", true, api);
  bind(api->graphics_unregister, graphics_unregister, "cuGraphicsUnregisterResource",
       g.cuGraphicsUnregisterResource != nullptr, api);
  return Status::ok();
}

Status cuda_rtc_fill(void* lib, Rtc* rtc) {
  RtcRaw t;
  if (!rtc_resolve(lib, "nvrtc", "CUBIN", &t))
    return {Errc::unsupported, "nvrtc symbols missing (nvrtcGetCUBIN needs CUDA 11.1 or newer)"};
  r = std::move(t);
  rtc->vendor = Vendor::nvidia;
  rtc->version = rtc_version(r);
  rtc->compile = rtc_compile;
  rtc->error_string = rtc_error_string;
  return Status::ok();
}

}  // namespace vmafx::hip::detail
