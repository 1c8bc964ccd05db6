//! `assay://localhost/preview/<hash>?size=N` and `assay://localhost/image/<hash>`: image bytes
//! straight from the project file, off the main thread, without base64 over IPC.

use tauri::http::{Request, Response, StatusCode};
use tauri::{Manager, Runtime, UriSchemeContext, UriSchemeResponder};

use crate::state::AppState;

fn respond(status: StatusCode, mime: &str, body: Vec<u8>) -> Response<Vec<u8>> {
    // Content-addressed bytes never change; a miss (offline, not fetched yet) must be asked again.
    let cache = if status == StatusCode::OK {
        "max-age=31536000, immutable"
    } else {
        "no-store"
    };
    Response::builder()
        .status(status)
        .header("Content-Type", mime)
        .header("Cache-Control", cache)
        .body(body)
        .unwrap_or_default()
}

fn sniff(bytes: &[u8]) -> &'static str {
    match bytes {
        [0x89, b'P', b'N', b'G', ..] => "image/png",
        [0xFF, 0xD8, ..] => "image/jpeg",
        [b'G', b'I', b'F', ..] => "image/gif",
        [b'R', b'I', b'F', b'F', _, _, _, _, b'W', b'E', b'B', b'P', ..] => "image/webp",
        _ => "application/octet-stream",
    }
}

pub fn handle<R: Runtime>(
    ctx: UriSchemeContext<'_, R>,
    request: Request<Vec<u8>>,
    responder: UriSchemeResponder,
) {
    let app = ctx.app_handle().clone();
    std::thread::spawn(move || {
        let uri = request.uri();
        let path = uri.path().trim_start_matches('/').to_string();
        let size: u32 = uri
            .query()
            .and_then(|q| q.split('&').find_map(|kv| kv.strip_prefix("size=")))
            .and_then(|v| v.parse().ok())
            .unwrap_or(256);
        let state = app.state::<AppState>();
        // The session's lock is held only to read the project's path; the image is read and
        // any preview made on a reader connection of its own.
        let project = state.session().and_then(|s| s.project_path());
        let read = |p: &std::path::Path| match path.split_once('/') {
            Some(("preview", hash)) => state.images.preview(p, hash, size),
            Some(("image", hash)) => state.images.image(p, hash),
            _ => Err(assay_api::ApiError::new("not_found", "unknown image path")),
        };
        let result = project.and_then(|p| match read(&p) {
            // A team replica fetches an image the first time it is shown.
            Err(e) if e.code == "not_found" => {
                let hash = path.split_once('/').map(|x| x.1).unwrap_or_default();
                let password = state.session().ok().and_then(|s| s.team_password.clone());
                match assay_api::team::fetch_image(&p, hash, password.as_deref()) {
                    Ok(true) => read(&p),
                    _ => Err(e),
                }
            }
            other => other,
        });
        let resp = match result {
            Ok(bytes) => {
                let mime = sniff(&bytes);
                respond(StatusCode::OK, mime, bytes)
            }
            Err(e) => respond(StatusCode::NOT_FOUND, "text/plain", e.message.into_bytes()),
        };
        responder.respond(resp);
    });
}
