//! Installs what a fresh Debian machine lacks: system packages (apt), the UI's npm packages and
//! tauri-driver. Each step is skipped when already satisfied, so it is cheap to run every time.

use std::path::Path;
use std::process::Command;

use anyhow::{bail, Result};

use crate::{root, run};

/// WebKitGTK and friends for Tauri, Xvfb and the WebDriver for E2E, CJK fonts for screenshots,
/// PostgreSQL for the team tests.
pub const APT_PACKAGES: &[&str] = &[
    "libwebkit2gtk-4.1-dev",
    "build-essential",
    "libssl-dev",
    "libayatana-appindicator3-dev",
    "librsvg2-dev",
    "libgtk-3-dev",
    "libsoup-3.0-dev",
    "file",
    "pkg-config",
    "xvfb",
    "xauth",
    "webkit2gtk-driver",
    // The team page is tested in a real headless Chromium, driven by chromedriver.
    "chromium",
    "chromium-driver",
    "imagemagick",
    "fonts-noto-cjk",
    // The team tests start a private cluster of their own (assay-sync's cluster.rs).
    "postgresql",
    // The interoperability test reads exports with datasets, pycocotools and Label Studio's
    // converter in a virtual environment of its own (crates/assay-cli/tests/interop.rs).
    "python3-venv",
    // Japanese readings (kanji to kana) for the short-answer scorer: IPAdic's noun lists
    // (crates/assay-eval/src/scorers/text/readings.rs).
    "mecab-ipadic",
    // Korean readings (Hanja to Hangul) for the same scorer: libhangul's Hanja table
    // (crates/assay-eval/src/scorers/text/hanja.rs).
    "libhangul-data",
];

fn missing_apt() -> Vec<&'static str> {
    APT_PACKAGES
        .iter()
        .copied()
        .filter(|p| {
            let out = Command::new("dpkg-query").args(["-W", "-f=${Status}", p]).output();
            !matches!(out, Ok(o) if String::from_utf8_lossy(&o.stdout).contains("install ok installed"))
        })
        .collect()
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}

pub fn apt() -> Result<()> {
    let missing = missing_apt();
    if missing.is_empty() {
        return Ok(());
    }
    eprintln!("installing system packages: {}", missing.join(" "));
    let sudo: &[&str] = if is_root() { &[] } else { &["sudo"] };
    let apt = |args: &[&str]| -> Result<()> {
        let (cmd, rest) = match sudo.first() {
            Some(s) => (*s, [&["apt-get"][..], args].concat()),
            None => ("apt-get", args.to_vec()),
        };
        run(Command::new(cmd)
            .args(rest)
            .env("DEBIAN_FRONTEND", "noninteractive"))
    };
    apt(&["update", "-qq"])?;
    apt(&[
        &["install", "-y", "-qq", "--no-install-recommends"][..],
        &missing,
    ]
    .concat())
}

pub fn npm() -> Result<()> {
    let ui = root().join("ui");
    let stamp = ui.join("node_modules/.package-lock.json");
    let lock = ui.join("package-lock.json");
    let fresh = match (std::fs::metadata(&stamp), std::fs::metadata(&lock)) {
        (Ok(s), Ok(l)) => s.modified()? >= l.modified()?,
        _ => false,
    };
    if !fresh {
        run(Command::new("npm")
            .args(["ci", "--no-audit", "--no-fund"])
            .current_dir(&ui))?;
    }
    Ok(())
}

pub fn tauri_driver() -> Result<()> {
    if which("tauri-driver") && which("WebKitWebDriver") {
        return Ok(());
    }
    if !which("tauri-driver") {
        run(crate::cargo().args(["install", "tauri-driver", "--version", "^2", "--locked"]))?;
    }
    if !which("WebKitWebDriver") {
        bail!("WebKitWebDriver is missing (Debian package webkit2gtk-driver)");
    }
    Ok(())
}

pub fn which(bin: &str) -> bool {
    std::env::var_os("PATH")
        .map(|paths| std::env::split_paths(&paths).any(|d| d.join(bin).is_file()))
        .unwrap_or(false)
        || Path::new(&format!(
            "{}/.cargo/bin/{bin}",
            std::env::var("HOME").unwrap_or_default()
        ))
        .is_file()
}

pub fn npm_run(script: &str) -> Result<()> {
    run(Command::new("npm")
        .args(["run", "--silent", script])
        .current_dir(root().join("ui")))
}

/// The UI bundle and the app binary that loads it (not a dev server).
pub fn build_app() -> Result<()> {
    npm_run("build")?;
    run(crate::cargo().args(["build", "-p", "assay-app", "--features", "custom-protocol"]))
}
