//! End-to-end tests live in `tests/`; run them with `cargo xtask e2e` (built app, Xvfb,
//! tauri-driver). This library is empty.
