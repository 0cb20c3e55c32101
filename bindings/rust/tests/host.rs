//! What runs without a GPU (CI): the no-device path, version, names, statuses, messages, the
//! thread-safety markers. With a device the same tests check the device path instead of
//! NO_DEVICE, and `with_device` runs a small end-to-end pass (it prints that it skipped
//! otherwise).
use std::ptr;

use gpuopt::{
    sys, Buffer, Context, Dtype, Error, Gemm, Graph, MemoryKind, Op, PointerChecks, Reduce,
    ReduceOp, Status, Stencil, Stream,
};

/// The context of device 0, or `None` after checking the NO_DEVICE error and its message.
fn context_or_no_device() -> Option<Context> {
    match Context::new(0) {
        Ok(ctx) => Some(ctx),
        Err(e) => {
            assert_eq!(e.status, Status::NoDevice, "unexpected error: {e}");
            assert!(
                e.message.contains("gpuopt_context_create"),
                "message: {}",
                e.message
            );
            assert!(
                e.message.len() > 40,
                "message too short to say why: {}",
                e.message
            );
            let shown = e.to_string();
            assert!(
                shown.starts_with("GPUOPT_ERROR_NO_DEVICE: gpuopt_context_create"),
                "{shown}"
            );
            None
        }
    }
}

#[test]
fn no_device_path_is_a_clear_error() {
    match gpuopt::device_count() {
        Ok(n) => assert!(n > 0),
        Err(e) => {
            assert_eq!(e.status, Status::NoDevice);
            assert!(
                e.message.contains("gpuopt_device_count"),
                "message: {}",
                e.message
            );
            let info = gpuopt::device_info(0).unwrap_err();
            assert_eq!(info.status, Status::NoDevice);
            assert!(
                info.message.contains("gpuopt_device_info"),
                "message: {}",
                info.message
            );
        }
    }
    if let Some(ctx) = context_or_no_device() {
        assert!(ctx.device_info().unwrap().cc_major >= 7);
    }
}

#[test]
fn version_matches_the_header() {
    assert_eq!(gpuopt::version(), sys::GPUOPT_VERSION);
    let expected = format!(
        "{}.{}.{}",
        sys::GPUOPT_VERSION_MAJOR,
        sys::GPUOPT_VERSION_MINOR,
        sys::GPUOPT_VERSION_PATCH
    );
    assert_eq!(gpuopt::version_string(), expected);
}

#[test]
fn statuses_round_trip_with_their_names() {
    assert_eq!(Status::from_raw(sys::GPUOPT_SUCCESS), None);
    for raw in 1..=sys::GPUOPT_ERROR_WRONG_DEVICE {
        let st = Status::from_raw(raw).unwrap();
        assert!(!matches!(st, Status::Unknown(_)), "{raw} is a known status");
        assert_eq!(st.raw(), raw);
        assert!(st.name().starts_with("GPUOPT_ERROR_"), "{}", st.name());
    }
    assert_eq!(Status::NoDevice.name(), "GPUOPT_ERROR_NO_DEVICE");
    assert_eq!(Status::WrongDevice.to_string(), "GPUOPT_ERROR_WRONG_DEVICE");
    assert_eq!(Status::from_raw(9999), Some(Status::Unknown(9999)));
    assert_eq!(Status::Unknown(9999).name(), "GPUOPT_STATUS_UNKNOWN");
}

#[test]
fn names_of_ops_dtypes_and_reduce_ops() {
    let ops: Vec<_> = Op::ALL.iter().map(|op| op.name().unwrap()).collect();
    assert_eq!(
        ops,
        [
            "axpy",
            "gemm",
            "reduce",
            "segmented_sort",
            "stencil",
            "transpose",
            "gdn"
        ]
    );
    assert_eq!(Dtype::F32.name(), Some("f32"));
    assert_eq!(Dtype::F64.name(), Some("f64"));
    for d in Dtype::ALL {
        assert!(d.name().is_some(), "{d:?}");
        assert_eq!(Dtype::from_raw(d.raw()), Some(*d));
    }
    let reduce_ops: Vec<_> = ReduceOp::ALL.iter().map(|op| op.name().unwrap()).collect();
    assert_eq!(reduce_ops, ["sum", "min", "max", "argmin", "argmax"]);
    assert_eq!(ReduceOp::Sum.result_type(Dtype::U32), Dtype::U64);
    assert_eq!(ReduceOp::Min.result_type(Dtype::Bf16), Dtype::F32);
    assert_eq!(ReduceOp::ArgMax.result_type(Dtype::F64), Dtype::I64);
    assert_eq!(
        MemoryKind::from_raw(sys::GPUOPT_MEMORY_MAPPED),
        Some(MemoryKind::Mapped)
    );
    assert_eq!(Op::from_raw(9999), None);
}

#[test]
fn failed_calls_carry_the_threads_message() {
    // A NULL output is unreachable from the safe layer; provoke it through sys.
    let e = Error::check(unsafe { sys::gpuopt_context_create(0, ptr::null_mut()) }).unwrap_err();
    assert_eq!(e.status, Status::InvalidArgument);
    assert!(
        e.message.starts_with("gpuopt_context_create"),
        "message: {}",
        e.message
    );
    assert_eq!(gpuopt::last_error_message(), e.message);
    // Another thread's failure leaves this thread's message alone.
    std::thread::spawn(|| {
        let other = Error::check(unsafe { sys::gpuopt_stream_synchronize(ptr::null_mut()) });
        assert_eq!(other.unwrap_err().status, Status::InvalidHandle);
    })
    .join()
    .unwrap();
    assert_eq!(gpuopt::last_error_message(), e.message);
    // std::error::Error: usable with `?` into Box<dyn Error>.
    let boxed: Box<dyn std::error::Error + Send + Sync> = Box::new(e);
    assert!(boxed
        .to_string()
        .starts_with("GPUOPT_ERROR_INVALID_ARGUMENT: gpuopt_context_create"));
}

#[test]
fn thread_safety_markers_follow_the_header() {
    fn send<T: Send>() {}
    fn sync<T: Sync>() {}
    send::<Context>();
    sync::<Context>();
    send::<Stream<'static>>(); // Stream is deliberately not Sync (see the crate docs' test).
    send::<Buffer<'static>>();
    sync::<Buffer<'static>>();
    send::<Graph<'static>>();
    sync::<Graph<'static>>();
    send::<Error>();
    sync::<Error>();
}

/// End to end on a device: gemm, reduce, axpy in a graph, the safe layer's own checks. Prints
/// that it skipped without one.
#[test]
fn with_device() {
    let Some(ctx) = context_or_no_device() else {
        println!("with_device: skipped, no CUDA device");
        return;
    };
    let stream = Stream::new(&ctx).unwrap();
    let n = 64usize;
    let a = Buffer::from_slice(&ctx, &stream, &vec![1.0f64; n * n]).unwrap();
    let b = Buffer::from_slice(&ctx, &stream, &vec![0.5f64; n * n]).unwrap();
    let mut c = Buffer::device::<f64>(&ctx, n * n).unwrap();
    let gemm = Gemm::new(Dtype::F64, n as i64, n as i64, n as i64);
    stream.gemm(&gemm, &a, &b, &mut c).unwrap();
    let host: Vec<f64> = c.to_vec(&stream, n * n).unwrap();
    assert!(host.iter().all(|&v| v == 32.0));

    // Pointer checks: the mode round-trips; cached mode gives the same results.
    assert_eq!(ctx.pointer_checks().unwrap(), PointerChecks::Full);
    ctx.set_pointer_checks(PointerChecks::Cached).unwrap();
    assert_eq!(ctx.pointer_checks().unwrap(), PointerChecks::Cached);
    stream.gemm(&gemm, &a, &b, &mut c).unwrap();
    let host: Vec<f64> = c.to_vec(&stream, n * n).unwrap();
    assert!(host.iter().all(|&v| v == 32.0));
    ctx.forget_pointers().unwrap();
    ctx.set_pointer_checks(PointerChecks::Full).unwrap();

    // A buffer too small for the problem: caught by the binding, named.
    let mut small = Buffer::device::<f64>(&ctx, n).unwrap();
    let e = stream.gemm(&gemm, &a, &b, &mut small).unwrap_err();
    assert_eq!(e.status, Status::InvalidArgument);
    assert!(
        e.message.contains("gpuopt::Stream::gemm") && e.message.contains("`c`"),
        "{e}"
    );
    // An invalid descriptor: answered by the library, naming the argument.
    let e = stream
        .gemm(&gemm.lda(n as i64 - 1), &a, &b, &mut c)
        .unwrap_err();
    assert_eq!(e.status, Status::InvalidArgument);
    assert!(
        e.message.contains("gpuopt_gemm") && e.message.contains("lda"),
        "{e}"
    );
    // Stencil coefficients are a host array: checked by the binding.
    let coeffs = [1.0f64; 4];
    let st = Stencil::new_2d(Dtype::F64, 8, 8, 1, &coeffs);
    let e = stream.stencil(&st, &a, &mut c).unwrap_err();
    assert!(
        e.message
            .contains("coeffs holds 4 values, dims and radius need 5"),
        "{e}"
    );

    // Sum of 1..=1000 as i32 (result i64).
    let x: Vec<i32> = (1..=1000).collect();
    let xb = Buffer::from_slice(&ctx, &stream, &x).unwrap();
    let mut sum = Buffer::device::<i64>(&ctx, 1).unwrap();
    stream
        .reduce(&Reduce::new(ReduceOp::Sum, Dtype::I32, 1000), &xb, &mut sum)
        .unwrap();
    assert_eq!(sum.to_vec::<i64>(&stream, 1).unwrap()[0], 500500);
    assert!(ctx.last_variant(Op::Reduce).unwrap().is_some());

    // axpy captured in a graph, replayed twice: y = 1 + 2 * 0.5 * 2 = 3.
    let xs = Buffer::from_slice(&ctx, &stream, &vec![2.0f32; 1000]).unwrap();
    let mut ys = Buffer::from_slice(&ctx, &stream, &vec![1.0f32; 1000]).unwrap();
    let graph = Graph::capture(&stream, |s| {
        s.axpy(Dtype::F32, 1000, 0.5, &xs, 1, &mut ys, 1)
    })
    .unwrap();
    // SAFETY: xs and ys outlive the launches, which finish at the copy below.
    unsafe {
        graph.launch(&stream).unwrap();
        graph.launch(&stream).unwrap();
    }
    assert!(ys
        .to_vec::<f32>(&stream, 1000)
        .unwrap()
        .iter()
        .all(|&v| v == 3.0));
    drop(graph);

    // Variants: list, force, reset.
    let names: Vec<_> = ctx
        .variants(Op::Axpy)
        .unwrap()
        .into_iter()
        .map(|v| v.name)
        .collect();
    assert!(names.contains(&"naive"));
    ctx.set_variant(Op::Axpy, Some("naive")).unwrap();
    assert_eq!(ctx.get_variant(Op::Axpy).unwrap(), "naive");
    assert_eq!(
        ctx.set_variant(Op::Axpy, Some("no_such_variant"))
            .unwrap_err()
            .status,
        Status::NotFound
    );
    ctx.set_variant(Op::Axpy, None).unwrap();
    assert_eq!(ctx.get_variant(Op::Axpy).unwrap(), "auto");
}

/// One context, one stream per thread (the header's model), and a graph updated in place. Prints
/// that it skipped without a device.
#[test]
fn with_device_threads_and_graph_update() {
    let Some(ctx) = context_or_no_device() else {
        println!("with_device_threads_and_graph_update: skipped, no CUDA device");
        return;
    };
    let ctx = &ctx;
    std::thread::scope(|scope| {
        for t in 0..3 {
            scope.spawn(move || {
                let stream = Stream::new(ctx).unwrap();
                let x = Buffer::from_slice(ctx, &stream, &vec![1.0f64; 4097]).unwrap();
                let mut y = Buffer::from_slice(ctx, &stream, &vec![t as f64; 4097]).unwrap();
                stream
                    .axpy(Dtype::F64, 4097, 2.0, &x, 1, &mut y, 1)
                    .unwrap();
                let host: Vec<f64> = y.to_vec(&stream, 4097).unwrap();
                assert!(host.iter().all(|&v| v == t as f64 + 2.0), "thread {t}");
            });
        }
    });

    let stream = Stream::new(ctx).unwrap();
    let x = Buffer::from_slice(ctx, &stream, &vec![1.0f32; 256]).unwrap();
    let mut y = Buffer::from_slice(ctx, &stream, &vec![0.0f32; 256]).unwrap();
    let mut graph =
        Graph::capture(&stream, |s| s.axpy(Dtype::F32, 256, 1.0, &x, 1, &mut y, 1)).unwrap();
    let in_place = graph.recapture(&stream, |s| s.axpy(Dtype::F32, 256, 3.0, &x, 1, &mut y, 1));
    assert!(in_place.unwrap(), "same topology: updated in place");
    // SAFETY: x and y outlive the launch, which finishes at the copy below.
    unsafe { graph.launch(&stream).unwrap() };
    assert!(y
        .to_vec::<f32>(&stream, 256)
        .unwrap()
        .iter()
        .all(|&v| v == 3.0));
    // A failed recording still ends the capture: the stream works afterwards.
    let e = graph
        .recapture(&stream, |s| s.axpy(Dtype::F32, -1, 1.0, &x, 1, &mut y, 1))
        .unwrap_err();
    assert_eq!(e.status, Status::InvalidArgument);
    stream.synchronize().unwrap();
}

#[test]
fn comm_id_hex_round_trips_and_bad_text_is_refused() {
    let mut raw = gpuopt::sys::gpuopt_comm_id_t { bytes: [0; 128] };
    for (i, b) in raw.bytes.iter_mut().enumerate() {
        *b = (i * 37) as u8;
    }
    let id = gpuopt::CommId(raw);
    let hex = id.to_hex().unwrap();
    assert_eq!(hex.len(), 256);
    assert_eq!(gpuopt::CommId::from_hex(&hex).unwrap().0.bytes, raw.bytes);
    let err = gpuopt::CommId::from_hex("12").unwrap_err();
    assert_eq!(err.status, gpuopt::Status::InvalidArgument);
    match gpuopt::nccl_version() {
        Ok(v) => assert!(v >= 21800),
        Err(e) => assert_eq!(e.status, gpuopt::Status::Unsupported),
    }
}
