//! Keeps `gpuopt::sys` in step with include/gpuopt.h, by reading both sources:
//! - every enum value `GPUOPT_X = n` and integer macro `#define GPUOPT_X n` of the header is a
//!   constant `pub const GPUOPT_X: T = n;` of sys.rs with the same value, and sys.rs has no
//!   `GPUOPT_*` constant the header lacks;
//! - every function the header declares (`GPUOPT_API ... gpuopt_x(`) is declared in sys.rs
//!   (`pub fn gpuopt_x(`) and listed in tests/links.rs (which makes the linker resolve it), and
//!   sys.rs declares no function the header lacks.
//!
//! ctest `rust_binding_coverage` checks the functions once more with tests/c/check_coverage.cmake.
use std::collections::BTreeMap;
use std::path::PathBuf;

const SYS_RS: &str = include_str!("../src/sys.rs");
const LINKS_RS: &str = include_str!("links.rs");

fn header() -> String {
    let path = std::env::var_os("GPUOPT_HEADER")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../include/gpuopt.h")
        });
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("reading {path:?}: {e}"))
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Identifiers starting with `prefix` in `text`, each with the text that follows it.
fn idents<'a>(text: &'a str, prefix: &'a str) -> impl Iterator<Item = (&'a str, &'a str)> + 'a {
    text.match_indices(prefix).filter_map(move |(at, _)| {
        if at > 0 && is_ident(text[..at].chars().next_back().unwrap()) {
            return None;
        }
        let end = text[at..]
            .find(|c: char| !is_ident(c))
            .map_or(text.len(), |e| at + e);
        Some((&text[at..end], &text[end..]))
    })
}

/// A leading integer of `s` (after whitespace), if any.
fn leading_int(s: &str) -> Option<i64> {
    let s = s.trim_start();
    let end = s
        .find(|c: char| !(c.is_ascii_digit() || c == '-'))
        .unwrap_or(s.len());
    s[..end].parse().ok()
}

/// `GPUOPT_X = n` enum values and `#define GPUOPT_X n` macros of the header.
fn header_constants(h: &str) -> BTreeMap<String, i64> {
    let mut out = BTreeMap::new();
    for (name, rest) in idents(h, "GPUOPT_") {
        let rest_trim = rest.trim_start();
        if let Some(value) = rest_trim.strip_prefix('=').and_then(leading_int) {
            out.insert(name.to_string(), value);
        }
    }
    for line in h.lines() {
        let mut words = line.split_whitespace();
        if let (Some("#define"), Some(name), Some(value), None) =
            (words.next(), words.next(), words.next(), words.next())
        {
            if let (true, Ok(v)) = (name.starts_with("GPUOPT_"), value.parse::<i64>()) {
                out.insert(name.to_string(), v);
            }
        }
    }
    out
}

/// `pub const GPUOPT_X: T = <expr>;` of sys.rs, with the integer value where the expression is
/// a literal.
fn sys_constants() -> BTreeMap<String, Option<i64>> {
    let mut out = BTreeMap::new();
    for line in SYS_RS.lines() {
        if let Some(rest) = line.trim().strip_prefix("pub const ") {
            let (name, rest) = rest.split_once(':').unwrap();
            let expr = rest
                .split_once('=')
                .map(|(_, e)| e.trim().trim_end_matches(';'))
                .unwrap_or("");
            out.insert(name.trim().to_string(), expr.parse().ok());
        }
    }
    out
}

/// Functions `GPUOPT_API <type> gpuopt_x(` of the header.
fn header_functions(h: &str) -> Vec<String> {
    h.split("GPUOPT_API")
        .skip(1)
        .filter_map(|decl| {
            let decl = &decl[..decl.find(';').unwrap_or(decl.len())];
            let open = decl.find('(')?;
            let name = decl[..open]
                .trim_end()
                .rsplit(|c: char| !is_ident(c))
                .next()?;
            name.starts_with("gpuopt_").then(|| name.to_string())
        })
        .collect()
}

#[test]
fn every_enum_value_and_macro_matches() {
    let h = header_constants(&header());
    let s = sys_constants();
    assert!(h.len() > 50, "found only {} constants in gpuopt.h", h.len());
    let mut problems = Vec::new();
    for (name, value) in &h {
        match s.get(name) {
            None => problems.push(format!("{name} = {value}: missing in sys.rs")),
            Some(Some(v)) if v != value => {
                problems.push(format!("{name}: header {value}, sys.rs {v}"))
            }
            _ => {}
        }
    }
    for name in s.keys() {
        if !h.contains_key(name) && name != "GPUOPT_VERSION" {
            problems.push(format!("{name}: in sys.rs, not in gpuopt.h"));
        }
    }
    assert!(
        problems.is_empty(),
        "sys.rs vs gpuopt.h:\n  {}",
        problems.join("\n  ")
    );
    // The one computed constant.
    assert_eq!(
        gpuopt::sys::GPUOPT_VERSION,
        (h["GPUOPT_VERSION_MAJOR"] * 10000
            + h["GPUOPT_VERSION_MINOR"] * 100
            + h["GPUOPT_VERSION_PATCH"]) as i32
    );
}

#[test]
fn every_function_is_declared_and_linked() {
    let h = header_functions(&header());
    assert!(h.len() > 40, "found only {} functions in gpuopt.h", h.len());
    let mut problems = Vec::new();
    for f in &h {
        if !SYS_RS.contains(&format!("pub fn {f}(")) {
            problems.push(format!("{f}: not declared in sys.rs"));
        }
        if !LINKS_RS.contains(&format!("sys::{f} as")) {
            problems.push(format!("{f}: not listed in tests/links.rs"));
        }
    }
    for (name, _) in idents(SYS_RS, "gpuopt_").filter(|(_, rest)| rest.starts_with('(')) {
        if !h.iter().any(|f| f == name) {
            problems.push(format!("{name}: in sys.rs, not in gpuopt.h"));
        }
    }
    assert!(
        problems.is_empty(),
        "sys.rs vs gpuopt.h:\n  {}",
        problems.join("\n  ")
    );
}
