//! The `mbsolve._core` extension module (PyO3, abi3). It takes text in and
//! gives plain Python values out — the dataset, the command file and the
//! changes as strings; results as bytes, lists and dicts — so nothing Rust
//! is ever pickled: the Python side (python/mbsolve) ships model text and
//! changes to sweep workers, which need only the wheel.
//!
//! Compiled only with the `python` feature (see Cargo.toml).

#[cfg(feature = "python")]
mod bindings;
