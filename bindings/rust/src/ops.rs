//! The operations, as methods of the stream they are enqueued on (the stream knows its
//! context). Each comes in two forms:
//! - safe: operands are [`Buffer`]s (inputs `&Buffer`, outputs `&mut Buffer`, each used from
//!   its start); before the call the binding checks that every buffer holds the bytes the
//!   descriptor spans, so the library never reads or writes outside them;
//! - `unsafe` `*_ptr`: operands are raw device pointers from any allocator (cudarc, cust,
//!   `Buffer::device_ptr` plus an offset), exactly the C call; the caller guarantees the extents.
//!
//! Both return once the work is enqueued; outputs are ready after `stream.synchronize()` (or a
//! synchronizing copy on the same stream).
use std::os::raw::c_void;
use std::ptr;

use crate::buffer::Buffer;
use crate::context::Context;
use crate::desc::{Gdn, Gemm, Reduce, SegmentedSort, Stencil, Transpose};
use crate::error::{Error, Result, Status};
use crate::stream::Stream;
use crate::sys;
use crate::types::{Dtype, GdnPass};

/// Checks that `buf` holds the `need` bytes an operand spans (`None`: the descriptor is
/// invalid, the library answers it).
fn fits(method: &str, operand: &str, need: Option<i128>, buf: &Buffer<'_>) -> Result<()> {
    match need {
        Some(need) if need > buf.len_bytes() as i128 => Err(Error::new(
            Status::InvalidArgument,
            format!(
                "gpuopt::Stream::{method}: buffer `{operand}` holds {} bytes, the problem spans \
                 {need}",
                buf.len_bytes()
            ),
        )),
        _ => Ok(()),
    }
}

fn dptr(b: &Buffer<'_>) -> Result<*mut c_void> {
    b.device_ptr()
}

fn workspace(w: Option<&mut Buffer<'_>>) -> Result<(*mut c_void, usize)> {
    match w {
        Some(w) => Ok((dptr(w)?, w.len_bytes())),
        None => Ok((ptr::null_mut(), 0)),
    }
}

fn offsets_fit(method: &str, capacity: Option<usize>, need: Option<i128>) -> Result<()> {
    if let (Some(cap), Some(need)) = (capacity, need) {
        if need > cap as i128 {
            return Err(Error::new(
                Status::InvalidArgument,
                format!(
                    "gpuopt::Stream::{method}: buffer `offsets` holds {cap} bytes, num_segments + \
                     1 offsets need {need}"
                ),
            ));
        }
    }
    Ok(())
}

/// Elements a strided vector of `n` spans (`None`: invalid, left to the library).
fn vector_span(n: i64, inc: i64) -> Option<i128> {
    if n < 0 || inc < 1 {
        None
    } else if n == 0 {
        Some(0)
    } else {
        Some(1 + (n as i128 - 1) * inc as i128)
    }
}

impl Context {
    /// Bytes of device workspace [`Stream::segmented_sort`] needs for `desc`.
    pub fn segmented_sort_workspace_size(&self, desc: &SegmentedSort<'_>) -> Result<usize> {
        let d = desc.to_sys();
        let mut bytes = 0usize;
        // SAFETY: live handle, valid descriptor and output.
        Error::check(unsafe {
            sys::gpuopt_segmented_sort_workspace_size(self.as_raw(), &d, &mut bytes)
        })?;
        Ok(bytes)
    }

    /// Bytes of device workspace a GDN pass needs for `desc`.
    pub fn gdn_workspace_size(&self, desc: &Gdn, pass: GdnPass) -> Result<usize> {
        let d = desc.to_sys();
        let mut bytes = 0usize;
        // SAFETY: live handle, valid descriptor and output.
        Error::check(unsafe {
            sys::gpuopt_gdn_workspace_size(self.as_raw(), &d, pass.raw(), &mut bytes)
        })?;
        Ok(bytes)
    }
}

impl Stream<'_> {
    /// y = alpha * x + y over `n` elements of `dtype` with strides `incx`, `incy`.
    #[allow(clippy::too_many_arguments)]
    pub fn axpy(
        &self,
        dtype: Dtype,
        n: i64,
        alpha: f64,
        x: &Buffer<'_>,
        incx: i64,
        y: &mut Buffer<'_>,
        incy: i64,
    ) -> Result<()> {
        let esz = dtype.size() as i128;
        fits("axpy", "x", vector_span(n, incx).map(|e| e * esz), x)?;
        fits("axpy", "y", vector_span(n, incy).map(|e| e * esz), y)?;
        // SAFETY: the buffers span the operands (checked above).
        unsafe { self.axpy_ptr(dtype, n, alpha, dptr(x)?, incx, dptr(y)?, incy) }
    }

    /// gpuopt_axpy() on raw device pointers (x may equal y).
    ///
    /// # Safety
    /// `x` and `y` are device pointers of the context's device covering `1 + (n - 1) * inc`
    /// elements each, alive until the work has run.
    #[allow(clippy::too_many_arguments)]
    pub unsafe fn axpy_ptr(
        &self,
        dtype: Dtype,
        n: i64,
        alpha: f64,
        x: *const c_void,
        incx: i64,
        y: *mut c_void,
        incy: i64,
    ) -> Result<()> {
        Error::check(sys::gpuopt_axpy(
            self.context().as_raw(),
            self.as_raw(),
            dtype.raw(),
            n,
            alpha,
            x,
            incx,
            y,
            incy,
        ))
    }

    /// C = alpha * op(A) op(B) + beta * C.
    pub fn gemm(
        &self,
        desc: &Gemm,
        a: &Buffer<'_>,
        b: &Buffer<'_>,
        c: &mut Buffer<'_>,
    ) -> Result<()> {
        let [sa, sb, sc] = desc.spans();
        fits("gemm", "a", sa, a)?;
        fits("gemm", "b", sb, b)?;
        fits("gemm", "c", sc, c)?;
        // SAFETY: the buffers span the operands (checked above).
        unsafe { self.gemm_ptr(desc, dptr(a)?, dptr(b)?, dptr(c)?) }
    }

    /// gpuopt_gemm() on raw device pointers.
    ///
    /// # Safety
    /// `a`, `b`, `c` are device pointers of the context's device spanning the operands the
    /// descriptor describes, alive until the work has run.
    pub unsafe fn gemm_ptr(
        &self,
        desc: &Gemm,
        a: *const c_void,
        b: *const c_void,
        c: *mut c_void,
    ) -> Result<()> {
        let d = desc.to_sys();
        Error::check(sys::gpuopt_gemm(
            self.context().as_raw(),
            self.as_raw(),
            &d,
            a,
            b,
            c,
        ))
    }

    /// Reduces `input` as `desc` says, one result per segment into `out` (result types: see
    /// [`crate::ReduceOp::result_type`]).
    pub fn reduce(
        &self,
        desc: &Reduce<'_>,
        input: &Buffer<'_>,
        out: &mut Buffer<'_>,
    ) -> Result<()> {
        let [si, so, soff] = desc.spans();
        fits("reduce", "input", si, input)?;
        fits("reduce", "out", so, out)?;
        offsets_fit("reduce", desc.offsets_capacity(), soff)?;
        // SAFETY: the buffers span the operands (checked above); offsets borrowed by desc.
        unsafe { self.reduce_ptr(desc, dptr(input)?, dptr(out)?) }
    }

    /// gpuopt_reduce() on raw device pointers.
    ///
    /// # Safety
    /// `input` and `out` are device pointers spanning the operands of `desc`, alive until the
    /// work has run.
    pub unsafe fn reduce_ptr(
        &self,
        desc: &Reduce<'_>,
        input: *const c_void,
        out: *mut c_void,
    ) -> Result<()> {
        let d = desc.to_sys();
        Error::check(sys::gpuopt_reduce(
            self.context().as_raw(),
            self.as_raw(),
            &d,
            input,
            out,
        ))
    }

    /// Sorts each segment of `keys_in` into `keys_out` (stable), moving `values` (in, out) with
    /// them when the descriptor has values. `workspace`: at least
    /// [`Context::segmented_sort_workspace_size`] bytes (`None` when that is 0).
    pub fn segmented_sort(
        &self,
        desc: &SegmentedSort<'_>,
        keys_in: &Buffer<'_>,
        keys_out: &mut Buffer<'_>,
        values: Option<(&Buffer<'_>, &mut Buffer<'_>)>,
        workspace_buf: Option<&mut Buffer<'_>>,
    ) -> Result<()> {
        let [sk, sv, soff] = desc.spans();
        fits("segmented_sort", "keys_in", sk, keys_in)?;
        fits("segmented_sort", "keys_out", sk, keys_out)?;
        offsets_fit("segmented_sort", desc.offsets_capacity(), soff)?;
        let (vi, vo) = match values {
            Some((vi, vo)) => {
                fits("segmented_sort", "values_in", sv, vi)?;
                fits("segmented_sort", "values_out", sv, vo)?;
                (dptr(vi)? as *const c_void, dptr(vo)?)
            }
            None => (ptr::null(), ptr::null_mut()),
        };
        let (w, wb) = workspace(workspace_buf)?;
        // SAFETY: the buffers span the operands (checked above); the library checks wb.
        unsafe { self.segmented_sort_ptr(desc, dptr(keys_in)?, dptr(keys_out)?, vi, vo, w, wb) }
    }

    /// gpuopt_segmented_sort() on raw device pointers.
    ///
    /// # Safety
    /// Every pointer is NULL where the descriptor allows it or a device pointer spanning its
    /// operand (`workspace`: `workspace_bytes`), alive until the work has run.
    #[allow(clippy::too_many_arguments)]
    pub unsafe fn segmented_sort_ptr(
        &self,
        desc: &SegmentedSort<'_>,
        keys_in: *const c_void,
        keys_out: *mut c_void,
        values_in: *const c_void,
        values_out: *mut c_void,
        workspace: *mut c_void,
        workspace_bytes: usize,
    ) -> Result<()> {
        let d = desc.to_sys();
        Error::check(sys::gpuopt_segmented_sort(
            self.context().as_raw(),
            self.as_raw(),
            &d,
            keys_in,
            keys_out,
            values_in,
            values_out,
            workspace,
            workspace_bytes,
        ))
    }

    /// Applies the star stencil of `desc` to `input`, writing `out`.
    pub fn stencil(
        &self,
        desc: &Stencil<'_>,
        input: &Buffer<'_>,
        out: &mut Buffer<'_>,
    ) -> Result<()> {
        let [si, so] = desc.spans();
        fits("stencil", "input", si, input)?;
        fits("stencil", "out", so, out)?;
        // SAFETY: the buffers span the operands (checked above); stencil_ptr checks coeffs.
        unsafe { self.stencil_ptr(desc, dptr(input)?, dptr(out)?) }
    }

    /// gpuopt_stencil() on raw device pointers. The host coefficients are checked here (the
    /// library cannot check a host array's length).
    ///
    /// # Safety
    /// `input` and `out` are device pointers spanning the grids of `desc`, alive until the work
    /// has run.
    pub unsafe fn stencil_ptr(
        &self,
        desc: &Stencil<'_>,
        input: *const c_void,
        out: *mut c_void,
    ) -> Result<()> {
        if (desc.coeffs_len() as i128) < desc.coeff_count() {
            return Err(Error::new(
                Status::InvalidArgument,
                format!(
                    "gpuopt::Stream::stencil: coeffs holds {} values, dims and radius need {}",
                    desc.coeffs_len(),
                    desc.coeff_count()
                ),
            ));
        }
        let d = desc.to_sys();
        Error::check(sys::gpuopt_stencil(
            self.context().as_raw(),
            self.as_raw(),
            &d,
            input,
            out,
        ))
    }

    /// B = A^T.
    pub fn transpose(&self, desc: &Transpose, a: &Buffer<'_>, b: &mut Buffer<'_>) -> Result<()> {
        let [sa, sb] = desc.spans();
        fits("transpose", "a", sa, a)?;
        fits("transpose", "b", sb, b)?;
        // SAFETY: the buffers span the operands (checked above).
        unsafe { self.transpose_ptr(desc, dptr(a)?, dptr(b)?) }
    }

    /// gpuopt_transpose() on raw device pointers.
    ///
    /// # Safety
    /// `a` and `b` are device pointers spanning the matrices of `desc`, alive until the work
    /// has run.
    pub unsafe fn transpose_ptr(
        &self,
        desc: &Transpose,
        a: *const c_void,
        b: *mut c_void,
    ) -> Result<()> {
        let d = desc.to_sys();
        Error::check(sys::gpuopt_transpose(
            self.context().as_raw(),
            self.as_raw(),
            &d,
            a,
            b,
        ))
    }

    /// y = GDN(x). `workspace`: at least [`Context::gdn_workspace_size`] bytes for
    /// [`GdnPass::Forward`] (`None` when that is 0).
    pub fn gdn_forward(
        &self,
        desc: &Gdn,
        x: &Buffer<'_>,
        beta: &Buffer<'_>,
        gamma: &Buffer<'_>,
        y: &mut Buffer<'_>,
        workspace_buf: Option<&mut Buffer<'_>>,
    ) -> Result<()> {
        let [st, sb, sg] = desc.spans();
        fits("gdn_forward", "x", st, x)?;
        fits("gdn_forward", "beta", sb, beta)?;
        fits("gdn_forward", "gamma", sg, gamma)?;
        fits("gdn_forward", "y", st, y)?;
        let (w, wb) = workspace(workspace_buf)?;
        let p = |b: &Buffer<'_>| dptr(b).map(|p| p as *mut f32);
        // SAFETY: the buffers span the operands (checked above); the library checks wb.
        unsafe { self.gdn_forward_ptr(desc, p(x)?, p(beta)?, p(gamma)?, p(y)?, w, wb) }
    }

    /// gpuopt_gdn_forward() on raw device pointers.
    ///
    /// # Safety
    /// Every pointer is a device pointer spanning its operand of `desc`, alive until the work
    /// has run.
    #[allow(clippy::too_many_arguments)]
    pub unsafe fn gdn_forward_ptr(
        &self,
        desc: &Gdn,
        x: *const f32,
        beta: *const f32,
        gamma: *const f32,
        y: *mut f32,
        workspace: *mut c_void,
        workspace_bytes: usize,
    ) -> Result<()> {
        let d = desc.to_sys();
        Error::check(sys::gpuopt_gdn_forward(
            self.context().as_raw(),
            self.as_raw(),
            &d,
            x,
            beta,
            gamma,
            y,
            workspace,
            workspace_bytes,
        ))
    }

    /// The gradients of GDN given `dy`: `dx`, `dbeta`, `dgamma` (overwritten).
    #[allow(clippy::too_many_arguments)]
    pub fn gdn_backward(
        &self,
        desc: &Gdn,
        x: &Buffer<'_>,
        beta: &Buffer<'_>,
        gamma: &Buffer<'_>,
        dy: &Buffer<'_>,
        dx: &mut Buffer<'_>,
        dbeta: &mut Buffer<'_>,
        dgamma: &mut Buffer<'_>,
        workspace_buf: Option<&mut Buffer<'_>>,
    ) -> Result<()> {
        let [st, sb, sg] = desc.spans();
        for (name, need, buf) in [
            ("x", st, x),
            ("beta", sb, beta),
            ("gamma", sg, gamma),
            ("dy", st, dy),
        ] {
            fits("gdn_backward", name, need, buf)?;
        }
        fits("gdn_backward", "dx", st, dx)?;
        fits("gdn_backward", "dbeta", sb, dbeta)?;
        fits("gdn_backward", "dgamma", sg, dgamma)?;
        let (w, wb) = workspace(workspace_buf)?;
        let p = |b: &Buffer<'_>| dptr(b).map(|p| p as *mut f32);
        // SAFETY: the buffers span the operands (checked above); the library checks wb.
        unsafe {
            self.gdn_backward_ptr(
                desc,
                p(x)?,
                p(beta)?,
                p(gamma)?,
                p(dy)?,
                p(dx)?,
                p(dbeta)?,
                p(dgamma)?,
                w,
                wb,
            )
        }
    }

    /// gpuopt_gdn_backward() on raw device pointers.
    ///
    /// # Safety
    /// Every pointer is a device pointer spanning its operand of `desc`, alive until the work
    /// has run.
    #[allow(clippy::too_many_arguments)]
    pub unsafe fn gdn_backward_ptr(
        &self,
        desc: &Gdn,
        x: *const f32,
        beta: *const f32,
        gamma: *const f32,
        dy: *const f32,
        dx: *mut f32,
        dbeta: *mut f32,
        dgamma: *mut f32,
        workspace: *mut c_void,
        workspace_bytes: usize,
    ) -> Result<()> {
        let d = desc.to_sys();
        Error::check(sys::gpuopt_gdn_backward(
            self.context().as_raw(),
            self.as_raw(),
            &d,
            x,
            beta,
            gamma,
            dy,
            dx,
            dbeta,
            dgamma,
            workspace,
            workspace_bytes,
        ))
    }
}
