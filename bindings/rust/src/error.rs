//! `Error` and `Status`: a failed call's status with the calling thread's message.
use std::ffi::CStr;
use std::fmt;
use std::os::raw::c_char;

use crate::sys;

/// The status of a failed call, one per `gpuopt_status_t` error value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Status {
    /// `GPUOPT_ERROR_INVALID_ARGUMENT`
    InvalidArgument,
    /// `GPUOPT_ERROR_INVALID_HANDLE`
    InvalidHandle,
    /// `GPUOPT_ERROR_NO_DEVICE`
    NoDevice,
    /// `GPUOPT_ERROR_UNSUPPORTED`
    Unsupported,
    /// `GPUOPT_ERROR_OUT_OF_MEMORY`
    OutOfMemory,
    /// `GPUOPT_ERROR_MISALIGNED`
    Misaligned,
    /// `GPUOPT_ERROR_CAPTURE_ILLEGAL`
    CaptureIllegal,
    /// `GPUOPT_ERROR_NOT_FOUND`
    NotFound,
    /// `GPUOPT_ERROR_CUDA`
    Cuda,
    /// `GPUOPT_ERROR_CUBLAS`
    Cublas,
    /// `GPUOPT_ERROR_INTERNAL`
    Internal,
    /// `GPUOPT_ERROR_WRONG_DEVICE`
    WrongDevice,
    /// `GPUOPT_ERROR_COMM`: NCCL failed or a peer gave up.
    Comm,
    /// A value this crate does not know (from a newer library).
    Unknown(i32),
}

impl Status {
    /// The status of a raw value; `None` for `GPUOPT_SUCCESS`.
    pub fn from_raw(raw: sys::gpuopt_status_t) -> Option<Status> {
        Some(match raw {
            sys::GPUOPT_SUCCESS => return None,
            sys::GPUOPT_ERROR_INVALID_ARGUMENT => Status::InvalidArgument,
            sys::GPUOPT_ERROR_INVALID_HANDLE => Status::InvalidHandle,
            sys::GPUOPT_ERROR_NO_DEVICE => Status::NoDevice,
            sys::GPUOPT_ERROR_UNSUPPORTED => Status::Unsupported,
            sys::GPUOPT_ERROR_OUT_OF_MEMORY => Status::OutOfMemory,
            sys::GPUOPT_ERROR_MISALIGNED => Status::Misaligned,
            sys::GPUOPT_ERROR_CAPTURE_ILLEGAL => Status::CaptureIllegal,
            sys::GPUOPT_ERROR_NOT_FOUND => Status::NotFound,
            sys::GPUOPT_ERROR_CUDA => Status::Cuda,
            sys::GPUOPT_ERROR_CUBLAS => Status::Cublas,
            sys::GPUOPT_ERROR_INTERNAL => Status::Internal,
            sys::GPUOPT_ERROR_WRONG_DEVICE => Status::WrongDevice,
            sys::GPUOPT_ERROR_COMM => Status::Comm,
            other => Status::Unknown(other),
        })
    }

    /// The raw `gpuopt_status_t` value.
    pub fn raw(self) -> sys::gpuopt_status_t {
        match self {
            Status::InvalidArgument => sys::GPUOPT_ERROR_INVALID_ARGUMENT,
            Status::InvalidHandle => sys::GPUOPT_ERROR_INVALID_HANDLE,
            Status::NoDevice => sys::GPUOPT_ERROR_NO_DEVICE,
            Status::Unsupported => sys::GPUOPT_ERROR_UNSUPPORTED,
            Status::OutOfMemory => sys::GPUOPT_ERROR_OUT_OF_MEMORY,
            Status::Misaligned => sys::GPUOPT_ERROR_MISALIGNED,
            Status::CaptureIllegal => sys::GPUOPT_ERROR_CAPTURE_ILLEGAL,
            Status::NotFound => sys::GPUOPT_ERROR_NOT_FOUND,
            Status::Cuda => sys::GPUOPT_ERROR_CUDA,
            Status::Cublas => sys::GPUOPT_ERROR_CUBLAS,
            Status::Internal => sys::GPUOPT_ERROR_INTERNAL,
            Status::WrongDevice => sys::GPUOPT_ERROR_WRONG_DEVICE,
            Status::Comm => sys::GPUOPT_ERROR_COMM,
            Status::Unknown(raw) => raw,
        }
    }

    /// The constant's name from the library, e.g. `"GPUOPT_ERROR_NO_DEVICE"`.
    pub fn name(self) -> &'static str {
        // SAFETY: gpuopt_status_name never returns NULL and points to static storage.
        unsafe {
            static_str(sys::gpuopt_status_name(self.raw())).unwrap_or("GPUOPT_STATUS_UNKNOWN")
        }
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A failed call: its status and the message the library left for the calling thread (which
/// function, which argument, what was expected, the CUDA or cuBLAS text where one was the cause).
/// Errors the safe layer finds itself (a buffer too small for the problem) carry
/// [`Status::InvalidArgument`] and a message naming the Rust method.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    /// What went wrong, as a status.
    pub status: Status,
    /// The detailed message.
    pub message: String,
}

impl Error {
    /// An error found by the safe layer before calling the library.
    pub fn new(status: Status, message: impl Into<String>) -> Error {
        Error {
            status,
            message: message.into(),
        }
    }

    /// The error of a raw status just returned on this thread (its message is read now, before
    /// any other gpuopt call of this thread can replace it); `Ok` for `GPUOPT_SUCCESS`.
    pub fn check(raw: sys::gpuopt_status_t) -> Result<()> {
        match Status::from_raw(raw) {
            None => Ok(()),
            Some(status) => Err(Error {
                status,
                message: last_error_message(),
            }),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.status, self.message)
    }
}

impl std::error::Error for Error {}

/// `Result` of every fallible call of this crate.
pub type Result<T> = std::result::Result<T, Error>;

/// The calling thread's message for its last failed gpuopt call (empty when there is none).
pub fn last_error_message() -> String {
    let mut length = 0usize;
    // SAFETY: size 0 with a NULL buffer only asks for the length.
    if unsafe { sys::gpuopt_last_error_message(std::ptr::null_mut(), 0, &mut length) } != 0 {
        return String::new();
    }
    let mut buf = vec![0u8; length + 1];
    // SAFETY: buf holds buf.len() bytes; the library writes at most that many, NUL included.
    let st = unsafe {
        sys::gpuopt_last_error_message(buf.as_mut_ptr() as *mut c_char, buf.len(), &mut length)
    };
    if st != 0 {
        return String::new();
    }
    let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    String::from_utf8_lossy(&buf[..end]).into_owned()
}

/// A `&'static str` of a pointer to static NUL-terminated ASCII storage; `None` for NULL.
///
/// # Safety
/// `p` is NULL or points to a NUL-terminated string that lives for the whole program.
pub(crate) unsafe fn static_str(p: *const c_char) -> Option<&'static str> {
    if p.is_null() {
        None
    } else {
        CStr::from_ptr(p).to_str().ok()
    }
}
