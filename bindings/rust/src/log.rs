//! The library's log, process-wide: its level ([`set_log_level`], else `GPUOPT_LOG`) and where
//! its lines go (stderr, or a closure given to [`set_log_callback`]).
use std::cell::Cell;
use std::ffi::CStr;
use std::os::raw::{c_char, c_void};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Mutex;

use crate::error::{Error, Result, Status};
use crate::sys;

/// How much the library logs (`gpuopt_log_level_t`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum LogLevel {
    /// Nothing (the default without `GPUOPT_LOG`).
    Off,
    /// Dispatch decisions and runtime events.
    Info,
    /// Also every candidate variant with its verdict.
    Debug,
}

impl LogLevel {
    fn raw(self) -> sys::gpuopt_log_level_t {
        match self {
            LogLevel::Off => sys::GPUOPT_LOG_OFF,
            LogLevel::Info => sys::GPUOPT_LOG_INFO,
            LogLevel::Debug => sys::GPUOPT_LOG_DEBUG,
        }
    }

    /// A raw level; values past the known ones (a newer library) read as the most verbose.
    fn from_raw(raw: sys::gpuopt_log_level_t) -> LogLevel {
        match raw {
            sys::GPUOPT_LOG_OFF => LogLevel::Off,
            sys::GPUOPT_LOG_INFO => LogLevel::Info,
            _ => LogLevel::Debug,
        }
    }
}

/// Sets the log level for the whole process; overrides `GPUOPT_LOG`.
pub fn set_log_level(level: LogLevel) -> Result<()> {
    // SAFETY: a plain value.
    Error::check(unsafe { sys::gpuopt_set_log_level(level.raw()) })
}

/// The current log level.
pub fn log_level() -> Result<LogLevel> {
    let mut raw: sys::gpuopt_log_level_t = sys::GPUOPT_LOG_OFF;
    // SAFETY: raw is a valid output.
    Error::check(unsafe { sys::gpuopt_get_log_level(&mut raw) })?;
    Ok(LogLevel::from_raw(raw))
}

type Sink = Box<dyn Fn(LogLevel, &str) + Send + Sync + 'static>;

/// The installed closure (boxed twice: the C side holds a thin pointer to the outer box). Freed
/// when replaced: gpuopt_set_log_callback returns only once no thread is inside the old one.
static INSTALLED: Mutex<usize> = Mutex::new(0);

thread_local! {
    static IN_CALLBACK: Cell<bool> = const { Cell::new(false) };
}

unsafe extern "C" fn trampoline(
    level: sys::gpuopt_log_level_t,
    message: *const c_char,
    user: *mut c_void,
) {
    if user.is_null() || message.is_null() {
        return;
    }
    // SAFETY: user is the Box<Sink> set_log_callback installed, alive until replaced (and not
    // replaced while a call is in flight); message is a NUL-terminated line valid for the call.
    let sink = &*(user as *const Sink);
    let text = CStr::from_ptr(message).to_string_lossy();
    IN_CALLBACK.with(|f| f.set(true));
    // A panic must not unwind into C.
    let _ = catch_unwind(AssertUnwindSafe(|| sink(LogLevel::from_raw(level), &text)));
    IN_CALLBACK.with(|f| f.set(false));
}

fn install(sink: Option<Sink>) -> Result<()> {
    if IN_CALLBACK.with(|f| f.get()) {
        return Err(Error::new(
            Status::InvalidArgument,
            "gpuopt::set_log_callback: called from inside the log callback; unchanged",
        ));
    }
    let mut installed = INSTALLED.lock().unwrap_or_else(|e| e.into_inner());
    let new = sink.map_or(std::ptr::null_mut(), |s| Box::into_raw(Box::new(s)));
    let (fn_, user): (sys::gpuopt_log_fn, *mut c_void) = if new.is_null() {
        (None, std::ptr::null_mut())
    } else {
        (Some(trampoline), new as *mut c_void)
    };
    // SAFETY: user stays valid until the next install, which frees it only after the library
    // stopped calling it.
    if let Err(e) = Error::check(unsafe { sys::gpuopt_set_log_callback(fn_, user) }) {
        if !new.is_null() {
            // SAFETY: not handed over: the library refused it.
            drop(unsafe { Box::from_raw(new) });
        }
        return Err(e);
    }
    let old = std::mem::replace(&mut *installed, new as usize) as *mut Sink;
    if !old.is_null() {
        // SAFETY: the previous install's box; the library no longer calls it.
        drop(unsafe { Box::from_raw(old) });
    }
    Ok(())
}

/// Sends the library's log lines to `sink` instead of stderr, for the whole process.
///
/// `sink` gets the level and the line (no newline, no prefix). It may be called from several
/// threads at once, and must not call [`set_log_callback`] or [`clear_log_callback`] (they
/// answer [`Status::InvalidArgument`] from inside it). A panic in it is caught and dropped. The
/// level is unchanged: nothing arrives while it is [`LogLevel::Off`] (see [`set_log_level`]).
pub fn set_log_callback<F>(sink: F) -> Result<()>
where
    F: Fn(LogLevel, &str) + Send + Sync + 'static,
{
    install(Some(Box::new(sink)))
}

/// Sends the library's log lines to stderr again (and drops the closure).
pub fn clear_log_callback() -> Result<()> {
    install(None)
}
