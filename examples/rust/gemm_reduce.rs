//! gemm_reduce: gpuopt from Rust, end to end (the same program as examples/fortran).
//!
//! Creates a context (exits 77, ctest's "skipped", with the NO_DEVICE message when there is no
//! GPU), runs a DGEMM and a sum reduction on the device, checks both against a host computation,
//! then makes a deliberate error (a GEMM with m = -1) and prints the status and the message the
//! library gives for it.
//!
//!   cargo run --release --example gemm_reduce            run it
//!   cargo run --release --example gemm_reduce -- --time  time the binding's GEMM call
//!
//! `--time` prints one line, `gpuopt-binding-time lang=rust op=dgemm n=2048 ms_per_call=<x>`:
//! f64 2048 x 2048 x 2048, 3 warm-up calls, then the median over 5 repeats of 20 calls, each
//! repeat timed with the host wall clock around the calls plus a stream synchronization (the
//! protocol of the C and Fortran timing examples).
use std::process::ExitCode;
use std::time::Instant;

use gpuopt::{Buffer, Context, Dtype, Error, Gemm, Op, Reduce, ReduceOp, Status, Stream};

/// Deterministic values in [-1, 1) (a 64-bit LCG), so host and device see the same inputs.
fn fill(seed: u64, len: usize) -> Vec<f64> {
    let mut s = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    (0..len)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((s >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
        })
        .collect()
}

/// C = alpha * A * B + beta * C on the host, column-major, tight leading dimensions.
/// `dims` = (m, n, k), `scale` = (alpha, beta).
fn host_gemm(dims: (usize, usize, usize), scale: (f64, f64), a: &[f64], b: &[f64], c: &mut [f64]) {
    let ((m, n, k), (alpha, beta)) = (dims, scale);
    for j in 0..n {
        for i in 0..m {
            let dot: f64 = (0..k).map(|p| a[i + p * m] * b[p + j * k]).sum();
            c[i + j * m] = alpha * dot + beta * c[i + j * m];
        }
    }
}

/// Relative Frobenius error of `got` against `want`.
fn rel_error(got: &[f64], want: &[f64]) -> f64 {
    let diff: f64 = got.iter().zip(want).map(|(g, w)| (g - w) * (g - w)).sum();
    let norm: f64 = want.iter().map(|w| w * w).sum();
    (diff / norm.max(f64::MIN_POSITIVE)).sqrt()
}

/// DGEMM on the device against the host: returns whether it matched.
fn check_gemm(ctx: &Context, stream: &Stream) -> Result<bool, Error> {
    let (m, n, k) = (257usize, 129usize, 193usize);
    let (alpha, beta) = (1.5, 0.5);
    let (ha, hb, hc) = (fill(1, m * k), fill(2, k * n), fill(3, m * n));
    let a = Buffer::from_slice(ctx, stream, &ha)?;
    let b = Buffer::from_slice(ctx, stream, &hb)?;
    let mut c = Buffer::from_slice(ctx, stream, &hc)?;
    let desc = Gemm::new(Dtype::F64, m as i64, n as i64, k as i64)
        .alpha(alpha)
        .beta(beta);
    stream.gemm(&desc, &a, &b, &mut c)?;
    let got: Vec<f64> = c.to_vec(stream, m * n)?;
    let mut want = hc;
    host_gemm((m, n, k), (alpha, beta), &ha, &hb, &mut want);
    let err = rel_error(&got, &want);
    let variant = ctx.last_variant(Op::Gemm)?.unwrap_or("?");
    println!("dgemm {m}x{n}x{k} (variant {variant}): relative error {err:.2e}");
    Ok(err < 1e-12)
}

/// Sum of f64 values on the device against the host: returns whether it matched.
fn check_reduce(ctx: &Context, stream: &Stream) -> Result<bool, Error> {
    let n = 1_000_003usize;
    let hx = fill(4, n);
    let x = Buffer::from_slice(ctx, stream, &hx)?;
    let mut out = Buffer::device::<f64>(ctx, 1)?;
    stream.reduce(
        &Reduce::new(ReduceOp::Sum, Dtype::F64, n as i64),
        &x,
        &mut out,
    )?;
    let got: Vec<f64> = out.to_vec(stream, 1)?;
    let want: f64 = hx.iter().sum();
    let abs: f64 = hx.iter().map(|v| v.abs()).sum();
    let err = (got[0] - want).abs() / abs;
    let variant = ctx.last_variant(Op::Reduce)?.unwrap_or("?");
    println!(
        "sum of {n} f64 (variant {variant}): {:.12e}, host {want:.12e}, error {err:.2e}",
        got[0]
    );
    Ok(err < 1e-12)
}

/// A deliberate error: a GEMM with m = -1. Returns whether the library answered it with
/// INVALID_ARGUMENT and a message naming gpuopt_gemm.
fn deliberate_error(ctx: &Context, stream: &Stream) -> Result<bool, Error> {
    let a = Buffer::device::<f64>(ctx, 64)?;
    let b = Buffer::device::<f64>(ctx, 64)?;
    let mut c = Buffer::device::<f64>(ctx, 64)?;
    match stream.gemm(&Gemm::new(Dtype::F64, -1, 8, 8), &a, &b, &mut c) {
        Err(e) => {
            println!("deliberate error (m = -1): {}\n  {}", e.status, e.message);
            Ok(e.status == Status::InvalidArgument && e.message.contains("gpuopt_gemm"))
        }
        Ok(()) => {
            println!("deliberate error: gpuopt_gemm accepted m = -1");
            Ok(false)
        }
    }
}

/// Times the f64 2048^3 GEMM (see the file comment) and prints the result line.
fn time_gemm(ctx: &Context, stream: &Stream) -> Result<(), Error> {
    const N: usize = 2048;
    // The inputs of examples/c/gemm_timing.c, so both time the same data.
    let host: Vec<f64> = (0..N * N)
        .map(|at| (((at % N) + 1 + 3 * (at / N + 1)) % 17) as f64 / 8.0 - 1.0)
        .collect();
    let a = Buffer::from_slice(ctx, stream, &host)?;
    let b = Buffer::from_slice(ctx, stream, &host)?;
    let mut c = Buffer::device::<f64>(ctx, N * N)?;
    let desc = Gemm::new(Dtype::F64, N as i64, N as i64, N as i64);
    for _ in 0..3 {
        stream.gemm(&desc, &a, &b, &mut c)?;
    }
    stream.synchronize()?;
    let mut ms: Vec<f64> = (0..5)
        .map(|_| {
            let t0 = Instant::now();
            for _ in 0..20 {
                stream.gemm(&desc, &a, &b, &mut c)?;
            }
            stream.synchronize()?;
            Ok(t0.elapsed().as_secs_f64() * 1e3 / 20.0)
        })
        .collect::<Result<_, Error>>()?;
    ms.sort_by(f64::total_cmp);
    println!(
        "gpuopt-binding-time lang=rust op=dgemm n={N} ms_per_call={:.4}",
        ms[2]
    );
    Ok(())
}

fn run(ctx: &Context, timing: bool) -> Result<bool, Error> {
    let stream = Stream::new(ctx)?;
    if timing {
        time_gemm(ctx, &stream)?;
        return Ok(true);
    }
    let info = ctx.device_info()?;
    println!(
        "device {}: {}, cc {}.{}, {} SMs",
        info.device, info.name, info.cc_major, info.cc_minor, info.sm_count
    );
    let gemm_ok = check_gemm(ctx, &stream)?;
    let reduce_ok = check_reduce(ctx, &stream)?;
    let error_ok = deliberate_error(ctx, &stream)?;
    // The context still works after the failed call.
    let still_ok = ctx.variant_count(Op::Gemm)? > 0;
    Ok(gemm_ok && reduce_ok && error_ok && still_ok)
}

fn main() -> ExitCode {
    let timing = std::env::args().skip(1).any(|a| a == "--time");
    if !timing {
        println!("gpuopt {} (Rust binding)", gpuopt::version_string());
    }
    let ctx = match Context::new(0) {
        Ok(ctx) => ctx,
        Err(e) if e.status == Status::NoDevice => {
            println!(
                "no CUDA device, nothing to run: {}\n  {}",
                e.status, e.message
            );
            return ExitCode::from(77);
        }
        Err(e) => {
            eprintln!("gpuopt::Context::new failed: {e}");
            return ExitCode::from(1);
        }
    };
    match run(&ctx, timing) {
        Ok(true) => {
            if !timing {
                println!("all checks passed");
            }
            ExitCode::SUCCESS
        }
        Ok(false) => {
            eprintln!("a check failed");
            ExitCode::from(1)
        }
        Err(e) => {
            eprintln!("failed: {e}");
            ExitCode::from(1)
        }
    }
}
