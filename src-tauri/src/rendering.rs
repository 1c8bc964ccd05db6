//! How the webview draws, chosen before it starts.
//!
//! WebKitGTK composites the page through OpenGL. Without a GPU (no DRM render node: a VM, a
//! remote desktop, Xvfb) that OpenGL is Mesa's llvmpipe, a software rasteriser that loads LLVM
//! into both the app and the web process and keeps GL buffers: about 110 MB more for the app,
//! for drawing that is no faster than WebKit's own software path. So Assay turns compositing off
//! when there is no render node. `ASSAY_GPU_COMPOSITING=1` keeps it on anyway, `=0` turns it off
//! on any machine, and a `WEBKIT_DISABLE_COMPOSITING_MODE` already set by the user wins.

use std::path::Path;

/// Whether WebKit should composite through OpenGL on this machine.
pub fn compositing_wanted(setting: Option<&str>, dri: &Path) -> bool {
    match setting {
        Some("1") => true,
        Some("0") => false,
        _ => has_render_node(dri),
    }
}

fn has_render_node(dri: &Path) -> bool {
    std::fs::read_dir(dri)
        .map(|entries| {
            entries
                .flatten()
                .any(|e| e.file_name().to_string_lossy().starts_with("renderD"))
        })
        .unwrap_or(false)
}

/// Sets WebKit's switch before any thread or webview exists (the environment is read once, by
/// the web process it starts).
pub fn choose() {
    if !cfg!(target_os = "linux") || std::env::var_os("WEBKIT_DISABLE_COMPOSITING_MODE").is_some() {
        return;
    }
    let setting = std::env::var("ASSAY_GPU_COMPOSITING").ok();
    if !compositing_wanted(setting.as_deref(), Path::new("/dev/dri")) {
        std::env::set_var("WEBKIT_DISABLE_COMPOSITING_MODE", "1");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_render_node_keeps_compositing_and_the_setting_overrides_it() {
        let dir = std::env::temp_dir().join(format!("assay-dri-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        // A card node alone (a display without a render node) is not a GPU WebKit can use.
        std::fs::write(dir.join("card0"), b"").unwrap();
        assert!(!compositing_wanted(None, &dir));
        assert!(compositing_wanted(Some("1"), &dir));
        std::fs::write(dir.join("renderD128"), b"").unwrap();
        assert!(compositing_wanted(None, &dir));
        assert!(!compositing_wanted(Some("0"), &dir));
        assert!(!compositing_wanted(None, &dir.join("missing")));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
