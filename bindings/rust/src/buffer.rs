//! `Buffer`: device, pinned, mapped, compressible or wrapped memory (`gpuopt_buffer_t`).
use std::marker::PhantomData;
use std::mem::{size_of, size_of_val};
use std::os::raw::{c_int, c_void};
use std::ptr;

use crate::context::Context;
use crate::error::{Error, Result, Status};
use crate::stream::Stream;
use crate::sys;
use crate::types::{Element, MemoryKind};

/// Memory owned (or borrowed, see [`Buffer::wrap`]) by a gpuopt buffer; freed on drop, which
/// synchronizes the device first as `cudaFree` does, so no enqueued work still uses it.
///
/// `Send + Sync`: queries are safe from any thread (header rule). Host copies take `&Stream`
/// and host slices; writes into the buffer (copies from the host, operation outputs) take
/// `&mut Buffer`, so safe code never has two writers.
#[derive(Debug)]
pub struct Buffer<'ctx> {
    raw: sys::gpuopt_buffer_t,
    bytes: usize,
    _ctx: PhantomData<&'ctx Context>,
}

// SAFETY: the header allows buffer queries from any thread; copies are ordered by the stream.
unsafe impl Send for Buffer<'_> {}
// SAFETY: as above; &Buffer only permits queries, reads and device-side reads.
unsafe impl Sync for Buffer<'_> {}

impl<'ctx> Buffer<'ctx> {
    /// Allocates `bytes` (> 0) of memory of `kind`. For [`MemoryKind::Compressible`] check
    /// [`Buffer::is_compressed`]: the driver may hand back plain memory.
    pub fn new(ctx: &'ctx Context, bytes: usize, kind: MemoryKind) -> Result<Buffer<'ctx>> {
        let mut raw: sys::gpuopt_buffer_t = ptr::null_mut();
        // SAFETY: live context, valid output.
        Error::check(unsafe {
            sys::gpuopt_buffer_create(ctx.as_raw(), bytes, kind.raw(), &mut raw)
        })?;
        Ok(Buffer {
            raw,
            bytes,
            _ctx: PhantomData,
        })
    }

    /// Device memory for `len` elements of `T`.
    pub fn device<T: Element>(ctx: &'ctx Context, len: usize) -> Result<Buffer<'ctx>> {
        let bytes = len.checked_mul(size_of::<T>()).ok_or_else(|| {
            Error::new(
                Status::InvalidArgument,
                "gpuopt::Buffer::device: len * size overflows",
            )
        })?;
        Buffer::new(ctx, bytes, MemoryKind::Device)
    }

    /// Device memory holding a copy of `data` (copied on `stream`, which is synchronized).
    pub fn from_slice<T: Element>(
        ctx: &'ctx Context,
        stream: &Stream<'ctx>,
        data: &[T],
    ) -> Result<Buffer<'ctx>> {
        let mut b = Buffer::device::<T>(ctx, data.len())?;
        b.copy_from_host(stream, 0, data)?;
        Ok(b)
    }

    /// Wraps (borrows) `bytes` of the caller's device memory at `device_ptr`: memory of another
    /// CUDA stack (cudarc, cust, a C library's cudaMalloc) as a gpuopt buffer.
    ///
    /// # Safety
    /// `device_ptr` points to at least `bytes` of device memory of the context's device that
    /// stays allocated until the returned buffer is dropped and that no other code writes while
    /// safe code of this crate reads or writes it.
    pub unsafe fn wrap(
        ctx: &'ctx Context,
        device_ptr: *mut c_void,
        bytes: usize,
    ) -> Result<Buffer<'ctx>> {
        let mut raw: sys::gpuopt_buffer_t = ptr::null_mut();
        Error::check(sys::gpuopt_buffer_wrap(
            ctx.as_raw(),
            device_ptr,
            bytes,
            &mut raw,
        ))?;
        Ok(Buffer {
            raw,
            bytes,
            _ctx: PhantomData,
        })
    }

    /// Size in bytes, as requested at creation.
    pub fn len_bytes(&self) -> usize {
        self.bytes
    }

    /// Size in bytes as the library reports it (the same as [`Buffer::len_bytes`]).
    pub fn size(&self) -> Result<usize> {
        let mut bytes = 0usize;
        // SAFETY: live handle, valid output.
        Error::check(unsafe { sys::gpuopt_buffer_size(self.raw, &mut bytes) })?;
        Ok(bytes)
    }

    /// Kind of memory.
    pub fn kind(&self) -> Result<MemoryKind> {
        let mut kind: sys::gpuopt_memory_kind_t = 0;
        // SAFETY: live handle, valid output.
        Error::check(unsafe { sys::gpuopt_buffer_kind(self.raw, &mut kind) })?;
        MemoryKind::from_raw(kind).ok_or_else(|| {
            Error::new(
                Status::Unknown(kind),
                "gpuopt::Buffer::kind: unknown memory kind",
            )
        })
    }

    /// Whether the driver confirmed a compressible allocation.
    pub fn is_compressed(&self) -> Result<bool> {
        let mut c: c_int = 0;
        // SAFETY: live handle, valid output.
        Error::check(unsafe { sys::gpuopt_buffer_is_compressed(self.raw, &mut c) })?;
        Ok(c != 0)
    }

    /// Device address (the device alias for mapped memory); [`Status::Unsupported`] for pinned
    /// host memory. Pass it to other CUDA code, or to the `*_ptr` operations.
    pub fn device_ptr(&self) -> Result<*mut c_void> {
        let mut p: *mut c_void = ptr::null_mut();
        // SAFETY: live handle, valid output.
        Error::check(unsafe { sys::gpuopt_buffer_device_pointer(self.raw, &mut p) })?;
        Ok(p)
    }

    /// Host address of pinned or mapped memory; [`Status::Unsupported`] for device kinds.
    pub fn host_ptr(&self) -> Result<*mut c_void> {
        let mut p: *mut c_void = ptr::null_mut();
        // SAFETY: live handle, valid output.
        Error::check(unsafe { sys::gpuopt_buffer_host_pointer(self.raw, &mut p) })?;
        Ok(p)
    }

    /// Copies `src` to the buffer at byte `offset` on `stream`, then synchronizes `stream`, so
    /// `src` is free again when this returns (illegal during capture: use
    /// [`Buffer::copy_from_host_async`]).
    pub fn copy_from_host<T: Element>(
        &mut self,
        stream: &Stream<'_>,
        offset: usize,
        src: &[T],
    ) -> Result<()> {
        // SAFETY: src is valid for its length until the synchronization below.
        unsafe {
            self.copy_from_host_async(
                stream,
                offset,
                src.as_ptr() as *const c_void,
                size_of_val(src),
            )?
        };
        stream.synchronize()
    }

    /// Copies the buffer from byte `offset` into `dst` on `stream`, then synchronizes `stream`,
    /// so `dst` holds the data when this returns.
    pub fn copy_to_host<T: Element>(
        &self,
        stream: &Stream<'_>,
        offset: usize,
        dst: &mut [T],
    ) -> Result<()> {
        // SAFETY: dst is valid for writes of its length until the synchronization below.
        unsafe {
            self.copy_to_host_async(
                stream,
                offset,
                dst.as_mut_ptr() as *mut c_void,
                size_of_val(dst),
            )?
        };
        stream.synchronize()
    }

    /// The first `len` elements of the buffer, as a vector (synchronizes `stream`).
    pub fn to_vec<T: Element + Default>(&self, stream: &Stream<'_>, len: usize) -> Result<Vec<T>> {
        let mut v = vec![T::default(); len];
        self.copy_to_host(stream, 0, &mut v)?;
        Ok(v)
    }

    /// Enqueues a copy of `bytes` from host memory `src` to byte `offset` (pageable `src` is
    /// copied before return by CUDA; pinned `src` asynchronously).
    ///
    /// # Safety
    /// `src` is valid for reads of `bytes` until the copy has run on `stream`.
    pub unsafe fn copy_from_host_async(
        &mut self,
        stream: &Stream<'_>,
        offset: usize,
        src: *const c_void,
        bytes: usize,
    ) -> Result<()> {
        Error::check(sys::gpuopt_buffer_copy_from_host(
            self.raw,
            stream.as_raw(),
            offset,
            src,
            bytes,
        ))
    }

    /// Enqueues a copy of `bytes` at byte `offset` of the buffer to host memory `dst`.
    ///
    /// # Safety
    /// `dst` is valid for writes of `bytes`, and not read or written by anyone else, until the
    /// copy has run on `stream`.
    pub unsafe fn copy_to_host_async(
        &self,
        stream: &Stream<'_>,
        offset: usize,
        dst: *mut c_void,
        bytes: usize,
    ) -> Result<()> {
        Error::check(sys::gpuopt_buffer_copy_to_host(
            self.raw,
            stream.as_raw(),
            offset,
            dst,
            bytes,
        ))
    }

    /// The raw handle, for calls through [`crate::sys`]. It stays owned by `self`.
    pub fn as_raw(&self) -> sys::gpuopt_buffer_t {
        self.raw
    }

    /// Destroys the buffer with its memory freed in the order of `stream`, as `cudaFreeAsync`
    /// does (`gpuopt_buffer_destroy_async`): nothing is synchronized, work already enqueued on
    /// `stream` may still use the memory, and work on other streams must be ordered before it by
    /// the caller (an event). Dropping a `Buffer` instead synchronizes the device first.
    ///
    /// On failure (e.g. `stream` is being captured) the buffer is handed back with the error.
    pub fn destroy_async(self, stream: &Stream<'_>) -> std::result::Result<(), (Self, Error)> {
        // SAFETY: the handle is live and owned; on success it is gone and must not be dropped.
        match Error::check(unsafe { sys::gpuopt_buffer_destroy_async(self.raw, stream.as_raw()) }) {
            Ok(()) => {
                std::mem::forget(self);
                Ok(())
            }
            Err(e) => Err((self, e)),
        }
    }
}

impl Drop for Buffer<'_> {
    fn drop(&mut self) {
        // SAFETY: the handle is live and owned.
        unsafe { sys::gpuopt_buffer_destroy(self.raw) };
    }
}
