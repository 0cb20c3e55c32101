//! Multi-GPU through NCCL: `CommId` (the rendezvous id), `Comm` (one rank of a communicator,
//! `gpuopt_comm_t`) and its collectives. Every call answers [`crate::Status::Unsupported`] where
//! NCCL is not installed (docs/multi-gpu.md). Distributed GEMM and the grids are in
//! [`crate::sys`] (`gpuopt_grid_create`, `gpuopt_gemm_dist`, ...).
use std::ffi::{CStr, CString};
use std::os::raw::c_void;
use std::ptr;

use crate::context::Context;
use crate::error::{Error, Result, Status};
use crate::stream::Stream;
use crate::sys;
use crate::types::{Dtype, ReduceOp};

/// NCCL_VERSION_CODE of the NCCL gpuopt loaded (loading it if needed).
pub fn nccl_version() -> Result<i32> {
    let mut v = 0;
    // SAFETY: valid output.
    Error::check(unsafe { sys::gpuopt_comm_nccl_version(&mut v) })?;
    Ok(v)
}

/// The rendezvous id of a communicator: made on one rank, handed to the others.
#[derive(Clone, Copy, Debug)]
pub struct CommId(pub sys::gpuopt_comm_id_t);

impl CommId {
    /// A new id (`ncclGetUniqueId`); call it on one rank only.
    pub fn new() -> Result<CommId> {
        let mut id = sys::gpuopt_comm_id_t { bytes: [0; 128] };
        // SAFETY: valid output.
        Error::check(unsafe { sys::gpuopt_comm_id_create(&mut id) })?;
        Ok(CommId(id))
    }

    /// The id as 256 hex digits (for an environment variable or a file).
    pub fn to_hex(&self) -> Result<String> {
        let mut buf = [0 as std::os::raw::c_char; 257];
        // SAFETY: valid id and a buffer of GPUOPT_COMM_ID_HEX_SIZE bytes.
        Error::check(unsafe { sys::gpuopt_comm_id_to_hex(&self.0, buf.as_mut_ptr(), buf.len()) })?;
        // SAFETY: the library wrote a NUL-terminated string.
        Ok(unsafe { CStr::from_ptr(buf.as_ptr()) }
            .to_string_lossy()
            .into_owned())
    }

    /// Reads an id written by [`CommId::to_hex`].
    pub fn from_hex(hex: &str) -> Result<CommId> {
        let text = CString::new(hex)
            .map_err(|_| Error::new(Status::InvalidArgument, "CommId::from_hex: NUL in text"))?;
        let mut id = sys::gpuopt_comm_id_t { bytes: [0; 128] };
        // SAFETY: NUL-terminated input, valid output.
        Error::check(unsafe { sys::gpuopt_comm_id_from_hex(text.as_ptr(), &mut id) })?;
        Ok(CommId(id))
    }
}

/// One rank of a communicator, bound to a context; destroyed on drop.
#[derive(Debug)]
pub struct Comm<'ctx> {
    raw: sys::gpuopt_comm_t,
    _ctx: &'ctx Context,
}

// SAFETY: a communicator rank is driven by one thread at a time; moving it is allowed.
unsafe impl Send for Comm<'_> {}

impl<'ctx> Comm<'ctx> {
    /// Rank `rank` of `nranks` meeting at `id` (collective: every rank calls it).
    pub fn new(ctx: &'ctx Context, id: &CommId, nranks: i32, rank: i32) -> Result<Comm<'ctx>> {
        let mut raw = ptr::null_mut();
        // SAFETY: live context, valid id and output.
        Error::check(unsafe {
            sys::gpuopt_comm_create(ctx.as_raw(), &id.0, nranks, rank, &mut raw)
        })?;
        Ok(Comm { raw, _ctx: ctx })
    }

    /// One communicator over contexts of this process: element i is rank i.
    pub fn new_local(ctxs: &[&'ctx Context]) -> Result<Vec<Comm<'ctx>>> {
        let raw_ctx: Vec<sys::gpuopt_context_t> = ctxs.iter().map(|c| c.as_raw()).collect();
        let mut raw = vec![ptr::null_mut(); ctxs.len()];
        let n = i32::try_from(ctxs.len()).map_err(|_| {
            Error::new(
                Status::InvalidArgument,
                "Comm::new_local: too many contexts",
            )
        })?;
        // SAFETY: n live contexts and n outputs.
        Error::check(unsafe {
            sys::gpuopt_comm_create_local(raw_ctx.as_ptr(), n, raw.as_mut_ptr())
        })?;
        Ok(raw
            .into_iter()
            .zip(ctxs)
            .map(|(raw, c)| Comm { raw, _ctx: *c })
            .collect())
    }

    /// The raw handle.
    pub fn as_raw(&self) -> sys::gpuopt_comm_t {
        self.raw
    }

    fn query(
        &self,
        f: unsafe extern "C" fn(sys::gpuopt_comm_t, *mut i32) -> sys::gpuopt_status_t,
    ) -> Result<i32> {
        let mut v = 0;
        // SAFETY: live handle, valid output.
        Error::check(unsafe { f(self.raw, &mut v) })?;
        Ok(v)
    }

    /// This rank's number.
    pub fn rank(&self) -> Result<i32> {
        self.query(sys::gpuopt_comm_rank)
    }

    /// Number of ranks.
    pub fn size(&self) -> Result<i32> {
        self.query(sys::gpuopt_comm_size)
    }

    /// CUDA device of this rank.
    pub fn device(&self) -> Result<i32> {
        self.query(sys::gpuopt_comm_device)
    }

    /// The checked mode (every collective agrees on its arguments with the other ranks first).
    pub fn set_checked(&self, checked: bool) -> Result<()> {
        // SAFETY: live handle.
        Error::check(unsafe { sys::gpuopt_comm_set_checked(self.raw, checked as i32) })
    }

    /// `Err` with [`Status::Comm`] after an asynchronous NCCL error.
    pub fn status(&self) -> Result<()> {
        // SAFETY: live handle.
        Error::check(unsafe { sys::gpuopt_comm_status(self.raw) })
    }

    /// Gives this rank up (`ncclCommAbort`), releasing peers stuck with it.
    pub fn abort(mut self) -> Result<()> {
        let raw = std::mem::replace(&mut self.raw, ptr::null_mut());
        // SAFETY: live handle, not used again.
        Error::check(unsafe { sys::gpuopt_comm_abort(raw) })
    }

    /// recv = op over ranks of send, `count` elements of `dtype` (send == recv: in place).
    ///
    /// # Safety
    /// `send` and `recv` are device memory of this rank's device holding `count` elements, alive
    /// until the stream has run the call.
    pub unsafe fn allreduce(
        &self,
        stream: &Stream,
        dtype: Dtype,
        op: ReduceOp,
        send: *const c_void,
        recv: *mut c_void,
        count: i64,
    ) -> Result<()> {
        Error::check(sys::gpuopt_allreduce(
            self.raw,
            stream.as_raw(),
            dtype.raw(),
            op.raw(),
            send,
            recv,
            count,
        ))
    }

    /// `count` elements of `send` on rank `root` into `recv` on every rank.
    ///
    /// # Safety
    /// As [`Comm::allreduce`].
    pub unsafe fn broadcast(
        &self,
        stream: &Stream,
        dtype: Dtype,
        send: *const c_void,
        recv: *mut c_void,
        count: i64,
        root: i32,
    ) -> Result<()> {
        Error::check(sys::gpuopt_broadcast(
            self.raw,
            stream.as_raw(),
            dtype.raw(),
            send,
            recv,
            count,
            root,
        ))
    }
}

impl Drop for Comm<'_> {
    fn drop(&mut self) {
        if !self.raw.is_null() {
            // SAFETY: live handle, dropped once.
            unsafe { sys::gpuopt_comm_destroy(self.raw) };
        }
    }
}

/// Runs `body` between `gpuopt_group_begin` and `gpuopt_group_end` (one thread enqueueing the
/// collectives of several ranks of this process).
pub fn group<T>(body: impl FnOnce() -> Result<T>) -> Result<T> {
    // SAFETY: no arguments.
    Error::check(unsafe { sys::gpuopt_group_begin() })?;
    let out = body();
    // SAFETY: closes the group opened above.
    let end = Error::check(unsafe { sys::gpuopt_group_end() });
    let value = out?;
    end.map(|_| value)
}
