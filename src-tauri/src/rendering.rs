//! How the webview draws, chosen before it starts.
//!
//! WebKitGTK composites the page through OpenGL. Without a GPU (a VM, a cloud desktop, Xvfb)
//! that OpenGL is Mesa's llvmpipe, a software rasteriser that loads LLVM into both the app and
//! the web process and keeps GL buffers: about 110 MB more for the app, for drawing that is no
//! faster than WebKit's own software path. So Assay turns compositing off when it finds no GPU
//! it can open: no DRM render node it may read and write, no NVIDIA device (the proprietary
//! driver may come without a render node) and no WSL2 GPU. A render node that is itself
//! software (a VM's virtio-gpu without virgl) is not told apart and keeps compositing on, as
//! before. `ASSAY_GPU_COMPOSITING=1` keeps compositing on anyway, `=0` turns it off on any
//! machine, and a `WEBKIT_DISABLE_COMPOSITING_MODE` the user already set wins.
//!
//! Compositing off is not enough to keep LLVM out of the app's own process: GTK opens GLX when
//! it opens the display, and WebKit's UI side sets up an EGL display once, to find the render
//! node it hands the web process. Both load Mesa's driver and with it LLVM (~50 MB of the app
//! process's RSS, `bench-memory`). So whenever compositing is off, whoever turned it off, GTK's
//! GL and WebKit's DMA-BUF renderer (which needs that EGL display) are turned off too, and the
//! render node is named as a path that cannot be opened, so that nothing probes for one. The
//! web process still loads Mesa: WebKitGTK 2.50 creates its surfaceless EGL display
//! unconditionally, and only a patched WebKit avoids that. A variable the user set stays theirs.

use std::path::Path;

/// Whether WebKit should composite through OpenGL on this machine; `dev` is `/dev`.
pub fn compositing_wanted(setting: Option<&str>, dev: &Path) -> bool {
    match setting.map(|s| s.trim().to_ascii_lowercase()).as_deref() {
        Some("1" | "true" | "yes" | "on") => true,
        Some("0" | "false" | "no" | "off") => false,
        _ => has_gpu(dev),
    }
}

fn has_gpu(dev: &Path) -> bool {
    let render_node = std::fs::read_dir(dev.join("dri"))
        .map(|entries| {
            entries.flatten().any(|e| {
                e.file_name().to_string_lossy().starts_with("renderD")
                    && std::fs::OpenOptions::new()
                        .read(true)
                        .write(true)
                        .open(e.path())
                        .is_ok()
            })
        })
        .unwrap_or(false);
    render_node || dev.join("nvidia0").exists() || dev.join("dxg").exists()
}

/// A render node that does not exist: WebKit takes the name instead of probing EGL for one,
/// and a WebKit that opens it fails at once (an openable file such as `/dev/null` would be
/// handed to Mesa's GBM by older WebKitGTK).
const NO_RENDER_NODE: &str = "/nonexistent/assay-no-render-node";

/// The variables to set before the webview starts, given the environment (`current`) and
/// whether this machine should composite (`wanted`, asked only if the user has not decided with
/// `WEBKIT_DISABLE_COMPOSITING_MODE`). Empty while compositing stays on; otherwise everything
/// that keeps GL out of a webview drawing in software, except what the user already set.
pub fn drawing_env(
    current: impl Fn(&str) -> Option<std::ffi::OsString>,
    wanted: impl FnOnce() -> bool,
) -> Vec<(&'static str, &'static str)> {
    // WebKit reads any value but "0" as "off".
    let compositing = match current("WEBKIT_DISABLE_COMPOSITING_MODE") {
        Some(v) => v == "0",
        None => wanted(),
    };
    if compositing {
        return Vec::new();
    }
    [
        ("WEBKIT_DISABLE_COMPOSITING_MODE", "1"),
        ("WEBKIT_DISABLE_DMABUF_RENDERER", "1"),
        ("WEBKIT_WEB_RENDER_DEVICE_FILE", NO_RENDER_NODE),
        ("GDK_GL", "disable"),
    ]
    .into_iter()
    .filter(|(name, _)| current(name).is_none())
    .collect()
}

/// Sets WebKit's switches before any thread or webview exists (the web process it starts reads
/// the environment).
pub fn choose() {
    if !cfg!(target_os = "linux") {
        return;
    }
    let wanted = || {
        let setting = std::env::var("ASSAY_GPU_COMPOSITING").ok();
        compositing_wanted(setting.as_deref(), Path::new("/dev"))
    };
    for (name, value) in drawing_env(|name| std::env::var_os(name), wanted) {
        std::env::set_var(name, value);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_gpu_keeps_compositing_and_the_setting_overrides_it() {
        let dev = std::env::temp_dir().join(format!("assay-dev-{}", std::process::id()));
        let dri = dev.join("dri");
        std::fs::create_dir_all(&dri).unwrap();
        // A card node alone (a display without a render node) is not a GPU WebKit can use.
        std::fs::write(dri.join("card0"), b"").unwrap();
        assert!(!compositing_wanted(None, &dev));
        assert!(compositing_wanted(Some("1"), &dev));
        assert!(compositing_wanted(Some(" Yes"), &dev));
        assert!(
            !compositing_wanted(Some("maybe"), &dev),
            "unknown: detected"
        );
        std::fs::write(dri.join("renderD128"), b"").unwrap();
        assert!(compositing_wanted(None, &dev));
        assert!(!compositing_wanted(Some("0"), &dev));
        assert!(!compositing_wanted(Some("off"), &dev));
        std::fs::remove_file(dri.join("renderD128")).unwrap();
        // NVIDIA's driver without nvidia-drm, and WSL2, have no render node.
        std::fs::write(dev.join("nvidia0"), b"").unwrap();
        assert!(compositing_wanted(None, &dev));
        std::fs::remove_file(dev.join("nvidia0")).unwrap();
        std::fs::write(dev.join("dxg"), b"").unwrap();
        assert!(compositing_wanted(None, &dev));
        assert!(!compositing_wanted(None, &dev.join("missing")));
        std::fs::remove_dir_all(&dev).unwrap();
    }

    #[test]
    fn software_drawing_keeps_gl_out_and_what_the_user_set() {
        let set = |vars: &'static [(&'static str, &'static str)]| {
            move |name: &str| {
                vars.iter()
                    .find(|(n, _)| *n == name)
                    .map(|(_, v)| std::ffi::OsString::from(*v))
            }
        };
        fn names(env: Vec<(&'static str, &'static str)>) -> Vec<&'static str> {
            env.into_iter().map(|(n, _)| n).collect()
        }
        // A GPU: nothing changes.
        assert!(drawing_env(set(&[]), || true).is_empty());
        // None: compositing, GTK's GL, the DMA-BUF renderer and the render-node probe off.
        let all = drawing_env(set(&[]), || false);
        assert_eq!(
            names(all.clone()),
            [
                "WEBKIT_DISABLE_COMPOSITING_MODE",
                "WEBKIT_DISABLE_DMABUF_RENDERER",
                "WEBKIT_WEB_RENDER_DEVICE_FILE",
                "GDK_GL"
            ]
        );
        assert!(all.contains(&("GDK_GL", "disable")));
        let node = all
            .iter()
            .find(|(n, _)| n.ends_with("DEVICE_FILE"))
            .unwrap()
            .1;
        assert!(std::fs::File::open(node).is_err(), "{node} must not open");
        // Compositing turned off by the user, on any machine: GL goes too, their value stays.
        let by_user = drawing_env(set(&[("WEBKIT_DISABLE_COMPOSITING_MODE", "1")]), || {
            panic!("the user decided")
        });
        assert_eq!(
            names(by_user),
            [
                "WEBKIT_DISABLE_DMABUF_RENDERER",
                "WEBKIT_WEB_RENDER_DEVICE_FILE",
                "GDK_GL"
            ]
        );
        // "0" is WebKit's "on": the user keeps compositing, even without a GPU.
        assert!(drawing_env(set(&[("WEBKIT_DISABLE_COMPOSITING_MODE", "0")]), || false).is_empty());
        // A render node the user chose, or GTK's GL they asked for, stays theirs.
        let some = drawing_env(
            set(&[
                ("WEBKIT_WEB_RENDER_DEVICE_FILE", "/dev/dri/renderD129"),
                ("GDK_GL", "always"),
            ]),
            || false,
        );
        assert_eq!(
            some,
            [
                ("WEBKIT_DISABLE_COMPOSITING_MODE", "1"),
                ("WEBKIT_DISABLE_DMABUF_RENDERER", "1")
            ]
        );
    }
}
