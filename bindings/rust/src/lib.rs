//! gpuopt from Rust: CUDA kernels (GEMM, reductions, segmented sort, stencils, transpose, AXPY,
//! GDN) through the library's stable C ABI, `include/gpuopt.h`.
//!
//! - [`sys`]: the raw `extern "C"` declarations, one for one with the header.
//! - The safe layer: [`Context`], [`Stream`], [`Buffer`], [`Graph`] own their handles and
//!   destroy them on drop; streams, buffers and graphs borrow their context, so it outlives them.
//!   Every call returns `Result<T, Error>`; an [`Error`] carries the [`Status`] and the message
//!   the library left for the calling thread. Descriptors ([`Gemm`], [`Reduce`],
//!   [`SegmentedSort`], [`Stencil`], [`Transpose`], [`Gdn`]) are builders with the header's
//!   defaults.
//! - Threads follow the header: `Context: Send + Sync`, `Stream: Send` (one thread at a time),
//!   `Buffer: Send + Sync`, `Graph: Send + Sync` (launch `&self`, update `&mut self`).
//! - Logging: [`set_log_level`] and [`set_log_callback`] (a closure receives each dispatch
//!   decision and runtime event instead of stderr), process-wide.
//! - Operations are methods of [`Stream`]. The safe forms take buffers and check their extents;
//!   the `unsafe` `*_ptr` forms take raw device pointers from any allocator.
//!
//! ```no_run
//! use gpuopt::{Buffer, Context, Dtype, Gemm, Stream};
//! let ctx = Context::new(0)?;
//! let stream = Stream::new(&ctx)?;
//! let n = 256;
//! let a = Buffer::from_slice(&ctx, &stream, &vec![1.0f64; n * n])?;
//! let b = Buffer::from_slice(&ctx, &stream, &vec![2.0f64; n * n])?;
//! let mut c = Buffer::device::<f64>(&ctx, n * n)?;
//! stream.gemm(&Gemm::new(Dtype::F64, n as i64, n as i64, n as i64), &a, &b, &mut c)?;
//! let host: Vec<f64> = c.to_vec(&stream, n * n)?;
//! assert_eq!(host[0], 512.0);
//! # Ok::<(), gpuopt::Error>(())
//! ```
#![warn(missing_docs)]

pub mod sys;

mod buffer;
mod comm;
mod context;
mod desc;
mod error;
mod graph;
mod log;
mod ops;
mod stream;
mod types;

pub use buffer::Buffer;
pub use comm::{group, nccl_version, Comm, CommId};
pub use context::{
    device_count, device_info, Context, DeviceAllocator, DeviceInfo, PointerChecks, TuneResult,
    VariantInfo,
};
pub use desc::{Gdn, Gemm, Reduce, SegmentedSort, Stencil, Transpose};
pub use error::{last_error_message, Error, Result, Status};
pub use graph::Graph;
pub use log::{clear_log_callback, log_level, set_log_callback, set_log_level, LogLevel};
pub use stream::Stream;
pub use types::{
    Bf16, Boundary, Compute, Dtype, Element, GdnPass, MemoryKind, Op, ReduceMode, ReduceOp,
    SortOrder, Trans, F16,
};

/// Version of the loaded library, as `GPUOPT_VERSION` (major * 10000 + minor * 100 + patch).
pub fn version() -> i32 {
    // SAFETY: no arguments, no state.
    unsafe { sys::gpuopt_version() }
}

/// Version of the loaded library as "MAJOR.MINOR.PATCH".
pub fn version_string() -> &'static str {
    // SAFETY: never NULL, static storage.
    unsafe { error::static_str(sys::gpuopt_version_string()) }.unwrap_or("")
}
