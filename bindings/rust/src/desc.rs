//! Builder-style descriptors of the operations, with the header's defaults, and the extents
//! (bytes each operand spans) the safe operations check buffers against.
use std::marker::PhantomData;
use std::mem::size_of;
use std::ptr;

use crate::buffer::Buffer;
use crate::sys;
use crate::types::{Boundary, Compute, Dtype, ReduceMode, ReduceOp, SortOrder, Trans};

/// Elements a column-major `rows x cols` matrix with leading dimension `ld` spans; `None` when
/// the shape is invalid (the library rejects it with its own message).
pub(crate) fn matrix_span(rows: i64, cols: i64, ld: i64) -> Option<i128> {
    if rows < 0 || cols < 0 || ld < rows.max(1) {
        return None;
    }
    if rows == 0 || cols == 0 {
        return Some(0);
    }
    Some(ld as i128 * (cols as i128 - 1) + rows as i128)
}

/// `span` of one problem extended over a batch of `count` with `stride` elements.
pub(crate) fn batch_span(span: Option<i128>, count: i64, stride: i64) -> Option<i128> {
    let span = span?;
    if count <= 1 || span == 0 {
        return Some(span);
    }
    if stride < 0 {
        return None;
    }
    Some(stride as i128 * (count as i128 - 1) + span)
}

/// A GEMM, C = alpha * op(A) op(B) + beta * C (`gpuopt_gemm_desc_t`). Defaults: no transposes,
/// alpha 1, beta 0, C of the input type, the exact arithmetic, tight leading dimensions, one
/// problem.
#[derive(Debug, Clone, Copy)]
pub struct Gemm {
    raw: sys::gpuopt_gemm_desc_t,
    lds: [Option<i64>; 3],
}

impl Gemm {
    /// An `m x n x k` GEMM on `dtype` (A, B and C of that type).
    pub fn new(dtype: Dtype, m: i64, n: i64, k: i64) -> Gemm {
        Gemm {
            raw: sys::gpuopt_gemm_desc_t {
                struct_size: size_of::<sys::gpuopt_gemm_desc_t>(),
                trans_a: Trans::N.raw(),
                trans_b: Trans::N.raw(),
                m,
                n,
                k,
                alpha: 1.0,
                beta: 0.0,
                a_type: dtype.raw(),
                c_type: dtype.raw(),
                compute: Compute::Default.raw(),
                lda: 0,
                ldb: 0,
                ldc: 0,
                batch_count: 1,
                stride_a: 0,
                stride_b: 0,
                stride_c: 0,
            },
            lds: [None; 3],
        }
    }
    /// op of A.
    pub fn trans_a(mut self, t: Trans) -> Gemm {
        self.raw.trans_a = t.raw();
        self
    }
    /// op of B.
    pub fn trans_b(mut self, t: Trans) -> Gemm {
        self.raw.trans_b = t.raw();
        self
    }
    /// Scale of the product.
    pub fn alpha(mut self, alpha: f64) -> Gemm {
        self.raw.alpha = alpha;
        self
    }
    /// Scale of C (0: C is written without being read).
    pub fn beta(mut self, beta: f64) -> Gemm {
        self.raw.beta = beta;
        self
    }
    /// Element type of C (f32 output of bf16/f16 inputs).
    pub fn c_type(mut self, t: Dtype) -> Gemm {
        self.raw.c_type = t.raw();
        self
    }
    /// Arithmetic (TF32 tensor cores for f32, for example).
    pub fn compute(mut self, c: Compute) -> Gemm {
        self.raw.compute = c.raw();
        self
    }
    /// Leading dimension of A (default: rows of A as stored).
    pub fn lda(mut self, ld: i64) -> Gemm {
        self.lds[0] = Some(ld);
        self
    }
    /// Leading dimension of B (default: rows of B as stored).
    pub fn ldb(mut self, ld: i64) -> Gemm {
        self.lds[1] = Some(ld);
        self
    }
    /// Leading dimension of C (default: m).
    pub fn ldc(mut self, ld: i64) -> Gemm {
        self.lds[2] = Some(ld);
        self
    }
    /// A strided batch of `count` problems, strides in elements.
    pub fn batch(mut self, count: i64, stride_a: i64, stride_b: i64, stride_c: i64) -> Gemm {
        self.raw.batch_count = count;
        self.raw.stride_a = stride_a;
        self.raw.stride_b = stride_b;
        self.raw.stride_c = stride_c;
        self
    }
    fn a_shape(&self) -> (i64, i64) {
        if self.raw.trans_a == sys::GPUOPT_TRANS_N {
            (self.raw.m, self.raw.k)
        } else {
            (self.raw.k, self.raw.m)
        }
    }
    fn b_shape(&self) -> (i64, i64) {
        if self.raw.trans_b == sys::GPUOPT_TRANS_N {
            (self.raw.k, self.raw.n)
        } else {
            (self.raw.n, self.raw.k)
        }
    }
    /// The C struct, leading dimensions filled in.
    pub fn to_sys(&self) -> sys::gpuopt_gemm_desc_t {
        let mut r = self.raw;
        r.lda = self.lds[0].unwrap_or(self.a_shape().0.max(1));
        r.ldb = self.lds[1].unwrap_or(self.b_shape().0.max(1));
        r.ldc = self.lds[2].unwrap_or(r.m.max(1));
        r
    }
    /// Bytes of A, B and C the problem spans (`None`: invalid, left to the library).
    pub(crate) fn spans(&self) -> [Option<i128>; 3] {
        let r = self.to_sys();
        let (a, b) = (self.a_shape(), self.b_shape());
        let esz = |t| Dtype::from_raw(t).map(|d| d.size() as i128);
        let bytes = |s: Option<i128>, t| Some(s? * esz(t)?);
        [
            bytes(
                batch_span(matrix_span(a.0, a.1, r.lda), r.batch_count, r.stride_a),
                r.a_type,
            ),
            bytes(
                batch_span(matrix_span(b.0, b.1, r.ldb), r.batch_count, r.stride_b),
                r.a_type,
            ),
            bytes(
                batch_span(matrix_span(r.m, r.n, r.ldc), r.batch_count, r.stride_c),
                r.c_type,
            ),
        ]
    }
}

/// A reduction (`gpuopt_reduce_desc_t`): one reduction of `n` elements by default.
#[derive(Debug, Clone, Copy)]
pub struct Reduce<'a> {
    raw: sys::gpuopt_reduce_desc_t,
    offsets_bytes: Option<usize>,
    _offsets: PhantomData<&'a Buffer<'a>>,
}

impl<'a> Reduce<'a> {
    /// One reduction of `in[0, n)` with `op`.
    pub fn new(op: ReduceOp, in_type: Dtype, n: i64) -> Reduce<'a> {
        Reduce {
            raw: sys::gpuopt_reduce_desc_t {
                struct_size: size_of::<sys::gpuopt_reduce_desc_t>(),
                op: op.raw(),
                in_type: in_type.raw(),
                n,
                num_segments: 1,
                segment_stride: 0,
                offsets: ptr::null(),
                mode: ReduceMode::Deterministic.raw(),
            },
            offsets_bytes: None,
            _offsets: PhantomData,
        }
    }
    /// Fixed segments: `num_segments` of `n` elements, `stride` elements apart.
    pub fn fixed_segments(mut self, num_segments: i64, stride: i64) -> Reduce<'a> {
        self.raw.num_segments = num_segments;
        self.raw.segment_stride = stride;
        self
    }
    /// Variable segments: `offsets` is a device buffer of `num_segments + 1` i64 offsets into
    /// `in[0, n)`. Returns the error of a pinned-host `offsets` buffer.
    pub fn variable_segments(
        mut self,
        offsets: &'a Buffer<'_>,
        num_segments: i64,
    ) -> crate::Result<Reduce<'a>> {
        self.raw.offsets = offsets.device_ptr()? as *const i64;
        self.raw.num_segments = num_segments;
        self.offsets_bytes = Some(offsets.len_bytes());
        Ok(self)
    }
    /// Reproducibility.
    pub fn mode(mut self, mode: ReduceMode) -> Reduce<'a> {
        self.raw.mode = mode.raw();
        self
    }
    /// The C struct.
    pub fn to_sys(&self) -> sys::gpuopt_reduce_desc_t {
        self.raw
    }
    /// Number of results written.
    pub fn num_results(&self) -> i64 {
        if self.raw.offsets.is_null() {
            self.raw.num_segments.max(1)
        } else {
            self.raw.num_segments
        }
    }
    /// Bytes of the input, the output and the offsets spanned (`None`: invalid, left to the
    /// library).
    pub(crate) fn spans(&self) -> [Option<i128>; 3] {
        let r = &self.raw;
        let in_t = Dtype::from_raw(r.in_type);
        let op = ReduceOp::from_raw(r.op);
        if r.n < 0 || r.num_segments < 0 || in_t.is_none() || op.is_none() {
            return [None; 3];
        }
        let (in_t, op) = (in_t.unwrap(), op.unwrap());
        let input = if r.offsets.is_null() && r.num_segments > 1 {
            if r.segment_stride < r.n {
                None
            } else if r.n == 0 {
                Some(0)
            } else {
                Some(r.segment_stride as i128 * (r.num_segments as i128 - 1) + r.n as i128)
            }
        } else {
            Some(r.n as i128)
        };
        let out = self.num_results() as i128 * op.result_type(in_t).size() as i128;
        let offsets = self.offsets_bytes.map(|_| (r.num_segments as i128 + 1) * 8);
        [input.map(|e| e * in_t.size() as i128), Some(out), offsets]
    }
    pub(crate) fn offsets_capacity(&self) -> Option<usize> {
        self.offsets_bytes
    }
}

/// A segmented sort (`gpuopt_segmented_sort_desc_t`): keys only, ascending, by default.
#[derive(Debug, Clone, Copy)]
pub struct SegmentedSort<'a> {
    raw: sys::gpuopt_segmented_sort_desc_t,
    offsets_bytes: Option<usize>,
    _offsets: PhantomData<&'a Buffer<'a>>,
}

impl<'a> SegmentedSort<'a> {
    /// `num_segments` fixed segments of `segment_size` keys of `key_type`.
    pub fn fixed(key_type: Dtype, num_segments: i64, segment_size: i64) -> SegmentedSort<'a> {
        SegmentedSort {
            raw: sys::gpuopt_segmented_sort_desc_t {
                struct_size: size_of::<sys::gpuopt_segmented_sort_desc_t>(),
                key_type: key_type.raw(),
                value_bytes: 0,
                order: SortOrder::Ascending.raw(),
                num_items: num_segments.saturating_mul(segment_size),
                num_segments,
                segment_size,
                offsets: ptr::null(),
            },
            offsets_bytes: None,
            _offsets: PhantomData,
        }
    }
    /// Variable segments of `num_items` keys: `offsets` is a device buffer of
    /// `num_segments + 1` i64 offsets.
    pub fn variable(
        key_type: Dtype,
        num_items: i64,
        offsets: &'a Buffer<'_>,
        num_segments: i64,
    ) -> crate::Result<SegmentedSort<'a>> {
        let mut s = SegmentedSort::fixed(key_type, 0, 0);
        s.raw.num_items = num_items;
        s.raw.num_segments = num_segments;
        s.raw.offsets = offsets.device_ptr()? as *const i64;
        s.offsets_bytes = Some(offsets.len_bytes());
        Ok(s)
    }
    /// Values of `bytes` (4 or 8) per key move with their keys.
    pub fn values(mut self, bytes: i32) -> SegmentedSort<'a> {
        self.raw.value_bytes = bytes;
        self
    }
    /// Sort direction.
    pub fn order(mut self, order: SortOrder) -> SegmentedSort<'a> {
        self.raw.order = order.raw();
        self
    }
    /// The C struct.
    pub fn to_sys(&self) -> sys::gpuopt_segmented_sort_desc_t {
        self.raw
    }
    /// Bytes of keys, values and offsets spanned (`None`: invalid, left to the library).
    pub(crate) fn spans(&self) -> [Option<i128>; 3] {
        let r = &self.raw;
        let key = match Dtype::from_raw(r.key_type) {
            Some(k) if r.num_items >= 0 && r.num_segments >= 0 && r.value_bytes >= 0 => k,
            _ => return [None; 3],
        };
        let n = r.num_items as i128;
        let offsets = self.offsets_bytes.map(|_| (r.num_segments as i128 + 1) * 8);
        [
            Some(n * key.size() as i128),
            Some(n * r.value_bytes as i128),
            offsets,
        ]
    }
    pub(crate) fn offsets_capacity(&self) -> Option<usize> {
        self.offsets_bytes
    }
}

/// A star stencil (`gpuopt_stencil_desc_t`): zero boundary, tight pitches by default.
#[derive(Debug, Clone, Copy)]
pub struct Stencil<'a> {
    raw: sys::gpuopt_stencil_desc_t,
    coeffs: &'a [f64],
    pitches: [Option<i64>; 4],
}

impl<'a> Stencil<'a> {
    /// A 2D `nx x ny` stencil of `radius` with `coeffs` (1 + 2 * 2 * radius values: centre,
    /// then per axis x, y the offsets -r..-1, +1..+r).
    pub fn new_2d(dtype: Dtype, nx: i64, ny: i64, radius: i32, coeffs: &'a [f64]) -> Stencil<'a> {
        Stencil::new_3d(dtype, nx, ny, 1, radius, coeffs).dims(2)
    }
    /// A 3D `nx x ny x nz` stencil (coeffs: 1 + 3 * 2 * radius values).
    pub fn new_3d(
        dtype: Dtype,
        nx: i64,
        ny: i64,
        nz: i64,
        radius: i32,
        coeffs: &'a [f64],
    ) -> Stencil<'a> {
        Stencil {
            raw: sys::gpuopt_stencil_desc_t {
                struct_size: size_of::<sys::gpuopt_stencil_desc_t>(),
                dtype: dtype.raw(),
                dims: 3,
                radius,
                boundary: Boundary::Zero.raw(),
                nx,
                ny,
                nz,
                in_pitch: 0,
                in_slice_pitch: 0,
                out_pitch: 0,
                out_slice_pitch: 0,
                coeffs: coeffs.as_ptr(),
            },
            coeffs,
            pitches: [None; 4],
        }
    }
    fn dims(mut self, dims: i32) -> Stencil<'a> {
        self.raw.dims = dims;
        self
    }
    /// What the stencil reads outside the grid.
    pub fn boundary(mut self, b: Boundary) -> Stencil<'a> {
        self.raw.boundary = b.raw();
        self
    }
    /// Row and slice pitches of the input, in elements (defaults nx and nx * ny).
    pub fn in_pitches(mut self, pitch: i64, slice_pitch: i64) -> Stencil<'a> {
        self.pitches[0] = Some(pitch);
        self.pitches[1] = Some(slice_pitch);
        self
    }
    /// Row and slice pitches of the output, in elements (defaults nx and nx * ny).
    pub fn out_pitches(mut self, pitch: i64, slice_pitch: i64) -> Stencil<'a> {
        self.pitches[2] = Some(pitch);
        self.pitches[3] = Some(slice_pitch);
        self
    }
    /// Coefficients the descriptor needs: 1 + dims * 2 * radius.
    pub fn coeff_count(&self) -> i128 {
        1 + self.raw.dims.max(0) as i128 * 2 * self.raw.radius.max(0) as i128
    }
    pub(crate) fn coeffs_len(&self) -> usize {
        self.coeffs.len()
    }
    /// The C struct, pitches filled in.
    pub fn to_sys(&self) -> sys::gpuopt_stencil_desc_t {
        let mut r = self.raw;
        let slice = r.nx.saturating_mul(r.ny);
        r.in_pitch = self.pitches[0].unwrap_or(r.nx);
        r.in_slice_pitch = self.pitches[1].unwrap_or(slice);
        r.out_pitch = self.pitches[2].unwrap_or(r.nx);
        r.out_slice_pitch = self.pitches[3].unwrap_or(slice);
        r
    }
    /// Bytes of the input and output spanned (`None`: invalid, left to the library).
    pub(crate) fn spans(&self) -> [Option<i128>; 2] {
        let r = self.to_sys();
        let esz = match Dtype::from_raw(r.dtype) {
            Some(d) => d.size() as i128,
            None => return [None; 2],
        };
        let span = |pitch: i64, slice: i64| -> Option<i128> {
            if r.nx < 0 || r.ny < 0 || r.nz < 0 || pitch < r.nx || slice < 0 {
                return None;
            }
            if r.nx == 0 || r.ny == 0 || r.nz == 0 {
                return Some(0);
            }
            let e = (r.nz as i128 - 1) * slice as i128
                + (r.ny as i128 - 1) * pitch as i128
                + r.nx as i128;
            Some(e * esz)
        };
        [
            span(r.in_pitch, r.in_slice_pitch),
            span(r.out_pitch, r.out_slice_pitch),
        ]
    }
}

/// An out-of-place transpose B = A^T (`gpuopt_transpose_desc_t`), tight leading dimensions by
/// default.
#[derive(Debug, Clone, Copy)]
pub struct Transpose {
    raw: sys::gpuopt_transpose_desc_t,
}

impl Transpose {
    /// A is `rows x cols` of `dtype`.
    pub fn new(dtype: Dtype, rows: i64, cols: i64) -> Transpose {
        Transpose {
            raw: sys::gpuopt_transpose_desc_t {
                struct_size: size_of::<sys::gpuopt_transpose_desc_t>(),
                dtype: dtype.raw(),
                rows,
                cols,
                lda: rows.max(1),
                ldb: cols.max(1),
            },
        }
    }
    /// Leading dimension of A.
    pub fn lda(mut self, ld: i64) -> Transpose {
        self.raw.lda = ld;
        self
    }
    /// Leading dimension of B.
    pub fn ldb(mut self, ld: i64) -> Transpose {
        self.raw.ldb = ld;
        self
    }
    /// The C struct.
    pub fn to_sys(&self) -> sys::gpuopt_transpose_desc_t {
        self.raw
    }
    /// Bytes of A and B spanned (`None`: invalid, left to the library).
    pub(crate) fn spans(&self) -> [Option<i128>; 2] {
        let r = &self.raw;
        let esz = Dtype::from_raw(r.dtype).map(|d| d.size() as i128);
        let bytes = |s: Option<i128>| Some(s? * esz?);
        [
            bytes(matrix_span(r.rows, r.cols, r.lda)),
            bytes(matrix_span(r.cols, r.rows, r.ldb)),
        ]
    }
}

/// A GDN layer over NCHW f32 (`gpuopt_gdn_desc_t`): divisive, default arithmetic.
#[derive(Debug, Clone, Copy)]
pub struct Gdn {
    raw: sys::gpuopt_gdn_desc_t,
}

impl Gdn {
    /// `batch x channels x height x width`.
    pub fn new(batch: i64, channels: i64, height: i64, width: i64) -> Gdn {
        Gdn {
            raw: sys::gpuopt_gdn_desc_t {
                struct_size: size_of::<sys::gpuopt_gdn_desc_t>(),
                batch,
                channels,
                height,
                width,
                inverse: 0,
                compute: Compute::Default.raw(),
            },
        }
    }
    /// Inverse GDN (multiplicative) when `true`.
    pub fn inverse(mut self, inverse: bool) -> Gdn {
        self.raw.inverse = inverse as i32;
        self
    }
    /// Arithmetic of the channel mix.
    pub fn compute(mut self, c: Compute) -> Gdn {
        self.raw.compute = c.raw();
        self
    }
    /// The C struct.
    pub fn to_sys(&self) -> sys::gpuopt_gdn_desc_t {
        self.raw
    }
    /// Bytes of a tensor, of beta and of gamma (`None`: invalid, left to the library).
    pub(crate) fn spans(&self) -> [Option<i128>; 3] {
        let r = &self.raw;
        if r.batch < 0 || r.channels < 1 || r.height < 0 || r.width < 0 {
            return [None; 3];
        }
        let c = r.channels as i128;
        let t = r.batch as i128 * c * r.height as i128 * r.width as i128;
        [Some(t * 4), Some(c * 4), Some(c * c * 4)]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gemm_defaults_and_leading_dimensions() {
        let d = Gemm::new(Dtype::F64, 30, 20, 10).to_sys();
        assert_eq!(d.struct_size, size_of::<sys::gpuopt_gemm_desc_t>());
        assert_eq!((d.lda, d.ldb, d.ldc), (30, 10, 30));
        assert_eq!((d.alpha, d.beta, d.batch_count), (1.0, 0.0, 1));
        assert_eq!(
            (d.a_type, d.c_type),
            (sys::GPUOPT_DTYPE_F64, sys::GPUOPT_DTYPE_F64)
        );
        let t = Gemm::new(Dtype::F32, 30, 20, 10)
            .trans_a(Trans::T)
            .trans_b(Trans::T)
            .to_sys();
        assert_eq!((t.lda, t.ldb, t.ldc), (10, 20, 30));
        let e = Gemm::new(Dtype::F32, 0, 0, 0).to_sys();
        assert_eq!((e.lda, e.ldb, e.ldc), (1, 1, 1));
        assert_eq!(Gemm::new(Dtype::F32, 4, 4, 4).lda(7).to_sys().lda, 7);
    }

    #[test]
    fn gemm_spans() {
        let g = Gemm::new(Dtype::F64, 30, 20, 10).ldc(32);
        assert_eq!(
            g.spans(),
            [
                Some(30 * 10 * 8),
                Some(10 * 20 * 8),
                Some((32 * 19 + 30) * 8)
            ]
        );
        let b = Gemm::new(Dtype::F32, 4, 4, 4).batch(3, 100, 16, 20);
        assert_eq!(
            b.spans(),
            [
                Some((200 + 16) * 4),
                Some((32 + 16) * 4),
                Some((40 + 16) * 4)
            ]
        );
        // An invalid lda is left to the library, which names the argument.
        assert_eq!(Gemm::new(Dtype::F64, 30, 20, 10).lda(29).spans()[0], None);
        assert_eq!(
            Gemm::new(Dtype::F64, -1, 20, 10).spans(),
            [None, Some(1600), None]
        );
    }

    #[test]
    fn matrix_and_batch_span_edges() {
        assert_eq!(matrix_span(0, 5, 1), Some(0));
        assert_eq!(matrix_span(5, 0, 5), Some(0));
        assert_eq!(matrix_span(5, 3, 4), None);
        assert_eq!(
            matrix_span(i64::MAX, 2, i64::MAX),
            Some(i64::MAX as i128 * 2)
        );
        assert_eq!(batch_span(Some(10), 0, 0), Some(10));
        assert_eq!(batch_span(Some(10), 3, -1), None);
    }

    #[test]
    fn reduce_layouts() {
        let one = Reduce::new(ReduceOp::Sum, Dtype::I32, 100);
        assert_eq!(
            one.to_sys().struct_size,
            size_of::<sys::gpuopt_reduce_desc_t>()
        );
        assert_eq!(one.num_results(), 1);
        assert_eq!(one.spans(), [Some(400), Some(8), None]); // i32 sums widen to i64
        let rows = Reduce::new(ReduceOp::Max, Dtype::F32, 10).fixed_segments(4, 16);
        assert_eq!(rows.spans(), [Some((48 + 10) * 4), Some(16), None]);
        let arg = Reduce::new(ReduceOp::ArgMin, Dtype::Bf16, 8).fixed_segments(3, 8);
        assert_eq!(arg.spans(), [Some(48), Some(24), None]);
        assert_eq!(
            Reduce::new(ReduceOp::Sum, Dtype::F32, 10)
                .fixed_segments(4, 9)
                .spans()[0],
            None
        );
        assert_eq!(
            one.mode(ReduceMode::Fast).to_sys().mode,
            sys::GPUOPT_REDUCE_FAST
        );
    }

    #[test]
    fn sort_stencil_transpose_gdn_defaults() {
        let s = SegmentedSort::fixed(Dtype::U32, 3, 5)
            .values(8)
            .order(SortOrder::Descending);
        let r = s.to_sys();
        assert_eq!(
            (r.num_items, r.value_bytes, r.order),
            (15, 8, sys::GPUOPT_SORT_DESCENDING)
        );
        assert!(r.offsets.is_null());
        assert_eq!(s.spans(), [Some(60), Some(120), None]);

        let c = [0.5f64; 9];
        let st = Stencil::new_2d(Dtype::F32, 10, 6, 2, &c);
        let r = st.to_sys();
        assert_eq!((r.dims, r.nz, r.in_pitch, r.in_slice_pitch), (2, 1, 10, 60));
        assert_eq!(st.coeff_count(), 9);
        assert_eq!(st.spans(), [Some(240), Some(240)]);
        let st3 = Stencil::new_3d(Dtype::F64, 4, 3, 2, 1, &c).in_pitches(5, 20);
        assert_eq!(st3.coeff_count(), 7);
        assert_eq!(st3.spans(), [Some((20 + 10 + 4) * 8), Some(24 * 8)]);
        assert_eq!(
            st3.boundary(Boundary::Clamp).to_sys().boundary,
            sys::GPUOPT_BOUNDARY_CLAMP
        );

        let t = Transpose::new(Dtype::Bf16, 7, 3).to_sys();
        assert_eq!((t.lda, t.ldb), (7, 3));
        assert_eq!(
            Transpose::new(Dtype::F64, 7, 3).ldb(4).spans(),
            [Some(168), Some((4 * 6 + 3) * 8)]
        );

        let g = Gdn::new(2, 3, 4, 5).inverse(true).compute(Compute::Tf32);
        assert_eq!(
            (g.to_sys().inverse, g.to_sys().compute),
            (1, sys::GPUOPT_COMPUTE_TF32)
        );
        assert_eq!(g.spans(), [Some(2 * 3 * 20 * 4), Some(12), Some(36)]);
        assert_eq!(Gdn::new(1, 0, 1, 1).spans(), [None; 3]);
    }
}
