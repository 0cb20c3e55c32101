//! `Graph`: gpuopt calls captured on a stream once, replayed with one launch (`gpuopt_graph_t`).
use std::marker::PhantomData;
use std::os::raw::c_int;
use std::ptr;

use crate::context::Context;
use crate::error::{Error, Result};
use crate::stream::Stream;
use crate::sys;

/// An executable graph; destroyed on drop.
///
/// `Send + Sync`: the header allows launches from several threads on different streams
/// ([`Graph::launch`] takes `&self`); updating it must not race with a launch, so
/// [`Graph::recapture`] takes `&mut self`.
#[derive(Debug)]
pub struct Graph<'ctx> {
    raw: sys::gpuopt_graph_t,
    _ctx: PhantomData<&'ctx Context>,
}

// SAFETY: see the type's documentation (header rules for graphs).
unsafe impl Send for Graph<'_> {}
// SAFETY: as above.
unsafe impl Sync for Graph<'_> {}

/// Runs `record` between gpuopt_graph_begin() and an end call, on this thread (capture is
/// thread-local); the end call runs even when `record` fails, whose error then wins.
fn capture_with<T>(
    stream: &Stream<'_>,
    record: impl FnOnce() -> Result<()>,
    end: impl FnOnce() -> Result<T>,
) -> Result<T> {
    // SAFETY: live context and stream handles.
    Error::check(unsafe { sys::gpuopt_graph_begin(stream.context().as_raw(), stream.as_raw()) })?;
    let recorded = record();
    let ended = end();
    recorded?;
    ended
}

impl<'ctx> Graph<'ctx> {
    /// Captures what `record` enqueues on `stream` into a new executable graph. Inside
    /// `record`, calls that allocate or synchronize (the synchronizing buffer copies included)
    /// fail with [`crate::Status::CaptureIllegal`]: create buffers and copy inputs before.
    pub fn capture(
        stream: &Stream<'ctx>,
        record: impl FnOnce(&Stream<'ctx>) -> Result<()>,
    ) -> Result<Graph<'ctx>> {
        let mut raw: sys::gpuopt_graph_t = ptr::null_mut();
        capture_with(
            stream,
            || record(stream),
            || {
                // SAFETY: live stream, valid output.
                Error::check(unsafe { sys::gpuopt_graph_end(stream.as_raw(), &mut raw) })
            },
        )
        .inspect_err(|_| {
            // SAFETY: NULL or a graph made by the end call; destroyed once.
            unsafe { sys::gpuopt_graph_destroy(raw) };
        })?;
        Ok(Graph {
            raw,
            _ctx: PhantomData,
        })
    }

    /// Captures `record` again and updates the graph: in place when the topology is the same
    /// (returns `true`), else by re-instantiating (`false`).
    pub fn recapture(
        &mut self,
        stream: &Stream<'ctx>,
        record: impl FnOnce(&Stream<'ctx>) -> Result<()>,
    ) -> Result<bool> {
        let mut in_place: c_int = 0;
        let raw = self.raw;
        capture_with(
            stream,
            || record(stream),
            || {
                // SAFETY: live stream and graph (exclusively borrowed), valid output.
                Error::check(unsafe {
                    sys::gpuopt_graph_end_update(stream.as_raw(), raw, &mut in_place)
                })
            },
        )?;
        Ok(in_place != 0)
    }

    /// Enqueues one replay on `stream`.
    ///
    /// # Safety
    /// The graph replays the device pointers it captured: every buffer (and other device
    /// memory) the captured calls used must still be allocated, and not be written by other
    /// work while the replay runs. Lifetimes cannot express this, hence `unsafe`.
    pub unsafe fn launch(&self, stream: &Stream<'ctx>) -> Result<()> {
        Error::check(sys::gpuopt_graph_launch(self.raw, stream.as_raw()))
    }

    /// The raw handle, for calls through [`crate::sys`]. It stays owned by `self`.
    pub fn as_raw(&self) -> sys::gpuopt_graph_t {
        self.raw
    }
}

impl Drop for Graph<'_> {
    fn drop(&mut self) {
        // SAFETY: the handle is live and owned.
        unsafe { sys::gpuopt_graph_destroy(self.raw) };
    }
}
