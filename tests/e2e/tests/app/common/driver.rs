//! tauri-driver, the WebKitWebDriver it starts and the app under them: started for a scenario,
//! a WebDriver session on the app, and all of it gone with the scenario.

use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use fantoccini::{Client, ClientBuilder};
use serde_json::json;

use super::{poll, root, WAIT};

pub fn app_binary() -> PathBuf {
    std::env::var_os("ASSAY_APP_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target/debug/assay-app"))
}

/// tauri-driver and the WebKitWebDriver it starts, on free ports, in their own process group so
/// that both go away with the test even when it fails.
pub struct Driver {
    child: Child,
    port: u16,
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

impl Driver {
    /// `compositing`: the `ASSAY_GPU_COMPOSITING` the app gets; `None` keeps compositing on
    /// unless the caller's environment says otherwise (see below).
    pub fn start(compositing: Option<&str>) -> Self {
        use std::os::unix::process::CommandExt;
        let (port, native) = (free_port(), free_port());
        let child = Command::new("tauri-driver")
            .args([
                "--port",
                &port.to_string(),
                "--native-port",
                &native.to_string(),
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            // Without a GPU the app turns WebKit's compositing off (src-tauri/src/rendering.rs);
            // WebKitWebDriver's screenshot then waited forever on the blind scenario's second
            // screenshot (two runs of two, the window painted; again on 2026-12-04 with GTK's
            // GL and the DMA-BUF renderer off as well). Screenshots are a WebDriver matter only
            // (`bench-open` drives the software path without them), so the window is driven the
            // way a machine with a GPU runs it.
            // (`ASSAY_GPU_COMPOSITING` set for the tests wins: the benchmark measures both.)
            .env(
                "ASSAY_GPU_COMPOSITING",
                compositing.map(str::to_string).unwrap_or_else(|| {
                    std::env::var("ASSAY_GPU_COMPOSITING").unwrap_or_else(|_| "1".into())
                }),
            )
            .process_group(0)
            .spawn()
            .expect("tauri-driver on PATH (cargo install tauri-driver --version ^2 --locked)");
        assert!(
            poll(WAIT, || TcpStream::connect(("127.0.0.1", port)).is_ok()),
            "tauri-driver did not start"
        );
        Driver { child, port }
    }
}

/// How long the driver's processes have to end on TERM before they are killed. It only bounds
/// a failure to end: the wait returns as soon as none of them runs.
const GRACE: Duration = Duration::from_secs(2);

impl Drop for Driver {
    fn drop(&mut self) {
        let pgid = self.child.id();
        let group = format!("-{pgid}");
        let _ = Command::new("kill").args(["-TERM", "--", &group]).status();
        poll(GRACE, || !group_running(pgid));
        let _ = Command::new("kill").args(["-KILL", "--", &group]).status();
        let _ = self.child.wait();
    }
}

/// Whether a process of the process group `pgid` still runs. A zombie does not: tauri-driver
/// itself stays one until it is reaped, after the KILL.
fn group_running(pgid: u32) -> bool {
    let Ok(procs) = std::fs::read_dir("/proc") else {
        return false;
    };
    procs.flatten().any(|e| {
        let Ok(stat) = std::fs::read_to_string(e.path().join("stat")) else {
            return false;
        };
        // "pid (comm) state ppid pgrp ...", where comm may hold spaces and parentheses.
        let Some((_, rest)) = stat.rsplit_once(')') else {
            return false;
        };
        let mut fields = rest.split_whitespace();
        let state = fields.next().unwrap_or("Z");
        let pgrp = fields.nth(1).and_then(|g| g.parse::<u32>().ok());
        !matches!(state, "Z" | "X" | "x") && pgrp == Some(pgid)
    })
}

pub async fn launch(driver: &Driver, project: &Path) -> Client {
    let caps = json!({
        "browserName": "wry",
        "tauri:options": {
            "application": app_binary(),
            "args": ["--project", project],
        }
    });
    let caps = caps.as_object().cloned().unwrap_or_default();
    let _ = rustls::crypto::ring::default_provider().install_default();
    let mut last = String::new();
    let mut timed_out = 0;
    // A busy machine can take seconds to bring up tauri-driver and its WebKit process: retry
    // for up to ~20 s rather than fail on the first dropped connection. Under `stress-ng --cpu
    // 2` the app once died in GTK's start ("Failed to initialize GTK") and WebKitWebDriver
    // never answered the session request: each attempt is bounded, so a lost launch is tried
    // again and, at worst, fails instead of hanging the run.
    let url = format!("http://127.0.0.1:{}", driver.port);
    for attempt in 0..12u64 {
        let mut builder = ClientBuilder::rustls().expect("tls");
        builder.capabilities(caps.clone());
        let connect = builder.connect(&url);
        match tokio::time::timeout(Duration::from_secs(45), connect).await {
            Ok(Ok(c)) => return c,
            Ok(Err(e)) => last = format!("{e:?}"),
            Err(_) => {
                last = "no answer to the session request in 45 s".into();
                timed_out += 1;
                if timed_out == 3 {
                    break;
                }
            }
        }
        tokio::time::sleep(Duration::from_millis(500 * (attempt + 1).min(4))).await;
    }
    panic!("could not start a WebDriver session: {last}");
}

/// The app's processes (`assay-app`) below the scenario's tauri-driver.
pub fn app_processes(driver: &Driver) -> Vec<u32> {
    let parent_of = |pid: u32| -> Option<u32> {
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
        status
            .lines()
            .find_map(|l| l.strip_prefix("PPid:"))
            .and_then(|v| v.trim().parse().ok())
    };
    let below_driver = |mut pid: u32| {
        while let Some(parent) = parent_of(pid) {
            if parent == driver.child.id() {
                return true;
            }
            if parent <= 1 {
                return false;
            }
            pid = parent;
        }
        false
    };
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            std::fs::read_to_string(format!("/proc/{pid}/comm"))
                .is_ok_and(|c| c.trim() == "assay-app")
        })
        .filter(|pid| below_driver(*pid))
        .collect()
}
