//! `Context` (one device, its variant registry and dispatch state) and the device queries.
use std::ffi::CString;
use std::os::raw::{c_char, c_int, c_void};
use std::ptr;

use crate::error::{static_str, Error, Result, Status};
use crate::sys;
use crate::types::{Dtype, Op};

/// Number of CUDA devices; `Err` with [`Status::NoDevice`] without a driver or device.
pub fn device_count() -> Result<i32> {
    let mut count: c_int = 0;
    // SAFETY: count is a valid output.
    Error::check(unsafe { sys::gpuopt_device_count(&mut count) })?;
    Ok(count)
}

/// Describes device `device` without creating a context.
pub fn device_info(device: i32) -> Result<DeviceInfo> {
    let mut info = DeviceInfo::raw_zeroed();
    // SAFETY: info is a valid output with struct_size set.
    Error::check(unsafe { sys::gpuopt_device_info(device, &mut info) })?;
    Ok(DeviceInfo::from_raw(&info))
}

/// `gpuopt_device_info_t` with an owned name.
#[derive(Debug, Clone, PartialEq)]
#[allow(missing_docs)]
pub struct DeviceInfo {
    pub device: i32,
    pub name: String,
    pub cc_major: i32,
    pub cc_minor: i32,
    pub sm_count: i32,
    pub max_threads_per_sm: i32,
    pub total_memory: usize,
    pub l2_cache_bytes: usize,
    pub shared_memory_per_block_optin: usize,
    pub shared_memory_per_sm: usize,
    pub supports_clusters: bool,
    pub supports_tma: bool,
    pub supports_compression: bool,
    pub supports_mapped_memory: bool,
    pub memory_clock_khz: i32,
    pub memory_bus_width_bits: i32,
    pub theoretical_bandwidth_gbs: f64,
    pub driver_version: i32,
    pub runtime_version: i32,
}

impl DeviceInfo {
    fn raw_zeroed() -> sys::gpuopt_device_info_t {
        // SAFETY: the struct is plain data (integers, floats, a char array): all-zero is valid.
        let mut info: sys::gpuopt_device_info_t = unsafe { std::mem::zeroed() };
        info.struct_size = std::mem::size_of::<sys::gpuopt_device_info_t>();
        info
    }

    fn from_raw(r: &sys::gpuopt_device_info_t) -> DeviceInfo {
        let bytes: Vec<u8> = r
            .name
            .iter()
            .take_while(|&&c| c != 0)
            .map(|&c| c as u8)
            .collect();
        DeviceInfo {
            device: r.device,
            name: String::from_utf8_lossy(&bytes).into_owned(),
            cc_major: r.cc_major,
            cc_minor: r.cc_minor,
            sm_count: r.sm_count,
            max_threads_per_sm: r.max_threads_per_sm,
            total_memory: r.total_memory,
            l2_cache_bytes: r.l2_cache_bytes,
            shared_memory_per_block_optin: r.shared_memory_per_block_optin,
            shared_memory_per_sm: r.shared_memory_per_sm,
            supports_clusters: r.supports_clusters != 0,
            supports_tma: r.supports_tma != 0,
            supports_compression: r.supports_compression != 0,
            supports_mapped_memory: r.supports_mapped_memory != 0,
            memory_clock_khz: r.memory_clock_khz,
            memory_bus_width_bits: r.memory_bus_width_bits,
            theoretical_bandwidth_gbs: r.theoretical_bandwidth_gbs,
            driver_version: r.driver_version,
            runtime_version: r.runtime_version,
        }
    }
}

/// `gpuopt_variant_info_t` of one variant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VariantInfo {
    /// Stable name, e.g. "vec4_gridstride".
    pub name: &'static str,
    /// One line: what the variant does.
    pub technique: &'static str,
    /// Lowest compute capability, major * 10 + minor.
    pub min_cc: i32,
    /// Nonzero for arch-specific code: only that cc.
    pub exact_cc: i32,
    /// The vendor library routine.
    pub is_vendor: bool,
    /// Can run on the context's device.
    pub available: bool,
    /// Bit (1 << dtype) per supported dtype.
    pub dtype_mask: u32,
}

impl VariantInfo {
    /// Whether the variant supports `dtype`.
    pub fn supports(&self, dtype: Dtype) -> bool {
        self.dtype_mask & (1u32 << dtype.raw()) != 0
    }
}

/// A gpuopt context on one device (`gpuopt_context_t`); destroyed on drop.
///
/// `Send + Sync`: the header allows several threads to use one context at once, provided
/// concurrent enqueueing calls name different streams, which [`crate::Stream`] (`!Sync`)
/// guarantees. Streams, buffers and graphs borrow the context, so it outlives them all, as
/// gpuopt_context_destroy() requires.
pub struct Context {
    raw: sys::gpuopt_context_t,
    // The allocator the context calls back into (boxed twice: the C user pointer is thin); it
    // outlives the context's last deallocate, which gpuopt_context_destroy makes in Drop.
    allocator: Option<Box<Box<dyn DeviceAllocator>>>,
}

impl std::fmt::Debug for Context {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Context")
            .field("raw", &self.raw)
            .field("custom_allocator", &self.allocator.is_some())
            .finish()
    }
}

/// Device memory for a context ([`Context::set_allocator`], `gpuopt_allocator_t`): a framework's
/// pool serving gpuopt's stream workspaces and device buffers.
pub trait DeviceAllocator: Send + Sync {
    /// `bytes` of memory of the context's device, aligned to at least 256 bytes; null when it
    /// cannot (the gpuopt call then fails with [`Status::OutOfMemory`]).
    fn allocate(&self, bytes: usize) -> *mut c_void;
    /// Takes back what `allocate` returned (gpuopt has synchronized the device first).
    fn deallocate(&self, ptr: *mut c_void, bytes: usize);
}

unsafe extern "C" fn allocate_trampoline(
    bytes: usize,
    _cuda_stream: *mut c_void,
    user: *mut c_void,
) -> *mut c_void {
    // SAFETY: user is the Box<dyn DeviceAllocator> Context::set_allocator registered, alive
    // while the context may call back.
    let a = unsafe { &*(user as *const Box<dyn DeviceAllocator>) };
    // A panic must not unwind into C: it counts as out of memory.
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| a.allocate(bytes)))
        .unwrap_or(ptr::null_mut())
}

unsafe extern "C" fn deallocate_trampoline(
    p: *mut c_void,
    bytes: usize,
    _cuda_stream: *mut c_void,
    user: *mut c_void,
) {
    // SAFETY: as in allocate_trampoline.
    let a = unsafe { &*(user as *const Box<dyn DeviceAllocator>) };
    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| a.deallocate(p, bytes)));
}

// SAFETY: the header's thread-safety rules: a context may be used by several threads at once;
// its destruction (Drop, with &mut access) cannot race with other uses.
unsafe impl Send for Context {}
// SAFETY: as above.
unsafe impl Sync for Context {}

impl Context {
    /// Creates a context on CUDA device `device`. Without a GPU or driver: [`Status::NoDevice`]
    /// with the reason. Reads `GPUOPT_VARIANT_<OP>` and `GPUOPT_LOG` from the environment.
    pub fn new(device: i32) -> Result<Context> {
        let mut raw: sys::gpuopt_context_t = ptr::null_mut();
        // SAFETY: raw is a valid output.
        Error::check(unsafe { sys::gpuopt_context_create(device, &mut raw) })?;
        Ok(Context {
            raw,
            allocator: None,
        })
    }

    /// The raw handle, for calls through [`crate::sys`]. It stays owned by `self`.
    pub fn as_raw(&self) -> sys::gpuopt_context_t {
        self.raw
    }

    /// Allocates the context's device memory (stream workspaces, device buffers) through
    /// `allocator`; `None` restores gpuopt's own (cudaMalloc). `&mut self` guarantees that no
    /// stream, buffer or graph of the context lives, as `gpuopt_context_set_allocator` requires.
    pub fn set_allocator(&mut self, allocator: Option<Box<dyn DeviceAllocator>>) -> Result<()> {
        let Some(a) = allocator else {
            // SAFETY: live handle; NULL restores the default.
            Error::check(unsafe { sys::gpuopt_context_set_allocator(self.raw, ptr::null()) })?;
            self.allocator = None;
            return Ok(());
        };
        let boxed: Box<Box<dyn DeviceAllocator>> = Box::new(a);
        let desc = sys::gpuopt_allocator_t {
            struct_size: std::mem::size_of::<sys::gpuopt_allocator_t>(),
            allocate: Some(allocate_trampoline),
            deallocate: Some(deallocate_trampoline),
            user: &*boxed as *const Box<dyn DeviceAllocator> as *mut c_void,
        };
        // SAFETY: live handle, valid descriptor; the box outlives every callback (it is kept
        // until the next set_allocator, which first gives the pooled memory back, or Drop).
        Error::check(unsafe { sys::gpuopt_context_set_allocator(self.raw, &desc) })?;
        self.allocator = Some(boxed);
        Ok(())
    }

    /// Describes the context's device.
    pub fn device_info(&self) -> Result<DeviceInfo> {
        let mut info = DeviceInfo::raw_zeroed();
        // SAFETY: live handle, valid output.
        Error::check(unsafe { sys::gpuopt_context_device_info(self.raw, &mut info) })?;
        Ok(DeviceInfo::from_raw(&info))
    }

    /// Number of variants of `op`.
    pub fn variant_count(&self, op: Op) -> Result<i32> {
        let mut count: c_int = 0;
        // SAFETY: live handle, valid output.
        Error::check(unsafe { sys::gpuopt_variant_count(self.raw, op.raw(), &mut count) })?;
        Ok(count)
    }

    /// Name of variant `index` of `op`.
    pub fn variant_name(&self, op: Op, index: i32) -> Result<&'static str> {
        let mut name: *const c_char = ptr::null();
        // SAFETY: live handle, valid output; the name is static storage.
        Error::check(unsafe { sys::gpuopt_variant_name(self.raw, op.raw(), index, &mut name) })?;
        Ok(unsafe { static_str(name) }.unwrap_or(""))
    }

    /// Description of variant `index` of `op`.
    pub fn variant_info(&self, op: Op, index: i32) -> Result<VariantInfo> {
        let mut info = sys::gpuopt_variant_info_t {
            struct_size: std::mem::size_of::<sys::gpuopt_variant_info_t>(),
            name: ptr::null(),
            technique: ptr::null(),
            min_cc: 0,
            exact_cc: 0,
            is_vendor: 0,
            available: 0,
            dtype_mask: 0,
        };
        // SAFETY: live handle, valid output with struct_size set; strings are static storage.
        Error::check(unsafe { sys::gpuopt_variant_info(self.raw, op.raw(), index, &mut info) })?;
        Ok(VariantInfo {
            name: unsafe { static_str(info.name) }.unwrap_or(""),
            technique: unsafe { static_str(info.technique) }.unwrap_or(""),
            min_cc: info.min_cc,
            exact_cc: info.exact_cc,
            is_vendor: info.is_vendor != 0,
            available: info.available != 0,
            dtype_mask: info.dtype_mask,
        })
    }

    /// All variants of `op`.
    pub fn variants(&self, op: Op) -> Result<Vec<VariantInfo>> {
        (0..self.variant_count(op)?)
            .map(|i| self.variant_info(op, i))
            .collect()
    }

    /// Forces variant `name` for `op` (`None` or `"auto"`: automatic choice again);
    /// `"variant:config"` also forces one of its run-time configurations (`"cublaslt:algo2"`).
    pub fn set_variant(&self, op: Op, name: Option<&str>) -> Result<()> {
        let owned = match name {
            Some(n) => Some(CString::new(n).map_err(|_| {
                Error::new(
                    Status::InvalidArgument,
                    "gpuopt::Context::set_variant: name contains a NUL byte",
                )
            })?),
            None => None,
        };
        let p = owned.as_ref().map_or(ptr::null(), |c| c.as_ptr());
        // SAFETY: live handle; p is NULL or a NUL-terminated string alive for the call.
        Error::check(unsafe { sys::gpuopt_context_set_variant(self.raw, op.raw(), p) })
    }

    /// Name of the forced variant of `op`, or "auto" (copied: the header does not promise
    /// static storage for it).
    pub fn get_variant(&self, op: Op) -> Result<String> {
        let mut name: *const c_char = ptr::null();
        // SAFETY: live handle, valid output.
        Error::check(unsafe { sys::gpuopt_context_get_variant(self.raw, op.raw(), &mut name) })?;
        if name.is_null() {
            return Ok("auto".to_string());
        }
        // SAFETY: a NUL-terminated string, valid until the next change of the forced variant.
        Ok(unsafe { std::ffi::CStr::from_ptr(name) }
            .to_string_lossy()
            .into_owned())
    }

    /// The variant the last successful call of `op` on this context ran (by any thread).
    pub fn last_variant(&self, op: Op) -> Result<Option<&'static str>> {
        let mut name: *const c_char = ptr::null();
        // SAFETY: live handle, valid output; NULL or static storage.
        Error::check(unsafe { sys::gpuopt_last_variant(self.raw, op.raw(), &mut name) })?;
        Ok(unsafe { static_str(name) })
    }
}

/// What [`Context::tune`] measured (`gpuopt_tune_result_t`).
#[derive(Debug, Clone, PartialEq)]
pub struct TuneResult {
    /// The variant now recorded for the problem's class: the fastest, or the preference rules'
    /// choice when no variant beats it by more than 1%.
    pub variant: &'static str,
    /// Its median time per call, milliseconds.
    pub ms: f64,
    /// Candidates (variants and run-time configurations) that ran the problem and were timed.
    pub timed: i32,
    /// Candidates that cannot run it.
    pub refused: i32,
    /// The recorded variant's run-time configuration (`"coop_c2"` of sm90_tma_wgmma, `"algo3"`
    /// of cublaslt; docs/tuning.md), or `None` for the rung's own rule.
    pub config: Option<&'static str>,
}

/// The closure [`Context::tune`] runs, behind the C callback.
struct TuneCall<'a> {
    call: &'a mut dyn FnMut() -> Result<()>,
    panicked: bool,
}

unsafe extern "C" fn tune_trampoline(user: *mut c_void) -> sys::gpuopt_status_t {
    // SAFETY: user is the TuneCall that Context::tune passed, alive for the gpuopt_tune call.
    let t = &mut *(user as *mut TuneCall);
    if t.panicked {
        return Status::InvalidArgument.raw();
    }
    // A panic must not unwind into C.
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| (t.call)())) {
        Ok(Ok(())) => sys::GPUOPT_SUCCESS,
        Ok(Err(e)) => e.status.raw(),
        Err(_) => {
            t.panicked = true;
            Status::InvalidArgument.raw()
        }
    }
}

/// How a context checks raw pointer operands (`gpuopt_pointer_checks_t`; docs/memory.md,
/// "Pointer checks").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PointerChecks {
    /// The default: every raw pointer is checked against the driver on every call; memory the
    /// caller freed is refused.
    Full,
    /// An allocation validated once (memory kind, device, bounds) is trusted by later calls
    /// without a driver query, as cuBLAS trusts every pointer; freed memory is then not
    /// detected: call [`Context::forget_pointers`] after memory given to an op is freed.
    Cached,
}

impl PointerChecks {
    fn raw(self) -> sys::gpuopt_pointer_checks_t {
        match self {
            PointerChecks::Full => sys::GPUOPT_POINTER_CHECKS_FULL,
            PointerChecks::Cached => sys::GPUOPT_POINTER_CHECKS_CACHED,
        }
    }
}

impl Context {
    /// Sets how raw pointer operands are checked ([`PointerChecks`]); safe while other threads
    /// call ops on the context.
    pub fn set_pointer_checks(&self, mode: PointerChecks) -> Result<()> {
        // SAFETY: live handle, a plain value.
        Error::check(unsafe { sys::gpuopt_context_set_pointer_checks(self.raw, mode.raw()) })
    }

    /// The context's pointer-check mode (`GPUOPT_POINTER_CHECKS` sets it at creation).
    pub fn pointer_checks(&self) -> Result<PointerChecks> {
        let mut m: sys::gpuopt_pointer_checks_t = sys::GPUOPT_POINTER_CHECKS_FULL;
        // SAFETY: live handle, valid output.
        Error::check(unsafe { sys::gpuopt_context_pointer_checks(self.raw, &mut m) })?;
        Ok(if m == sys::GPUOPT_POINTER_CHECKS_CACHED {
            PointerChecks::Cached
        } else {
            PointerChecks::Full
        })
    }

    /// Drops the caller allocations the context validated and cached (gpuopt's own buffers stay
    /// known): the next use of each is checked by the driver again.
    pub fn forget_pointers(&self) -> Result<()> {
        // SAFETY: live handle.
        Error::check(unsafe { sys::gpuopt_context_forget_pointers(self.raw) })
    }
}

impl Context {
    /// Attaches the tuning cache file `path` (read now; [`Context::tune`] writes it); `None`
    /// detaches it (dispatch by the built-in rules again). A stale or malformed file is ignored
    /// with one log line: [`Context::tune_cache_entries`] tells what was loaded.
    pub fn set_tune_cache(&self, path: Option<&std::path::Path>) -> Result<()> {
        use std::os::unix::ffi::OsStrExt;
        let owned = match path {
            Some(p) => Some(CString::new(p.as_os_str().as_bytes()).map_err(|_| {
                Error::new(
                    Status::InvalidArgument,
                    "gpuopt::Context::set_tune_cache: path contains a NUL byte",
                )
            })?),
            None => None,
        };
        let p = owned.as_ref().map_or(ptr::null(), |c| c.as_ptr());
        // SAFETY: live handle; p is NULL or a NUL-terminated string alive for the call.
        Error::check(unsafe { sys::gpuopt_context_set_tune_cache(self.raw, p) })
    }

    /// Number of problem classes in the tuning cache (0 when none is attached).
    pub fn tune_cache_entries(&self) -> Result<i32> {
        let mut n: c_int = 0;
        // SAFETY: live handle, valid output.
        Error::check(unsafe { sys::gpuopt_context_tune_cache_entries(self.raw, &mut n) })?;
        Ok(n)
    }

    /// Times every variant of `op` on the problem `call` runs (one gpuopt call of `op` enqueued
    /// on `stream`; it runs many times and overwrites its outputs), records the fastest for the
    /// problem's class in the tuning cache (and its file; the preference rules' own choice stays
    /// unless another variant is more than 1% faster) and returns what was measured.
    /// A panic in `call` stops the tuning and is reported as [`Status::InvalidArgument`].
    pub fn tune<F>(
        &self,
        op: Op,
        stream: &crate::Stream<'_>,
        mut call: F,
        budget_seconds: f64,
    ) -> Result<TuneResult>
    where
        F: FnMut() -> Result<()>,
    {
        let mut t = TuneCall {
            call: &mut call,
            panicked: false,
        };
        let mut r = sys::gpuopt_tune_result_t {
            struct_size: std::mem::size_of::<sys::gpuopt_tune_result_t>(),
            variant: ptr::null(),
            ms: 0.0,
            timed: 0,
            refused: 0,
            config: ptr::null(),
        };
        // SAFETY: live handles; t outlives the call, which is the only user of the pointer.
        let st = unsafe {
            sys::gpuopt_tune(
                self.raw,
                stream.as_raw(),
                op.raw(),
                Some(tune_trampoline),
                &mut t as *mut TuneCall as *mut c_void,
                budget_seconds,
                &mut r,
            )
        };
        let checked = Error::check(st);
        if t.panicked {
            return Err(Error::new(
                Status::InvalidArgument,
                "gpuopt::Context::tune: the call panicked",
            ));
        }
        checked?;
        Ok(TuneResult {
            // SAFETY: static storage (a variant name).
            variant: unsafe { static_str(r.variant) }.unwrap_or(""),
            ms: r.ms,
            timed: r.timed,
            refused: r.refused,
            // SAFETY: static storage (a configuration name) or NULL.
            config: unsafe { static_str(r.config) },
        })
    }
}

impl Drop for Context {
    fn drop(&mut self) {
        // Every stream, buffer and graph borrows the context, so none remains: this succeeds.
        // SAFETY: the handle is live and owned.
        unsafe { sys::gpuopt_context_destroy(self.raw) };
    }
}
