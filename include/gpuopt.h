/**
 * @file gpuopt.h
 * @brief gpuopt: CUDA kernels with a stable C ABI.
 *
 * The one public header of gpuopt. It is C99 and compiles warning-free as C and C++.
 *
 * Conventions every function follows:
 * - Every function returns a ::gpuopt_status_t. On failure the calling thread's message
 *   (gpuopt_last_error_message()) names the function, the argument and what was expected.
 * - Handles are opaque. Destroy functions accept NULL. A destroyed or foreign handle is answered
 *   ::GPUOPT_ERROR_INVALID_HANDLE where it can be detected (handles carry a magic tag).
 * - Structs that may grow start with `size_t struct_size`; set it to `sizeof(the struct)`. The
 *   library reads and writes only the fields that size covers.
 * - Operations take plain device pointers from any allocator (gpuopt buffers, cudaMalloc,
 *   PyTorch, CuPy) and a stream; they enqueue and return without synchronizing.
 * - Matrices are column-major with leading dimensions; sizes are int64_t.
 *
 * Thread safety (see also docs/threading.md):
 * - Global functions (version, names, device queries, last error, logging) are thread-safe.
 * - A ::gpuopt_context_t may be used by several threads at once, as long as concurrent enqueueing
 *   calls name different streams. Creating and destroying streams, buffers and graphs of one
 *   context from several threads at once is safe. gpuopt_context_destroy() must not race with any
 *   other use of the context or its objects.
 * - A ::gpuopt_stream_t is used by one thread at a time (like a cudaStream_t whose order you care
 *   about): its per-stream cuBLAS handle and workspace are not shared.
 * - A ::gpuopt_buffer_t may be read (pointer, size, kind queries) from any thread; its copies are
 *   ordered by the stream they are given.
 * - A ::gpuopt_graph_t may be launched from several threads on different streams; updating it
 *   (gpuopt_graph_end_update()) must not race with a launch of the same graph.
 */
#ifndef GPUOPT_H
#define GPUOPT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** @defgroup base Version, status and errors
 *  @{ */

/** Export macro: marks the public symbols of the shared library. */
#if defined(GPUOPT_STATIC_DEFINE)
#define GPUOPT_API
#elif defined(_WIN32)
#if defined(GPUOPT_BUILDING)
#define GPUOPT_API __declspec(dllexport)
#else
#define GPUOPT_API __declspec(dllimport)
#endif
#else
#define GPUOPT_API __attribute__((visibility("default")))
#endif

/** Major version: changes only when the ABI breaks (the SONAME carries it). */
#define GPUOPT_VERSION_MAJOR 0
/** Minor version: new functions or enum values, ABI compatible. */
#define GPUOPT_VERSION_MINOR 1
/** Patch version: fixes only. */
#define GPUOPT_VERSION_PATCH 0
/** The version as one integer: major * 10000 + minor * 100 + patch. */
#define GPUOPT_VERSION \
  (GPUOPT_VERSION_MAJOR * 10000 + GPUOPT_VERSION_MINOR * 100 + GPUOPT_VERSION_PATCH)

/** Status of every call. Values are stable; new ones are only ever appended. */
typedef enum gpuopt_status_t {
  GPUOPT_SUCCESS = 0, /**< The call did what it says. */
  GPUOPT_ERROR_INVALID_ARGUMENT =
      1,                           /**< An argument is NULL, negative, too small or inconsistent. */
  GPUOPT_ERROR_INVALID_HANDLE = 2, /**< A handle is NULL, destroyed, or not of the expected kind. */
  GPUOPT_ERROR_NO_DEVICE = 3,      /**< No CUDA device or no usable driver. */
  GPUOPT_ERROR_UNSUPPORTED = 4,    /**< Valid request this device, dtype or variant cannot do. */
  GPUOPT_ERROR_OUT_OF_MEMORY = 5,  /**< A device or host allocation failed. */
  GPUOPT_ERROR_MISALIGNED = 6,     /**< A pointer lacks the alignment the call needs. */
  GPUOPT_ERROR_CAPTURE_ILLEGAL = 7, /**< Not allowed while a stream of this thread is captured. */
  GPUOPT_ERROR_NOT_FOUND = 8,       /**< A name (variant, op) is unknown. */
  GPUOPT_ERROR_CUDA = 9,      /**< The CUDA runtime or driver failed; the message has its text. */
  GPUOPT_ERROR_CUBLAS = 10,   /**< cuBLAS failed; the message has its status. */
  GPUOPT_ERROR_INTERNAL = 11, /**< A bug in gpuopt: please report the message. */
  GPUOPT_ERROR_WRONG_DEVICE = 12, /**< A pointer or stream belongs to another device. */
  GPUOPT_ERROR_COMM = 13 /**< NCCL failed or a peer gave up; the message has NCCL's result. The
                              communicator may be unusable: abort it (gpuopt_comm_abort()). */
} gpuopt_status_t;

/** Library version as ::GPUOPT_VERSION of the built library (may differ from the header's). */
GPUOPT_API int gpuopt_version(void);

/** Library version as a string, "MAJOR.MINOR.PATCH". Never NULL; static storage. */
GPUOPT_API const char* gpuopt_version_string(void);

/** The constant's name of a status ("GPUOPT_ERROR_INVALID_ARGUMENT"); "GPUOPT_STATUS_UNKNOWN"
 *  for values this library does not know. Never NULL; static storage. */
GPUOPT_API const char* gpuopt_status_name(gpuopt_status_t status);

/**
 * Copies the calling thread's message for its last failed gpuopt call into @p buf.
 *
 * The message names the function and the argument, what was expected, and the CUDA or cuBLAS
 * error text where one was the cause. It is kept until the thread's next failed call. The copy is
 * always NUL-terminated and truncated to @p size - 1 characters.
 *
 * @param buf  destination; may be NULL only when @p size is 0.
 * @param size bytes available at @p buf.
 * @param length if not NULL, receives the full length of the message (without the NUL), so a
 *               caller can size its buffer.
 * @return ::GPUOPT_SUCCESS, or ::GPUOPT_ERROR_INVALID_ARGUMENT when @p buf is NULL and @p size > 0.
 */
GPUOPT_API gpuopt_status_t gpuopt_last_error_message(char* buf, size_t size, size_t* length);

/** @} */

/** @defgroup logging Logging
 *  What the library logs: each dispatch decision (op, problem, variant chosen and why) at
 *  ::GPUOPT_LOG_INFO, every candidate with its verdict at ::GPUOPT_LOG_DEBUG, and runtime events
 *  (compressible memory fallbacks, frees deferred past graph captures). Off by default. The level
 *  starts from the environment variable `GPUOPT_LOG` (`info` or `debug`), read once per process;
 *  gpuopt_set_log_level() overrides it. Lines go to stderr, one whole line per write, unless a
 *  callback is installed with gpuopt_set_log_callback().
 *  @{ */

/** How much the library logs. Values are stable; new ones are only ever appended. */
typedef enum gpuopt_log_level_t {
  GPUOPT_LOG_OFF = 0,  /**< Nothing (the default without `GPUOPT_LOG`). */
  GPUOPT_LOG_INFO = 1, /**< Dispatch decisions and runtime events. */
  GPUOPT_LOG_DEBUG = 2 /**< Also every candidate variant with its verdict. */
} gpuopt_log_level_t;

/**
 * A log sink: receives one line at a time.
 *
 * @param level   ::GPUOPT_LOG_INFO or ::GPUOPT_LOG_DEBUG.
 * @param message the line, NUL-terminated, without a trailing newline or level prefix; valid only
 *                during the call.
 * @param user    the pointer given to gpuopt_set_log_callback().
 *
 * Called on the logging thread, one call at a time (need not be thread-safe). It must not call
 * gpuopt_set_log_callback() (refused) nor wait on a thread that logs; its gpuopt calls do not log.
 */
typedef void (*gpuopt_log_fn)(gpuopt_log_level_t level, const char* message, void* user);

/**
 * Sends the library's log lines to @p fn instead of stderr, for the whole process.
 *
 * Thread-safe. When the call returns, no thread is inside the previous callback any more and none
 * will enter it, so its @p user data may be freed. The level is unchanged: set it with
 * gpuopt_set_log_level() (a callback receives nothing while the level is ::GPUOPT_LOG_OFF).
 *
 * @param fn   the sink; NULL restores the default (stderr, "[gpuopt info] message").
 * @param user passed to every call of @p fn; may be NULL.
 * @return ::GPUOPT_SUCCESS, or ::GPUOPT_ERROR_INVALID_ARGUMENT when called from inside a log
 *         callback (nothing changes).
 */
GPUOPT_API gpuopt_status_t gpuopt_set_log_callback(gpuopt_log_fn fn, void* user);

/**
 * Sets how much the library logs, for the whole process; overrides `GPUOPT_LOG`. Thread-safe.
 *
 * @return ::GPUOPT_SUCCESS, or ::GPUOPT_ERROR_INVALID_ARGUMENT for a value that is not a
 *         ::gpuopt_log_level_t (the level is unchanged).
 */
GPUOPT_API gpuopt_status_t gpuopt_set_log_level(gpuopt_log_level_t level);

/** The current log level (from `GPUOPT_LOG` until gpuopt_set_log_level() is called).
 *  @param level receives it. @return ::GPUOPT_SUCCESS, or ::GPUOPT_ERROR_INVALID_ARGUMENT when
 *  @p level is NULL. */
GPUOPT_API gpuopt_status_t gpuopt_get_log_level(gpuopt_log_level_t* level);

/** @} */

/** @defgroup device Devices
 *  @{ */

/** Description of a device. Set struct_size = sizeof(gpuopt_device_info_t) before the call. */
typedef struct gpuopt_device_info_t {
  size_t struct_size;                   /**< sizeof(gpuopt_device_info_t), set by the caller. */
  int device;                           /**< CUDA device ordinal. */
  char name[256];                       /**< Marketing name, NUL-terminated. */
  int cc_major;                         /**< Compute capability, major. */
  int cc_minor;                         /**< Compute capability, minor. */
  int sm_count;                         /**< Streaming multiprocessors. */
  int max_threads_per_sm;               /**< Resident threads per SM. */
  size_t total_memory;                  /**< Device memory in bytes. */
  size_t l2_cache_bytes;                /**< L2 cache in bytes. */
  size_t shared_memory_per_block_optin; /**< Shared memory a block may opt in to, bytes. */
  size_t shared_memory_per_sm;          /**< Shared memory per SM, bytes. */
  int supports_clusters;      /**< 1 when thread-block clusters can be launched (cc >= 9.0). */
  int supports_tma;           /**< 1 when the tensor memory accelerator exists (cc >= 9.0). */
  int supports_compression;   /**< 1 when the driver offers generic compressible memory. */
  int supports_mapped_memory; /**< 1 when host memory can be mapped into the device. */
  int memory_clock_khz;       /**< Peak memory clock, kHz. */
  int memory_bus_width_bits;  /**< Memory bus width, bits. */
  double theoretical_bandwidth_gbs; /**< 2 * clock * bus width / 8, in GB/s (1e9 bytes). */
  int driver_version;               /**< CUDA driver version, e.g. 13000. */
  int runtime_version;              /**< CUDA runtime gpuopt was built with, e.g. 13000. */
} gpuopt_device_info_t;

/** Number of CUDA devices. Without a driver or device: *count = 0 and ::GPUOPT_ERROR_NO_DEVICE. */
GPUOPT_API gpuopt_status_t gpuopt_device_count(int* count);

/** Describes device @p device without creating a context. */
GPUOPT_API gpuopt_status_t gpuopt_device_info(int device, gpuopt_device_info_t* info);

/** @} */

/** @defgroup context Contexts
 *  A context binds one device and owns the variant registry, forced choices and dispatch log.
 *  @{ */

/** Opaque context handle. */
typedef struct gpuopt_context_s* gpuopt_context_t;

/**
 * Creates a context on CUDA device @p device.
 *
 * Reads `GPUOPT_VARIANT_<OP>` (for example `GPUOPT_VARIANT_AXPY=naive`) from the environment
 * (`GPUOPT_LOG`: see @ref logging). Without a driver or without a GPU it answers
 * ::GPUOPT_ERROR_NO_DEVICE and its message says which of the two is missing.
 */
GPUOPT_API gpuopt_status_t gpuopt_context_create(int device, gpuopt_context_t* ctx);

/** Destroys a context. All its streams, buffers and graphs must be destroyed first; the call
 *  answers ::GPUOPT_ERROR_INVALID_ARGUMENT (and destroys nothing) when some remain. NULL is a
 *  no-op. */
GPUOPT_API gpuopt_status_t gpuopt_context_destroy(gpuopt_context_t ctx);

/** Describes the context's device. */
GPUOPT_API gpuopt_status_t gpuopt_context_device_info(gpuopt_context_t ctx,
                                                      gpuopt_device_info_t* info);

/**
 * Device-memory callbacks a context allocates through (gpuopt_context_set_allocator()), so that
 * a framework's pool (PyTorch's caching allocator, RMM) serves gpuopt's stream workspaces and its
 * ::GPUOPT_MEMORY_DEVICE buffers. See @ref memory "Memory".
 */
typedef struct gpuopt_allocator_t {
  size_t struct_size; /**< sizeof(gpuopt_allocator_t), set by the caller */
  /** Returns @p bytes of memory of the context's device, aligned to at least 256 bytes, or NULL
   *  when it cannot (the gpuopt call then answers ::GPUOPT_ERROR_OUT_OF_MEMORY). @p cuda_stream
   *  is the cudaStream_t whose order the memory must be usable in; gpuopt passes NULL (the
   *  legacy default stream) today: its memory outlives any one stream and may be used on every
   *  stream of the device, so a stream-ordered pool must hand out memory usable everywhere. */
  void* (*allocate)(size_t bytes, void* cuda_stream, void* user);
  /** Takes back what allocate returned, with the same @p bytes and @p cuda_stream. gpuopt calls it
   *  only once no work it enqueued uses the memory any more (it has synchronized the device, or,
   *  after gpuopt_buffer_destroy_async(), the work of that call's stream up to the free has
   *  completed), so the block may be reused at once on any stream. */
  void (*deallocate)(void* ptr, size_t bytes, void* cuda_stream, void* user);
  void* user; /**< passed to both callbacks unchanged */
} gpuopt_allocator_t;

/**
 * Makes @p ctx allocate its device memory through @p allocator (copied; the callbacks and user
 * must stay valid until the context is destroyed or another allocator is set): stream
 * workspaces (cuBLAS and op workspace) and ::GPUOPT_MEMORY_DEVICE buffers. NULL restores
 * gpuopt's own allocation (cudaMalloc). Allowed only while the context owns no streams, buffers
 * or graphs (else ::GPUOPT_ERROR_INVALID_ARGUMENT); workspaces the context keeps pooled are
 * given back to the allocator that made them first. Pinned, mapped and compressible buffers
 * are not allocated through it.
 */
GPUOPT_API gpuopt_status_t gpuopt_context_set_allocator(gpuopt_context_t ctx,
                                                        const gpuopt_allocator_t* allocator);

/**
 * How a context checks the raw device pointers its ops are given (see @ref memory "Memory",
 * "Pointer checks"). gpuopt's own buffers (gpuopt_buffer_create(), gpuopt_buffer_wrap()) are
 * checked exactly in both modes: gpuopt sees them created and destroyed.
 */
typedef enum gpuopt_pointer_checks_t {
  /** The default: every raw pointer operand is checked against the driver on every call (one
   *  buffer-ID query when its allocation is cached, shared by the call's operands inside that
   *  allocation; the full attribute and extent queries otherwise), so memory the caller freed, or
   *  freed and reallocated at the same address, is refused with ::GPUOPT_ERROR_INVALID_ARGUMENT
   *  instead of being used. */
  GPUOPT_POINTER_CHECKS_FULL = 0,
  /** An allocation of the caller validated once (memory kind, device, allocation bounds) is
   *  trusted by later calls on this context without a driver query, as cuBLAS and CUB trust
   *  every pointer. Still checked on every call: NULL, alignment, and that the operand's extent
   *  lies inside the cached allocation (anything else is checked by the driver again). Not
   *  detected: memory the caller freed after it was cached; using it is then the caller's bug,
   *  as with cuBLAS. Safe for pools that keep their blocks mapped (PyTorch's caching allocator,
   *  RMM pools); call gpuopt_context_forget_pointers() after memory is given back to the driver
   *  (cudaFree, emptying a pool's cache). */
  GPUOPT_POINTER_CHECKS_CACHED = 1
} gpuopt_pointer_checks_t;

/**
 * Sets how @p ctx checks raw pointer operands (::gpuopt_pointer_checks_t). Takes effect for calls
 * that start after it returns; safe while other threads call ops on the context (the mode is one
 * atomic value). Allocations cached in either mode stay cached; in ::GPUOPT_POINTER_CHECKS_FULL
 * mode each use re-checks them. A context starts in the mode the environment variable
 * GPUOPT_POINTER_CHECKS names (`full` or `cached`, read at gpuopt_context_create(); any other
 * value is logged (::GPUOPT_LOG_INFO) and ignored), else ::GPUOPT_POINTER_CHECKS_FULL.
 * ::GPUOPT_ERROR_INVALID_ARGUMENT for a @p mode that is not one of the enum's values.
 */
GPUOPT_API gpuopt_status_t gpuopt_context_set_pointer_checks(gpuopt_context_t ctx,
                                                             gpuopt_pointer_checks_t mode);

/** The pointer-check mode of @p ctx (gpuopt_context_set_pointer_checks()) into @p mode. */
GPUOPT_API gpuopt_status_t gpuopt_context_pointer_checks(gpuopt_context_t ctx,
                                                         gpuopt_pointer_checks_t* mode);

/**
 * Drops every allocation of the caller that @p ctx has validated and cached, so that the next
 * call using each is checked by the driver again (gpuopt's own buffers stay known). Call it in
 * ::GPUOPT_POINTER_CHECKS_CACHED mode after memory an op was given is returned to the driver;
 * harmless (and rarely useful) in ::GPUOPT_POINTER_CHECKS_FULL mode. Safe while other threads
 * call ops on the context; a call running concurrently may still use what it looked up before.
 */
GPUOPT_API gpuopt_status_t gpuopt_context_forget_pointers(gpuopt_context_t ctx);

/** @} */

/** @defgroup stream Streams
 *  A gpuopt stream is a CUDA stream plus what enqueueing on it needs (a cuBLAS handle and
 *  workspaces of its own while it lives). Creating or wrapping one allocates nothing: the stream
 *  takes them from its context's pool at its first op or at gpuopt_graph_begin(), whichever comes
 *  first, and gives them back when destroyed, so that wrapping a framework's stream per call is
 *  cheap and nothing allocates during a capture.
 *  @{ */

/** Opaque stream handle. */
typedef struct gpuopt_stream_s* gpuopt_stream_t;

/** Creates a non-blocking CUDA stream owned by the gpuopt stream. */
GPUOPT_API gpuopt_status_t gpuopt_stream_create(gpuopt_context_t ctx, gpuopt_stream_t* stream);

/** Wraps (borrows) a caller's cudaStream_t, passed as @p cuda_stream. NULL means the legacy
 *  default stream. The caller keeps it alive until gpuopt_stream_destroy(). */
GPUOPT_API gpuopt_status_t gpuopt_stream_wrap(gpuopt_context_t ctx, void* cuda_stream,
                                              gpuopt_stream_t* stream);

/** The underlying cudaStream_t, for mixing gpuopt with other CUDA work. */
GPUOPT_API gpuopt_status_t gpuopt_stream_native(gpuopt_stream_t stream, void** cuda_stream);

/** Waits until all work enqueued on the stream has finished. Illegal while it is captured. */
GPUOPT_API gpuopt_status_t gpuopt_stream_synchronize(gpuopt_stream_t stream);

/** Destroys the gpuopt stream (and its CUDA stream unless wrapped). NULL is a no-op. */
GPUOPT_API gpuopt_status_t gpuopt_stream_destroy(gpuopt_stream_t stream);

/** @} */

/** @defgroup buffer Buffers
 *  Memory of the kinds a user cannot get with one call, and wrapped external memory.
 *  @{ */

/** Opaque buffer handle. */
typedef struct gpuopt_buffer_s* gpuopt_buffer_t;

/** Kind of memory a buffer holds. */
typedef enum gpuopt_memory_kind_t {
  GPUOPT_MEMORY_DEVICE = 0,       /**< Device memory: from the device's current stream-ordered
                                       pool (cudaMallocAsync) where the device supports memory
                                       pools, else cudaMalloc; the context's allocator when one is
                                       set. */
  GPUOPT_MEMORY_PINNED_HOST = 1,  /**< Page-locked host memory (fast async copies). */
  GPUOPT_MEMORY_MAPPED = 2,       /**< Pinned host memory mapped into the device (zero-copy). */
  GPUOPT_MEMORY_COMPRESSIBLE = 3, /**< Device memory from the driver VMM API with generic
                                       compression requested; see gpuopt_buffer_is_compressed(). */
  GPUOPT_MEMORY_EXTERNAL = 4      /**< Device memory owned by the caller (gpuopt_buffer_wrap()). */
} gpuopt_memory_kind_t;

/**
 * Allocates @p bytes (> 0) of memory of @p kind.
 *
 * ::GPUOPT_MEMORY_COMPRESSIBLE asks the driver for compressible memory where the device supports
 * it. When it does not, or the driver hands back an uncompressed allocation, the buffer is still
 * created (plain VMM device memory) and gpuopt_buffer_is_compressed() reports 0: check it.
 * Illegal while a stream of this thread is captured (::GPUOPT_ERROR_CAPTURE_ILLEGAL).
 */
GPUOPT_API gpuopt_status_t gpuopt_buffer_create(gpuopt_context_t ctx, size_t bytes,
                                                gpuopt_memory_kind_t kind, gpuopt_buffer_t* buffer);

/** Wraps (borrows) @p bytes of the caller's device memory at @p device_ptr. The memory must stay
 *  allocated until the buffer is destroyed: while it lives, operands inside the wrapped range are
 *  checked without a driver query (see @ref memory "Memory"). */
GPUOPT_API gpuopt_status_t gpuopt_buffer_wrap(gpuopt_context_t ctx, void* device_ptr, size_t bytes,
                                              gpuopt_buffer_t* buffer);

/** Device address of the buffer (for mapped memory: the device alias of the host memory).
 *  ::GPUOPT_ERROR_UNSUPPORTED for pinned host memory, which the device cannot address. */
GPUOPT_API gpuopt_status_t gpuopt_buffer_device_pointer(gpuopt_buffer_t buffer, void** ptr);

/** Host address of pinned or mapped buffers; ::GPUOPT_ERROR_UNSUPPORTED for device kinds. */
GPUOPT_API gpuopt_status_t gpuopt_buffer_host_pointer(gpuopt_buffer_t buffer, void** ptr);

/** Size in bytes as requested at creation. */
GPUOPT_API gpuopt_status_t gpuopt_buffer_size(gpuopt_buffer_t buffer, size_t* bytes);

/** Kind of memory. */
GPUOPT_API gpuopt_status_t gpuopt_buffer_kind(gpuopt_buffer_t buffer, gpuopt_memory_kind_t* kind);

/** 1 when the driver confirmed a compressible allocation, else 0 (always 0 for other kinds). */
GPUOPT_API gpuopt_status_t gpuopt_buffer_is_compressed(gpuopt_buffer_t buffer, int* compressed);

/** Enqueues a copy of @p bytes from host memory @p src to the buffer at byte @p offset.
 *  Pageable @p src is copied synchronously by CUDA and is illegal during capture; pinned @p src is
 *  asynchronous. */
GPUOPT_API gpuopt_status_t gpuopt_buffer_copy_from_host(gpuopt_buffer_t buffer,
                                                        gpuopt_stream_t stream, size_t offset,
                                                        const void* src, size_t bytes);

/** Enqueues a copy of @p bytes at byte @p offset of the buffer to host memory @p dst. */
GPUOPT_API gpuopt_status_t gpuopt_buffer_copy_to_host(gpuopt_buffer_t buffer,
                                                      gpuopt_stream_t stream, size_t offset,
                                                      void* dst, size_t bytes);

/** Frees the buffer's memory (not for wrapped memory) and the handle. Synchronizes the device
 *  first, as cudaFree does; illegal during capture. NULL is a no-op. */
GPUOPT_API gpuopt_status_t gpuopt_buffer_destroy(gpuopt_buffer_t buffer);

/**
 * Destroys the handle at once and frees the buffer's memory in the order of @p stream, as
 * cudaFreeAsync does: the memory is reused only after the work already enqueued on @p stream,
 * and nothing is synchronized (the call returns while that work still runs). Work on other
 * streams that uses the buffer must be ordered before the free by the caller, e.g. an event
 * recorded there and waited for on @p stream (cudaStreamWaitEvent), exactly as for
 * cudaFreeAsync.
 *
 * Stream-ordered for ::GPUOPT_MEMORY_DEVICE buffers: on devices with memory pools
 * (cudaDevAttrMemoryPoolsSupported; the buffer then came from the pool) through cudaFreeAsync;
 * for a context with an allocator, an event recorded on @p stream is kept with the memory, and
 * the allocator's deallocate is called once it has completed, from a later buffer call of the
 * context (gpuopt_buffer_create(), gpuopt_buffer_destroy(), gpuopt_buffer_destroy_async()) or
 * gpuopt_context_destroy(), which waits for it. Other buffers (pinned, mapped and compressible
 * memory, device memory where the device has no pools) are freed as gpuopt_buffer_destroy() frees
 * them: after a device synchronization; wrapped memory is never freed. Not deferred by the free
 * gate, and legal while another thread captures (see @ref threading "Thread safety"). Illegal while
 * this thread captures or while @p stream's CUDA stream is captured
 * (::GPUOPT_ERROR_CAPTURE_ILLEGAL, nothing changed). @p stream must belong to the buffer's context.
 * NULL @p buffer is a no-op.
 */
GPUOPT_API gpuopt_status_t gpuopt_buffer_destroy_async(gpuopt_buffer_t buffer,
                                                       gpuopt_stream_t stream);

/** @} */

/** @defgroup graph Graphs
 *  Record gpuopt calls (and any other CUDA work) on a stream once, replay them with one launch.
 *  @{ */

/** Opaque executable-graph handle. */
typedef struct gpuopt_graph_s* gpuopt_graph_t;

/** Starts capturing @p stream (thread-local capture mode). Until gpuopt_graph_end(), this thread
 *  must not allocate or synchronize: gpuopt calls that would answer
 *  ::GPUOPT_ERROR_CAPTURE_ILLEGAL. */
GPUOPT_API gpuopt_status_t gpuopt_graph_begin(gpuopt_context_t ctx, gpuopt_stream_t stream);

/** Ends the capture begun on @p stream and instantiates it into a new executable graph. */
GPUOPT_API gpuopt_status_t gpuopt_graph_end(gpuopt_stream_t stream, gpuopt_graph_t* graph);

/** Ends the capture begun on @p stream and updates @p graph with it: in place
 *  (cudaGraphExecUpdate) when the topology is the same, else by re-instantiating. @p in_place,
 *  when not NULL, receives 1 or 0 accordingly. */
GPUOPT_API gpuopt_status_t gpuopt_graph_end_update(gpuopt_stream_t stream, gpuopt_graph_t graph,
                                                   int* in_place);

/** Enqueues one replay of @p graph on @p stream. */
GPUOPT_API gpuopt_status_t gpuopt_graph_launch(gpuopt_graph_t graph, gpuopt_stream_t stream);

/** Destroys the executable graph. NULL is a no-op. */
GPUOPT_API gpuopt_status_t gpuopt_graph_destroy(gpuopt_graph_t graph);

/** @} */

/** @defgroup dispatch Variants and dispatch
 *  Each operation has a ladder of kernel variants. The dispatcher picks the best that can run the
 *  problem on the device; a caller can list them and force one.
 *  @{ */

/** Operations. Values are stable; new ones are appended. */
typedef enum gpuopt_op_t {
  GPUOPT_OP_AXPY = 0, /**< y = alpha * x + y (gpuopt_axpy()). */
  GPUOPT_OP_GEMM = 1, /**< C = alpha * op(A) op(B) + beta * C (gpuopt_gemm()). */
  GPUOPT_OP_REDUCE =
      2, /**< Sum, min, max, argmin, argmax of arrays or segments (gpuopt_reduce()). */
  GPUOPT_OP_SEGMENTED_SORT = 3, /**< Stable sort of each segment (gpuopt_segmented_sort()). */
  GPUOPT_OP_STENCIL = 4,        /**< 2D/3D star stencils (gpuopt_stencil()). */
  GPUOPT_OP_TRANSPOSE = 5,      /**< Out-of-place matrix transpose (gpuopt_transpose()). */
  GPUOPT_OP_GDN = 6 /**< GDN normalization, forward and backward (gpuopt_gdn_forward()). */
} gpuopt_op_t;

/** Element types. Values are stable; new ones are appended. */
typedef enum gpuopt_dtype_t {
  GPUOPT_DTYPE_F32 = 0,  /**< IEEE binary32. */
  GPUOPT_DTYPE_F64 = 1,  /**< IEEE binary64. */
  GPUOPT_DTYPE_F16 = 2,  /**< IEEE binary16. */
  GPUOPT_DTYPE_BF16 = 3, /**< bfloat16. */
  GPUOPT_DTYPE_I32 = 4,  /**< 32-bit signed integer. */
  GPUOPT_DTYPE_I64 = 5,  /**< 64-bit signed integer. */
  GPUOPT_DTYPE_U32 = 6,  /**< 32-bit unsigned integer. */
  GPUOPT_DTYPE_U64 = 7   /**< 64-bit unsigned integer. */
} gpuopt_dtype_t;

/** Name of an op ("axpy"); NULL for values this library does not know. */
GPUOPT_API const char* gpuopt_op_name(gpuopt_op_t op);

/** Name of a dtype ("f32"); NULL for values this library does not know. */
GPUOPT_API const char* gpuopt_dtype_name(gpuopt_dtype_t dtype);

/** Description of one variant. Set struct_size = sizeof(gpuopt_variant_info_t). */
typedef struct gpuopt_variant_info_t {
  size_t struct_size;    /**< sizeof(gpuopt_variant_info_t), set by the caller. */
  const char* name;      /**< Stable name, e.g. "vec4_gridstride"; static storage. */
  const char* technique; /**< One line: what the variant does; static storage. */
  int min_cc;            /**< Lowest compute capability, as major * 10 + minor. */
  int exact_cc;          /**< Nonzero for arch-specific code (90 for sm_90a): only that cc. */
  int is_vendor;         /**< 1 for the vendor library routine (cuBLAS, CUB). */
  int available;         /**< 1 when it can run on the context's device. */
  unsigned dtype_mask;   /**< Bit (1u << dtype) set for each supported ::gpuopt_dtype_t. */
} gpuopt_variant_info_t;

/** Number of variants of @p op. */
GPUOPT_API gpuopt_status_t gpuopt_variant_count(gpuopt_context_t ctx, gpuopt_op_t op, int* count);

/** Name of variant @p index (0 <= index < count) of @p op; static storage. */
GPUOPT_API gpuopt_status_t gpuopt_variant_name(gpuopt_context_t ctx, gpuopt_op_t op, int index,
                                               const char** name);

/** Description of variant @p index of @p op. */
GPUOPT_API gpuopt_status_t gpuopt_variant_info(gpuopt_context_t ctx, gpuopt_op_t op, int index,
                                               gpuopt_variant_info_t* info);

/**
 * Forces variant @p name for @p op on this context; NULL or "auto" returns to automatic choice.
 * @p name may name one of the variant's run-time configurations after a colon,
 * "variant:config" (e.g. "sm90_tma_wgmma:pingpong_c1", "cublaslt:algo2"; @ref tuning lists them):
 * the variant then runs that configuration instead of its own rule.
 * ::GPUOPT_ERROR_NOT_FOUND for unknown names (variant or configuration), ::GPUOPT_ERROR_UNSUPPORTED
 * when the variant cannot run on this device. A forced variant (or configuration) that cannot
 * implement a particular problem makes that call answer ::GPUOPT_ERROR_UNSUPPORTED with the
 * reason; the dispatcher does not fall back.
 */
GPUOPT_API gpuopt_status_t gpuopt_context_set_variant(gpuopt_context_t ctx, gpuopt_op_t op,
                                                      const char* name);

/** Name of the forced variant of @p op (without a forced configuration), or "auto". */
GPUOPT_API gpuopt_status_t gpuopt_context_get_variant(gpuopt_context_t ctx, gpuopt_op_t op,
                                                      const char** name);

/** Name of the variant the last successful call of @p op on this context ran (by any thread), or
 *  NULL when none ran yet; static storage. */
GPUOPT_API gpuopt_status_t gpuopt_last_variant(gpuopt_context_t ctx, gpuopt_op_t op,
                                               const char** name);

/**
 * Attaches the tuning cache file @p path to the context (see @ref tuning): reads it now, and from
 * then on auto dispatch runs the variant (and run-time configuration) it records for a problem's
 * class, falling back to the built-in preference rules for classes it does not list, for a
 * recorded variant or configuration that cannot implement the particular problem, and always
 * under a forced variant. gpuopt_tune() writes its
 * results back to @p path. A missing file is an empty cache (gpuopt_tune() creates it); a file
 * made for another device, driver or gpuopt version, or one that does not parse, is ignored with
 * one log line (::GPUOPT_LOG_INFO) and the call still succeeds with an empty cache:
 * gpuopt_context_tune_cache_entries() tells how many classes were loaded. NULL detaches the file
 * and forgets the cache (dispatch by the rules again). A context created while the environment
 * variable GPUOPT_TUNE_CACHE names a file starts with that file attached; by default none is.
 * ::GPUOPT_ERROR_INVALID_ARGUMENT for an empty path.
 */
GPUOPT_API gpuopt_status_t gpuopt_context_set_tune_cache(gpuopt_context_t ctx, const char* path);

/** Number of problem classes in the context's tuning cache (0 when none is attached). */
GPUOPT_API gpuopt_status_t gpuopt_context_tune_cache_entries(gpuopt_context_t ctx, int* entries);

/**
 * One call of the op being tuned, made by gpuopt_tune(): enqueue exactly one gpuopt call of that
 * op (e.g. gpuopt_gemm()) on the stream given to gpuopt_tune() and return its status. @p user is
 * gpuopt_tune()'s @p user.
 */
typedef gpuopt_status_t (*gpuopt_tune_call_fn)(void* user);

/** What gpuopt_tune() measured. Set struct_size = sizeof(gpuopt_tune_result_t). */
typedef struct gpuopt_tune_result_t {
  size_t struct_size;  /**< sizeof(gpuopt_tune_result_t), set by the caller. */
  const char* variant; /**< The variant now recorded for the class: the fastest, or the
                            preference rules' choice when no variant beats it by more than 1 %
                            (@ref tuning); static storage. */
  double ms;           /**< Its median time per call, milliseconds. */
  int timed;           /**< Candidates (variants, and the run-time configurations of the rungs
                            that have them) that ran the problem and were timed. */
  int refused;         /**< Candidates that cannot run it (dtype, device or problem). */
  const char* config;  /**< The recorded variant's run-time configuration (e.g. "coop_c2" of
                            sm90_tma_wgmma, "algo3" of cublaslt: @ref tuning), or NULL for the
                            rung's own rule; static storage. Written only when struct_size covers
                            it (a caller built against a header whose struct ended at refused
                            still gets the other fields). */
} gpuopt_tune_result_t;

/**
 * Times every variant of @p op on one problem, and each run-time configuration of the rungs that
 * have some (sm90_tma_wgmma's schedule and cluster size, cublaslt's heuristic algorithms), and
 * records the fastest for the problem's class (@ref tuning defines the classes and lists the
 * configurations; the preference rules' own choice stays unless another candidate is more than
 * 1 % faster head to head) in the context's tuning cache, which auto dispatch then
 * follows; when a cache file is attached (gpuopt_context_set_tune_cache()) it is rewritten
 * atomically with the new entry. The problem is whatever @p call enqueues on @p stream: gpuopt_tune
 * calls it many times (each variant once untimed, interleaved timed rounds, then the two fastest
 * head to head, within about @p budget_seconds of measurement: @ref tuning), so the call
 * must be repeatable: it overwrites its outputs each time (GEMM with beta != 0 accumulates into
 * C). Variants whose single call takes over 4x the fastest one's are dropped after the first
 * round. Do not call @p op on this context from other threads while it runs: their calls would
 * dispatch as usual but are not part of the measurement. @p result may be NULL.
 * ::GPUOPT_ERROR_INVALID_ARGUMENT when @p call is NULL, @p budget_seconds is not positive and
 * finite, or the calls span several problem classes or none; ::GPUOPT_ERROR_UNSUPPORTED when no
 * variant can run the problem; the first error of @p call otherwise. Not allowed while a stream of
 * this thread is being captured.
 */
GPUOPT_API gpuopt_status_t gpuopt_tune(gpuopt_context_t ctx, gpuopt_stream_t stream, gpuopt_op_t op,
                                       gpuopt_tune_call_fn call, void* user, double budget_seconds,
                                       gpuopt_tune_result_t* result);

/** @} */

/** @defgroup ops Operations
 *  @{ */

/**
 * y[i * incy] = alpha * x[i * incx] + y[i * incy] for 0 <= i < n, enqueued on @p stream.
 *
 * @param ctx    the context; x and y must be memory its device can access.
 * @param stream where the work is enqueued (a stream of @p ctx).
 * @param dtype  ::GPUOPT_DTYPE_F32 or ::GPUOPT_DTYPE_F64.
 * @param n      number of elements, >= 0 (0 is a no-op).
 * @param alpha  the scale of x, converted to @p dtype.
 * @param x,y   device-accessible pointers of the context's device covering
 *              1 + (n - 1) * inc elements; x may equal y.
 * @param incx,incy strides in elements, >= 1.
 *
 * Variants: `naive` (one thread per element), `vec4_gridstride` (16-byte vector loads in a
 * grid-stride loop), `vec4_blocktile` (16-byte vectors, each block a contiguous tile: the best on
 * compressible memory), `cublas` (cublasSaxpy/cublasDaxpy). The vector variants need incx = incy
 * = 1 and 16-byte-aligned x and y; otherwise auto dispatch takes `naive`.
 */
GPUOPT_API gpuopt_status_t gpuopt_axpy(gpuopt_context_t ctx, gpuopt_stream_t stream,
                                       gpuopt_dtype_t dtype, int64_t n, double alpha, const void* x,
                                       int64_t incx, void* y, int64_t incy);

/** Transposition of a GEMM operand. */
typedef enum gpuopt_transpose_t {
  GPUOPT_TRANS_N = 0, /**< op(X) = X. */
  GPUOPT_TRANS_T = 1  /**< op(X) = X^T. */
} gpuopt_transpose_t;

/** Arithmetic a GEMM may use. */
typedef enum gpuopt_compute_t {
  GPUOPT_COMPUTE_DEFAULT = 0, /**< The input type's own: f64 for f64, exact f32 for f32, f32
                                   accumulation for bf16/f16. */
  GPUOPT_COMPUTE_F32 = 1,     /**< f32 inputs: exact fp32 FMA, no tensor cores. */
  GPUOPT_COMPUTE_TF32 = 2,    /**< f32 inputs: TF32 tensor cores (10-bit mantissa products),
                                   f32 accumulation. */
  GPUOPT_COMPUTE_F64 = 3      /**< f64 inputs and accumulation. */
} gpuopt_compute_t;

/**
 * A GEMM problem: C = alpha * op(A) * op(B) + beta * C, column-major.
 *
 * op(A) is m x k, op(B) is k x n, C is m x n. Set struct_size = sizeof(gpuopt_gemm_desc_t).
 * Type combinations (a_type = b_type): f64 -> f64 (compute F64); f32 -> f32 (compute F32 or
 * TF32); bf16 -> f32 or bf16; f16 -> f32 or f16 (f32 accumulation).
 * beta = 0 never reads C (C may hold NaN). batch_count > 1 runs a strided batch: problem i uses
 * A + i * stride_a, B + i * stride_b, C + i * stride_c (strides in elements).
 */
typedef struct gpuopt_gemm_desc_t {
  size_t struct_size;         /**< sizeof(gpuopt_gemm_desc_t), set by the caller. */
  gpuopt_transpose_t trans_a; /**< op of A. */
  gpuopt_transpose_t trans_b; /**< op of B. */
  int64_t m;                  /**< Rows of op(A) and C, >= 0. */
  int64_t n;                  /**< Columns of op(B) and C, >= 0. */
  int64_t k;                  /**< Columns of op(A), rows of op(B), >= 0. */
  double alpha;               /**< Scale of the product (converted to the compute type). */
  double beta;                /**< Scale of C; 0 means C is written without being read. */
  gpuopt_dtype_t a_type;      /**< Element type of A and B. */
  gpuopt_dtype_t c_type;      /**< Element type of C. */
  gpuopt_compute_t compute;   /**< Arithmetic; ::GPUOPT_COMPUTE_DEFAULT picks the exact one. */
  int64_t lda;                /**< Leading dimension of A: >= rows of A as stored (m for N, k
                                   for T), and >= 1. */
  int64_t ldb;                /**< Leading dimension of B: >= k for N, n for T; >= 1. */
  int64_t ldc;                /**< Leading dimension of C: >= m; >= 1. */
  int64_t batch_count;        /**< Number of problems; 0 or 1 for a single GEMM. */
  int64_t stride_a;           /**< Elements between consecutive A of a batch. */
  int64_t stride_b;           /**< Elements between consecutive B of a batch. */
  int64_t stride_c;           /**< Elements between consecutive C of a batch; batches' C must
                                   not overlap. */
} gpuopt_gemm_desc_t;

/**
 * C = alpha * op(A) * op(B) + beta * C, enqueued on @p stream (see ::gpuopt_gemm_desc_t).
 *
 * Variants (gpuopt_variant_count() with ::GPUOPT_OP_GEMM lists those of this build): `naive`,
 * `smem_tiled`, `smem_coalesced_padded`, `register_blocked`, `warptiled_cpasync` (sm_80+),
 * `f64_tensorcore` (sm_80+ f64 mma.sync), `sm90_tma_wgmma` (sm_90a, bf16/f16/tf32), `cublas`,
 * `cublaslt` (cublasLtMatmul; every problem with k >= 1). Auto dispatch takes the fastest that
 * can implement the problem; unaligned pointers, odd leading
 * dimensions and tails are handled by predication or by routing to a variant that can.
 * Expected accuracy (relative Frobenius error against an f64 reference): f64 1e-12, f32 1e-5,
 * tf32 5e-3, bf16 2e-2.
 */
GPUOPT_API gpuopt_status_t gpuopt_gemm(gpuopt_context_t ctx, gpuopt_stream_t stream,
                                       const gpuopt_gemm_desc_t* desc, const void* A, const void* B,
                                       void* C);

/** Reduction operators of gpuopt_reduce(). Values are stable; new ones are appended. */
typedef enum gpuopt_reduce_op_t {
  GPUOPT_REDUCE_SUM = 0,    /**< Sum (integer sums widen or wrap; see gpuopt_reduce()). */
  GPUOPT_REDUCE_MIN = 1,    /**< Minimum; NaN propagates. */
  GPUOPT_REDUCE_MAX = 2,    /**< Maximum; NaN propagates. */
  GPUOPT_REDUCE_ARGMIN = 3, /**< int64 index of the first minimum (of the first NaN, if any). */
  GPUOPT_REDUCE_ARGMAX = 4  /**< int64 index of the first maximum (of the first NaN, if any). */
} gpuopt_reduce_op_t;

/** Reproducibility a gpuopt_reduce() call asks for. */
typedef enum gpuopt_reduce_mode_t {
  GPUOPT_REDUCE_DETERMINISTIC = 0, /**< Default: the same bits on every run (fixed-shape trees,
                                        no floating-point atomics). */
  GPUOPT_REDUCE_FAST = 1           /**< Permits variants whose floating-point sums may differ in
                                        the last bits between runs (atomics). No current variant
                                        uses this freedom: both modes run the same kernels. */
} gpuopt_reduce_mode_t;

/**
 * A reduction problem for gpuopt_reduce(). Set struct_size = sizeof(gpuopt_reduce_desc_t).
 *
 * Three layouts of the input, chosen by the fields:
 * - one reduction: offsets = NULL and num_segments 0 or 1; reduces in[0, n), writes out[0].
 * - fixed-size segments: offsets = NULL and num_segments > 1; segment s is
 *   in[s * segment_stride, s * segment_stride + n) (the rows of a row-major matrix with row pitch
 *   segment_stride), result s goes to out[s].
 * - variable segments: offsets != NULL; n is the element count of the whole input in[0, n) and
 *   segment s is in[offsets[s], offsets[s + 1]); num_segments results (0: nothing is written).
 */
typedef struct gpuopt_reduce_desc_t {
  size_t struct_size;        /**< sizeof(gpuopt_reduce_desc_t), set by the caller. */
  gpuopt_reduce_op_t op;     /**< What to compute. */
  gpuopt_dtype_t in_type;    /**< Element type of the input: i32, i64, u32, f32, f64, bf16, f16. */
  int64_t n;                 /**< >= 0. Elements per segment (fixed layouts), or the element count
                                  of the whole input (variable segments). */
  int64_t num_segments;      /**< >= 0. Number of segments (0 or 1: one reduction when offsets is
                                  NULL). */
  int64_t segment_stride;    /**< Fixed segments only: elements between the starts of consecutive
                                  segments, >= n. Ignored otherwise. */
  const int64_t* offsets;    /**< Variable segments: device array of num_segments + 1
                                  non-decreasing offsets in [0, n]; NULL for fixed layouts. */
  gpuopt_reduce_mode_t mode; /**< ::GPUOPT_REDUCE_DETERMINISTIC (default when struct_size does
                                  not cover this field) or ::GPUOPT_REDUCE_FAST. */
} gpuopt_reduce_desc_t;

/**
 * Reduces the input described by @p desc and writes one result per segment to device memory
 * @p out, enqueued on @p stream (so it can be captured in a graph; nothing is allocated).
 *
 * Result types (the element type of @p out):
 * | op             | i32 | i64 | u32 | f32 | f64 | bf16 | f16 |
 * | -------------- | --- | --- | --- | --- | --- | ---- | --- |
 * | SUM            | i64 | i64 | u64 | f32 | f64 | f32  | f32 |
 * | MIN, MAX       | i32 | i64 | u32 | f32 | f64 | f32  | f32 |
 * | ARGMIN, ARGMAX | i64 | i64 | i64 | i64 | i64 | i64  | i64 |
 * - Integer sums are exact: i32 widens to i64, u32 to u64; i64 sums wrap modulo 2^64.
 * - f32 sums: each thread adds its elements in f32 partial sums of at most 10 elements, which
 *   are accumulated in f64 and rounded to f32 once (the textbook and `sm90_cluster` rungs
 *   widen every element); f64 sums in f64; bf16 and f16 sums in f32. Error bound: about
 *   (number of elements) * eps(accumulator) * sum |x|, plus 10 * 2^-24 * sum |x| for f32. The
 *   `cub` variant accumulates f32 sums in f32, as cub::DeviceReduce::Sum does.
 * - ARGMIN/ARGMAX give the index within the segment (0-based) of the first occurrence.
 * - Empty segments (n = 0, or equal offsets) give the identity: 0 for SUM; for MIN the largest
 *   value (+inf, INT32_MAX, INT64_MAX, UINT32_MAX), for MAX the smallest (-inf, INT32_MIN,
 *   INT64_MIN, 0); -1 for ARGMIN/ARGMAX.
 * - NaN propagates: a sum with a NaN (or +inf and -inf) is NaN; MIN/MAX of a segment holding a
 *   NaN is NaN; ARGMIN/ARGMAX return the index of the first NaN. -0.0 orders below +0.0 for MIN
 *   and MAX; for ARGMIN/ARGMAX they compare equal.
 *
 * Determinism: in both modes every variant reduces in an order fixed by the problem (op, type,
 * n, segment layout) and by the address of @p in modulo 512 bytes, never by timing: repeated
 * calls give the same bits on the same device (`cub`: on the same device). MIN, MAX, ARGMIN,
 * ARGMAX and integer sums are exact, so every variant gives the same bits.
 *
 * Variable offsets are the caller's contract: non-decreasing and within [0, n]. They are read
 * only on the device; a violating offset is clamped to [0, n] and a segment whose end lies
 * before its begin is empty, so bad offsets give unspecified results but never read outside
 * in[0, n).
 *
 * Workspace: the partial results and counters live in the stream's workspace, which the
 * stream takes from its context's pool at its first op or gpuopt_graph_begin(). A graph that
 * captured a reduction uses the capturing stream's workspace: keep that stream alive while the
 * graph may run, and do not run the graph concurrently with other reductions on that stream or
 * with another launch of a graph captured on the same stream.
 *
 * @param ctx    the context; in, out and desc->offsets must be memory its device can access.
 * @param stream where the work is enqueued (a stream of @p ctx; its workspace is used).
 * @param desc   the problem (see ::gpuopt_reduce_desc_t).
 * @param in     device pointer covering the input (may be NULL when it spans no element),
 *               aligned to its element size; must not overlap @p out.
 * @param out    device pointer to the results (see the table), aligned to the result size.
 *
 * Variants (gpuopt_variant_count() with ::GPUOPT_OP_REDUCE): the textbook ladder `neighbored`,
 * `interleaved`, `unroll8`, `unroll8_warp`, `complete_unroll` (SUM of i32, f32 and f64, one
 * reduction only); `warp_shuffle_vec` (16-byte loads, warp shuffles; every op, type and
 * layout); `sm90_cluster` (cc >= 9.0: a thread-block cluster per segment, partials combined
 * through distributed shared memory); `cub` (cub::DeviceReduce, cub::DeviceSegmentedReduce).
 */
GPUOPT_API gpuopt_status_t gpuopt_reduce(gpuopt_context_t ctx, gpuopt_stream_t stream,
                                         const gpuopt_reduce_desc_t* desc, const void* in,
                                         void* out);

/** Name of a reduction operator ("sum", "min", "max", "argmin", "argmax"); NULL for values this
 *  library does not know. */
GPUOPT_API const char* gpuopt_reduce_op_name(gpuopt_reduce_op_t op);

/** Sort direction of gpuopt_segmented_sort(). */
typedef enum gpuopt_sort_order_t {
  GPUOPT_SORT_ASCENDING = 0, /**< Smallest key first. */
  GPUOPT_SORT_DESCENDING = 1 /**< Largest key first. */
} gpuopt_sort_order_t;

/**
 * A segmented sort problem for gpuopt_segmented_sort(). Set struct_size =
 * sizeof(gpuopt_segmented_sort_desc_t).
 *
 * Two layouts, chosen by the fields:
 * - fixed-size segments: offsets = NULL; segment s is items [s * segment_size,
 *   (s + 1) * segment_size); num_items must be num_segments * segment_size.
 * - variable segments: offsets != NULL; segment s is items [offsets[s], offsets[s + 1]) of the
 *   num_items; items outside every segment are left unwritten in the outputs.
 */
typedef struct gpuopt_segmented_sort_desc_t {
  size_t struct_size;        /**< sizeof(gpuopt_segmented_sort_desc_t), set by the caller. */
  gpuopt_dtype_t key_type;   /**< i32, u32, f32, i64, u64 or f64. */
  int value_bytes;           /**< Bytes per value: 0 (keys only; values pointers NULL), 4 or 8.
                                  Values are moved as opaque bits. */
  gpuopt_sort_order_t order; /**< ::GPUOPT_SORT_ASCENDING or ::GPUOPT_SORT_DESCENDING. */
  int64_t num_items;         /**< Total items of keys (and values), >= 0. */
  int64_t num_segments;      /**< Number of segments, >= 0. */
  int64_t segment_size;      /**< Fixed layout: items per segment, >= 0. Ignored with offsets. */
  const int64_t* offsets;    /**< Variable layout: device array of num_segments + 1
                                  non-decreasing offsets in [0, num_items]; NULL for fixed. */
} gpuopt_segmented_sort_desc_t;

/**
 * Bytes of device workspace gpuopt_segmented_sort() needs for @p desc, whatever variant runs
 * (0 when none is needed). The answer depends only on the descriptor's sizes and types.
 */
GPUOPT_API gpuopt_status_t gpuopt_segmented_sort_workspace_size(
    gpuopt_context_t ctx, const gpuopt_segmented_sort_desc_t* desc, size_t* bytes);

/**
 * Sorts each segment of @p keys_in into @p keys_out, stably (equal keys keep their input order),
 * moving @p values_in to @p values_out with their keys; enqueued on @p stream.
 *
 * Floating-point keys sort in IEEE total order with NaNs last (ascending) or first
 * (descending): -inf < ... < -0.0 < +0.0 < ... < +inf < NaN. Outputs must not overlap inputs.
 * Variable offsets are the caller's contract (non-decreasing, within [0, num_items]); they are
 * read only on the device and violating ones are clamped, never read or written out of bounds.
 *
 * @param ctx        the context; every pointer must be memory its device can access.
 * @param stream     where the work is enqueued (a stream of @p ctx).
 * @param desc       the problem (see ::gpuopt_segmented_sort_desc_t).
 * @param keys_in    device pointer to num_items keys, aligned to the key size.
 * @param keys_out   device pointer to num_items keys (the sorted segments).
 * @param values_in  device pointer to num_items values, or NULL when desc->value_bytes is 0.
 * @param values_out device pointer to num_items values, or NULL when desc->value_bytes is 0.
 * @param workspace, workspace_bytes  device memory of at least
 *        gpuopt_segmented_sort_workspace_size() bytes, 256-byte aligned (NULL when that is 0). It
 *        must not be used by other work while the sort runs.
 *
 * Variants (gpuopt_variant_count() with ::GPUOPT_OP_SEGMENTED_SORT): sorting networks in
 * registers and shared memory for fixed segments up to 4096 keys, size-binned kernels for
 * offsets, a radix sort for large segments, and `cub` (cub::DeviceSegmentedSort,
 * cub::DeviceSegmentedRadixSort) as vendor.
 */
GPUOPT_API gpuopt_status_t gpuopt_segmented_sort(gpuopt_context_t ctx, gpuopt_stream_t stream,
                                                 const gpuopt_segmented_sort_desc_t* desc,
                                                 const void* keys_in, void* keys_out,
                                                 const void* values_in, void* values_out,
                                                 void* workspace, size_t workspace_bytes);

/** What a stencil reads outside the grid. */
typedef enum gpuopt_boundary_t {
  GPUOPT_BOUNDARY_ZERO = 0, /**< Dirichlet: values outside the grid are 0. */
  GPUOPT_BOUNDARY_CLAMP = 1 /**< The nearest grid value along the axis (clamped index). */
} gpuopt_boundary_t;

/** Largest stencil radius gpuopt_stencil() takes. */
#define GPUOPT_STENCIL_MAX_RADIUS 8

/**
 * A star stencil problem for gpuopt_stencil(). Set struct_size =
 * sizeof(gpuopt_stencil_desc_t).
 *
 * The grid is nx x ny (x nz) elements, x fastest: element (x, y, z) of the input is
 * in[x + y * in_pitch + z * in_slice_pitch], likewise for the output.
 * out(x,y,z) = coeffs[0] * in(x,y,z) + sum over axes a and offsets o in [-r, -1] and [1, r] of
 * coeff(a, o) * in(p + o e_a), where for axis a (0 = x, 1 = y, 2 = z) the 2r coefficients are
 * coeffs[1 + a * 2r ...], ordered o = -r, ..., -1, +1, ..., +r. So coeffs holds 1 + dims * 2r
 * values.
 */
typedef struct gpuopt_stencil_desc_t {
  size_t struct_size;         /**< sizeof(gpuopt_stencil_desc_t), set by the caller. */
  gpuopt_dtype_t dtype;       /**< ::GPUOPT_DTYPE_F32 or ::GPUOPT_DTYPE_F64. */
  int dims;                   /**< 2 or 3. */
  int radius;                 /**< 1 to ::GPUOPT_STENCIL_MAX_RADIUS. */
  gpuopt_boundary_t boundary; /**< ::GPUOPT_BOUNDARY_ZERO or ::GPUOPT_BOUNDARY_CLAMP. */
  int64_t nx;                 /**< Grid extent along x (contiguous), >= 0. */
  int64_t ny;                 /**< Grid extent along y, >= 0. */
  int64_t nz;                 /**< Grid extent along z, >= 0; 1 (or 0 for empty) for 2D. */
  int64_t in_pitch;           /**< Elements between rows of the input, >= nx. */
  int64_t in_slice_pitch;     /**< Elements between z-slices of the input, >= in_pitch * ny (3D). */
  int64_t out_pitch;          /**< Elements between rows of the output, >= nx. */
  int64_t out_slice_pitch;    /**< Elements between z-slices of the output (3D). */
  const double* coeffs;       /**< Host array of 1 + dims * 2 * radius coefficients (see above),
                                   read during the call (converted to dtype); a captured graph
                                   keeps the values of the capture. */
} gpuopt_stencil_desc_t;

/**
 * Applies the star stencil of @p desc to @p in, writing @p out (out-of-place; the two must not
 * overlap), enqueued on @p stream.
 *
 * Variants (gpuopt_variant_count() with ::GPUOPT_OP_STENCIL): `naive` (global loads),
 * `smem_sync` (tile and halo through registers into shared memory), `sm80_cpasync` (cp.async
 * into shared memory, pipelined), `sm90_tma` (TMA tensor-map loads of tile and halo, the copy
 * engine fills out-of-bounds elements, one tile per block; `sm90_tma_ring`: persistent blocks and
 * an mbarrier ring), and for 3D z-marching kernels (xy tile in shared memory, z neighbours in
 * registers) in synchronous and TMA forms.
 */
GPUOPT_API gpuopt_status_t gpuopt_stencil(gpuopt_context_t ctx, gpuopt_stream_t stream,
                                          const gpuopt_stencil_desc_t* desc, const void* in,
                                          void* out);

/**
 * An out-of-place transpose for gpuopt_transpose(), column-major: A is rows x cols with leading
 * dimension lda >= max(1, rows); B = A^T is cols x rows with ldb >= max(1, cols). Set
 * struct_size = sizeof(gpuopt_transpose_desc_t).
 */
typedef struct gpuopt_transpose_desc_t {
  size_t struct_size;   /**< sizeof(gpuopt_transpose_desc_t), set by the caller. */
  gpuopt_dtype_t dtype; /**< ::GPUOPT_DTYPE_F32, ::GPUOPT_DTYPE_F64 or ::GPUOPT_DTYPE_BF16. */
  int64_t rows;         /**< Rows of A, >= 0. */
  int64_t cols;         /**< Columns of A, >= 0. */
  int64_t lda;          /**< Leading dimension of A. */
  int64_t ldb;          /**< Leading dimension of B. */
} gpuopt_transpose_desc_t;

/**
 * B = A^T (see ::gpuopt_transpose_desc_t), enqueued on @p stream; A and B must not overlap.
 *
 * Variants (gpuopt_variant_count() with ::GPUOPT_OP_TRANSPOSE): `naive`, `smem_padded`,
 * `smem_swizzled`, `sm90_tma` (sm_90a, TMA loads, persistent blocks), `sm90_tma_store` (sm_90a,
 * TMA loads and TMA stores; f32), `sm80_vec_tile` (sm_80+, one 64x64 tile per block, element
 * pairs swapped in registers, 256-byte warp stores), `sm90_tma_onetile` (sm_90a, sm90_tma with
 * one block per tile), `cublas` (cublasSgeam/cublasDgeam; f32 and f64).
 */
GPUOPT_API gpuopt_status_t gpuopt_transpose(gpuopt_context_t ctx, gpuopt_stream_t stream,
                                            const gpuopt_transpose_desc_t* desc, const void* A,
                                            void* B);

/** Which pass of GDN a workspace query is for. */
typedef enum gpuopt_gdn_pass_t {
  GPUOPT_GDN_FORWARD = 0, /**< gpuopt_gdn_forward(). */
  GPUOPT_GDN_BACKWARD = 1 /**< gpuopt_gdn_backward(). */
} gpuopt_gdn_pass_t;

/**
 * A generalized divisive normalization layer (Ballé et al.) over an NCHW f32 tensor, for
 * gpuopt_gdn_forward() and gpuopt_gdn_backward(). Set struct_size = sizeof(gpuopt_gdn_desc_t).
 *
 * At every pixel p of every image, over the C channels:
 *   z_i = beta_i + sum_j gamma[i * C + j] * x_j^2,
 *   y_i = x_i / sqrt(z_i)   (inverse = 0),   y_i = x_i * sqrt(z_i)   (inverse = 1).
 * x and y are contiguous NCHW (element (n, c, h, w) at ((n * C + c) * H + h) * W + w); beta has
 * C values, gamma C * C (row-major: gamma[i * C + j] weighs channel j's square into channel i).
 * The caller keeps z positive (beta > 0, gamma >= 0 as in the GDN paper).
 */
typedef struct gpuopt_gdn_desc_t {
  size_t struct_size;       /**< sizeof(gpuopt_gdn_desc_t), set by the caller. */
  int64_t batch;            /**< N, >= 0. */
  int64_t channels;         /**< C, >= 1. */
  int64_t height;           /**< H, >= 0. */
  int64_t width;            /**< W, >= 0. */
  int inverse;              /**< 0: divisive (GDN), 1: multiplicative (inverse GDN). */
  gpuopt_compute_t compute; /**< Arithmetic of the channel mix: ::GPUOPT_COMPUTE_DEFAULT or
                                 ::GPUOPT_COMPUTE_F32 (f32), ::GPUOPT_COMPUTE_TF32. */
} gpuopt_gdn_desc_t;

/**
 * Bytes of device workspace a GDN pass needs for @p desc, whatever variant runs (0 when none).
 */
GPUOPT_API gpuopt_status_t gpuopt_gdn_workspace_size(gpuopt_context_t ctx,
                                                     const gpuopt_gdn_desc_t* desc,
                                                     gpuopt_gdn_pass_t pass, size_t* bytes);

/**
 * y = GDN(x) (see ::gpuopt_gdn_desc_t), enqueued on @p stream.
 *
 * @param ctx    the context; every pointer must be memory its device can access.
 * @param stream where the work is enqueued (a stream of @p ctx).
 * @param desc   the layer's shape and arithmetic (see ::gpuopt_gdn_desc_t).
 * @param x      device pointer to the N x C x H x W input.
 * @param beta   device pointer to the C offsets beta_i.
 * @param gamma  device pointer to the C x C weights (row-major, gamma[i * C + j]).
 * @param y      device pointer to the N x C x H x W output; must not overlap the inputs.
 * @param workspace, workspace_bytes  device memory of at least gpuopt_gdn_workspace_size() bytes
 *        for ::GPUOPT_GDN_FORWARD, 256-byte aligned (NULL when that is 0).
 *
 * Variants (gpuopt_variant_count() with ::GPUOPT_OP_GDN): `composed` (elementwise kernels
 * around a cuBLAS GEMM, the usual way), `fused` (gpuopt's own GEMM with the squaring folded into
 * the operand load and the rsqrt and multiply into the epilogue), and on sm_90 `sm90_wgmma_fused`
 * (the same fused forward pass on wgmma tensor cores; H * W a multiple of 4; backward: the dx
 * and dgamma GEMMs on wgmma after `fused`'s z/t stage; in f32 mode the dgamma GEMM forms t's
 * bf16 correction pairs in shared memory) and `sm90_onepass_fused` (backward pass only,
 * C <= 256, H * W a multiple of 4, x and dy 16-byte and dx 8-byte aligned: z, t, gamma^T t and
 * dx in one kernel per 64-pixel tile, then the wgmma dgamma GEMM; it answers
 * ::GPUOPT_ERROR_UNSUPPORTED for the forward pass).
 *
 * Arithmetic of the channel mix: ::GPUOPT_COMPUTE_TF32 rounds the GEMM operands to TF32 (about
 * 1e-3 relative error). ::GPUOPT_COMPUTE_DEFAULT and ::GPUOPT_COMPUTE_F32 give f32 accuracy:
 * `composed` runs cuBLAS SGEMM (exact f32 FMA); `fused` runs an error-compensated 3xTF32 product
 * on the tensor cores (each operand split into a TF32 high part and a TF32 residual, a*b ~=
 * hi*hi + hi*lo + lo*hi with f32 accumulation; the forward kernel with x resident in shared
 * memory (C <= 256), the one-pass backward kernel and the wgmma dgamma GEMM form the two residual
 * terms from bf16-rounded operands in one bf16 product, at least as accurate), which matches the
 * f64 reference to about 1e-6 relative, like SGEMM, at tensor-core speed. y must not overlap x
 * (INVALID_ARGUMENT).
 */
GPUOPT_API gpuopt_status_t gpuopt_gdn_forward(gpuopt_context_t ctx, gpuopt_stream_t stream,
                                              const gpuopt_gdn_desc_t* desc, const float* x,
                                              const float* beta, const float* gamma, float* y,
                                              void* workspace, size_t workspace_bytes);

/**
 * The gradients of GDN given dy = dL/dy: dx = dL/dx (NCHW), dbeta (C values) and dgamma (C * C,
 * same layout as gamma), summed over all images and pixels and overwritten (not accumulated);
 * enqueued on @p stream.
 *
 * @param ctx    the context; every pointer must be memory its device can access.
 * @param stream where the work is enqueued (a stream of @p ctx).
 * @param desc   the layer's shape and arithmetic (see ::gpuopt_gdn_desc_t).
 * @param x      device pointer to the forward pass's N x C x H x W input.
 * @param beta   device pointer to the C offsets beta_i.
 * @param gamma  device pointer to the C x C weights (row-major).
 * @param dy     device pointer to dL/dy, N x C x H x W.
 * @param dx     device pointer to dL/dx, N x C x H x W (written).
 * @param dbeta  device pointer to dL/dbeta, C values (written).
 * @param dgamma device pointer to dL/dgamma, C x C row-major (written).
 * @param workspace, workspace_bytes  device memory of at least gpuopt_gdn_workspace_size() bytes
 *        for ::GPUOPT_GDN_BACKWARD, 256-byte aligned (NULL when that is 0).
 *
 * Same variants and arithmetic as gpuopt_gdn_forward(); dbeta and dgamma are sums over all
 * pixels reduced in a fixed order (deterministic run to run). With no pixels (batch, height or
 * width 0) dbeta and dgamma are set to zero. dx must not overlap x or dy.
 */
GPUOPT_API gpuopt_status_t gpuopt_gdn_backward(gpuopt_context_t ctx, gpuopt_stream_t stream,
                                               const gpuopt_gdn_desc_t* desc, const float* x,
                                               const float* beta, const float* gamma,
                                               const float* dy, float* dx, float* dbeta,
                                               float* dgamma, void* workspace,
                                               size_t workspace_bytes);
/** @} */

/** @defgroup comm Multi-GPU: communicators and collectives (NCCL)
 *  Communication between GPUs runs on NCCL, loaded when first used (libnccl.so.2 through the
 *  loader's search path, or the file named by `GPUOPT_NCCL_LIBRARY`). Without it every call of
 *  this group answers ::GPUOPT_ERROR_UNSUPPORTED and says how to get it; the rest of gpuopt is
 *  unaffected. See docs/multi-gpu.md.
 *
 *  The same-arguments contract: a collective (and gpuopt_comm_split(), gpuopt_grid_create(),
 *  gpuopt_gemm_dist(), the scatter and gather helpers, gpuopt_reduce_dist()) must be called by
 *  every rank of the communicator, in the same order, with the same dtype, operator, counts and
 *  root. Each call checks its arguments before it enqueues anything, so a rank with a bad
 *  argument answers a status at once; but that check is local and cannot tell the other ranks,
 *  which would wait in NCCL for the missing rank. Two remedies: the checked mode
 *  (gpuopt_comm_set_checked()), in which every collective first agrees on a fingerprint of its
 *  arguments so that a bad or mismatched call answers ::GPUOPT_ERROR_INVALID_ARGUMENT on every
 *  rank; and gpuopt_comm_abort(), which releases a rank stuck in a collective whose peer gave up.
 *  @{ */

/** Opaque communicator handle: one rank of an NCCL communicator, bound to one context. */
typedef struct gpuopt_comm_s* gpuopt_comm_t;

/** Size in bytes of a ::gpuopt_comm_id_t (NCCL's unique id). */
#define GPUOPT_COMM_ID_BYTES 128
/** Characters gpuopt_comm_id_to_hex() writes, its terminating NUL included (2 x 128 + 1). */
#define GPUOPT_COMM_ID_HEX_SIZE 257
/** gpuopt_comm_split() color of a rank that joins no new communicator. */
#define GPUOPT_COMM_SPLIT_NONE -1

/** The rendezvous id of a communicator: made on one rank by gpuopt_comm_id_create() and handed
 *  to every rank (a file, an environment variable as hex text, an MPI broadcast). */
typedef struct gpuopt_comm_id_t {
  unsigned char bytes[GPUOPT_COMM_ID_BYTES]; /**< Opaque bytes (ncclUniqueId). */
} gpuopt_comm_id_t;

/**
 * Loads NCCL if it is not loaded yet and reports its version (NCCL_VERSION_CODE, e.g. 22809 for
 * 2.28.9). ::GPUOPT_ERROR_UNSUPPORTED, with how to get NCCL, when it cannot be loaded.
 */
GPUOPT_API gpuopt_status_t gpuopt_comm_nccl_version(int* version);

/** Makes a new rendezvous id (ncclGetUniqueId); call it on one rank only. */
GPUOPT_API gpuopt_status_t gpuopt_comm_id_create(gpuopt_comm_id_t* id);

/** Writes @p id as 256 lowercase hex digits and a NUL into @p hex, which holds @p size >=
 *  ::GPUOPT_COMM_ID_HEX_SIZE bytes. */
GPUOPT_API gpuopt_status_t gpuopt_comm_id_to_hex(const gpuopt_comm_id_t* id, char* hex,
                                                 size_t size);

/** Reads an id written by gpuopt_comm_id_to_hex() (exactly 256 hex digits, either case). */
GPUOPT_API gpuopt_status_t gpuopt_comm_id_from_hex(const char* hex, gpuopt_comm_id_t* id);

/**
 * Creates rank @p rank (0 <= rank < @p nranks) of a communicator of @p nranks ranks that meet at
 * @p id, on the device of @p ctx (ncclCommInitRank). Collective: every rank calls it, one process
 * or thread per rank; it returns when all have joined. Not allowed during graph capture.
 */
GPUOPT_API gpuopt_status_t gpuopt_comm_create(gpuopt_context_t ctx, const gpuopt_comm_id_t* id,
                                              int nranks, int rank, gpuopt_comm_t* comm);

/**
 * Creates one communicator over @p count contexts of this process (ncclCommInitAll): comms[i]
 * is rank i, on the device of ctxs[i]; the devices must differ. From one thread, enqueue a
 * collective on all of them between gpuopt_group_begin() and gpuopt_group_end(); or drive each
 * rank from its own thread.
 */
GPUOPT_API gpuopt_status_t gpuopt_comm_create_local(const gpuopt_context_t* ctxs, int count,
                                                    gpuopt_comm_t* comms);

/**
 * Splits @p comm (ncclCommSplit): the ranks that pass the same @p color >= 0 form a new
 * communicator, ranked by @p key (ties by their rank in @p comm). A rank passing
 * ::GPUOPT_COMM_SPLIT_NONE joins none and receives NULL in @p out. Collective over @p comm; in
 * one process with several ranks, call it from one thread per rank (not inside a group).
 */
GPUOPT_API gpuopt_status_t gpuopt_comm_split(gpuopt_comm_t comm, int color, int key,
                                             gpuopt_comm_t* out);

/** This rank's number in @p comm, 0 to size - 1. */
GPUOPT_API gpuopt_status_t gpuopt_comm_rank(gpuopt_comm_t comm, int* rank);

/** Number of ranks in @p comm. */
GPUOPT_API gpuopt_status_t gpuopt_comm_size(gpuopt_comm_t comm, int* size);

/** CUDA device ordinal of this rank (its context's device). */
GPUOPT_API gpuopt_status_t gpuopt_comm_device(gpuopt_comm_t comm, int* device);

/**
 * Turns the checked mode of this rank on (1) or off (0, the default). In checked mode every
 * collective first runs a 16-byte all-reduce of a fingerprint of its arguments (operation,
 * dtype, operator, counts, root, and whether this rank's own check passed) and waits for it; if
 * any rank's check failed or the ranks disagree, every rank answers
 * ::GPUOPT_ERROR_INVALID_ARGUMENT and nothing else is enqueued. It synchronizes the stream, so it
 * is illegal during graph capture and costs a round trip per call (docs/multi-gpu.md has the
 * measured cost). All ranks must use the same setting.
 */
GPUOPT_API gpuopt_status_t gpuopt_comm_set_checked(gpuopt_comm_t comm, int checked);

/** ::GPUOPT_SUCCESS while @p comm is healthy; ::GPUOPT_ERROR_COMM with NCCL's text when an
 *  asynchronous error occurred (ncclCommGetAsyncError): then abort and rebuild it. */
GPUOPT_API gpuopt_status_t gpuopt_comm_status(gpuopt_comm_t comm);

/** Aborts this rank of @p comm (ncclCommAbort): work of it still in flight is cancelled, peers
 *  waiting for this rank fail instead of hanging (they should abort too), and the handle is
 *  freed. Safe after any error; a new communicator can then be created. NULL is a no-op. */
GPUOPT_API gpuopt_status_t gpuopt_comm_abort(gpuopt_comm_t comm);

/** Destroys this rank of @p comm after its enqueued work (ncclCommFinalize, ncclCommDestroy).
 *  Ranks may destroy in any order. Split communicators and grids made from @p comm are
 *  independent and are destroyed on their own. NULL is a no-op. */
GPUOPT_API gpuopt_status_t gpuopt_comm_destroy(gpuopt_comm_t comm);

/** Starts a group (ncclGroupStart): the collectives of several ranks enqueued from one thread
 *  until gpuopt_group_end() are launched together. Groups nest. */
GPUOPT_API gpuopt_status_t gpuopt_group_begin(void);

/** Ends a group (ncclGroupEnd), launching its collectives. */
GPUOPT_API gpuopt_status_t gpuopt_group_end(void);

/**
 * recv[i] = op over ranks of send[i], 0 <= i < @p count, on every rank, enqueued on @p stream (a
 * stream of the communicator's context; capturable in a graph). NCCL connects the ranks at a
 * collective's first use, which a graph capture does not allow: run each collective (and
 * gpuopt_gemm_dist()) once outside the capture before capturing it, or set
 * NCCL_RUNTIME_CONNECT=0 to connect at creation (this holds for all collectives).
 *
 * @param comm   this rank's communicator.
 * @param stream a stream of the communicator's context; the call is enqueued there.
 * @param dtype  f32, f64, f16, bf16, i32, i64, u32 or u64.
 * @param op     ::GPUOPT_REDUCE_SUM, ::GPUOPT_REDUCE_MIN or ::GPUOPT_REDUCE_MAX.
 * @param send, recv device pointers of @p count elements; send == recv is in place, any other
 *        overlap is an error.
 * @param count  elements, >= 0 (0 enqueues nothing).
 */
GPUOPT_API gpuopt_status_t gpuopt_allreduce(gpuopt_comm_t comm, gpuopt_stream_t stream,
                                            gpuopt_dtype_t dtype, gpuopt_reduce_op_t op,
                                            const void* send, void* recv, int64_t count);

/**
 * Reduces size * @p recv_count elements of @p send over the ranks and leaves block r (elements
 * [r * recv_count, (r + 1) * recv_count)) of the result in @p recv of rank r. In place when
 * recv == send + rank * recv_count. Types and operators as gpuopt_allreduce().
 */
GPUOPT_API gpuopt_status_t gpuopt_reduce_scatter(gpuopt_comm_t comm, gpuopt_stream_t stream,
                                                 gpuopt_dtype_t dtype, gpuopt_reduce_op_t op,
                                                 const void* send, void* recv, int64_t recv_count);

/** Gathers @p send_count elements of every rank into @p recv (size * send_count elements, rank
 *  r's at r * send_count), on every rank. In place when send == recv + rank * send_count. */
GPUOPT_API gpuopt_status_t gpuopt_allgather(gpuopt_comm_t comm, gpuopt_stream_t stream,
                                            gpuopt_dtype_t dtype, const void* send, void* recv,
                                            int64_t send_count);

/** Copies @p count elements of @p send on rank @p root into @p recv on every rank. @p send is
 *  read on the root only (other ranks may pass NULL); in place when send == recv. */
GPUOPT_API gpuopt_status_t gpuopt_broadcast(gpuopt_comm_t comm, gpuopt_stream_t stream,
                                            gpuopt_dtype_t dtype, const void* send, void* recv,
                                            int64_t count, int root);

/**
 * A reduction over all ranks: gpuopt_reduce() of each rank's part, then the partial results
 * combined over the ranks, the same on every rank in @p out. Same descriptor and result types as
 * gpuopt_reduce(); ops SUM, MIN, MAX (ARGMIN and ARGMAX answer ::GPUOPT_ERROR_UNSUPPORTED).
 * In ::GPUOPT_REDUCE_DETERMINISTIC mode floating-point sums combine the ranks' partials in rank
 * order (an all-gather and a fixed-order sum), so the bits depend only on the data and the
 * number of ranks, never on NCCL's algorithm; ::GPUOPT_REDUCE_FAST uses an NCCL all-reduce.
 * Every rank passes the same op, types and segment count; n and offsets may differ.
 */
GPUOPT_API gpuopt_status_t gpuopt_reduce_dist(gpuopt_comm_t comm, gpuopt_stream_t stream,
                                              const gpuopt_reduce_desc_t* desc, const void* in,
                                              void* out);

/** @} */

/** @defgroup dist Multi-GPU: distributed matrices and GEMM
 *  Matrices distributed 2D block-cyclically over a pr x pc process grid, as in ScaLAPACK: block
 *  (I, J) of mb x nb elements lives on grid position (I mod pr, J mod pc), whose local matrix
 *  holds its blocks in order, column-major with its own leading dimension. 1D row blocks are the
 *  pr x 1 grid with mb = ceil(rows / pr), 1D column blocks the 1 x pc grid with nb = ceil(cols /
 *  pc). The rank at grid position (row, col) is row * pc + col.
 *  @{ */

/** Opaque process-grid handle: a communicator arranged as pr x pc, with its row and column
 *  communicators and a second stream for look-ahead. */
typedef struct gpuopt_grid_s* gpuopt_grid_t;

/**
 * Arranges the @p grid_rows x @p grid_cols = size ranks of @p comm as a grid and splits the row
 * and column communicators (collective over @p comm; in one process with several ranks, one
 * thread per rank). @p comm must outlive the grid. Not allowed during graph capture.
 */
GPUOPT_API gpuopt_status_t gpuopt_grid_create(gpuopt_comm_t comm, int grid_rows, int grid_cols,
                                              gpuopt_grid_t* grid);

/** The grid's shape and this rank's position in it (any pointer may be NULL). */
GPUOPT_API gpuopt_status_t gpuopt_grid_info(gpuopt_grid_t grid, int* grid_rows, int* grid_cols,
                                            int* my_row, int* my_col);

/** Destroys the grid (its row and column communicators, stream and events). NULL is a no-op. */
GPUOPT_API gpuopt_status_t gpuopt_grid_destroy(gpuopt_grid_t grid);

/** A matrix distributed over a grid (see @ref dist). Set struct_size =
 *  sizeof(gpuopt_dist_desc_t). */
typedef struct gpuopt_dist_desc_t {
  size_t struct_size;   /**< sizeof(gpuopt_dist_desc_t), set by the caller. */
  gpuopt_dtype_t dtype; /**< Element type. */
  int64_t rows;         /**< Global rows, >= 0. */
  int64_t cols;         /**< Global columns, >= 0. */
  int64_t row_block;    /**< mb: rows of a block, >= 1. */
  int64_t col_block;    /**< nb: columns of a block, >= 1. */
  int grid_rows;        /**< pr, >= 1. */
  int grid_cols;        /**< pc, >= 1. */
  int64_t ld;           /**< Leading dimension of this rank's local matrix, >= max(1, its local
                             rows); may differ between ranks. */
} gpuopt_dist_desc_t;

/** Rows and columns of the local matrix of grid position (@p grid_row, @p grid_col) (ScaLAPACK's
 *  NUMROC). Host only. */
GPUOPT_API gpuopt_status_t gpuopt_dist_local_shape(const gpuopt_dist_desc_t* desc, int grid_row,
                                                   int grid_col, int64_t* local_rows,
                                                   int64_t* local_cols);

/** Where global element (@p i, @p j) lives: its grid position and local row and column (any
 *  output may be NULL). Host only. */
GPUOPT_API gpuopt_status_t gpuopt_dist_locate(const gpuopt_dist_desc_t* desc, int64_t i, int64_t j,
                                              int* grid_row, int* grid_col, int64_t* local_i,
                                              int64_t* local_j);

/**
 * Distributes a rows x cols column-major matrix held by rank @p root (@p src with leading
 * dimension @p ld_src, in device memory of the root's device or in host memory) into every
 * rank's local matrix @p local (device memory, leading dimension desc->ld). Collective over the
 * grid; enqueued on @p stream (the root stages through stream-ordered device memory). @p src is
 * read on the root only.
 */
GPUOPT_API gpuopt_status_t gpuopt_dist_scatter(gpuopt_grid_t grid, gpuopt_stream_t stream,
                                               const gpuopt_dist_desc_t* desc, int root,
                                               const void* src, int64_t ld_src, void* local);

/** The reverse of gpuopt_dist_scatter(): collects every rank's @p local into the rows x cols
 *  matrix @p dst (leading dimension @p ld_dst, device memory of the root's device or host
 *  memory) on rank @p root. */
GPUOPT_API gpuopt_status_t gpuopt_dist_gather(gpuopt_grid_t grid, gpuopt_stream_t stream,
                                              const gpuopt_dist_desc_t* desc, int root,
                                              const void* local, void* dst, int64_t ld_dst);

/**
 * A distributed GEMM for gpuopt_gemm_dist(): C = alpha * A * B + beta * C with A m x k, B k x n
 * and C m x n distributed over the grid with blocks of mb x kb (A), kb x nb (B) and mb x nb (C).
 * Set struct_size = sizeof(gpuopt_gemm_dist_desc_t).
 */
typedef struct gpuopt_gemm_dist_desc_t {
  size_t struct_size;       /**< sizeof(gpuopt_gemm_dist_desc_t), set by the caller. */
  int64_t m;                /**< Global rows of A and C, >= 0. */
  int64_t n;                /**< Global columns of B and C, >= 0. */
  int64_t k;                /**< Global columns of A, rows of B, >= 0. */
  double alpha;             /**< Scale of the product. */
  double beta;              /**< Scale of C; 0 writes C without reading it. */
  gpuopt_dtype_t a_type;    /**< A and B: f64, f32 or bf16 (as gpuopt_gemm()). */
  gpuopt_dtype_t c_type;    /**< C: as gpuopt_gemm() allows for a_type. */
  gpuopt_compute_t compute; /**< As gpuopt_gemm(): ::GPUOPT_COMPUTE_TF32 for tf32. */
  int64_t mb;               /**< Row block of A and C, >= 1. */
  int64_t nb;               /**< Column block of B and C, >= 1. */
  int64_t kb;               /**< Column block of A and row block of B (the SUMMA panel), >= 1. */
  int64_t lda;              /**< Leading dimension of this rank's local A. */
  int64_t ldb;              /**< Leading dimension of this rank's local B. */
  int64_t ldc;              /**< Leading dimension of this rank's local C. */
} gpuopt_gemm_dist_desc_t;

/**
 * Bytes of device workspace gpuopt_gemm_dist() needs on this rank for @p desc (two A panels and
 * two B panels).
 */
GPUOPT_API gpuopt_status_t gpuopt_gemm_dist_workspace_size(gpuopt_grid_t grid,
                                                           const gpuopt_gemm_dist_desc_t* desc,
                                                           size_t* bytes);

/**
 * SUMMA: for each panel of kb columns of A and kb rows of B, the owner column broadcasts its A
 * panel along each grid row and the owner row its B panel along each grid column, and every
 * rank adds the product of the two to its local C through gpuopt_gemm() (whichever variant its
 * dispatch picks). The next panels are broadcast on the grid's second stream while the local
 * GEMM runs (look-ahead, two panel buffers); the call forks from and joins @p stream with
 * events, so it can be captured in a graph. Collective over the grid; in one process with
 * several ranks drive each rank from its own thread (not inside a group).
 *
 * @param grid   this rank's process grid.
 * @param stream a stream of the grid communicator's context; the call is enqueued there.
 * @param desc   the problem, the blocks and this rank's leading dimensions.
 * @param A, B, C local matrices (device memory), leading dimensions desc->lda, ldb, ldc.
 * @param workspace, workspace_bytes device memory of at least
 *        gpuopt_gemm_dist_workspace_size() bytes, 256-byte aligned.
 */
GPUOPT_API gpuopt_status_t gpuopt_gemm_dist(gpuopt_grid_t grid, gpuopt_stream_t stream,
                                            const gpuopt_gemm_dist_desc_t* desc, const void* A,
                                            const void* B, void* C, void* workspace,
                                            size_t workspace_bytes);

/** @} */

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* GPUOPT_H */
