//! What the scenarios share: the driver and the window it opens (`driver`), what a scenario
//! does in the window and how it waits there (`window`), and the project it works on
//! (`fixtures`). Every wait on state is [`until`]'s, with its one pause between looks.

pub mod driver;
pub mod fixtures;
pub mod window;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use fantoccini::Client;

pub const CTRL: char = '\u{E009}';
/// How long a wait on the window's state may take before the test fails. It only bounds a
/// failure: every wait returns as soon as the state is there, so a generous bound costs nothing
/// on an idle machine and keeps a busy one (CI under load) from failing a working app.
pub const WAIT: Duration = Duration::from_secs(90);
pub const SHIFT: char = '\u{E008}';

pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Leaves a picture of the window for whoever reads the failure.
pub async fn failure_screenshot(c: &Client) {
    if let Ok(png) = c.screenshot().await {
        let _ = std::fs::write(root().join("target/e2e-failure.png"), png);
    }
}

/// How long a wait on state pauses between looks: the one pause the scenarios make.
pub const LOOK_EVERY: Duration = Duration::from_millis(100);

/// Looks at a state outside the window (a port, the driver's processes) until `ready` holds,
/// pausing [`LOOK_EVERY`] between looks, for at most `limit`; whether it came to hold.
pub fn poll(limit: Duration, mut ready: impl FnMut() -> bool) -> bool {
    let start = Instant::now();
    while !ready() {
        if start.elapsed() >= limit {
            return false;
        }
        std::thread::sleep(LOOK_EVERY);
    }
    true
}

/// Looks at the state until `ready` says it holds, pausing [`LOOK_EVERY`] between looks; past
/// [`WAIT`] it saves a screenshot and fails with what it waited for (`what`, worded then).
pub async fn until<F, Fut>(c: &Client, what: impl Fn() -> String, mut ready: F)
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let start = Instant::now();
    while !ready().await {
        if start.elapsed() > WAIT {
            failure_screenshot(c).await;
            panic!("timed out: {}", what());
        }
        tokio::time::sleep(LOOK_EVERY).await;
    }
}
