//! The log API: level round trip, a closure receiving the context line (created, or refused
//! with the no-device reason), re-entrance refused, clear restores stderr. Its own test binary:
//! the log state is process-wide.
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use gpuopt::{Context, LogLevel, Status};

#[test]
fn log_level_and_callback() {
    gpuopt::set_log_level(LogLevel::Debug).unwrap();
    assert_eq!(gpuopt::log_level().unwrap(), LogLevel::Debug);
    gpuopt::set_log_level(LogLevel::Info).unwrap();
    assert_eq!(gpuopt::log_level().unwrap(), LogLevel::Info);

    let lines = Arc::new(Mutex::new(Vec::<(LogLevel, String)>::new()));
    let sink = Arc::clone(&lines);
    gpuopt::set_log_callback(move |level, message| {
        sink.lock().unwrap().push((level, message.to_owned()))
    })
    .unwrap();
    drop(Context::new(0));
    {
        let got = lines.lock().unwrap();
        assert!(
            got.iter()
                .any(|(l, m)| *l == LogLevel::Info && m.contains("context")),
            "{got:?}"
        );
    }

    // From inside the callback, installing another one is refused (and does not deadlock).
    let refused = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&refused);
    gpuopt::set_log_callback(move |_, _| {
        if let Err(e) = gpuopt::clear_log_callback() {
            flag.store(e.status == Status::InvalidArgument, Ordering::SeqCst);
        }
    })
    .unwrap();
    drop(Context::new(0));
    assert!(refused.load(Ordering::SeqCst));

    gpuopt::clear_log_callback().unwrap();
    let seen = lines.lock().unwrap().len();
    gpuopt::set_log_level(LogLevel::Off).unwrap();
    drop(Context::new(0));
    assert_eq!(lines.lock().unwrap().len(), seen);
}
