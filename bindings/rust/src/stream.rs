//! `Stream`: a CUDA stream with its own cuBLAS handle and workspace (`gpuopt_stream_t`).
use std::os::raw::c_void;
use std::ptr;

use crate::context::Context;
use crate::error::{Error, Result};
use crate::sys;

/// A gpuopt stream of a context; destroyed on drop (its CUDA stream too, unless wrapped).
///
/// `Send` but not `Sync`: the header says a stream is used by one thread at a time, so it can
/// be moved to another thread but not shared. Every enqueueing call (the operations, buffer
/// copies, graph launches) takes `&Stream`, so two threads can never enqueue on one stream at
/// once. Operations are methods of the stream (see `ops.rs`): the stream knows its context.
///
/// ```compile_fail
/// fn sync<T: Sync>() {}
/// sync::<gpuopt::Stream<'static>>(); // a Stream cannot be shared between threads
/// ```
#[derive(Debug)]
pub struct Stream<'ctx> {
    raw: sys::gpuopt_stream_t,
    ctx: &'ctx Context,
}

// SAFETY: a stream may be used by one thread at a time; moving it is a happens-before edge.
unsafe impl Send for Stream<'_> {}

impl<'ctx> Stream<'ctx> {
    /// Creates a non-blocking CUDA stream owned by the gpuopt stream.
    pub fn new(ctx: &'ctx Context) -> Result<Stream<'ctx>> {
        let mut raw: sys::gpuopt_stream_t = ptr::null_mut();
        // SAFETY: live context, valid output.
        Error::check(unsafe { sys::gpuopt_stream_create(ctx.as_raw(), &mut raw) })?;
        Ok(Stream { raw, ctx })
    }

    /// Wraps (borrows) a caller's `cudaStream_t` (NULL: the legacy default stream), for work
    /// ordered with another CUDA stack (cudarc, cust, a C library's stream).
    ///
    /// # Safety
    /// `cuda_stream` is NULL or a live `cudaStream_t` of the context's device, and stays alive
    /// until the returned `Stream` is dropped.
    pub unsafe fn wrap(ctx: &'ctx Context, cuda_stream: *mut c_void) -> Result<Stream<'ctx>> {
        let mut raw: sys::gpuopt_stream_t = ptr::null_mut();
        Error::check(sys::gpuopt_stream_wrap(ctx.as_raw(), cuda_stream, &mut raw))?;
        Ok(Stream { raw, ctx })
    }

    /// The underlying `cudaStream_t`, for mixing gpuopt with other CUDA work. It stays owned by
    /// the gpuopt stream.
    pub fn native(&self) -> Result<*mut c_void> {
        let mut s: *mut c_void = ptr::null_mut();
        // SAFETY: live handle, valid output.
        Error::check(unsafe { sys::gpuopt_stream_native(self.raw, &mut s) })?;
        Ok(s)
    }

    /// Waits until all work enqueued on the stream has finished ([`crate::Status::CaptureIllegal`]
    /// while it is captured).
    pub fn synchronize(&self) -> Result<()> {
        // SAFETY: live handle.
        Error::check(unsafe { sys::gpuopt_stream_synchronize(self.raw) })
    }

    /// The context of the stream.
    pub fn context(&self) -> &'ctx Context {
        self.ctx
    }

    /// The raw handle, for calls through [`crate::sys`]. It stays owned by `self`.
    pub fn as_raw(&self) -> sys::gpuopt_stream_t {
        self.raw
    }
}

impl Drop for Stream<'_> {
    fn drop(&mut self) {
        // SAFETY: the handle is live and owned.
        unsafe { sys::gpuopt_stream_destroy(self.raw) };
    }
}
