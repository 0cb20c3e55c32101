//! The smallest gpuopt application in Rust: prints the library version, logs through a closure,
//! and creates a context. Exits 0 with a context or without a device (the reason is printed),
//! 1 on any other error.
use gpuopt::{Context, LogLevel, Status};

fn main() {
    println!(
        "gpuopt {} (library {})",
        gpuopt::version_string(),
        gpuopt::version()
    );
    gpuopt::set_log_level(LogLevel::Info).expect("log level");
    gpuopt::set_log_callback(|level, line| println!("log {level:?}: {line}")).expect("callback");
    let code = match Context::new(0) {
        Ok(ctx) => {
            let info = ctx.device_info().expect("device info");
            println!(
                "context on {} (cc {}.{})",
                info.name, info.cc_major, info.cc_minor
            );
            0
        }
        Err(e) if e.status == Status::NoDevice => {
            println!("no device: {e}");
            0
        }
        Err(e) => {
            eprintln!("error: {e}");
            1
        }
    };
    gpuopt::clear_log_callback().expect("clear callback");
    std::process::exit(code);
}
