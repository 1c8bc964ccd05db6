//! Images as the model receives them: resized to the size `scorers::grounding::sent_size`
//! gives (the size the prompt states and the grounding scorer maps boxes back from), encoded as
//! JPEG or PNG, sent as data URLs. Encoded copies are kept per (hash, policy) for the engine's life;
//! the bytes come from the engine's reader connection.

use std::collections::HashMap;
use std::io::Cursor;
use std::sync::{Arc, Mutex};

use base64::Engine as _;

use crate::model::{ImageEncoding, ImagePolicy};

/// (image hash, view, size sent, PNG?).
type EncodedKey = (String, Option<String>, (u32, u32), bool);

#[derive(Default)]
pub struct ImageEncoder {
    cache: Mutex<HashMap<EncodedKey, Arc<String>>>,
}

const MAX_CACHED: usize = 512;

impl ImageEncoder {
    /// The image (after its variant's view, when it has one) as a data URL at `sent` size.
    /// Reading the bytes holds the caller's connection briefly; decoding (through core's
    /// limited decoder), resizing and encoding run on a blocking thread so the async workers
    /// keep serving requests.
    pub async fn data_url(
        &self,
        hash: &str,
        view: Option<&assay_core::imaging::ImageView>,
        policy: &ImagePolicy,
        sent: (u32, u32),
        load: impl FnOnce(&str) -> Result<Vec<u8>, String>,
    ) -> Result<Arc<String>, String> {
        let key = (
            hash.to_string(),
            view.map(|v| v.key()),
            sent,
            policy.encoding == ImageEncoding::Png,
        );
        if let Some(hit) = self.cache.lock().ok().and_then(|c| c.get(&key).cloned()) {
            return Ok(hit);
        }
        let bytes = load(hash)?;
        let encoding = policy.encoding;
        let label = hash.to_string();
        let url = tokio::task::spawn_blocking(move || encode(&bytes, sent, encoding))
            .await
            .map_err(|e| format!("image {label}: {e}"))?
            .map_err(|e| format!("image {label}: {e}"))?;
        let url = Arc::new(url);
        if let Ok(mut c) = self.cache.lock() {
            if c.len() >= MAX_CACHED {
                c.clear();
            }
            c.insert(key, url.clone());
        }
        Ok(url)
    }
}

fn encode(bytes: &[u8], sent: (u32, u32), encoding: ImageEncoding) -> Result<String, String> {
    let img = assay_core::imaging::decode(bytes)?;
    let img = if (img.width(), img.height()) != sent {
        img.resize_exact(sent.0, sent.1, image::imageops::FilterType::Triangle)
    } else {
        img
    };
    let mut out = Cursor::new(Vec::new());
    let mime = match encoding {
        ImageEncoding::Png => {
            img.write_to(&mut out, image::ImageFormat::Png)
                .map_err(|e| e.to_string())?;
            "image/png"
        }
        ImageEncoding::Jpeg => {
            img.to_rgb8()
                .write_to(&mut out, image::ImageFormat::Jpeg)
                .map_err(|e| e.to_string())?;
            "image/jpeg"
        }
    };
    Ok(format!(
        "data:{mime};base64,{}",
        base64::engine::general_purpose::STANDARD.encode(out.into_inner())
    ))
}
