//! The header's enums as Rust enums, and the element types that map to a `gpuopt_dtype_t`.
use crate::error::static_str;
use crate::sys;

/// Defines a Rust enum over a C enum: `raw()` and `from_raw()`.
macro_rules! c_enum {
    (
        $(#[$doc:meta])* $name:ident : $raw:ty {
            $($(#[$vdoc:meta])* $variant:ident = $c:path),+ $(,)?
        }
    ) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum $name {
            $($(#[$vdoc])* $variant),+
        }
        impl $name {
            /// Every value, in the header's order.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];
            /// The C value.
            pub fn raw(self) -> $raw {
                match self { $($name::$variant => $c),+ }
            }
            /// The value of a C value; `None` for values this crate does not know.
            pub fn from_raw(raw: $raw) -> Option<$name> {
                match raw { $($c => Some($name::$variant),)+ _ => None }
            }
        }
    };
}

c_enum! {
    /// `gpuopt_op_t`: the operations.
    Op: sys::gpuopt_op_t {
        /// gpuopt_axpy
        Axpy = sys::GPUOPT_OP_AXPY,
        /// gpuopt_gemm
        Gemm = sys::GPUOPT_OP_GEMM,
        /// gpuopt_reduce
        Reduce = sys::GPUOPT_OP_REDUCE,
        /// gpuopt_segmented_sort
        SegmentedSort = sys::GPUOPT_OP_SEGMENTED_SORT,
        /// gpuopt_stencil
        Stencil = sys::GPUOPT_OP_STENCIL,
        /// gpuopt_transpose
        Transpose = sys::GPUOPT_OP_TRANSPOSE,
        /// gpuopt_gdn_forward and gpuopt_gdn_backward
        Gdn = sys::GPUOPT_OP_GDN,
    }
}

c_enum! {
    /// `gpuopt_dtype_t`: element types.
    Dtype: sys::gpuopt_dtype_t {
        /// IEEE binary32
        F32 = sys::GPUOPT_DTYPE_F32,
        /// IEEE binary64
        F64 = sys::GPUOPT_DTYPE_F64,
        /// IEEE binary16
        F16 = sys::GPUOPT_DTYPE_F16,
        /// bfloat16
        Bf16 = sys::GPUOPT_DTYPE_BF16,
        /// 32-bit signed integer
        I32 = sys::GPUOPT_DTYPE_I32,
        /// 64-bit signed integer
        I64 = sys::GPUOPT_DTYPE_I64,
        /// 32-bit unsigned integer
        U32 = sys::GPUOPT_DTYPE_U32,
        /// 64-bit unsigned integer
        U64 = sys::GPUOPT_DTYPE_U64,
    }
}

c_enum! {
    /// `gpuopt_memory_kind_t`: what memory a buffer holds.
    MemoryKind: sys::gpuopt_memory_kind_t {
        /// cudaMalloc'd device memory
        Device = sys::GPUOPT_MEMORY_DEVICE,
        /// page-locked host memory
        PinnedHost = sys::GPUOPT_MEMORY_PINNED_HOST,
        /// pinned host memory mapped into the device (zero-copy)
        Mapped = sys::GPUOPT_MEMORY_MAPPED,
        /// VMM device memory with generic compression requested
        Compressible = sys::GPUOPT_MEMORY_COMPRESSIBLE,
        /// the caller's device memory (Buffer::wrap)
        External = sys::GPUOPT_MEMORY_EXTERNAL,
    }
}

c_enum! {
    /// `gpuopt_transpose_t`: op of a GEMM operand.
    Trans: sys::gpuopt_transpose_t {
        /// op(X) = X
        N = sys::GPUOPT_TRANS_N,
        /// op(X) = X^T
        T = sys::GPUOPT_TRANS_T,
    }
}

c_enum! {
    /// `gpuopt_compute_t`: the arithmetic of a GEMM or GDN.
    Compute: sys::gpuopt_compute_t {
        /// the input type's own exact arithmetic
        Default = sys::GPUOPT_COMPUTE_DEFAULT,
        /// exact fp32 FMA
        F32 = sys::GPUOPT_COMPUTE_F32,
        /// TF32 tensor cores, f32 accumulation
        Tf32 = sys::GPUOPT_COMPUTE_TF32,
        /// f64
        F64 = sys::GPUOPT_COMPUTE_F64,
    }
}

c_enum! {
    /// `gpuopt_reduce_op_t`: reduction operators.
    ReduceOp: sys::gpuopt_reduce_op_t {
        /// sum
        Sum = sys::GPUOPT_REDUCE_SUM,
        /// minimum
        Min = sys::GPUOPT_REDUCE_MIN,
        /// maximum
        Max = sys::GPUOPT_REDUCE_MAX,
        /// index of the first minimum (i64)
        ArgMin = sys::GPUOPT_REDUCE_ARGMIN,
        /// index of the first maximum (i64)
        ArgMax = sys::GPUOPT_REDUCE_ARGMAX,
    }
}

c_enum! {
    /// `gpuopt_reduce_mode_t`: reproducibility of a reduction.
    ReduceMode: sys::gpuopt_reduce_mode_t {
        /// the same bits on every run (default)
        Deterministic = sys::GPUOPT_REDUCE_DETERMINISTIC,
        /// last bits of float sums may vary between runs
        Fast = sys::GPUOPT_REDUCE_FAST,
    }
}

c_enum! {
    /// `gpuopt_sort_order_t`.
    SortOrder: sys::gpuopt_sort_order_t {
        /// smallest key first
        Ascending = sys::GPUOPT_SORT_ASCENDING,
        /// largest key first
        Descending = sys::GPUOPT_SORT_DESCENDING,
    }
}

c_enum! {
    /// `gpuopt_boundary_t`: what a stencil reads outside the grid.
    Boundary: sys::gpuopt_boundary_t {
        /// zero outside the grid
        Zero = sys::GPUOPT_BOUNDARY_ZERO,
        /// nearest grid value along the axis
        Clamp = sys::GPUOPT_BOUNDARY_CLAMP,
    }
}

c_enum! {
    /// `gpuopt_gdn_pass_t`: which GDN pass a workspace query is for.
    GdnPass: sys::gpuopt_gdn_pass_t {
        /// gpuopt_gdn_forward
        Forward = sys::GPUOPT_GDN_FORWARD,
        /// gpuopt_gdn_backward
        Backward = sys::GPUOPT_GDN_BACKWARD,
    }
}

impl Op {
    /// The library's name of the op ("gemm"); `None` when the library does not know it.
    pub fn name(self) -> Option<&'static str> {
        // SAFETY: NULL or static storage.
        unsafe { static_str(sys::gpuopt_op_name(self.raw())) }
    }
}

impl Dtype {
    /// The library's name of the dtype ("f32"); `None` when the library does not know it.
    pub fn name(self) -> Option<&'static str> {
        // SAFETY: NULL or static storage.
        unsafe { static_str(sys::gpuopt_dtype_name(self.raw())) }
    }

    /// Bytes per element.
    pub fn size(self) -> usize {
        match self {
            Dtype::F16 | Dtype::Bf16 => 2,
            Dtype::F32 | Dtype::I32 | Dtype::U32 => 4,
            Dtype::F64 | Dtype::I64 | Dtype::U64 => 8,
        }
    }
}

impl ReduceOp {
    /// The library's name of the operator ("sum"); `None` when the library does not know it.
    pub fn name(self) -> Option<&'static str> {
        // SAFETY: NULL or static storage.
        unsafe { static_str(sys::gpuopt_reduce_op_name(self.raw())) }
    }

    /// The result type of this operator over inputs of `input` (the table of gpuopt_reduce()).
    pub fn result_type(self, input: Dtype) -> Dtype {
        match (self, input) {
            (ReduceOp::ArgMin | ReduceOp::ArgMax, _) => Dtype::I64,
            (ReduceOp::Sum, Dtype::I32 | Dtype::I64) => Dtype::I64,
            (ReduceOp::Sum, Dtype::U32 | Dtype::U64) => Dtype::U64,
            (_, Dtype::Bf16 | Dtype::F16) => Dtype::F32,
            (_, t) => t,
        }
    }
}

/// A host type with the layout of a gpuopt element type. Implemented for the primitive types and
/// for [`Bf16`] and [`F16`] (raw bits).
///
/// # Safety
/// `DTYPE.size() == size_of::<Self>()`, and every bit pattern is a valid value.
pub unsafe trait Element: Copy + Send + Sync + 'static {
    /// The matching `gpuopt_dtype_t`.
    const DTYPE: Dtype;
}

/// bfloat16 as its raw bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[repr(transparent)]
pub struct Bf16(pub u16);

/// IEEE binary16 as its raw bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[repr(transparent)]
pub struct F16(pub u16);

macro_rules! element {
    ($($t:ty => $d:ident),+) => {
        $(
            // SAFETY: sizes match the dtype; all bit patterns are valid.
            unsafe impl Element for $t { const DTYPE: Dtype = Dtype::$d; }
        )+
    };
}
element!(f32 => F32, f64 => F64, i32 => I32, i64 => I64, u32 => U32, u64 => U64,
         Bf16 => Bf16, F16 => F16);
