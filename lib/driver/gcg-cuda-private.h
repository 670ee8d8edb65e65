/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The CUDA driver API as this project sees it: the handful of types and
 * constants it uses (values from CUDA 12.0's cuda.h, which are ABI and never
 * change), and one table of entry points resolved at run time through
 * cuGetProcAddress.  Nothing here needs the CUDA toolkit at build time, so
 * the library builds and loads on machines without CUDA.
 */
#pragma once

#include <glib.h>
#include <stdint.h>
#include "gcg-version.h"

G_BEGIN_DECLS

typedef int CUresult;
typedef int CUdevice;
typedef uint64_t CUdeviceptr;
typedef uint64_t cuuint64_t;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;
typedef struct CUgraph_st *CUgraph;
typedef struct CUgraphNode_st *CUgraphNode;
typedef struct CUgraphExec_st *CUgraphExec;
typedef struct CUmemPoolHandle_st *CUmemoryPool;
typedef void (*CUhostFn) (void *user_data);

enum
{
  CUDA_SUCCESS = 0,
  CUDA_ERROR_INVALID_VALUE = 1,
  CUDA_ERROR_OUT_OF_MEMORY = 2,
  CUDA_ERROR_NOT_INITIALIZED = 3,
  CUDA_ERROR_DEINITIALIZED = 4,
  CUDA_ERROR_STUB_LIBRARY = 34,
  CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER = 36,
  CUDA_ERROR_DEVICE_UNAVAILABLE = 46,
  CUDA_ERROR_NO_DEVICE = 100,
  CUDA_ERROR_INVALID_DEVICE = 101,
  CUDA_ERROR_INVALID_IMAGE = 200,
  CUDA_ERROR_INVALID_CONTEXT = 201,
  CUDA_ERROR_NO_BINARY_FOR_GPU = 209,
  CUDA_ERROR_INVALID_PTX = 218,
  CUDA_ERROR_UNSUPPORTED_PTX_VERSION = 222,
  CUDA_ERROR_INVALID_HANDLE = 400,
  CUDA_ERROR_ILLEGAL_STATE = 401,
  CUDA_ERROR_NOT_FOUND = 500,
  CUDA_ERROR_NOT_READY = 600,
  CUDA_ERROR_ILLEGAL_ADDRESS = 700,
  CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES = 701,
  CUDA_ERROR_LAUNCH_TIMEOUT = 702,
  CUDA_ERROR_LAUNCH_FAILED = 719,
  CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE = 720,
  CUDA_ERROR_NOT_PERMITTED = 800,
  CUDA_ERROR_NOT_SUPPORTED = 801,
  CUDA_ERROR_SYSTEM_DRIVER_MISMATCH = 803,
  CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED = 900,
  CUDA_ERROR_STREAM_CAPTURE_INVALIDATED = 901,
  CUDA_ERROR_STREAM_CAPTURE_MERGE = 902,
  CUDA_ERROR_STREAM_CAPTURE_UNMATCHED = 903,
  CUDA_ERROR_STREAM_CAPTURE_UNJOINED = 904,
  CUDA_ERROR_STREAM_CAPTURE_ISOLATION = 905,
  CUDA_ERROR_STREAM_CAPTURE_IMPLICIT = 906,
  CUDA_ERROR_CAPTURED_EVENT = 907,
  CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD = 908,
  CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE = 910,
  CUDA_ERROR_UNKNOWN = 999,
};

typedef enum
{
  CU_DEVICE_ATTRIBUTE_CLOCK_RATE = 13,
  CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16,
  CU_DEVICE_ATTRIBUTE_INTEGRATED = 18,
  CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY = 19,
  CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING = 41,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
  CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH = 95,
  CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED = 115,
} CUdevice_attribute;

typedef enum
{
  CU_STREAM_CAPTURE_STATUS_NONE = 0,
  CU_STREAM_CAPTURE_STATUS_ACTIVE = 1,
  CU_STREAM_CAPTURE_STATUS_INVALIDATED = 2,
} CUstreamCaptureStatus;

typedef enum
{
  CU_STREAM_CAPTURE_MODE_GLOBAL = 0,
  CU_STREAM_CAPTURE_MODE_THREAD_LOCAL = 1,
  CU_STREAM_CAPTURE_MODE_RELAXED = 2,
} CUstreamCaptureMode;

#define CU_STREAM_NON_BLOCKING 0x1
#define CU_EVENT_DEFAULT 0x0
#define CU_EVENT_BLOCKING_SYNC 0x1
#define CU_EVENT_DISABLE_TIMING 0x2
#define CU_MEMHOSTALLOC_PORTABLE 0x01
#define CU_MEMHOSTREGISTER_PORTABLE 0x01
#define CU_GET_PROC_ADDRESS_DEFAULT 0
#define CU_GRAPH_DEBUG_DOT_FLAGS_VERBOSE (1 << 0)
#define CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH 1
#define CU_STREAM_SET_CAPTURE_DEPENDENCIES 0x1

typedef enum
{
  CU_GET_PROC_ADDRESS_SUCCESS = 0,
  CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND = 1,
  CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT = 2,
} CUdriverProcAddressQueryResult;

typedef enum
{
  CU_GRAPH_EXEC_UPDATE_SUCCESS = 0,
  CU_GRAPH_EXEC_UPDATE_ERROR = 1,
  CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED = 2,
  CU_GRAPH_EXEC_UPDATE_ERROR_NODE_TYPE_CHANGED = 3,
  CU_GRAPH_EXEC_UPDATE_ERROR_FUNCTION_CHANGED = 4,
  CU_GRAPH_EXEC_UPDATE_ERROR_PARAMETERS_CHANGED = 5,
  CU_GRAPH_EXEC_UPDATE_ERROR_NOT_SUPPORTED = 6,
  CU_GRAPH_EXEC_UPDATE_ERROR_UNSUPPORTED_FUNCTION_CHANGE = 7,
  CU_GRAPH_EXEC_UPDATE_ERROR_ATTRIBUTES_CHANGED = 8,
} CUgraphExecUpdateResult;

typedef enum
{
  CU_GRAPH_NODE_TYPE_KERNEL = 0,
  CU_GRAPH_NODE_TYPE_MEMCPY = 1,
  CU_GRAPH_NODE_TYPE_MEMSET = 2,
  CU_GRAPH_NODE_TYPE_HOST = 3,
  CU_GRAPH_NODE_TYPE_GRAPH = 4,
  CU_GRAPH_NODE_TYPE_EMPTY = 5,
  CU_GRAPH_NODE_TYPE_WAIT_EVENT = 6,
  CU_GRAPH_NODE_TYPE_EVENT_RECORD = 7,
  CU_GRAPH_NODE_TYPE_EXT_SEMAS_SIGNAL = 8,
  CU_GRAPH_NODE_TYPE_EXT_SEMAS_WAIT = 9,
  CU_GRAPH_NODE_TYPE_MEM_ALLOC = 10,
  CU_GRAPH_NODE_TYPE_MEM_FREE = 11,
} CUgraphNodeType;

typedef enum
{
  CU_POINTER_ATTRIBUTE_CONTEXT = 1,
  CU_POINTER_ATTRIBUTE_MEMORY_TYPE = 2,
  CU_POINTER_ATTRIBUTE_DEVICE_POINTER = 3,
  CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL = 9,
  CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE = 17,
} CUpointer_attribute;

typedef struct
{
  CUgraphExecUpdateResult result;
  CUgraphNode errorNode;
  CUgraphNode errorFromNode;
} CUgraphExecUpdateResultInfo;

typedef enum
{
  CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES = 1,
  CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC = 2,
  CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES = 3,
  CU_MEMPOOL_ATTR_RELEASE_THRESHOLD = 4,
  CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT = 5,
  CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH = 6,
  CU_MEMPOOL_ATTR_USED_MEM_CURRENT = 7,
  CU_MEMPOOL_ATTR_USED_MEM_HIGH = 8,
} CUmemPool_attribute;

typedef enum
{
  CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT = 0,
  CU_GRAPH_MEM_ATTR_USED_MEM_HIGH = 1,
  CU_GRAPH_MEM_ATTR_RESERVED_MEM_CURRENT = 2,
  CU_GRAPH_MEM_ATTR_RESERVED_MEM_HIGH = 3,
} CUgraphMem_attribute;

/* A kernel node's launch, as cuGetProcAddress at CUDA 12.0 resolves its
 * functions (the _v2 layout, with kern and ctx). */
typedef struct
{
  CUfunction func;
  unsigned int gridDimX, gridDimY, gridDimZ;
  unsigned int blockDimX, blockDimY, blockDimZ;
  unsigned int sharedMemBytes;
  void **kernelParams;
  void **extra;
  void *kern;
  CUcontext ctx;
} CUDA_KERNEL_NODE_PARAMS;

#define CU_MEM_ALLOCATION_TYPE_PINNED 0x1
#define CU_MEM_HANDLE_TYPE_NONE 0x0
#define CU_MEM_LOCATION_TYPE_DEVICE 0x1

typedef struct
{
  int type;
  int id;
} CUmemLocation;

typedef struct
{
  int allocType;
  int handleTypes;
  CUmemLocation location;
  void *win32SecurityAttributes;
  size_t maxSize;
  unsigned short usage;
  unsigned char reserved[54];
} CUmemPoolProps;

/* Every driver entry point the project calls: X (name, parameter list).
 * Resolved with cuGetProcAddress at CUDA 12.0 semantics, so versioned
 * symbols (cuMemAlloc_v2, cuGraphExecUpdate_v2, ...) come back with the
 * signatures written here.  One entry a line, kept by hand: clang-format
 * cannot tell the parameter lists from expressions. */
/* clang-format off */
#define GCG_CUDA_FUNCS(X) \
  X (cuInit, (unsigned int flags)) \
  X (cuDriverGetVersion, (int *version)) \
  X (cuGetErrorName, (CUresult err, const char **str)) \
  X (cuGetErrorString, (CUresult err, const char **str)) \
  X (cuDeviceGetCount, (int *count)) \
  X (cuDeviceGet, (CUdevice *dev, int ordinal)) \
  X (cuDeviceGetName, (char *name, int len, CUdevice dev)) \
  X (cuDeviceGetAttribute, (int *value, CUdevice_attribute attr, CUdevice dev)) \
  X (cuDeviceTotalMem, (size_t *bytes, CUdevice dev)) \
  X (cuDeviceGetPCIBusId, (char *id, int len, CUdevice dev)) \
  X (cuDevicePrimaryCtxRetain, (CUcontext *ctx, CUdevice dev)) \
  X (cuDevicePrimaryCtxRelease, (CUdevice dev)) \
  X (cuCtxPushCurrent, (CUcontext ctx)) \
  X (cuCtxPopCurrent, (CUcontext *ctx)) \
  X (cuCtxGetCurrent, (CUcontext *ctx)) \
  X (cuCtxGetDevice, (CUdevice *dev)) \
  X (cuCtxSynchronize, (void)) \
  X (cuModuleLoadData, (CUmodule *mod, const void *image)) \
  X (cuModuleUnload, (CUmodule mod)) \
  X (cuModuleGetFunction, (CUfunction *fn, CUmodule mod, const char *name)) \
  X (cuLaunchKernel, (CUfunction f, unsigned int gx, unsigned int gy, \
          unsigned int gz, unsigned int bx, unsigned int by, unsigned int bz, \
          unsigned int shared_bytes, CUstream stream, void **params, \
          void **extra)) \
  X (cuLaunchHostFunc, (CUstream stream, CUhostFn fn, void *user_data)) \
  X (cuStreamCreate, (CUstream *stream, unsigned int flags)) \
  X (cuStreamDestroy, (CUstream stream)) \
  X (cuStreamSynchronize, (CUstream stream)) \
  X (cuStreamQuery, (CUstream stream)) \
  X (cuStreamWaitEvent, (CUstream stream, CUevent event, unsigned int flags)) \
  X (cuStreamBeginCapture, (CUstream stream, CUstreamCaptureMode mode)) \
  X (cuStreamEndCapture, (CUstream stream, CUgraph *graph)) \
  X (cuStreamIsCapturing, (CUstream stream, CUstreamCaptureStatus *status)) \
  X (cuStreamGetCaptureInfo, (CUstream stream, CUstreamCaptureStatus *status, \
          cuuint64_t *id, CUgraph *graph, const CUgraphNode **deps, \
          size_t *num_deps)) \
  X (cuThreadExchangeStreamCaptureMode, (CUstreamCaptureMode *mode)) \
  X (cuEventCreate, (CUevent *event, unsigned int flags)) \
  X (cuEventRecord, (CUevent event, CUstream stream)) \
  X (cuEventQuery, (CUevent event)) \
  X (cuEventSynchronize, (CUevent event)) \
  X (cuEventElapsedTime, (float *ms, CUevent start, CUevent end)) \
  X (cuEventDestroy, (CUevent event)) \
  X (cuMemAlloc, (CUdeviceptr *ptr, size_t bytes)) \
  X (cuMemFree, (CUdeviceptr ptr)) \
  X (cuMemAllocAsync, (CUdeviceptr *ptr, size_t bytes, CUstream stream)) \
  X (cuMemAllocFromPoolAsync, (CUdeviceptr *ptr, size_t bytes, \
          CUmemoryPool pool, CUstream stream)) \
  X (cuMemFreeAsync, (CUdeviceptr ptr, CUstream stream)) \
  X (cuMemGetInfo, (size_t *free_bytes, size_t *total_bytes)) \
  X (cuPointerGetAttribute, (void *data, CUpointer_attribute attr, \
          CUdeviceptr ptr)) \
  X (cuMemGetAddressRange, (CUdeviceptr *base, size_t *size, \
          CUdeviceptr ptr)) \
  X (cuMemHostAlloc, (void **ptr, size_t bytes, unsigned int flags)) \
  X (cuMemFreeHost, (void *ptr)) \
  X (cuMemHostRegister, (void *ptr, size_t bytes, unsigned int flags)) \
  X (cuMemHostUnregister, (void *ptr)) \
  X (cuMemcpyHtoD, (CUdeviceptr dst, const void *src, size_t bytes)) \
  X (cuMemcpyDtoH, (void *dst, CUdeviceptr src, size_t bytes)) \
  X (cuMemcpyHtoDAsync, (CUdeviceptr dst, const void *src, size_t bytes, \
          CUstream stream)) \
  X (cuMemcpyDtoHAsync, (void *dst, CUdeviceptr src, size_t bytes, \
          CUstream stream)) \
  X (cuMemcpyDtoDAsync, (CUdeviceptr dst, CUdeviceptr src, size_t bytes, \
          CUstream stream)) \
  X (cuMemsetD8Async, (CUdeviceptr dst, unsigned char value, size_t n, \
          CUstream stream)) \
  X (cuMemsetD32Async, (CUdeviceptr dst, unsigned int value, size_t n, \
          CUstream stream)) \
  X (cuMemPoolCreate, (CUmemoryPool *pool, const CUmemPoolProps *props)) \
  X (cuMemPoolDestroy, (CUmemoryPool pool)) \
  X (cuMemPoolSetAttribute, (CUmemoryPool pool, CUmemPool_attribute attr, \
          void *value)) \
  X (cuMemPoolGetAttribute, (CUmemoryPool pool, CUmemPool_attribute attr, \
          void *value)) \
  X (cuMemPoolTrimTo, (CUmemoryPool pool, size_t keep_bytes)) \
  X (cuDeviceGetDefaultMemPool, (CUmemoryPool *pool, CUdevice dev)) \
  X (cuDeviceGetMemPool, (CUmemoryPool *pool, CUdevice dev)) \
  X (cuDeviceSetMemPool, (CUdevice dev, CUmemoryPool pool)) \
  X (cuDeviceGetGraphMemAttribute, (CUdevice dev, CUgraphMem_attribute attr, \
          void *value)) \
  X (cuDeviceGraphMemTrim, (CUdevice dev)) \
  X (cuGraphCreate, (CUgraph *graph, unsigned int flags)) \
  X (cuGraphDestroy, (CUgraph graph)) \
  X (cuGraphGetNodes, (CUgraph graph, CUgraphNode *nodes, size_t *count)) \
  X (cuGraphNodeGetType, (CUgraphNode node, CUgraphNodeType *type)) \
  X (cuGraphKernelNodeGetParams, (CUgraphNode node, \
          CUDA_KERNEL_NODE_PARAMS *params)) \
  X (cuGraphExecKernelNodeSetParams, (CUgraphExec exec, CUgraphNode node, \
          const CUDA_KERNEL_NODE_PARAMS *params)) \
  X (cuGraphAddChildGraphNode, (CUgraphNode *node, CUgraph graph, \
          const CUgraphNode *deps, size_t num_deps, CUgraph child)) \
  X (cuGraphChildGraphNodeGetGraph, (CUgraphNode node, CUgraph *child)) \
  X (cuStreamUpdateCaptureDependencies, (CUstream stream, \
          CUgraphNode *deps, size_t num_deps, unsigned int flags)) \
  X (cuGraphInstantiateWithFlags, (CUgraphExec *exec, CUgraph graph, \
          unsigned long long flags)) \
  X (cuGraphExecDestroy, (CUgraphExec exec)) \
  X (cuGraphLaunch, (CUgraphExec exec, CUstream stream)) \
  X (cuGraphUpload, (CUgraphExec exec, CUstream stream)) \
  X (cuGraphExecUpdate, (CUgraphExec exec, CUgraph graph, \
          CUgraphExecUpdateResultInfo *info)) \
  X (cuGraphDebugDotPrint, (CUgraph graph, const char *path, \
          unsigned int flags))
/* clang-format on */

/* NVRTC's entry points that fault injection can fail too (lib/nvrtc calls
 * them through GCG_NVRTC_CALL, gcg-nvrtc-private.h).  They have no slot in
 * the driver's table: their identifiers follow GCG_CUDA_N_FUNCS. */
#define GCG_NVRTC_FAULT_FUNCS(X) \
  X (nvrtcVersion) \
  X (nvrtcCreateProgram) \
  X (nvrtcCompileProgram) \
  X (nvrtcGetProgramLogSize) \
  X (nvrtcGetProgramLog) \
  X (nvrtcGetCUBINSize) \
  X (nvrtcGetCUBIN) \
  X (nvrtcDestroyProgram)

/* One identifier per entry point, for fault injection and messages: the
 * driver's (GCG_CUDA_N_FUNCS of them, in table order), then NVRTC's
 * (GCG_FAULT_N_FUNCS in all). */
#define GCG_CUDA_ID(name, params) GCG_CUDA_ID_##name,
#define GCG_NVRTC_ID(name) GCG_CUDA_ID_##name,
/* clang-format off */
typedef enum
{
  GCG_CUDA_FUNCS (GCG_CUDA_ID)
  GCG_CUDA_N_FUNCS,
  GCG_NVRTC_FIRST_FUNC = GCG_CUDA_N_FUNCS - 1,
  GCG_NVRTC_FAULT_FUNCS (GCG_NVRTC_ID)
  GCG_FAULT_N_FUNCS
} GcgCudaId;
/* clang-format on */
#undef GCG_NVRTC_ID
#undef GCG_CUDA_ID

#define GCG_CUDA_FIELD(name, params) CUresult (*name) params;
typedef struct
{
  GCG_CUDA_FUNCS (GCG_CUDA_FIELD)
} GcgCudaTable;
#undef GCG_CUDA_FIELD

/* Filled once by gcg__cuda_load(); read-only afterwards. */
GCG_PRIVATE_API GcgCudaTable gcg__cuda;

/* Hooks through which the loader asks fault injection (lib/testing,
 * linked by tests only) without knowing it.  The init hook runs once,
 * inside the load, right before cuInit; its error fails the load.  The
 * call hook, while one is set, decides before every driver call whether
 * the call fails and with what. */
typedef gboolean (*GcgCudaInitHook) (GError **error);
typedef CUresult (*GcgCudaCallHook) (GcgCudaId id);

/* Loads the driver once per process (gcg-cuda-loader.c).  Only
 * gcg_driver_init() calls it, so that the first load, whoever asks for
 * it, runs the same init hook. */
gboolean gcg__cuda_load (GcgCudaInitHook init_hook, GError **error);
gint gcg__cuda_get_driver_version (void);
GCG_PRIVATE_API const gchar *gcg__cuda_func_name (GcgCudaId id);
GCG_PRIVATE_API gint gcg__cuda_lookup_func (const gchar *name);

/* The call hook, a GcgCudaCallHook (atomic; NULL when none). */
GCG_PRIVATE_API gpointer gcg__cuda_call_hook;
GCG_PRIVATE_API void gcg__cuda_set_call_hook (GcgCudaCallHook hook);
GCG_PRIVATE_API CUresult gcg__cuda_fault_slow (GcgCudaId id);
GCG_PRIVATE_API CUresult gcg__cuda_fault_last (void);

/* What the call hook says of the next call of @id: CUDA_SUCCESS to make
 * it.  One atomic load when no hook is set. */
static inline CUresult
gcg__cuda_fault (GcgCudaId id)
{
  if (G_LIKELY (g_atomic_pointer_get (&gcg__cuda_call_hook) == NULL))
    return CUDA_SUCCESS;
  return gcg__cuda_fault_slow (id);
}

/* The entry points that give a resource back.  An injected failure of one
 * of them still gives it back first: no caller retries a release (they
 * warn and go on), so skipping the real call would only leak what the
 * run under test allocated, and turn every release fault of a sweep into
 * a leak report of compute-sanitizer's memcheck.  (cuMemFreeAsync is not
 * one of them: gcg_capture_pool_free() hands its failure to the caller,
 * who may try again.) */
static inline gboolean
gcg__cuda_is_release (GcgCudaId id)
{
  switch (id) {
    case GCG_CUDA_ID_cuMemFree:
    case GCG_CUDA_ID_cuMemFreeHost:
    case GCG_CUDA_ID_cuMemPoolDestroy:
    case GCG_CUDA_ID_cuEventDestroy:
    case GCG_CUDA_ID_cuStreamDestroy:
    case GCG_CUDA_ID_cuGraphDestroy:
    case GCG_CUDA_ID_cuGraphExecDestroy:
    case GCG_CUDA_ID_cuModuleUnload:
    case GCG_CUDA_ID_cuDevicePrimaryCtxRelease:
    case GCG_CUDA_ID_nvrtcDestroyProgram:
      return TRUE;
    default:
      return FALSE;
  }
}

/* Evaluates @call, the call of entry point @id, unless the call hook
 * decides this call fails: then @injected is the result (a release runs
 * anyway, and then reports the injected failure). */
#define GCG_FAULT_CALL(id, call, injected) \
  (gcg__cuda_fault (id) == CUDA_SUCCESS ? (call) \
          : gcg__cuda_is_release (id)   ? ((void) (call), (injected)) \
                                        : (injected))

/* GCG_CU (cuMemAlloc, &ptr, size): calls the entry point through the
 * table, through fault injection (GCG_FAULT_CALL). */
#define GCG_CU(fn, ...) \
  GCG_FAULT_CALL (GCG_CUDA_ID_##fn, gcg__cuda.fn (__VA_ARGS__), \
      gcg__cuda_fault_last ())

GCG_PRIVATE_API gboolean gcg__cuda_result (CUresult res, const gchar *call,
    GError **error, const gchar *file, gint line, const gchar *func);

/* if (!GCG_CU_OK (error, cuMemAlloc, &ptr, size)) return FALSE; */
#define GCG_CU_OK(error, fn, ...) \
  gcg__cuda_result (GCG_CU (fn, __VA_ARGS__), #fn, error, __FILE__, __LINE__, \
      G_STRFUNC)

/* For calls whose failure nobody can act on (destroy, release on a
 * cleanup path): log it at warning level and go on. */
#define GCG_CU_WARN(fn, ...) \
  (void) gcg__cuda_result (GCG_CU (fn, __VA_ARGS__), #fn, NULL, __FILE__, \
      __LINE__, G_STRFUNC)

G_END_DECLS
